/**
 * The suites' software passkey (support/passkey.ts) against the library the server verifies
 * with, @simplewebauthn/server, with no server: its honest answers to options from
 * generateAuthenticationOptions / generateRegistrationOptions are accepted with user
 * verification required, and each forged answer is refused for the reason it was forged.
 * A helper that passed forgeries would make every hostile WebAuthn test of the HTTP suites
 * pass for nothing.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { SoftwarePasskey, userHandleFor, type PasskeyOptions } from "./support/passkey.js";

/** An RP like the test server's: origin http://localhost:<port>, RP ID its hostname. */
const ORIGIN = "http://localhost:4321";
const RP_ID = "localhost";
const USER_ID = "user-7f3a";

const passkey = (o: Partial<PasskeyOptions> = {}) => new SoftwarePasskey({ origin: ORIGIN, ...o });

function authenticationOptions(allowCredentials: { id: string }[] = []): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({ rpID: RP_ID, userVerification: "required", allowCredentials });
}

function registrationOptions(excludeCredentials: { id: string }[] = []): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: "Tollgate",
    rpID: RP_ID,
    userName: "alice",
    userID: new TextEncoder().encode(USER_ID),
    attestationType: "none",
    excludeCredentials,
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
}

/** Verifies an assertion as the server would: the stored credential of `key`, with `storedCounter`. */
function verifyAssertion(key: SoftwarePasskey, response: AuthenticationResponseJSON, options: PublicKeyCredentialRequestOptionsJSON, storedCounter = key.counter) {
  return verifyAuthenticationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    credential: { id: key.credentialId, publicKey: key.coseKeyBytes(), counter: storedCounter, transports: ["internal"] },
    requireUserVerification: true,
  });
}

function verifyRegistration(response: RegistrationResponseJSON, options: PublicKeyCredentialCreationOptionsJSON) {
  return verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, requireUserVerification: true });
}

/** "verified", "not verified", or the error the verification threw. */
async function verdict(verification: Promise<{ verified: boolean }>): Promise<string> {
  try {
    return (await verification).verified ? "verified" : "not verified";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("software passkey: authentication", () => {
  it("an honest assertion is verified, with user verification, and names the credential and the user", async () => {
    const key = passkey();
    const factor = key.factor(USER_ID, "Laptop");
    expect(factor).toEqual({ type: "webauthn", userId: USER_ID, name: "Laptop", credentialId: key.credentialId, publicKey: key.cosePublicKey(), counter: 0, deviceType: "singleDevice", transports: ["internal"] });
    const options = await authenticationOptions();
    const response = key.assert(options);
    expect(response).toMatchObject({ id: key.credentialId, rawId: key.credentialId, type: "public-key", authenticatorAttachment: "platform", clientExtensionResults: {} });
    expect(response.response.userHandle).toBe(userHandleFor(USER_ID));
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8"));
    expect(clientData).toEqual({ type: "webauthn.get", challenge: options.challenge, origin: ORIGIN, crossOrigin: false });

    const result = await verifyAssertion(key, response, options);
    expect(result.verified).toBe(true);
    expect(result.authenticationInfo).toMatchObject({ credentialID: key.credentialId, newCounter: 0, userVerified: true, credentialDeviceType: "singleDevice", credentialBackedUp: false, origin: ORIGIN, rpID: RP_ID });
  });

  it("a counter of 0 stays 0 (an authenticator without a counter); any other counts up by one per assertion", async () => {
    const counterless = passkey();
    for (let i = 0; i < 3; i++) {
      const options = await authenticationOptions();
      expect((await verifyAssertion(counterless, counterless.assert(options), options)).authenticationInfo.newCounter).toBe(0);
    }
    const counting = passkey({ counter: 41 });
    let stored = counting.factor(USER_ID).counter;
    for (const expected of [42, 43, 44]) {
      const options = await authenticationOptions();
      const result = await verifyAssertion(counting, counting.assert(options), options, stored);
      expect(result.verified).toBe(true);
      expect(result.authenticationInfo.newCounter).toBe(expected);
      stored = result.authenticationInfo.newCounter;
    }
  });

  it("a synced passkey is backed up: multiDevice", async () => {
    const key = passkey({ synced: true });
    expect(key.factor(USER_ID).deviceType).toBe("multiDevice");
    const options = await authenticationOptions();
    const result = await verifyAssertion(key, key.assert(options), options);
    expect(result.authenticationInfo).toMatchObject({ credentialDeviceType: "multiDevice", credentialBackedUp: true });
  });

  it("each forged assertion is refused for what was forged", async () => {
    const key = passkey({ counter: 10 });
    key.factor(USER_ID);
    const other = passkey();
    const cases: [string, (o: PublicKeyCredentialRequestOptionsJSON) => AuthenticationResponseJSON, RegExp][] = [
      ["another origin", (o) => key.assert(o, { origin: "https://evil.example" }), /Unexpected authentication response origin "https:\/\/evil.example"/],
      ["another RP ID", (o) => key.assert(o, { rpId: "evil.example" }), /Unexpected RP ID hash/],
      ["another challenge", (o) => key.assert(o, { challenge: "c3RhbGUtY2hhbGxlbmdl" }), /Unexpected authentication response challenge "c3RhbGUtY2hhbGxlbmdl"/],
      ["a registration's client data", (o) => key.assert(o, { type: "webauthn.create" }), /Unexpected authentication response type: webauthn.create/],
      ["no user verification", (o) => key.assert(o, { userVerified: false }), /User verification required/],
      ["no user presence", (o) => key.assert(o, { userPresent: false }), /User not present/],
      ["the stored counter again (a cloned authenticator)", (o) => key.assert(o, { counter: 10 }), /Response counter value 10 was lower than expected 10/],
      ["a counter below the stored one", (o) => key.assert(o, { counter: 3 }), /Response counter value 3 was lower than expected 10/],
      ["a tampered signature", (o) => key.assert(o, { tamperSignature: true }), /^not verified$/],
      ["another key claiming this credential", (o) => other.assert(o, { credentialId: key.credentialId, counter: 50 }), /^not verified$/],
    ];
    for (const [what, forge, refusal] of cases) {
      const options = await authenticationOptions();
      expect(await verdict(verifyAssertion(key, forge(options), options, 10)), what).toMatch(refusal);
    }
    // The forgeries did not break the passkey: its next honest answer still passes.
    const options = await authenticationOptions();
    expect(await verdict(verifyAssertion(key, key.assert(options), options, 10))).toBe("verified");
  });

  it("a counterless passkey is refused once the server has stored a counter above 0", async () => {
    const key = passkey();
    const options = await authenticationOptions();
    expect(await verdict(verifyAssertion(key, key.assert(options), options, 5))).toMatch(/Response counter value 0 was lower than expected 5/);
  });

  it("user handle: left out or replaced on demand", async () => {
    const key = passkey();
    key.factor(USER_ID);
    const options = await authenticationOptions();
    expect(key.assert(options, { userHandle: null }).response).not.toHaveProperty("userHandle");
    expect(key.assert(options, { userHandle: userHandleFor("bob") }).response.userHandle).toBe(userHandleFor("bob"));
  });

  it("like a browser, finds no credential for another RP ID or when allowCredentials leaves it out", async () => {
    const key = passkey();
    expect(() => key.assert({ challenge: "YWJj", rpId: "evil.example" })).toThrow(/no credential for RP ID evil.example/);
    expect(() => key.assert({ challenge: "YWJj", rpId: RP_ID, allowCredentials: [{ id: passkey().credentialId, type: "public-key" }] })).toThrow(/not in allowCredentials/);
    const options = await authenticationOptions([{ id: key.credentialId }]);
    expect(await verdict(verifyAssertion(key, key.assert(options), options))).toBe("verified");
  });
});

describe("software passkey: registration", () => {
  it("an honest registration is verified with none attestation, and the stored credential then verifies an assertion", async () => {
    const key = passkey({ counter: 7 });
    const options = await registrationOptions();
    const response = key.register(options);
    expect(key.userHandle).toBe(options.user.id);
    expect(key.userHandle).toBe(userHandleFor(USER_ID));
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8"));
    expect(clientData).toEqual({ type: "webauthn.create", challenge: options.challenge, origin: ORIGIN, crossOrigin: false });

    const result = await verifyRegistration(response, options);
    if (!result.verified) throw new Error("registration not verified");
    const info = result.registrationInfo;
    expect(info).toMatchObject({ fmt: "none", aaguid: "00000000-0000-0000-0000-000000000000", userVerified: true, credentialDeviceType: "singleDevice", credentialBackedUp: false, origin: ORIGIN, rpID: RP_ID });
    expect(info.credential.id).toBe(key.credentialId);
    expect(info.credential.counter).toBe(7);
    expect(Buffer.from(info.credential.publicKey).toString("base64url")).toBe(key.cosePublicKey());

    const login = await authenticationOptions();
    const assertion = key.assert(login);
    expect(assertion.response.userHandle).toBe(options.user.id);
    const verified = await verifyAuthenticationResponse({ response: assertion, expectedChallenge: login.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: info.credential, requireUserVerification: true });
    expect(verified.authenticationInfo.newCounter).toBe(8);
  });

  it("a synced passkey registers as multiDevice, backed up", async () => {
    const options = await registrationOptions();
    const result = await verifyRegistration(passkey({ synced: true }).register(options), options);
    expect(result.registrationInfo).toMatchObject({ credentialDeviceType: "multiDevice", credentialBackedUp: true });
  });

  it("each forged registration is refused for what was forged", async () => {
    const key = passkey();
    const cases: [string, (o: PublicKeyCredentialCreationOptionsJSON) => RegistrationResponseJSON, RegExp][] = [
      ["another origin", (o) => key.register(o, { origin: "https://evil.example" }), /Unexpected registration response origin "https:\/\/evil.example"/],
      ["another RP ID", (o) => key.register(o, { rpId: "evil.example" }), /Unexpected RP ID hash/],
      ["another challenge", (o) => key.register(o, { challenge: "c3RhbGUtY2hhbGxlbmdl" }), /Unexpected registration response challenge "c3RhbGUtY2hhbGxlbmdl"/],
      ["an assertion's client data", (o) => key.register(o, { type: "webauthn.get" }), /Unexpected registration response type: webauthn.get/],
      ["no user verification", (o) => key.register(o, { userVerified: false }), /User verification was required/],
      ["no user presence", (o) => key.register(o, { userPresent: false }), /User presence was required/],
    ];
    for (const [what, forge, refusal] of cases) {
      const options = await registrationOptions();
      expect(await verdict(verifyRegistration(forge(options), options)), what).toMatch(refusal);
    }
  });

  it("like a browser, refuses an excluded credential, another RP ID, and options without ES256", async () => {
    const key = passkey();
    const excluding = await registrationOptions([{ id: key.credentialId }]);
    expect(() => key.register(excluding)).toThrow(/excluded/);
    const options = await registrationOptions();
    expect(() => key.register({ ...options, rp: { ...options.rp, id: "evil.example" } })).toThrow(/RP ID evil.example/);
    expect(() => key.register({ ...options, pubKeyCredParams: [{ alg: -257, type: "public-key" }] })).toThrow(/ES256/);
  });
});
