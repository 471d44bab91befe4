/**
 * Every OAuth and gateway error in one place, in the shape of RFC 6749 §5.2 and RFC 6750 §3.
 * Code throws these; only the HTTP error handler (server/src/http/error-handler.ts) turns
 * them into responses. Anything else that escapes becomes a generic `server_error`.
 */

/** Longest error description, in characters. */
const MAX_DESCRIPTION = 200;

/**
 * Text fit for `error_description` (RFC 6749 §5.2) and for an RFC 6750 §3 auth-param: at
 * most {@link MAX_DESCRIPTION} characters of %x20-21 / %x23-5B / %x5D-7E, so `"` and `\`
 * become `'` and `/`, and any other character (a control character, a non-ASCII letter, a
 * whole emoji) one `?`. It may echo input, so it never carries CR or LF into a header.
 */
export function sanitizeDescription(description: string): string {
  return [...description]
    .slice(0, MAX_DESCRIPTION)
    .map((c) => (c === '"' ? "'" : c === "\\" ? "/" : /^[\x20-\x21\x23-\x5b\x5d-\x7e]$/.test(c) ? c : "?"))
    .join("");
}

/** Base class: an error that is safe to show to the caller. */
export class OAuthError extends Error {
  /** RFC error code, e.g. `invalid_request`. */
  readonly error: string;
  /** HTTP status of the response. */
  readonly status: number;
  /** Extra response headers (e.g. `WWW-Authenticate`, `Allow`). */
  readonly headers: Record<string, string>;

  /** @param description - made to fit RFC 6749 §5.2 by {@link sanitizeDescription}: it may echo input. */
  constructor(error: string, description: string, status = 400, headers: Record<string, string> = {}) {
    super(sanitizeDescription(description));
    this.name = new.target.name;
    this.error = error;
    this.status = status;
    this.headers = headers;
  }

  /** The JSON body: `{"error": ..., "error_description": ...}`. */
  toJSON(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}

/** RFC 6749 §5.2: malformed request (missing, repeated or invalid parameter, wrong content type). */
export class InvalidRequest extends OAuthError {
  constructor(description: string, status = 400) {
    super("invalid_request", description, status);
  }
}

/** RFC 6749 §5.2: client authentication failed; 401 with a Basic challenge (RFC 7617). */
export class InvalidClient extends OAuthError {
  /**
   * @param registeredClientId - the client id the request named, only when a client with that
   *   id is registered (the secret or assertion was wrong, or the app may not authenticate so):
   *   the refusal audit aggregates under it (http/refusals.ts). Never shown to the caller; an
   *   unknown, caller-chosen id is left out so it cannot become an aggregation key.
   */
  constructor(
    description: string,
    realm: string,
    readonly registeredClientId?: string,
  ) {
    super("invalid_client", description, 401, { "WWW-Authenticate": `Basic realm="${realm}", charset="UTF-8"` });
  }
}

/** RFC 6749 §5.2: the grant (code, refresh token) is invalid, expired, revoked or not this client's. */
export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super("invalid_grant", description);
  }
}

/** RFC 6749 §5.2: this client may not use this grant type. */
export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super("unauthorized_client", description);
  }
}

/** RFC 6749 §5.2: the grant type is not supported by this server. */
export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super("unsupported_grant_type", description);
  }
}

/** RFC 6749 §5.2: a requested scope is unknown or exceeds what the client may get. */
export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super("invalid_scope", description);
  }
}

/** RFC 8707 §2: a `resource` that is not an absolute URI, or not one this client's tokens may be meant for. */
export class InvalidTarget extends OAuthError {
  constructor(description: string) {
    super("invalid_target", description);
  }
}

/** 405 for a method the endpoint does not serve, with `Allow`. */
export class MethodNotAllowed extends OAuthError {
  constructor(allow: string[]) {
    super("invalid_request", `method not allowed; use ${allow.join(", ")}`, 405, { Allow: allow.join(", ") });
  }
}

/** 404 for an unknown path or API. */
export class UnknownPath extends OAuthError {
  constructor(description: string) {
    super("not_found", description, 404);
  }
}

/** Seconds a client is told to wait (`Retry-After`) when a dependency is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 `temporarily_unavailable` (RFC 6749 §4.1.2.1's code, in the §5.2 JSON shape) with
 * `Retry-After` in seconds (RFC 9110 §10.2.3): a dependency the request needs, the database,
 * cannot be reached or did not answer in time. Thrown by db/ when a driver reports a
 * connection-level failure (db/unavailable.ts); the original error is kept as `cause`, for
 * the log only.
 */
export class ServiceUnavailable extends OAuthError {
  constructor(description: string, readonly cause?: unknown, retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_SECONDS) {
    super("temporarily_unavailable", description, 503, { "Retry-After": String(retryAfterSeconds) });
  }
}

/** Quotes a value for an RFC 6750 §3 auth-param, made to fit its character set ({@link sanitizeDescription}). */
function quoted(value: string): string {
  return `"${sanitizeDescription(value)}"`;
}

/** Error codes of a protected resource's challenge (RFC 6750 §3.1, RFC 9449 §7.1 and §9, RFC 9470 §3). */
export type ResourceErrorCode =
  | "invalid_token"
  | "insufficient_scope"
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  | "insufficient_user_authentication"
  // PSD2 dynamic linking at the gateway (gateway/consent-check.ts): the call differs from what the PSU authorized, or the consent is used up or over.
  | "authorization_details_mismatch"
  | "consent_invalid";

/** The DPoP scheme's parameters of a challenge (RFC 9449 §7.1): the accepted algorithms, and a fresh nonce when one is required. */
export interface DpopChallenge {
  algs: readonly string[];
  nonce?: string;
}

/**
 * The step-up parameters of an `insufficient_user_authentication` challenge (RFC 9470 §3):
 * what the user's authentication must be for the resource to accept a new token.
 */
export interface StepUpChallenge {
  /** `acr_values`: the authentication context class references the resource accepts, space-separated (quoted). */
  acrValues?: string;
  /** `max_age`: the most seconds since the user's authentication; a non-negative integer, quoted as in RFC 9470 §3's example (anything else is left out). */
  maxAge?: number;
}

/** The `algs` auth-param of a DPoP challenge (RFC 9449 §7.1): the accepted algorithms, space-separated. */
function algsParam(dpop: DpopChallenge): string {
  return `algs=${quoted(dpop.algs.join(" "))}`;
}

/**
 * RFC 6750 §3 error on a protected resource, with a `WWW-Authenticate: Bearer` challenge,
 * or a `WWW-Authenticate: DPoP` one with `algs` (RFC 9449 §7.1) when `dpop` is given: for a
 * DPoP-bound token, or a DPoP proof at fault. `code` undefined means the request carried no
 * token: the challenge then names only the realm (§3.1: no error code when no
 * authentication was attempted). `stepUp` adds `acr_values` and `max_age` (RFC 9470 §3)
 * for `insufficient_user_authentication`.
 */
export class BearerError extends OAuthError {
  /** The challenge's error code; undefined when the request carried no token (RFC 6750 §3.1). */
  readonly code: ResourceErrorCode | undefined;
  /** The scheme of the challenge. */
  readonly scheme: "Bearer" | "DPoP";
  private readonly realm: string;

  constructor(
    realm: string,
    status: 401 | 403,
    code: ResourceErrorCode | undefined,
    description: string,
    scope?: string,
    dpop?: DpopChallenge,
    stepUp?: StepUpChallenge,
  ) {
    const params = [`realm=${quoted(realm)}`];
    if (code) params.push(`error=${quoted(code)}`, `error_description=${quoted(description)}`);
    if (scope) params.push(`scope=${quoted(scope)}`);
    if (stepUp?.acrValues) params.push(`acr_values=${quoted(stepUp.acrValues)}`);
    // Unquoted, so only a non-negative integer may reach the header.
    if (stepUp?.maxAge !== undefined && Number.isSafeInteger(stepUp.maxAge) && stepUp.maxAge >= 0) params.push(`max_age=${quoted(String(stepUp.maxAge))}`);
    if (dpop) params.push(algsParam(dpop));
    const scheme = dpop ? "DPoP" : "Bearer";
    const headers: Record<string, string> = { "WWW-Authenticate": `${scheme} ${params.join(", ")}` };
    if (dpop?.nonce) headers["DPoP-Nonce"] = dpop.nonce;
    super(code ?? "invalid_request", description, status, headers);
    this.code = code;
    this.scheme = scheme;
    this.realm = realm;
  }

  /**
   * Offers the DPoP scheme beside a 401's Bearer challenge, on a resource that takes both
   * (RFC 9449 §7.1, the DPoP challenge and its `algs`; §7.2, Bearer and DPoP on one resource):
   * `Bearer realm="…"[, error=…], DPoP realm="…", algs="…"`, so that the client learns it may
   * present a DPoP-bound token, and with which algorithms. A DPoP challenge, and a 403, are
   * left as they are.
   * @returns this error, its `WWW-Authenticate` changed in place.
   */
  withDpopOffered(dpop: DpopChallenge): this {
    if (this.status === 401 && this.scheme === "Bearer") this.headers["WWW-Authenticate"] += `, DPoP realm=${quoted(this.realm)}, ${algsParam(dpop)}`;
    return this;
  }
}

/**
 * RFC 9449 §5 and §7: a DPoP proof is missing, malformed, or does not match the request or
 * the key; `invalid_dpop_proof` (400 at the token and PAR endpoints).
 */
export class InvalidDpopProof extends OAuthError {
  constructor(description: string) {
    super("invalid_dpop_proof", description, 400);
  }
}

/** RFC 9449 §8: the server requires a DPoP nonce; `DPoP-Nonce` carries the one to use. */
export class UseDpopNonce extends OAuthError {
  constructor(readonly nonce: string, description = "send this DPoP-Nonce in the proof's nonce claim") {
    super("use_dpop_nonce", description, 400, { "DPoP-Nonce": nonce });
  }
}

/**
 * An authorization request that cannot be sent back to the client because the client is
 * unknown or the redirect URI is not registered (RFC 6749 §4.1.2.1): shown to the user as
 * an error page, never redirected.
 */
export class InvalidAuthorizationRequest extends OAuthError {
  constructor(error: "invalid_request" | "invalid_request_object" | "unauthorized_client", description: string) {
    super(error, description, 400);
  }
}

/**
 * An authorization error answered by sending the user agent back to the client's registered
 * redirect URI with `error`, `error_description`, `state` and `iss` (RFC 6749 §4.1.2.1, RFC
 * 9207): `redirectTo` is the complete redirect URL, or, with `formPost`, the signed response
 * is posted there instead (JARM §2.3.3, oauth/form-post.ts).
 */
export class AuthorizationErrorRedirect extends Error {
  constructor(readonly redirect: { redirectTo: string; formPost?: { action: string; response: string } }) {
    super("authorization error redirect");
  }
}
