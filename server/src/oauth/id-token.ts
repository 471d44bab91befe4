/**
 * ID tokens (OpenID Connect Core 1.0 §2): the JWT a token response carries for a grant with
 * the `openid` scope, at the code exchange (§3.1.3.3) and at a refresh (§12.2), signed with
 * this server's current key of the app's `id_token_signed_response_alg` (keys/keyring.ts).
 */
import { hash } from "node:crypto";
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from "jose";
import { InvalidRequest } from "../kernel/errors.js";
import type { Keyring } from "../keys/keyring.js";
import { MAX_JWT_LENGTH } from "./signing.js";
import type { Subjects } from "./subject.js";

/** The OpenID Provider's means: the keys it signs with, and the subject identifiers it tells apps (subject.ts). */
export interface OpenIdProvider {
  keyring: Keyring;
  subjects: Subjects;
}
import type { Authentication } from "../stores/tokens.js";

/** The claims of an ID token ({@link idTokenPayload}): `claims_supported` with UserInfo's. */
export const ID_TOKEN_CLAIMS = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "at_hash"] as const;

/** Seconds an ID token is valid: a relying party checks it as it receives it (OpenID Connect Core §3.1.3.7 item 9). */
export const ID_TOKEN_LIFETIME_SECONDS = 600;

/** What an ID token says about one authentication of one user for one client. */
export interface IdTokenClaims {
  /** The issuer identifier (AUTH_URL). */
  issuer: string;
  /** The subject: the user's identifier for this client. */
  subject: string;
  /** The client's `client_id`: its `aud` and `azp`. */
  clientId: string;
  /** PS256 or ES256: the app's `id_token_signed_response_alg`. */
  alg: "PS256" | "ES256";
  /** The access token issued beside it: its hash is `at_hash` (§3.1.3.6). */
  accessToken: string;
  /** The authentication request's `nonce` (§3.1.2.1); null: none was sent (or a refresh, §12.2). */
  nonce: string | null;
  /** How and when the user authenticated: `acr`, `amr` and `auth_time` (§2); absent for a grant from before they were recorded. */
  authentication: Authentication | undefined;
  now: Date;
}

/**
 * `at_hash` (OpenID Connect Core §3.1.3.6): the left half of the SHA-256 of the access
 * token's ASCII, base64url; SHA-256 is the hash of PS256 and ES256 alike.
 */
export function accessTokenHashClaim(accessToken: string): string {
  return hash("sha256", accessToken, "buffer").subarray(0, 16).toString("base64url");
}

/**
 * The claims of an ID token (OpenID Connect Core §2): `iss`, `sub`, `aud` (the client alone),
 * `exp` ({@link ID_TOKEN_LIFETIME_SECONDS} after `iat`), `iat`, `auth_time`, `nonce` when
 * the request had one, `acr`, `amr`, `azp` and `at_hash`. Times in seconds since the epoch.
 */
export function idTokenPayload(c: IdTokenClaims): Record<string, unknown> {
  const iat = Math.floor(c.now.getTime() / 1000);
  const authentication = c.authentication;
  return {
    iss: c.issuer,
    sub: c.subject,
    aud: c.clientId,
    exp: iat + ID_TOKEN_LIFETIME_SECONDS,
    iat,
    ...(authentication ? { auth_time: Math.floor(authentication.authTime.getTime() / 1000), acr: authentication.acr, amr: [...authentication.amr] } : {}),
    ...(c.nonce !== null ? { nonce: c.nonce } : {}),
    azp: c.clientId,
    at_hash: accessTokenHashClaim(c.accessToken),
  };
}

/**
 * The signed ID token of `claims` (a compact JWS, `typ` `JWT`).
 * @throws KeyBackendUnavailable when no key can sign now (the token endpoint answers 503).
 */
export function signIdToken(keyring: Keyring, claims: IdTokenClaims): Promise<string> {
  const payload = idTokenPayload(claims);
  return keyring.sign({ alg: claims.alg, typ: "JWT", payload, expiresAt: new Date((payload.exp as number) * 1000) });
}

/**
 * Reads an `id_token_hint` (OpenID Connect Core §3.1.2.1): the subject of an ID token this
 * server issued to a client.
 * @param clientId - the client of the request: the hint must have been issued to it (`aud`).
 * @returns its `sub`.
 * @throws InvalidRequest for anything else: not a JWT of ours (its signature does not verify
 *   with a key of the JWK Set), another issuer's or client's, not an ID token (`typ` other than
 *   `JWT`), or longer than a JWT may be. An expired hint is taken: it only names the user.
 */
export type IdTokenHints = (hint: string, clientId: string) => Promise<string>;

/** The {@link IdTokenHints} of this server: ID tokens signed with a key `keyring` publishes, issued by `issuer`. */
export function idTokenHints(keyring: Keyring, issuer: string): IdTokenHints {
  return async (hint, clientId) => {
    const refused = new InvalidRequest("id_token_hint is not an ID token this server issued to this client");
    if (hint.length > MAX_JWT_LENGTH) throw refused;
    try {
      if (decodeProtectedHeader(hint).typ !== "JWT") throw refused;
      await keyring.ready();
      const { payload } = await compactVerify(hint, createLocalJWKSet(keyring.jwks() as JSONWebKeySet));
      const claims = JSON.parse(new TextDecoder().decode(payload)) as { iss?: unknown; aud?: unknown; sub?: unknown };
      const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (claims.iss !== issuer || !audience.includes(clientId) || typeof claims.sub !== "string") throw refused;
      return claims.sub;
    } catch {
      throw refused;
    }
  };
}
