/**
 * Second authentication factors (PSD2 strong customer authentication, RTS Art. 4–8): the
 * proof the sign-in asks for after the password (a TOTP code, RFC 6238, or a WebAuthn
 * passkey assertion), and the signed-in user's own factors on the Account page
 * (`/session/factors`). Same session, CSRF token and error shape as the interaction API.
 */
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/browser";
import { isRecord, isString, malformed, post, request, type FactorProof } from "./interaction";

export type { FactorProof };

export type FactorType = "totp" | "webauthn";

/** What the user gave at a factor step: a code from their authenticator app, or "use my passkey". */
export type FactorAnswer = { method: "totp"; code: string } | { method: "passkey" };

/** One of the user's factors, as the server lists it (never its key material). */
export interface Factor {
  id: string;
  type: FactorType;
  name: string;
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601, or null when never used. */
  lastUsedAt: string | null;
}

export interface FactorList {
  factors: Factor[];
  /** Until when (ISO 8601) changes are allowed without signing in again (sign-in + 5 minutes); null when not now. */
  freshUntil: string | null;
}

/** A new authenticator-app key, kept by the server (in the session) until a code confirms it. */
export interface TotpEnrolment {
  /** The base32 key to type in. */
  secret: string;
  otpauthUri: string;
  /** The otpauth URI as a QR code: an SVG `data:` URL. */
  qrCode: string;
}

/**
 * The browser's part of a passkey ceremony failed: the user cancelled or it timed out
 * (NotAllowedError), the authenticator already holds a passkey for this account
 * (InvalidStateError, on registration), or the browser has no WebAuthn. Nothing reached the
 * server's verdict, so it is no failed sign-in.
 */
export class PasskeyCeremonyError extends Error {
  override readonly name = "PasskeyCeremonyError";
  /** The DOMException name behind it (NotAllowedError, InvalidStateError, …), or "" when unknown. */
  readonly reason: string;

  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : "The passkey could not be used.", { cause });
    this.reason = cause instanceof Error && cause.name !== "Error" ? cause.name : "";
  }
}

/** Runs the browser's part of a ceremony, turning its failures into {@link PasskeyCeremonyError}. */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new PasskeyCeremonyError(err);
  }
}

/** A TOTP code as the user types it: six digits, maybe grouped with spaces ("123 456"). */
export const TOTP_CODE_LENGTH = 6;

/** The code without the spaces or dashes people type between groups; null unless that leaves exactly six digits. */
export function normalizeCode(input: string): string | null {
  const digits = input.replace(/[\s-]/g, "");
  return new RegExp(`^\\d{${TOTP_CODE_LENGTH}}$`).test(digits) ? digits : null;
}

/** A base32 key in groups of four characters, as authenticator apps show and accept it. */
export function groupKey(secret: string): string {
  return secret.replace(/\s+/g, "").replace(/(.{4})(?=.)/g, "$1 ");
}

function toFactor(value: unknown): Factor | undefined {
  if (
    !isRecord(value) ||
    !isString(value.id) ||
    (value.type !== "totp" && value.type !== "webauthn") ||
    !isString(value.name) ||
    !isString(value.createdAt) ||
    !(value.lastUsedAt === null || isString(value.lastUsedAt))
  ) {
    return undefined;
  }
  return { id: value.id, type: value.type, name: value.name, createdAt: value.createdAt, lastUsedAt: value.lastUsedAt };
}

function toFactors(value: unknown): Factor[] {
  if (!Array.isArray(value)) throw malformed(200);
  const factors = value.map(toFactor);
  if (!factors.every((factor): factor is Factor => factor !== undefined)) throw malformed(200);
  return factors;
}

function factorOf(body: unknown): Factor {
  const factor = isRecord(body) ? toFactor(body.factor) : undefined;
  if (!factor) throw malformed(200);
  return factor;
}

/** GET /session/factors */
export async function listFactors(signal?: AbortSignal): Promise<FactorList> {
  const body = await request("/session/factors", { method: "GET", headers: { Accept: "application/json" }, signal });
  if (!isRecord(body) || !(body.freshUntil === null || isString(body.freshUntil))) throw malformed(200);
  return { factors: toFactors(body.factors), freshUntil: body.freshUntil };
}

/** POST /session/factors/totp: a new key to set up (401 login_required without a fresh sign-in). */
export async function startTotpEnrolment(csrfToken: string): Promise<TotpEnrolment> {
  const body = await post("/session/factors/totp", csrfToken, {});
  if (!isRecord(body) || !isString(body.secret) || !isString(body.otpauthUri) || !isString(body.qrCode)) throw malformed(200);
  return { secret: body.secret, otpauthUri: body.otpauthUri, qrCode: body.qrCode };
}

/** POST /session/factors/totp/confirm: a code of the pending key adds it (400 invalid_code when wrong). */
export async function confirmTotpEnrolment(csrfToken: string, code: string, name: string): Promise<Factor> {
  return factorOf(await post("/session/factors/totp/confirm", csrfToken, { code, name }));
}

/**
 * Adds a passkey: asks the server for registration options, has the browser create the
 * credential (the user's authenticator), and registers it under `name`.
 * @throws InteractionApiError from the server, or PasskeyCeremonyError from the browser.
 */
export async function addPasskey(csrfToken: string, name: string): Promise<Factor> {
  const body = await post("/session/factors/webauthn/registration-options", csrfToken, {});
  if (!isRecord(body) || !isRecord(body.options)) throw malformed(200);
  const optionsJSON = body.options as unknown as PublicKeyCredentialCreationOptionsJSON;
  const response: RegistrationResponseJSON = await ceremony(() => startRegistration({ optionsJSON }));
  return factorOf(await post("/session/factors/webauthn", csrfToken, { response, name }));
}

/** POST /session/factors/:id/remove with a second factor now; answers the factors left. */
export async function removeFactor(csrfToken: string, id: string, proof: FactorProof): Promise<Factor[]> {
  const body = await post(`/session/factors/${encodeURIComponent(id)}/remove`, csrfToken, proof);
  if (!isRecord(body)) throw malformed(200);
  return toFactors(body.factors);
}

/**
 * A passkey proof: asks the server for a single-use challenge (for this browser's pending
 * sign-in or its session), then has the browser sign it with a discoverable credential.
 * @throws InteractionApiError from the server, or PasskeyCeremonyError from the browser.
 */
export async function passkeyProof(csrfToken: string): Promise<FactorProof> {
  const body = await post("/session/webauthn/authentication-options", csrfToken, {});
  if (!isRecord(body) || !isRecord(body.options)) throw malformed(200);
  const optionsJSON = body.options as unknown as PublicKeyCredentialRequestOptionsJSON;
  const response = await ceremony(() => startAuthentication({ optionsJSON }));
  return { method: "webauthn", response };
}

/** The proof for an answer of a factor step: the code as it is, or a passkey assertion (the browser's ceremony). */
export function proofFor(answer: FactorAnswer, csrfToken: string): Promise<FactorProof> {
  return answer.method === "totp" ? Promise.resolve({ method: "totp", code: answer.code }) : passkeyProof(csrfToken);
}
