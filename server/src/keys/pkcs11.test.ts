/**
 * The PKCS#11 backend against a real SoftHSM2 (server/test/support/softhsm.ts): keys made in
 * the token, JWS that node:crypto and jose verify with the public JWK, private keys the
 * binding cannot read, keys that outlive the session and the module's initialization, and
 * a device that cannot be used (wrong PIN, no module, token gone) told as
 * KeyBackendUnavailable with a reason.
 */
import { constants, createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { cpSync, readdirSync, rmSync } from "node:fs";
import { compactVerify, importJWK, type JWK } from "jose";
import pkcs11js from "pkcs11js";
import { afterEach, describe, expect, it } from "vitest";
import { softHsmToken, withTokenSession, type SoftHsmToken } from "../../test/support/softhsm.js";
import { KeyBackendUnavailable, type KeyBackend, type OwnSigningAlgorithm } from "./backend.js";
import { pkcs11Backend, type Pkcs11Settings } from "./pkcs11.js";

const tokens: SoftHsmToken[] = [];
const backends: KeyBackend[] = [];

/** A new token for this test (made before any backend of the test opens: see softhsm.ts). */
function token(label = "tollgate-test"): SoftHsmToken {
  const made = softHsmToken(label);
  tokens.push(made);
  return made;
}

/** A backend closed at the end of the test. */
function backend(settings: Pkcs11Settings): KeyBackend {
  const made = pkcs11Backend(settings);
  backends.push(made);
  return made;
}

/** Closes every backend (the last finalizes the module), then removes the tokens. */
afterEach(async () => {
  for (const made of backends.splice(0)) await made.close();
  for (const made of tokens.splice(0)) made.remove();
});

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A compact JWS (RFC 7515 §7.1) signed by `keys`. */
async function jws(keys: KeyBackend, kid: string, privateRef: string, alg: OwnSigningAlgorithm, payload: object = { sub: "alice", n: Math.random() }): Promise<string> {
  const signingInput = `${b64url({ alg, kid, typ: "JWT" })}.${b64url(payload)}`;
  const signature = await keys.sign(kid, privateRef, alg, Buffer.from(signingInput, "ascii"));
  return `${signingInput}.${signature.toString("base64url")}`;
}

/** Verifies `token` with `jwk` by node:crypto, as RFC 7518 §3.4 (ES256: R || S) and §3.5 (PS256: PSS, MGF1 SHA-256, 32-byte salt) say. */
function verifiesWithNodeCrypto(token: string, jwk: JWK, alg: OwnSigningAlgorithm): boolean {
  const [header, payload, signature] = token.split(".");
  const key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
  const options = alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" as const } : { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
  return verify("sha256", Buffer.from(`${header}.${payload}`, "ascii"), options, Buffer.from(signature!, "base64url"));
}

/** Expects `promise` to reject with KeyBackendUnavailable whose reason matches `reason`; returns the reason. */
async function unavailable(promise: Promise<unknown>, reason: RegExp): Promise<string> {
  const error = await promise.then(
    () => expect.unreachable("resolved where KeyBackendUnavailable was expected"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeyBackendUnavailable);
  const { reason: told } = error as KeyBackendUnavailable;
  expect(told).toMatch(reason);
  return told;
}

describe("generate and sign in the token", () => {
  it.each(["ES256", "PS256"] as const)("%s: the JWS verifies with the public JWK, by node:crypto and by jose", async (alg) => {
    const keys = backend(token().settings);
    const kid = `key-${alg}`;
    const { publicJwk, privateRef } = await keys.generate(kid, alg);

    expect(privateRef).toBe(Buffer.from(kid).toString("hex"));
    if (alg === "ES256") {
      expect(Object.keys(publicJwk).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
      expect(publicJwk).toMatchObject({ kty: "EC", crv: "P-256", kid, alg, use: "sig" });
      expect(Buffer.from(publicJwk.x!, "base64url")).toHaveLength(32);
      expect(Buffer.from(publicJwk.y!, "base64url")).toHaveLength(32);
    } else {
      expect(Object.keys(publicJwk).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
      expect(publicJwk).toMatchObject({ kty: "RSA", e: "AQAB", kid, alg, use: "sig" });
      expect(Buffer.from(publicJwk.n!, "base64url")).toHaveLength(256); // 2048 bits
    }

    const signed = await jws(keys, kid, privateRef, alg, { sub: "alice" });
    const signature = Buffer.from(signed.split(".")[2]!, "base64url");
    expect(signature).toHaveLength(alg === "ES256" ? 64 : 256);
    expect(verifiesWithNodeCrypto(signed, publicJwk, alg)).toBe(true);

    const { payload, protectedHeader } = await compactVerify(signed, await importJWK(publicJwk, alg));
    expect(protectedHeader).toEqual({ alg, kid, typ: "JWT" });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: "alice" });

    // A JWS altered after signing does not verify: the signature is over the signing input.
    const [header, , sig] = signed.split(".");
    expect(verifiesWithNodeCrypto(`${header}.${b64url({ sub: "mallory" })}.${sig}`, publicJwk, alg)).toBe(false);
  });

  it("signs calls made at once, one after another on the session, each verifying", async () => {
    const keys = backend(token().settings);
    const ec = await keys.generate("ec", "ES256");
    const rsa = await keys.generate("rsa", "PS256");
    const signed = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? jws(keys, "ec", ec.privateRef, "ES256").then((t) => [t, ec.publicJwk, "ES256"] as const) : jws(keys, "rsa", rsa.privateRef, "PS256").then((t) => [t, rsa.publicJwk, "PS256"] as const))),
    );
    await keys.check();
    for (const [signedToken, jwk, alg] of signed) expect(verifiesWithNodeCrypto(signedToken, jwk, alg)).toBe(true);
  });

  it("refuses to make a second key with the id of one in the token", async () => {
    const keys = backend(token().settings);
    await keys.generate("twice", "ES256");
    await expect(keys.generate("twice", "PS256")).rejects.toThrow('the PKCS#11 token "tollgate-test" holds a key with the id twice already');
  });
});

describe("the private key stays in the token", () => {
  it.each([
    ["ES256", [pkcs11js.CKA_VALUE]],
    ["PS256", [pkcs11js.CKA_PRIVATE_EXPONENT, pkcs11js.CKA_PRIME_1, pkcs11js.CKA_PRIME_2, pkcs11js.CKA_EXPONENT_1, pkcs11js.CKA_EXPONENT_2, pkcs11js.CKA_COEFFICIENT]],
  ] as const)("%s: sensitive, never extractable; its private components cannot be read (CKR_ATTRIBUTE_SENSITIVE)", async (alg, secretAttributes) => {
    const made = token();
    const keys = backend(made.settings);
    const { privateRef } = await keys.generate("kept", alg);
    await keys.close(); // withTokenSession initializes the module itself

    withTokenSession(made, (binding, session) => {
      binding.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_ID, value: Buffer.from(privateRef, "hex") },
      ]);
      const found = binding.C_FindObjects(session, 2);
      binding.C_FindObjectsFinal(session);
      expect(found).toHaveLength(1);
      const key = found[0]!;

      const flag = (type: number) => binding.C_GetAttributeValue(session, key, [{ type }])[0]!.value.readUInt8(0) === 1;
      expect(flag(pkcs11js.CKA_TOKEN)).toBe(true);
      expect(flag(pkcs11js.CKA_PRIVATE)).toBe(true);
      expect(flag(pkcs11js.CKA_SENSITIVE)).toBe(true);
      expect(flag(pkcs11js.CKA_EXTRACTABLE)).toBe(false);
      expect(flag(pkcs11js.CKA_ALWAYS_SENSITIVE)).toBe(true);
      expect(flag(pkcs11js.CKA_NEVER_EXTRACTABLE)).toBe(true);
      expect(flag(pkcs11js.CKA_SIGN)).toBe(true);
      expect(flag(pkcs11js.CKA_DECRYPT)).toBe(false);
      expect(binding.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_LABEL }])[0]!.value.toString()).toBe("tollgate:kept");

      for (const type of secretAttributes) {
        expect(() => binding.C_GetAttributeValue(session, key, [{ type }])).toThrow(expect.objectContaining({ message: "CKR_ATTRIBUTE_SENSITIVE", code: pkcs11js.CKR_ATTRIBUTE_SENSITIVE }));
      }
      // Nor can it be made extractable afterwards (v2.40 §4.9: CKA_EXTRACTABLE can only go from true to false).
      expect(() => binding.C_SetAttributeValue(session, key, [{ type: pkcs11js.CKA_EXTRACTABLE, value: true }])).toThrow(/CKR_ATTRIBUTE_READ_ONLY/);
    });
  });
});

describe("keys outlive the session", () => {
  it("another backend over the token signs with the keys the first made, while it is open, after it closed, and after the module restarted", async () => {
    const made = token();
    const first = backend(made.settings);
    const ec = await first.generate("ec-kept", "ES256");
    const rsa = await first.generate("rsa-kept", "PS256");

    const second = backend(made.settings); // a session of its own, same token
    expect(verifiesWithNodeCrypto(await jws(second, "ec-kept", ec.privateRef, "ES256"), ec.publicJwk, "ES256")).toBe(true);
    await first.close(); // closes its own session only: the second's login lasts
    expect(verifiesWithNodeCrypto(await jws(second, "rsa-kept", rsa.privateRef, "PS256"), rsa.publicJwk, "PS256")).toBe(true);
    await second.close(); // the last: the module is finalized

    const third = backend(made.settings); // C_Initialize anew: the keys are read from the token's files
    expect(verifiesWithNodeCrypto(await jws(third, "ec-kept", ec.privateRef, "ES256"), ec.publicJwk, "ES256")).toBe(true);
    expect(verifiesWithNodeCrypto(await jws(third, "rsa-kept", rsa.privateRef, "PS256"), rsa.publicJwk, "PS256")).toBe(true);
  });
});

describe("destroy", () => {
  it("removes both objects of the key, and no other; signing with it then throws KeyBackendUnavailable; destroying it again is fine", async () => {
    const made = token();
    const keys = backend(made.settings);
    const gone = await keys.generate("gone", "PS256");
    const kept = await keys.generate("kept", "ES256");

    await keys.destroy("gone", gone.privateRef);
    await unavailable(keys.sign("gone", gone.privateRef, "PS256", Buffer.from("a.b")), /^the key gone is not in the device$/);
    await keys.destroy("gone", gone.privateRef);
    expect(verifiesWithNodeCrypto(await jws(keys, "kept", kept.privateRef, "ES256"), kept.publicJwk, "ES256")).toBe(true);
    await keys.close();

    withTokenSession(made, (binding, session) => {
      const objectsWithId = (id: string) => {
        binding.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_ID, value: Buffer.from(id) }]);
        const found = binding.C_FindObjects(session, 10);
        binding.C_FindObjectsFinal(session);
        return found.length;
      };
      expect(objectsWithId("gone")).toBe(0);
      expect(objectsWithId("kept")).toBe(2); // its public and private keys
    });
  });
});

describe("a device that cannot be used: KeyBackendUnavailable with the reason, never the PIN", () => {
  it("a wrong PIN: refused, and not tried again", async () => {
    const made = token();
    const wrongPin = "987654";
    const keys = backend({ ...made.settings, pin: wrongPin });
    const reason = await unavailable(keys.check(), /^the token "tollgate-test" refused the PIN \(C_Login answered CKR_PIN_INCORRECT\): set the right PKCS11_PIN and restart the server/);
    expect(reason).not.toContain(wrongPin);
    await unavailable(keys.generate("k", "ES256"), /refused the PIN/);
    await unavailable(keys.sign("k", "6b", "ES256", Buffer.from("a.b")), /refused the PIN/);
    await unavailable(keys.check(), /refused the PIN/);

    // The right PIN opens the token all the same; a wrong one beside it is not let in on its login.
    const right = backend(made.settings);
    await right.check();
    const late = backend({ ...made.settings, pin: wrongPin });
    expect(await unavailable(late.check(), /^the token "tollgate-test" is logged in already in this process with a PIN other than this backend's/)).not.toContain(wrongPin);
  });

  it("a module that does not load", async () => {
    const keys = backend({ module: "/nonexistent/libpkcs11.so", tokenLabel: "tollgate-test", pin: "1234" });
    await unavailable(keys.check(), /^the PKCS#11 module \/nonexistent\/libpkcs11\.so does not load: .*No such file or directory/);
    await unavailable(keys.sign("k", "6b", "ES256", Buffer.from("a.b")), /does not load/);
    await unavailable(keys.generate("k", "PS256"), /does not load/);
  });

  it("a token of another label", async () => {
    const made = token("present");
    const keys = backend({ ...made.settings, tokenLabel: "absent" });
    await unavailable(keys.check(), /^no token labelled "absent" in the PKCS#11 module \/usr\/lib\/softhsm\/libsofthsm2\.so \(tokens present: "present"\)$/);
  });

  it("the token's folder removed under an open session, then put back: unavailable, then signing again", async () => {
    const made = token();
    const keys = backend(made.settings);
    const { publicJwk, privateRef } = await keys.generate("k", "ES256");
    await keys.check();
    const saved = `${made.tokenDir}.saved`;
    cpSync(made.tokenDir, saved, { recursive: true });

    rmSync(made.tokenDir, { recursive: true });
    const why = /^the PKCS#11 module \/usr\/lib\/softhsm\/libsofthsm2\.so does not start: C_Initialize answered CKR_GENERAL_ERROR$/;
    await unavailable(keys.check(), why);
    await unavailable(keys.sign("k", privateRef, "ES256", Buffer.from("a.b")), why);

    cpSync(saved, made.tokenDir, { recursive: true });
    rmSync(saved, { recursive: true });
    await keys.check();
    expect(verifiesWithNodeCrypto(await jws(keys, "k", privateRef, "ES256"), publicJwk, "ES256")).toBe(true);
  });

  it("the token removed from its folder under an open session: no token of the label", async () => {
    const made = token();
    const keys = backend(made.settings);
    const { privateRef } = await keys.generate("k", "PS256");
    for (const entry of readdirSync(made.tokenDir)) rmSync(`${made.tokenDir}/${entry}`, { recursive: true });

    const why = /^no token labelled "tollgate-test" in the PKCS#11 module \/usr\/lib\/softhsm\/libsofthsm2\.so \(tokens present: none\)$/;
    await unavailable(keys.sign("k", privateRef, "PS256", Buffer.from("a.b")), why);
    await unavailable(keys.check(), why);
  });

  it("a key reference that is not a PKCS#11 object id", async () => {
    const keys = backend(token().settings);
    await unavailable(keys.sign("k", "not hex", "ES256", Buffer.from("a.b")), /^the key k has no valid PKCS#11 object id$/);
    await unavailable(keys.destroy("k", ""), /^the key k has no valid PKCS#11 object id$/);
  });

  it("a closed backend", async () => {
    const keys = backend(token().settings);
    await keys.check();
    await keys.close();
    await unavailable(keys.check(), /^the PKCS#11 backend is closed$/);
  });
});
