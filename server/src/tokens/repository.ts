/**
 * Issued access tokens (and refresh tokens of user grants). Every function here is on a
 * hot path and runs as direct SQL (db/sql.ts); the catalog side of a token (its app,
 * credential and products) comes from the catalog cache.
 *
 * Token values are split tokens, `<row id><secret>`: the row id (25 characters,
 * time-ordered, see kernel/ids.ts) finds the row through the primary key, and the SHA-256 of the whole value,
 * compared in constant time with the stored hash, proves it. Only the hashes are stored.
 * Looking rows up by a random hash instead needed an index on it, where every insert
 * dirties a random page: at a million rows that random I/O cost a fifth of the issuance
 * rate (README, Performance → Growth).
 */
import { findClientByCredentialId, type ClientRecord } from "../apps/repository.js";
import type { Db } from "../db/client.js";
import { ID_LENGTH } from "../kernel/ids.js";
import { dateOf, nullableDateOf, type Sql } from "../db/sql.js";
import { joinList, splitList } from "../kernel/list.js";
import { hashMatches, hashSecret } from "../kernel/secrets.js";
import type { TokenCache } from "./cache.js";

/** The value handed out for the token of row `id` (a newId()): the id, then the secret (base64url). */
export function tokenValue(id: string, secret: string): string {
  return id + secret;
}

/** Shape of the ids newId() makes: lowercase letters and digits. */
const ROW_ID = /^[0-9a-z]+$/;

/** The row id at the start of a presented token value, or undefined when it cannot hold one (then no query runs). */
function rowIdOf(value: string): string | undefined {
  const id = value.slice(0, ID_LENGTH);
  return value.length > ID_LENGTH && ROW_ID.test(id) ? id : undefined;
}

/** What is stored for a newly issued access token. */
export interface NewAccessToken {
  /** Row id: the first part of the token values (newId()). */
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
  familyId?: string;
}

/**
 * What a token still grants: its recorded products that are still approved on its
 * credential, and its recorded scopes that one of those products still offers. Revoking
 * a product on a credential thus takes effect on tokens already issued. (Lists of a few
 * names each, so plain array scans.)
 */
function liveGrant(t: TokenRecord, approved: ClientRecord["products"]): { apiProducts: string[]; scopes: string[] } {
  const products = approved.filter((p) => t.apiProducts.includes(p.name));
  return { apiProducts: products.map((p) => p.name), scopes: t.scopes.filter((s) => products.some((p) => p.scopes.includes(s))) };
}

/** The app and credential are approved and the credential is not past its expiry (rotation grace). */
function clientActive(c: ClientRecord, now: Date): boolean {
  return c.appStatus === "approved" && c.credentialStatus === "approved" && (c.credentialExpiresAt === null || c.credentialExpiresAt > now);
}

/** Stores a new access token row. */
export async function insertAccessToken(sql: Sql, t: NewAccessToken): Promise<void> {
  await sql.run(
    `INSERT INTO "AccessToken" ("id", "tokenHash", "appId", "credentialId", "userId", "grantType", "scope", "apiProducts", "issuedAt", "expiresAt",
       "status", "refreshTokenHash", "refreshTokenIssuedAt", "refreshTokenExpiresAt", "refreshTokenStatus", "refreshCount", "familyId")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'approved', ?, ?, ?, ?, ?, ?)`,
    [
      t.id,
      t.tokenHash,
      t.appId,
      t.credentialId,
      t.userId ?? null,
      t.grantType,
      joinList(t.scopes),
      joinList(t.apiProducts),
      t.issuedAt,
      t.expiresAt,
      t.refresh?.tokenHash ?? null,
      t.refresh?.issuedAt ?? null,
      t.refresh?.expiresAt ?? null,
      t.refresh ? "approved" : null,
      t.refreshCount ?? 0,
      t.familyId ?? null,
    ],
  );
}

/** An access token as the gateway checks it, with the live status of its app and credential. */
export interface PresentedToken {
  /** Approved, not expired, and its app and credential still approved and unexpired. */
  active: boolean;
  scopes: string[];
  /** Products recorded on the token that are still approved on its credential. */
  apiProducts: string[];
  clientId: string;
  appName: string;
  userId: string | null;
}

/** The columns of a token row the lookups below read, as the driver returns them. */
interface TokenRow extends Record<string, unknown> {
  id: string;
  tokenHash: string;
  refreshTokenHash: string | null;
  appId: string;
  credentialId: string;
  userId: string | null;
  username: string | null;
  scope: string;
  apiProducts: string;
  status: string;
  issuedAt: unknown;
  expiresAt: unknown;
  refreshTokenStatus: string | null;
  refreshTokenIssuedAt: unknown;
  refreshTokenExpiresAt: unknown;
  refreshCount: unknown;
  familyId: string | null;
}

/**
 * A token row parsed once when read (and so held by tokens/cache.ts): lists split, dates
 * as Date, the user's name joined in. Shared between requests: read-only.
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
  readonly status: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly refreshTokenStatus: string | null;
  readonly refreshTokenIssuedAt: Date | null;
  readonly refreshTokenExpiresAt: Date | null;
  readonly refreshCount: number;
  readonly familyId: string | null;
}

function parseRow(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    tokenHash: row.tokenHash,
    refreshTokenHash: row.refreshTokenHash,
    appId: row.appId,
    credentialId: row.credentialId,
    userId: row.userId,
    username: row.username,
    scopes: splitList(row.scope),
    apiProducts: splitList(row.apiProducts),
    status: row.status,
    issuedAt: dateOf(row.issuedAt),
    expiresAt: dateOf(row.expiresAt),
    refreshTokenStatus: row.refreshTokenStatus,
    refreshTokenIssuedAt: nullableDateOf(row.refreshTokenIssuedAt),
    refreshTokenExpiresAt: nullableDateOf(row.refreshTokenExpiresAt),
    refreshCount: Number(row.refreshCount),
    familyId: row.familyId,
  };
}

const BY_ID = `SELECT t."id", t."tokenHash", t."refreshTokenHash", t."appId", t."credentialId", t."userId", u."username", t."scope", t."apiProducts", t."status", t."issuedAt", t."expiresAt",
  t."refreshTokenStatus", t."refreshTokenIssuedAt", t."refreshTokenExpiresAt", t."refreshCount", t."familyId"
  FROM "AccessToken" t LEFT JOIN "User" u ON u."id" = t."userId" WHERE t."id" = ?`;

/** The token of row `id`: from `cache`, else read from the database and parsed (then cached). */
async function readRow(sql: Sql, cache: TokenCache<TokenRecord> | undefined, id: string): Promise<TokenRecord | undefined> {
  const cached = cache?.get(id);
  if (cached) return cached;
  const generation = cache?.generation;
  const row = await sql.get<TokenRow>(BY_ID, [id]);
  const token = row && parseRow(row);
  if (token && cache) cache.set(id, token, generation!);
  return token;
}

/**
 * The row a presented token value names, and which of its two tokens the value is (undefined: neither).
 * @param cache - the token cache, for uses of a token; none for a read inside a transaction.
 */
async function findRow(sql: Sql, value: string, cache?: TokenCache<TokenRecord>): Promise<{ row: TokenRecord; type: StoredToken["type"] } | undefined> {
  const id = rowIdOf(value);
  const row = id === undefined ? undefined : await readRow(sql, cache, id);
  if (!row) return undefined;
  const hash = hashSecret(value);
  if (hashMatches(hash, row.tokenHash)) return { row, type: "access_token" };
  if (row.refreshTokenHash !== null && hashMatches(hash, row.refreshTokenHash)) return { row, type: "refresh_token" };
  return undefined;
}

/**
 * Loads the access token presented as `value`.
 * @param now - current time, for expiries.
 * @returns undefined when no access token has this value.
 */
export async function findToken(db: Db, value: string, now: Date): Promise<PresentedToken | undefined> {
  const found = await findRow(db.sql, value, db.tokens);
  const t = found?.type === "access_token" ? found.row : undefined;
  const client = t && (await findClientByCredentialId(db, t.credentialId));
  if (!t || !client) return undefined;
  return {
    active: t.status === "approved" && t.expiresAt > now && clientActive(client, now),
    ...liveGrant(t, client.products),
    clientId: client.clientId,
    appName: client.appName,
    userId: t.userId,
  };
}

/** A refresh token's row, as the refresh grant needs it. */
export interface RefreshTokenRecord {
  id: string;
  appId: string;
  userId: string | null;
  scopes: string[];
  refreshTokenStatus: string | null;
  refreshTokenExpiresAt: Date | null;
  refreshCount: number;
  familyId: string | null;
}

/** @returns the row of the refresh token presented as `value`, or undefined. */
export async function findRefreshToken(sql: Sql, value: string): Promise<RefreshTokenRecord | undefined> {
  const found = await findRow(sql, value);
  const t = found?.type === "refresh_token" ? found.row : undefined;
  if (!t) return undefined;
  return {
    id: t.id,
    appId: t.appId,
    userId: t.userId,
    scopes: [...t.scopes],
    refreshTokenStatus: t.refreshTokenStatus,
    refreshTokenExpiresAt: t.refreshTokenExpiresAt,
    refreshCount: t.refreshCount,
    familyId: t.familyId,
  };
}

/**
 * Runs `write`, a change to cached token rows, between two evictions: the first keeps a
 * read already under way from storing the old row, the second drops a row read meanwhile
 * (tokens/cache.ts).
 */
async function changing<T>(evict: () => void, write: () => Promise<T>): Promise<T> {
  evict();
  try {
    return await write();
  } finally {
    evict();
  }
}

/**
 * Revokes a refresh token on rotation, only if it is still approved (RFC 9700 §4.14.2).
 * @returns false when it was already revoked (a concurrent or repeated use).
 */
export async function revokeRefreshToken(sql: Sql, cache: TokenCache<TokenRecord>, id: string): Promise<boolean> {
  const changed = await changing(
    () => cache.evict(id),
    () => sql.run(`UPDATE "AccessToken" SET "refreshTokenStatus" = 'revoked' WHERE "id" = ? AND "refreshTokenStatus" = 'approved'`, [id]),
  );
  return changed === 1;
}

/** Revokes every access and refresh token of a rotation family. @returns how many rows changed. */
export function revokeFamily(sql: Sql, cache: TokenCache<TokenRecord>, familyId: string, now: Date): Promise<number> {
  return changing(
    () => cache.evictFamily(familyId),
    () =>
      sql.run(
        `UPDATE "AccessToken" SET "status" = 'revoked', "refreshTokenStatus" = 'revoked', "revokedAt" = ?
         WHERE "familyId" = ? AND ("status" = 'approved' OR "refreshTokenStatus" = 'approved')`,
        [now, familyId],
      ),
  );
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
}

/**
 * Finds the access or refresh token presented as `value`. One lookup serves both types, so
 * a `token_type_hint` (RFC 7009 §2.1, RFC 7662 §2.1) is not needed.
 * @param now - for expiries.
 */
export async function findAnyToken(db: Db, value: string, now: Date): Promise<StoredToken | undefined> {
  const found = await findRow(db.sql, value, db.tokens);
  const client = found && (await findClientByCredentialId(db, found.row.credentialId));
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
  };
}

/** Revokes one access token (not its refresh token). */
export async function revokeAccessToken(sql: Sql, cache: TokenCache<TokenRecord>, id: string, now: Date): Promise<void> {
  await changing(
    () => cache.evict(id),
    () => sql.run(`UPDATE "AccessToken" SET "status" = 'revoked', "revokedAt" = ? WHERE "id" = ? AND "status" = 'approved'`, [now, id]),
  );
}

/**
 * Deletes up to `limit` token rows whose access token and refresh token (if any) both
 * expired before `before` (one statement, found through the expiresAt index).
 * @returns how many were deleted.
 */
export function deleteExpiredTokens(sql: Sql, before: Date, limit: number): Promise<number> {
  return sql.run(
    `DELETE FROM "AccessToken" WHERE "id" IN (SELECT "id" FROM "AccessToken"
       WHERE "expiresAt" < ? AND ("refreshTokenExpiresAt" IS NULL OR "refreshTokenExpiresAt" < ?) LIMIT ?)`,
    [before, before, limit],
  );
}
