/**
 * Client for the server's JSON interaction API (same origin). The SPA decides nothing about
 * OAuth: it shows the interaction's state and posts the user's answers; the server answers
 * with the next stage or with where to send the browser.
 */

import type { AuthenticationResponseJSON } from "@simplewebauthn/browser";
import { noteServerAnswer } from "../lib/activity";
import { parseAuthorizationDetails, parsePsuAccounts, type AuthorizationDetail, type PsuAccount } from "../lib/authorization-details";

/** Where an authorization request stands: password, second factor (SCA), or consent. */
export type InteractionStage = "login" | "factor" | "consent";

export interface Scope {
  name: string;
  description: string;
}

export interface Interaction {
  id: string;
  stage: InteractionStage;
  client: { name: string; organization: string };
  scopes: Scope[];
  user: { username: string } | null;
  /** The relying party's login_hint (OpenID Connect Core §3.1.2.1), offered as the username; null when none. */
  loginHint: string | null;
  /** The relying party's ui_locales (OpenID Connect Core §3.1.2.1), in order of preference; [] when none. */
  uiLocales: string[];
  /** The bank's identity provider the PSU signs in at, by name; null: this sign-in page. */
  identityProvider: string | null;
  csrfToken: string;
  /** The request needs strong customer authentication (a PSD2 product): a password alone never reaches consent. */
  scaRequired: boolean;
  /** The request's RFC 9396 authorization details (PSD2 payments or account access) as requested, or null. */
  authorizationDetails: AuthorizationDetail[] | null;
  /** The PSU's accounts, to choose from at consent ([] at the other stages). */
  accounts: PsuAccount[];
  /** How long the access lasts if allowed (ISO 8601); null for payments, which are made once. */
  accessUntil: string | null;
}

export interface Credentials {
  username: string;
  password: string;
}

/**
 * Answer to the password step: go on to the second factor or to consent (with the session's
 * new CSRF token), or leave.
 */
export type LoginResult = { stage: "factor" | "consent" | "password"; csrfToken: string } | { redirectTo: string };

/**
 * Answer to the second factor: go on to consent (with the session's new CSRF token), to the new
 * password after a temporary one (`password`), or leave.
 */
export type FactorResult = { stage: "consent" | "password"; csrfToken: string } | { redirectTo: string };

/**
 * The second element of a sign-in (or of a change that needs one now): a TOTP code, or a
 * WebAuthn assertion as @simplewebauthn/browser's startAuthentication returns it.
 */
export type FactorProof = { method: "totp"; code: string } | { method: "webauthn"; response: AuthenticationResponseJSON };

/**
 * The user's answer at consent. Approving authorization details, the user chooses the accounts
 * of an account access that names none (`accounts`, IBANs) and the account to pay from of
 * payments that name none (`debtorAccount`, an IBAN).
 */
export type ConsentDecision = { approve: true; scopes: string[]; accounts?: string[]; debtorAccount?: string } | { approve: false };

export interface Redirect {
  redirectTo: string;
}

/** A failed call: the HTTP status (0 when there was no response) and the server's error. */
export class InteractionApiError extends Error {
  override readonly name = "InteractionApiError";
  readonly status: number;
  readonly error: string;
  readonly errorDescription: string | undefined;
  /** Seconds from the Retry-After header (429), when the server sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, error: string, errorDescription?: string, retryAfterSeconds?: number) {
    super(errorDescription ? `${error}: ${errorDescription}` : error);
    this.status = status;
    this.error = error;
    this.errorDescription = errorDescription;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A failed GET that means the interaction cannot go on in this browser: unknown, over, or someone else's. */
export function isTerminal(err: InteractionApiError): boolean {
  return err.status === 404 || err.status === 410 || err.status === 403;
}

/** A failed POST because the interaction is unknown or over. */
export function isGone(err: InteractionApiError): boolean {
  return err.status === 404 || err.status === 410;
}

/**
 * A POST refused because what the page holds is out of date: 403 (the CSRF token of a
 * session that was since replaced, e.g. by a sign-in in another tab; or another browser's
 * interaction) or 409 (the interaction moved on). Loading the interaction again settles
 * which: it answers 403 if the interaction really is someone else's.
 */
export function isStale(err: InteractionApiError): boolean {
  return err.status === 403 || err.status === 409;
}

function path(id: string, action?: "login" | "factor" | "password" | "consent" | "sign-out"): string {
  const base = `/interaction/${encodeURIComponent(id)}`;
  return action ? `${base}/${action}` : base;
}

/** Retry-After is either delay-seconds or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isString = (v: unknown): v is string => typeof v === "string";

export function malformed(status: number): InteractionApiError {
  return new InteractionApiError(status, "server_error", "The server sent an unexpected response.");
}

async function readJson(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return undefined;
  }
}

/**
 * A JSON call to the server's browser API (the interaction API and `/session`, which answer
 * errors as `{ error, error_description }`). @throws InteractionApiError
 */
export async function request(url: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, credentials: "same-origin", cache: "no-store" });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new InteractionApiError(0, "network_error", "The server could not be reached. Check your connection and try again.");
  }
  noteServerAnswer();
  const body = await readJson(res);
  if (!res.ok) {
    const error = isRecord(body) && isString(body.error) ? body.error : "server_error";
    const description = isRecord(body) && isString(body.error_description) ? body.error_description : undefined;
    throw new InteractionApiError(res.status, error, description, parseRetryAfter(res.headers.get("Retry-After")));
  }
  if (body === undefined) throw malformed(res.status);
  return body;
}

/** A JSON POST with the session's CSRF token. @throws InteractionApiError */
export function post(url: string, csrfToken: string, body: unknown): Promise<unknown> {
  return request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken },
    body: JSON.stringify(body),
  });
}

function toInteraction(body: unknown, status: number): Interaction {
  if (!isRecord(body)) throw malformed(status);
  const { id, stage, client, scopes, user, loginHint, csrfToken, scaRequired, accessUntil } = body;
  const uiLocales = body.uiLocales ?? [];
  const identityProvider = body.identityProvider ?? null;
  // Details the SPA could not put into words are never shown for approval.
  const authorizationDetails =
    body.authorizationDetails === undefined || body.authorizationDetails === null ? null : parseAuthorizationDetails(body.authorizationDetails);
  const accounts = body.accounts === undefined ? [] : parsePsuAccounts(body.accounts);
  if (
    !isString(id) ||
    (stage !== "login" && stage !== "factor" && stage !== "consent") ||
    !isRecord(client) ||
    !isString(client.name) ||
    !isString(client.organization) ||
    !Array.isArray(scopes) ||
    !scopes.every((s) => isRecord(s) && isString(s.name) && isString(s.description)) ||
    !(user === null || (isRecord(user) && isString(user.username))) ||
    !(loginHint === null || isString(loginHint)) ||
    !(Array.isArray(uiLocales) && uiLocales.every(isString)) ||
    !(identityProvider === null || isString(identityProvider)) ||
    !isString(csrfToken) ||
    authorizationDetails === undefined ||
    accounts === undefined ||
    !(accessUntil === null || (isString(accessUntil) && !Number.isNaN(Date.parse(accessUntil))))
  ) {
    throw malformed(status);
  }
  return {
    id,
    stage,
    client: { name: client.name, organization: client.organization },
    scopes: (scopes as Scope[]).map(({ name, description }) => ({ name, description })),
    user: user === null ? null : { username: (user as { username: string }).username },
    loginHint: loginHint as string | null,
    uiLocales: uiLocales as string[],
    identityProvider: identityProvider as string | null,
    csrfToken,
    scaRequired: scaRequired === true,
    authorizationDetails,
    accounts,
    accessUntil,
  };
}

function toRedirect(body: unknown, status: number): Redirect {
  if (isRecord(body) && isString(body.redirectTo) && body.redirectTo !== "") return { redirectTo: body.redirectTo };
  throw malformed(status);
}

/** GET /interaction/:id */
export async function getInteraction(id: string, signal?: AbortSignal): Promise<Interaction> {
  const body = await request(path(id), { method: "GET", headers: { Accept: "application/json" }, signal });
  return toInteraction(body, 200);
}

/**
 * POST /interaction/:id/login. When the account has a factor or the request needs SCA, the
 * answer is the factor stage whether or not the password was right: the verdict comes after
 * the second element (RTS Art. 4).
 */
export async function submitLogin(id: string, csrfToken: string, credentials: Credentials): Promise<LoginResult> {
  const body = await post(path(id, "login"), csrfToken, { username: credentials.username, password: credentials.password });
  if (isRecord(body) && (body.stage === "factor" || body.stage === "consent" || body.stage === "password") && isString(body.csrfToken)) {
    return { stage: body.stage, csrfToken: body.csrfToken };
  }
  return toRedirect(body, 200);
}

/**
 * POST /interaction/:id/factor: the second element. A failure is 401 invalid_credentials
 * (the same message whichever element was wrong), and the interaction is back at `login`.
 */
export async function submitFactor(id: string, csrfToken: string, proof: FactorProof): Promise<FactorResult> {
  return stepAfterFactor(await post(path(id, "factor"), csrfToken, proof));
}

/** The answer of a step that may lead to consent, to the new password or away. */
function stepAfterFactor(body: unknown): FactorResult {
  if (isRecord(body) && (body.stage === "consent" || body.stage === "password") && isString(body.csrfToken)) return { stage: body.stage, csrfToken: body.csrfToken };
  return toRedirect(body, 200);
}

/**
 * POST /interaction/:id/password: the new password after a sign-in with a temporary one; then
 * consent or leave, as after the factor. 400 when it breaks the password rules or is the
 * temporary one; 409 when no sign-in waits for it (the password comes again).
 */
export async function submitNewPassword(id: string, csrfToken: string, password: string): Promise<FactorResult> {
  return stepAfterFactor(await post(path(id, "password"), csrfToken, { password }));
}

/**
 * POST /interaction/:id/sign-out: "Not you? Sign out" at consent. The browser is signed out and
 * the interaction is back at the sign-in step, for another user.
 */
export async function signOutOfInteraction(id: string, csrfToken: string): Promise<void> {
  const body = await post(path(id, "sign-out"), csrfToken, {});
  if (!isRecord(body) || body.stage !== "login") throw malformed(200);
}

/** POST /interaction/:id/consent */
export async function submitConsent(id: string, csrfToken: string, decision: ConsentDecision): Promise<Redirect> {
  const payload = decision.approve
    ? { approve: true, scopes: decision.scopes, accounts: decision.accounts, debtorAccount: decision.debtorAccount }
    : { approve: false };
  return toRedirect(await post(path(id, "consent"), csrfToken, payload), 200);
}
