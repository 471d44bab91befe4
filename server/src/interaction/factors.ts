/**
 * Second authentication factors (PSD2 RTS Arts. 6–8): verifying and enrolling TOTP keys
 * (RFC 6238, with otplib) and WebAuthn credentials (passkeys, with @simplewebauthn/server).
 * Plain functions over the factor store; the HTTP routes and the sign-in verdict call them.
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
import { COSEALG, isoBase64URL } from "@simplewebauthn/server/helpers";
import { generateSecret, generateURI, verify as verifyTotp } from "otplib";
import type { FactorStore, NewFactor } from "../stores/factors.js";

/** The WebAuthn relying party: its id (the host name of AUTH_URL), the origin browsers report, and its display name. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/**
 * The relying party of the authorization server at `authUrl` (its origin; the RP id is its
 * host name, WebAuthn Level 3 §5.1.3), named `name` (BRAND_NAME: the bank, as passkey prompts
 * and authenticator apps show it).
 */
export function relyingParty(authUrl: string, name: string): RelyingParty {
  const url = new URL(authUrl);
  return { id: url.hostname, origin: url.origin, name };
}

/** A second factor presented at sign-in or to confirm a change. */
export type FactorProof = { method: "totp"; code: string } | { method: "webauthn"; response: AuthenticationResponseJSON };

/** RFC 6238 §5.2: accept the codes of one step before and after the current one (30 s steps), in seconds. */
const TOTP_TOLERANCE_SECONDS = 30;

/** A TOTP code: 6 digits (RFC 4226 §5.3, the authenticator apps' default). */
const TOTP_CODE = /^\d{6}$/;

/** How long a generated WebAuthn challenge may be answered, milliseconds (WebAuthn's recommended timeout). */
export const WEBAUTHN_TIMEOUT_MS = 120_000;

/**
 * Checks a second factor of `userId`.
 * - TOTP: a 6-digit code of one of the user's keys for the current 30-s step ±1 whose step
 *   is later than the last one accepted for that key; accepting it records the step, so no
 *   code is accepted twice (RFC 6238 §5.2).
 * - WebAuthn: an assertion of one of the user's credentials over `challenge`, from the
 *   relying party's origin and RP id, with user verification, and a signature counter that
 *   went up (or stays 0, as passkeys' do); accepting it records the counter, compared with
 *   the stored one and set in one statement, so of parallel assertions with one counter
 *   value only one is accepted.
 * @param challenge - the WebAuthn challenge issued to this browser, base64url; undefined when none.
 * @returns the RFC 8176 `amr` values proved (`otp`; `hwk` or `swk` for device-bound or synced
 *   credentials, with `user` for user verification), or undefined when the proof fails for any reason.
 */
export async function verifyFactor(
  factors: FactorStore,
  userId: string,
  proof: FactorProof,
  challenge: string | undefined,
  rp: RelyingParty,
  now: Date,
): Promise<string[] | undefined> {
  if (proof.method === "totp") {
    if (!TOTP_CODE.test(proof.code)) return undefined;
    for (const factor of await factors.totpFactors(userId)) {
      const result = await verifyTotp({
        secret: factor.secret,
        token: proof.code,
        epoch: Math.floor(now.getTime() / 1000),
        epochTolerance: TOTP_TOLERANCE_SECONDS,
        ...(factor.lastTimeStep !== null ? { afterTimeStep: factor.lastTimeStep } : {}),
      }).catch(() => undefined);
      const step = totpStep(result);
      if (step !== undefined && (await factors.acceptTimeStep(factor.id, step, now))) return ["otp"];
    }
    return undefined;
  }
  if (challenge === undefined) return undefined;
  const credential = await factors.webAuthnCredential(proof.response.id);
  if (!credential || credential.userId !== userId) return undefined;
  const verification = await verifyAuthenticationResponse({
    response: proof.response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: credential.credentialId,
      publicKey: isoBase64URL.toBuffer(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports as never,
    },
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!verification?.verified) return undefined;
  const { newCounter, credentialDeviceType } = verification.authenticationInfo;
  if (!(await factors.recordWebAuthnUse(credential.id, newCounter, now))) return undefined;
  return [credentialDeviceType === "multiDevice" ? "swk" : "hwk", "user"];
}

/** A TOTP key being enrolled: shown once to the user, kept in the session until confirmed. */
export interface TotpEnrolment {
  /** Base32 key, 160 bits (RFC 4226 §4: at least 128). */
  secret: string;
  /** The `otpauth://totp/` URI authenticator apps read. */
  otpauthUri: string;
  /** The URI as a QR code: an SVG `data:` URL. */
  qrCode: string;
}

/** A new TOTP key for `username` (the label authenticator apps show, under `issuer`: the bank's name). */
export async function newTotpEnrolment(username: string, issuer: string): Promise<TotpEnrolment> {
  const secret = generateSecret();
  const otpauthUri = totpUri(username, secret, issuer);
  // Loaded here, by the first enrolment: no start pays for it.
  const { default: QRCode } = await import("qrcode");
  const svg = await QRCode.toString(otpauthUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, otpauthUri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

/** The `otpauth://totp/<issuer>:<username>?secret=…&issuer=<issuer>` URI of a key (30 s, 6 digits, SHA-1). */
export function totpUri(username: string, secret: string, issuer: string): string {
  return generateURI({ issuer, label: username, secret });
}

/**
 * Checks the first code of a key being enrolled.
 * @returns the time step of the code (the first step the new factor has used), or undefined when wrong.
 */
export async function confirmTotp(secret: string, code: string, now: Date): Promise<number | undefined> {
  if (!TOTP_CODE.test(code)) return undefined;
  const result = await verifyTotp({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: TOTP_TOLERANCE_SECONDS }).catch(
    () => undefined,
  );
  return totpStep(result);
}

/** The RFC 6238 time step a TOTP verification matched, or undefined when it failed. */
function totpStep(result: Awaited<ReturnType<typeof verifyTotp>> | undefined): number | undefined {
  return result?.valid && "timeStep" in result ? result.timeStep : undefined;
}

/**
 * Options for a WebAuthn sign-in with any of the user's discoverable credentials (an empty
 * `allowCredentials` reveals no credential ids before the user is known); user verification required.
 */
export function authenticationOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({ rpID: rp.id, userVerification: "required", allowCredentials: [], timeout: WEBAUTHN_TIMEOUT_MS });
}

/**
 * The public-key algorithms a passkey may use (COSE ids, most preferred first): ES256, EdDSA
 * and RS256, which every passkey provider offers. Fixed here rather than the library's
 * default, which follows the runtime: on Node 24 it puts ML-DSA-44 first, whose 2,420-byte
 * signatures an authenticator that offers it would send, beyond the bounds of the sign-in body
 * (interaction/bodies.ts); the algorithms accepted must not change with the Node version.
 */
const PASSKEY_ALGORITHMS = [COSEALG.ES256, COSEALG.EdDSA, COSEALG.RS256];

/**
 * Options to register a passkey for a user: a discoverable credential (resident key) with
 * user verification, no attestation, the user's existing credentials excluded.
 */
export async function registrationOptions(
  factors: FactorStore,
  rp: RelyingParty,
  user: { id: string; username: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await factors.webAuthnCredentials(user.id);
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    timeout: WEBAUTHN_TIMEOUT_MS,
  });
}

/**
 * Verifies a registration response over `challenge` (origin, RP id, user verification).
 * @returns the factor to store, or undefined when the response does not verify.
 */
export async function verifyRegistration(
  rp: RelyingParty,
  userId: string,
  name: string,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<NewFactor | undefined> {
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  }).catch(() => undefined);
  if (!verification?.verified) return undefined;
  const { credential, credentialDeviceType } = verification.registrationInfo;
  return {
    type: "webauthn",
    userId,
    name,
    credentialId: credential.id,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    deviceType: credentialDeviceType,
    transports: credential.transports ?? [],
  };
}
