/**
 * The authorization code flow's records: interactions (flow state between /authorize and
 * the redirect back), authorization codes and remembered consents.
 */
import type { Db, Tx } from "../db/client.js";
import { dateOf, nullableDateOf, type Sql } from "../db/sql.js";
import { joinList, splitList } from "../kernel/list.js";
import { revokeTokensOfOwner } from "../tokens/management.js";

/** login -> consent -> done */
export type InteractionStage = "login" | "consent" | "done";

export interface InteractionRecord {
  id: string;
  appId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  prompt: string | null;
  stage: InteractionStage;
  userId: string | null;
  expiresAt: Date;
}

/** A new interaction: everything but the id. */
export type NewInteraction = Omit<InteractionRecord, "id">;

type InteractionRow = Awaited<ReturnType<Db["interaction"]["create"]>>;

function toInteraction(row: InteractionRow): InteractionRecord {
  const { scope, stage, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, scopes: splitList(scope), stage: stage as InteractionStage };
}

export async function createInteraction(db: Db, i: NewInteraction): Promise<InteractionRecord> {
  const { scopes, ...rest } = i;
  return toInteraction(await db.interaction.create({ data: { ...rest, scope: joinList(scopes) } }));
}

export async function findInteraction(db: Db, id: string): Promise<InteractionRecord | undefined> {
  const row = await db.interaction.findUnique({ where: { id } });
  return row ? toInteraction(row) : undefined;
}

/**
 * Moves an interaction from stage `from` to `to` (optionally binding the user), only if it
 * is still at `from`: the guard that makes each stage answerable once.
 * @returns false when another request moved it first.
 */
export async function advanceInteraction(db: Db, id: string, from: InteractionStage, to: InteractionStage, userId?: string): Promise<boolean> {
  const { count } = await db.interaction.updateMany({ where: { id, stage: from }, data: { stage: to, ...(userId ? { userId } : {}) } });
  return count === 1;
}

export interface AuthorizationCodeRecord {
  id: string;
  appId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: Date;
  usedAt: Date | null;
}

/** A code to store: the record's fields but its id and use, plus the SHA-256 of the code. */
export type NewAuthorizationCode = Omit<AuthorizationCodeRecord, "id" | "usedAt"> & { codeHash: string };

export async function insertAuthorizationCode(db: Db, c: NewAuthorizationCode): Promise<void> {
  const { scopes, ...rest } = c;
  await db.authorizationCode.create({ data: { ...rest, scope: joinList(scopes) } });
}

/** Finds a code by the SHA-256 of its value or by id (direct SQL: the code and refresh grants). */
export async function findAuthorizationCode(sql: Sql, where: { codeHash: string } | { id: string }): Promise<AuthorizationCodeRecord | undefined> {
  const [column, value] = "id" in where ? ["id", where.id] : ["codeHash", where.codeHash];
  const row = await sql.get<Record<string, unknown>>(
    `SELECT "id", "appId", "userId", "redirectUri", "scope", "codeChallenge", "codeChallengeMethod", "expiresAt", "usedAt"
     FROM "AuthorizationCode" WHERE "${column}" = ?`,
    [value],
  );
  if (!row) return undefined;
  return {
    id: String(row.id),
    appId: String(row.appId),
    userId: String(row.userId),
    redirectUri: String(row.redirectUri),
    scopes: splitList(String(row.scope)),
    codeChallenge: (row.codeChallenge as string | null) ?? null,
    codeChallengeMethod: (row.codeChallengeMethod as string | null) ?? null,
    expiresAt: dateOf(row.expiresAt),
    usedAt: nullableDateOf(row.usedAt),
  };
}

/**
 * Marks a code used, only if it was unused: the single-use guard (RFC 6749 §4.1.2).
 * @returns false when the code had already been used.
 */
export async function markAuthorizationCodeUsed(sql: Sql, id: string, now: Date): Promise<boolean> {
  return (await sql.run(`UPDATE "AuthorizationCode" SET "usedAt" = ? WHERE "id" = ? AND "usedAt" IS NULL`, [now, id])) === 1;
}

/** @returns the scopes the user has consented to for this app (empty if none or revoked). */
export async function findConsentedScopes(db: Db, userId: string, appId: string): Promise<string[]> {
  const row = await db.consent.findUnique({ where: { userId_appId: { userId, appId } } });
  return row && row.revokedAt === null ? splitList(row.scope) : [];
}

/** Remembers the user's consent to `scopes` for the app, adding to what was consented before. */
export async function rememberConsent(db: Db, userId: string, appId: string, scopes: string[]): Promise<void> {
  const previous = await findConsentedScopes(db, userId, appId);
  const scope = joinList([...new Set([...previous, ...scopes])]);
  await db.consent.upsert({
    where: { userId_appId: { userId, appId } },
    create: { userId, appId, scope },
    update: { scope, revokedAt: null },
  });
}

/** @returns descriptions of the given scopes, in the given order (the name itself when none is stored). */
export async function describeScopes(db: Db, names: string[]): Promise<{ name: string; description: string }[]> {
  const rows = await db.scope.findMany({ where: { name: { in: names } } });
  const byName = new Map(rows.map((r) => [r.name, r.description]));
  return names.map((name) => ({ name, description: byName.get(name) ?? name }));
}

/** Live (not revoked) consents, newest first, optionally of one user and/or app. */
export async function listConsents(db: Db, f: { userId?: string | null; appId?: string | null }) {
  return db.consent.findMany({
    where: { revokedAt: null, ...(f.userId ? { userId: f.userId } : {}), ...(f.appId ? { appId: f.appId } : {}) },
    orderBy: { updatedAt: "desc" },
  });
}

export async function findConsent(db: Db, id: string) {
  return db.consent.findUnique({ where: { id } });
}

/**
 * Voids everything a user was granted, inside the caller's transaction: unredeemed
 * authorization codes are deleted first, then every live access and refresh token is
 * revoked. In this order a code exchange racing the revocation either finds its code gone
 * (its single-use guard then fails) or has committed its tokens, which the revocation that
 * follows reads and revokes (PostgreSQL re-reads rows a statement waited for).
 * @param owner - the user, and optionally only their grants at one app.
 * @returns how many access tokens were revoked.
 */
export async function voidGrantsOf(tx: Tx, owner: { userId: string; appId?: string }, now: Date): Promise<number> {
  await tx.authorizationCode.deleteMany({ where: { ...owner, usedAt: null } });
  return revokeTokensOfOwner(tx, owner, now);
}

/**
 * Revokes a consent and, in the same transaction, every unredeemed code and every access
 * and refresh token the user holds at that app ({@link voidGrantsOf}).
 * @returns false when the consent is unknown or already revoked.
 */
export async function revokeConsent(db: Db, id: string, now: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const consent = await tx.consent.findUnique({ where: { id } });
    if (!consent || consent.revokedAt !== null) return false;
    await tx.consent.update({ where: { id }, data: { revokedAt: now } });
    await voidGrantsOf(tx, { userId: consent.userId, appId: consent.appId }, now);
    return true;
  });
}

/**
 * Deletes up to `limit` authorization codes that expired before `before` and have no token
 * family left (the refresh grant reads a family's original scopes from its code).
 * @returns how many were deleted.
 */
export async function deleteSpentAuthorizationCodes(db: Db, before: Date, limit: number): Promise<number> {
  const candidates = (await db.authorizationCode.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((c) => c.id);
  if (candidates.length === 0) return 0;
  const withTokens = new Set(
    (await db.accessToken.findMany({ where: { familyId: { in: candidates } }, select: { familyId: true }, distinct: ["familyId"] })).map((t) => t.familyId),
  );
  const ids = candidates.filter((id) => !withTokens.has(id));
  return ids.length === 0 ? 0 : (await db.authorizationCode.deleteMany({ where: { id: { in: ids } } })).count;
}

/** Deletes up to `limit` interactions that expired before `before`. @returns how many were deleted. */
export async function deleteExpiredInteractions(db: Db, before: Date, limit: number): Promise<number> {
  const ids = (await db.interaction.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((i) => i.id);
  return ids.length === 0 ? 0 : (await db.interaction.deleteMany({ where: { id: { in: ids } } })).count;
}
