/**
 * Issued access tokens and, for user grants, their refresh tokens: one row per issuance
 * (a rotation writes a new row). Only SHA-256 hashes of token values are stored.
 */
import type { AuditEventInput } from "./audit.js";
import type { AccessTokenFormat } from "./clients.js";
import type { AuthorizationDetail } from "./authorization-details.js";
import type { Page, PageRequest } from "./page.js";

/**
 * How the user authenticated for a grant (RFC 9470 §3): `acr` (kernel/acr.ts), `amr`
 * (RFC 8176 method values) and `authTime`, the time of that authentication.
 */
export interface Authentication {
  readonly acr: string;
  readonly amr: readonly string[];
  readonly authTime: Date;
  /** Where it happened: the bank's identity provider (its name), or {@link DELEGATED_LOGIN} (the bank's own application); absent: Tollgate's own sign-in. */
  readonly authenticatedBy?: string;
}

/** The {@link Authentication.authenticatedBy} of a login delegated to the bank's own application (interaction/delegation.ts). */
export const DELEGATED_LOGIN = "bank application";

/** What is stored for a newly issued access token. */
export interface NewAccessToken {
  /** Row id: the first part of the token values (kernel/ids.ts newId()). */
  id: string;
  /** SHA-256 hex of the access token value. */
  tokenHash: string;
  appId: string;
  credentialId: string;
  userId?: string;
  grantType: string;
  scopes: string[];
  apiProducts: string[];
  issuedAt: Date;
  expiresAt: Date;
  refresh?: { tokenHash: string; issuedAt: Date; expiresAt: Date };
  refreshCount?: number;
  /** Rotation family: the id of the authorization code the family descends from. */
  familyId?: string;
  /** DPoP binding (RFC 9449 §6): the JWK SHA-256 thumbprint of the proof key, `cnf.jkt`. */
  jkt?: string;
  /** Certificate binding (RFC 8705 §3): the client certificate's thumbprint, `cnf.x5t#S256`. */
  x5t?: string;
  /** The user's authentication behind a user grant (RFC 9470 §3, RFC 8176); absent for client credentials. */
  authentication?: Authentication;
  /** The PSD2 consent the grant authorizes, and the RFC 9396 authorization details the tokens carry (JSON text of an array). */
  consent?: GrantConsent;
  /** RFC 8707: the resource URIs the access token is restricted to; absent: no restriction. */
  audience?: readonly string[];
  /** The access token's format: an opaque split token, or a JWT (RFC 9068) whose `jti` is the row id. */
  format: AccessTokenFormat;
}

/**
 * What a grant carries of RFC 9396 authorization details: their JSON text, kept as approved so
 * that the token response and introspection return it byte for byte (RFC 9396 §7, §9.2), and
 * the PSD2 consent they were approved in (null for client credentials, which no PSU approves).
 */
export interface GrantConsent {
  readonly consentId: string | null;
  readonly authorizationDetails: string;
}

/**
 * A token row parsed once when read (and then possibly cached): lists split, dates as
 * Date, the user's name joined in. Shared between requests: read-only.
 */
export interface TokenRecord {
  readonly id: string;
  /** SHA-256 hex of the access token value; of the refresh token value, if any. */
  readonly tokenHash: string;
  readonly refreshTokenHash: string | null;
  readonly appId: string;
  readonly credentialId: string;
  readonly userId: string | null;
  readonly username: string | null;
  /** Scopes and API products recorded at issuance. */
  readonly scopes: readonly string[];
  readonly apiProducts: readonly string[];
  /** approved | revoked */
  readonly status: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly refreshTokenStatus: string | null;
  readonly refreshTokenIssuedAt: Date | null;
  readonly refreshTokenExpiresAt: Date | null;
  readonly refreshCount: number;
  readonly familyId: string | null;
  /** DPoP binding of the row's access and refresh tokens (`cnf.jkt`); null for bearer tokens. */
  readonly jkt: string | null;
  /** Certificate binding of the row's access token (`cnf.x5t#S256`, RFC 8705 §3); null when none. */
  readonly x5t: string | null;
  /** The user's authentication behind the grant; null for client credentials and for grants from before SCA. */
  readonly authentication: Authentication | null;
  /** The consent and authorization details of the grant; null when it has none. */
  readonly consent: GrantConsent | null;
  /** The authorization details parsed (the gateway's dynamic linking reads them); null when none. */
  readonly authorizationDetails: readonly AuthorizationDetail[] | null;
  /** RFC 8707: the resource URIs the access token is restricted to; null: no restriction. */
  readonly audience: readonly string[] | null;
  readonly format: AccessTokenFormat;
}

/** A token row as the admin API lists it (never a value; lists as stored, space-separated). */
export interface TokenRow {
  id: string;
  appId: string;
  credentialId: string;
  userId: string | null;
  grantType: string;
  scope: string;
  apiProducts: string;
  status: string;
  issuedAt: Date;
  expiresAt: Date;
  refreshTokenStatus: string | null;
  refreshTokenExpiresAt: Date | null;
  refreshCount: number;
  /** DPoP binding (`cnf.jkt`); null for bearer tokens. */
  jkt: string | null;
  /** Certificate binding (`cnf.x5t#S256`); null when none. */
  x5t: string | null;
  /** Where the user authenticated ({@link Authentication.authenticatedBy}); null: Tollgate's own sign-in, or no user. */
  authenticatedBy: string | null;
  /** When and by whom the access token was revoked (see {@link Revocation}); null when not. */
  revokedAt: Date | null;
  revokedBy: string | null;
}

/**
 * A revocation: when, and by whom, named as audit actors are (`admin:<username>`,
 * `client:<client id>` for RFC 7009, `user:<id>`), or `system:<reason>` when Tollgate revoked
 * on its own (`system:code_replay`, RFC 6749 §4.1.2; `system:refresh_token_reuse`, RFC 9700 §4.14.2).
 */
export interface Revocation {
  at: Date;
  by: string;
}

/** Whose tokens: an app's, a user's, a credential's, or a combination (all must match). */
export interface TokenOwner {
  appId?: string;
  userId?: string;
  credentialId?: string;
}

/** Admin list filter. */
export interface TokenFilter {
  appId?: string | null;
  userId?: string | null;
  /** A consumer key: the tokens issued under it. */
  clientId?: string | null;
  /** The state now; replaces `status` and `liveOnly` when given. */
  state?: TokenState | null;
  status?: string | null;
  /** Only tokens still usable: approved and not expired. */
  liveOnly?: boolean | null;
}

/** A token's state now: live (approved, not expired), revoked, or expired (approved, past its expiry). */
export type TokenState = "LIVE" | "REVOKED" | "EXPIRED";

/** The state of a token row at `now`. */
export function tokenStateOf(t: Pick<TokenRow, "status" | "expiresAt">, now: Date): TokenState {
  if (t.status !== "approved") return "REVOKED";
  return t.expiresAt > now ? "LIVE" : "EXPIRED";
}

export interface TokenStore {
  /** Stores a new token row, and its audit event `event` if given, in one transaction. */
  insert(token: NewAccessToken, event?: AuditEventInput): Promise<void>;
  /**
   * The row with this id. Uses of a token (gateway, introspection) may be answered from the
   * process's token cache, which every change to a token row evicts.
   * @param fresh - read the database, never the cache (the refresh grant).
   */
  byId(id: string, fresh?: boolean): Promise<TokenRecord | undefined>;
  /**
   * Stores `token` and marks the authorization code `codeId` used at `now`, in one
   * transaction, only if the code was still unused: the single-use guard (RFC 6749 §4.1.2).
   * A concurrent replay thus either finds the code unused or finds the tokens to revoke.
   * The audit event `event`, if given, is stored in the same transaction.
   * @returns false, storing nothing, when the code had already been used.
   */
  insertRedeemingCode(token: NewAccessToken, codeId: string, now: Date, event?: AuditEventInput): Promise<boolean>;
  /**
   * Stores `token` and revokes the refresh token of row `previousId`, in one transaction,
   * only if that refresh token was still approved: rotation (RFC 9700 §4.14.2).
   * The audit event `event`, if given, is stored in the same transaction.
   * @returns false, storing nothing, when it was already revoked (a concurrent or repeated use).
   */
  insertRotating(token: NewAccessToken, previousId: string, event?: AuditEventInput): Promise<boolean>;
  /** Revokes every access and refresh token of a rotation family. @returns how many rows changed. */
  revokeFamily(familyId: string, revocation: Revocation): Promise<number>;
  /** Revokes one access token (not its refresh token). */
  revokeAccessToken(id: string, revocation: Revocation): Promise<void>;
  /** Revokes every access and refresh token of a PSD2 consent (it was revoked, or terminated by its TPP). @returns how many rows changed. */
  revokeConsent(consentId: string, revocation: Revocation): Promise<number>;
  /** Revokes one row's access token and its refresh token, if any. @returns the row, or undefined when unknown. */
  revokeRow(id: string, revocation: Revocation): Promise<TokenRow | undefined>;
  /** Revokes every live access and refresh token of an owner. @returns how many access tokens were revoked. */
  revokeTokensOf(owner: TokenOwner, revocation: Revocation): Promise<number>;
  /** How many access tokens of `owner` are live at `now` (approved, not expired). */
  countLive(owner: TokenOwner, now: Date): Promise<number>;
  /** Deletes up to `limit` rows whose access and refresh tokens both expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
  /** Rows newest first. @param now - for `state` and `liveOnly`. */
  list(filter: TokenFilter, now: Date, page: PageRequest): Promise<Page<TokenRow>>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<TokenRow | undefined>;
  /** Up to `limit` token rows whose id starts with `prefix` (a refusal's `token_id_prefix`), newest first. */
  findByIdPrefix(prefix: string, limit: number): Promise<TokenRow[]>;
  /**
   * Tokens issued per app in each bucket [start, start + `bucketMs`) of `starts`.
   * @param bucketMs - the buckets' width, in milliseconds.
   */
  countIssued(starts: Date[], bucketMs: number): Promise<{ start: Date; appId: string; count: number }[]>;
}
