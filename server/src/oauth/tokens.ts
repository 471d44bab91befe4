/**
 * Presented token values and what they grant. A token value is a split token,
 * `<row id><secret>`: the row id (25 characters, time-ordered, kernel/ids.ts) finds the row
 * through the primary key, and the SHA-256 of the whole value, compared in constant time
 * with the stored hash, proves it (db/stores/tokens.ts on why not look up by hash). A JWT
 * access token (RFC 9068, oauth/access-token-jwt.ts) names its row by its `jti` instead, and
 * is proved the same way.
 *
 * What a token grants is decided on every use, from the token row and the live state of
 * its client: the app and credential still approved and unexpired, and of its recorded
 * products and scopes only those still approved on the credential.
 */
import { ID_LENGTH } from "../kernel/ids.js";
import { hashMatches, hashSecret } from "../kernel/secrets.js";
import { openIdScopes } from "./scopes.js";
import { isJwt, jwtIdOf } from "./access-token-jwt.js";
import type { ClientRecord } from "../stores/clients.js";
import type { Stores } from "../stores/index.js";
import type { Authentication, GrantConsent, TokenRecord } from "../stores/tokens.js";
import type { AuthorizationDetail } from "../consents/authorization-details.js";

/** The value handed out for the token of row `id` (a newId()): the id, then the secret (base64url). */
export function tokenValue(id: string, secret: string): string {
  return id + secret;
}

/** Shape of the ids newId() makes: lowercase letters and digits. */
const ROW_ID = /^[0-9a-z]+$/;

/** The row id a presented token value names (at its start, or a JWT's `jti`), or undefined when it cannot hold one (then no query runs). */
export function rowIdOf(value: string): string | undefined {
  const id = isJwt(value) ? jwtIdOf(value) : value.length > ID_LENGTH ? value.slice(0, ID_LENGTH) : undefined;
  return id !== undefined && id.length === ID_LENGTH && ROW_ID.test(id) ? id : undefined;
}

/** Which of a row's two tokens a presented value is, or undefined when neither (constant-time compares). */
export function presentedType(row: TokenRecord, value: string): "access_token" | "refresh_token" | undefined {
  const hash = hashSecret(value);
  if (hashMatches(hash, row.tokenHash)) return "access_token";
  if (row.refreshTokenHash !== null && hashMatches(hash, row.refreshTokenHash)) return "refresh_token";
  return undefined;
}

/**
 * The row a presented value names, and which of its tokens the value is.
 * @param fresh - read the database, never the token cache (the refresh grant).
 */
export async function findTokenRow(
  tokens: Stores["tokens"],
  value: string,
  fresh = false,
): Promise<{ row: TokenRecord; type: "access_token" | "refresh_token" } | undefined> {
  const id = rowIdOf(value);
  const row = id === undefined ? undefined : await tokens.byId(id, fresh);
  const type = row && presentedType(row, value);
  return type && { row: row!, type };
}

/**
 * What a token still grants: its recorded products that are still approved on its
 * credential, and its recorded scopes that one of those products still offers (and the
 * OpenID Connect scopes of a grant with `openid`, which no product offers). Revoking
 * a product on a credential thus takes effect on tokens already issued. (Lists of a few
 * names each, so plain array scans.)
 */
export function liveGrant(t: TokenRecord, approved: ClientRecord["products"]): { apiProducts: string[]; scopes: string[] } {
  const products = approved.filter((p) => t.apiProducts.includes(p.name));
  const openId = openIdScopes(t.scopes);
  return { apiProducts: products.map((p) => p.name), scopes: t.scopes.filter((s) => openId.includes(s) || products.some((p) => p.scopes.includes(s))) };
}

/** The app and credential are approved and the credential is not past its expiry (rotation grace). */
export function clientActive(c: ClientRecord, now: Date): boolean {
  return c.appStatus === "approved" && c.credentialStatus === "approved" && (c.credentialExpiresAt === null || c.credentialExpiresAt > now);
}

/** An access token as the gateway and the admin API check it, with the live status of its app and credential. */
export interface PresentedToken {
  /** Approved, not expired, and its app and credential still approved and unexpired. */
  active: boolean;
  scopes: string[];
  /** Products recorded on the token that are still approved on its credential. */
  apiProducts: string[];
  clientId: string;
  appName: string;
  userId: string | null;
  /** DPoP binding (`cnf.jkt`, RFC 9449 §6); null for a bearer token. */
  jkt: string | null;
  /** Certificate binding (`cnf.x5t#S256`, RFC 8705 §3); null when unbound. */
  x5t: string | null;
  /** The user's authentication behind the grant (`acr`, `amr`, `auth_time`); null for client credentials. */
  authentication: Authentication | null;
  /** The PSD2 consent and RFC 9396 authorization details the token carries (JSON text); null when none. */
  consent: GrantConsent | null;
  /** Those authorization details parsed; null when none. */
  authorizationDetails: readonly AuthorizationDetail[] | null;
  /** RFC 8707: the resource URIs the token is restricted to; null: none. */
  audience: readonly string[] | null;
}

/**
 * The access token presented as `value` (RFC 6750).
 * @param now - for expiries.
 * @returns undefined when no access token has this value.
 */
export async function findPresentedToken(stores: Pick<Stores, "tokens" | "clients">, value: string, now: Date): Promise<PresentedToken | undefined> {
  const found = await findTokenRow(stores.tokens, value);
  const t = found?.type === "access_token" ? found.row : undefined;
  const client = t && (await stores.clients.byCredentialId(t.credentialId));
  if (!t || !client) return undefined;
  return {
    active: t.status === "approved" && t.expiresAt > now && clientActive(client, now),
    ...liveGrant(t, client.products),
    clientId: client.clientId,
    appName: client.appName,
    userId: t.userId,
    jkt: t.jkt,
    x5t: t.x5t,
    authentication: t.authentication,
    consent: t.consent,
    authorizationDetails: t.authorizationDetails,
    audience: t.audience,
  };
}

/** A token row found by the value of its access token or of its refresh token. */
export interface StoredToken {
  /** Which of the row's two tokens the value is. */
  type: "access_token" | "refresh_token";
  id: string;
  appId: string;
  clientId: string;
  userId: string | null;
  username: string | null;
  familyId: string | null;
  scopes: string[];
  apiProducts: string[];
  /** Issue and expiry of the presented token (access or refresh). */
  issuedAt: Date;
  expiresAt: Date;
  /** The presented token is approved and not expired, and its app and credential still approved and unexpired. */
  active: boolean;
  /** DPoP binding of the row's tokens (`cnf.jkt`, RFC 9449 §6); null when unbound. */
  jkt: string | null;
  /** Certificate binding of the row's access token (`cnf.x5t#S256`, RFC 8705 §3); null when unbound. */
  x5t: string | null;
  /** The user's authentication behind the grant (`acr`, `amr`, `auth_time`); null for client credentials. */
  authentication: Authentication | null;
  /** The RFC 9396 authorization details the token carries, parsed; null when none. */
  authorizationDetails: readonly AuthorizationDetail[] | null;
  /** RFC 8707: the resource URIs the row's access token is restricted to; null: none. */
  audience: readonly string[] | null;
}

/**
 * Finds the access or refresh token presented as `value`. One lookup serves both types, so
 * a `token_type_hint` (RFC 7009 §2.1, RFC 7662 §2.1) is not needed.
 * @param now - for expiries.
 */
export async function findAnyToken(stores: Pick<Stores, "tokens" | "clients">, value: string, now: Date): Promise<StoredToken | undefined> {
  const found = await findTokenRow(stores.tokens, value);
  const client = found && (await stores.clients.byCredentialId(found.row.credentialId));
  if (!found || !client) return undefined;
  const { row: t, type } = found;
  const access = type === "access_token";
  const expiresAt = (access ? t.expiresAt : t.refreshTokenExpiresAt)!;
  return {
    type,
    id: t.id,
    appId: t.appId,
    clientId: client.clientId,
    userId: t.userId,
    username: t.username,
    familyId: t.familyId,
    ...liveGrant(t, client.products),
    issuedAt: (access ? t.issuedAt : t.refreshTokenIssuedAt)!,
    expiresAt,
    active: (access ? t.status : t.refreshTokenStatus) === "approved" && expiresAt > now && clientActive(client, now),
    jkt: t.jkt,
    x5t: t.x5t,
    authentication: t.authentication,
    authorizationDetails: t.authorizationDetails,
    audience: t.audience,
  };
}
