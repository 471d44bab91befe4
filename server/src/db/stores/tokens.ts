/**
 * The token store (stores/tokens.ts). Issuance, lookups and revocations are on the hot
 * paths and run as direct prepared SQL (db/sql.ts); lookups of token uses go through the
 * process's token cache (db/token-cache.ts), which each change here evicts once committed. The admin
 * lists and counts use Prisma.
 *
 * Rows are found by id: a token value is `<row id><secret>` (oauth/token-values.ts), so
 * the primary key finds the row and the stored SHA-256 proves the value. Looking rows up
 * by a random hash instead needed an index on it, where every insert dirties a random
 * page: at a million rows that random I/O cost a fifth of the issuance rate (README,
 * Performance → Growth).
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { AuthorizationDetail } from "../../stores/authorization-details.js";
import type { AuditEventInput } from "../../stores/audit.js";
import { accessTokenFormatOf } from "../../stores/clients.js";
import type { NewAccessToken, Revocation, TokenOwner, TokenRecord, TokenState, TokenStore } from "../../stores/tokens.js";
import { paginate } from "../paginate.js";
import { authenticationOf, dateOf, nullableDateOf, type SqlValue, type Statement } from "../sql.js";
import { appendEvent } from "./audit.js";
import type { Executor } from "./executor.js";

/** The columns of a token row the lookups read, as the driver returns them. */
interface Row extends Record<string, unknown> {
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
  jkt: string | null;
  x5t: string | null;
  acr: string | null;
  amr: string | null;
  authTime: unknown;
  authenticatedBy: string | null;
  consentId: string | null;
  authorizationDetails: string | null;
  audience: string | null;
  format: string;
}

function parseRow(row: Row): TokenRecord {
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
    jkt: row.jkt,
    x5t: row.x5t,
    authentication: row.acr === null ? null : authenticationOf(row.acr, row.amr, row.authTime, row.authenticatedBy),
    consent: row.authorizationDetails === null ? null : { consentId: row.consentId, authorizationDetails: row.authorizationDetails },
    // Written by us from validated details (consents/authorization-details.ts).
    authorizationDetails: row.authorizationDetails === null ? null : (JSON.parse(row.authorizationDetails) as AuthorizationDetail[]),
    audience: row.audience === null ? null : splitList(row.audience),
    format: accessTokenFormatOf(row.format),
  };
}

const INSERT = `INSERT INTO "AccessToken" ("id", "tokenHash", "appId", "credentialId", "userId", "grantType", "scope", "apiProducts", "issuedAt", "expiresAt",
   "status", "refreshTokenHash", "refreshTokenIssuedAt", "refreshTokenExpiresAt", "refreshTokenStatus", "refreshCount", "familyId", "jkt", "x5t", "acr", "amr", "authTime",
   "authenticatedBy", "consentId", "authorizationDetails", "audience", "format")
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'approved', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const BY_ID = `SELECT t."id", t."tokenHash", t."refreshTokenHash", t."appId", t."credentialId", t."userId", u."username", t."scope", t."apiProducts", t."status", t."issuedAt", t."expiresAt",
  t."refreshTokenStatus", t."refreshTokenIssuedAt", t."refreshTokenExpiresAt", t."refreshCount", t."familyId", t."jkt", t."x5t", t."acr", t."amr", t."authTime",
  t."authenticatedBy", t."consentId", t."authorizationDetails", t."audience", t."format"
  FROM "AccessToken" t LEFT JOIN "User" u ON u."id" = t."userId" WHERE t."id" = ?`;

/** The bound values of {@link INSERT} for `t`. */
function insertParams(t: NewAccessToken): SqlValue[] {
  return [
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
    t.jkt ?? null,
    t.x5t ?? null,
    t.authentication?.acr ?? null,
    t.authentication ? joinList(t.authentication.amr) : null,
    t.authentication?.authTime ?? null,
    t.authentication?.authenticatedBy ?? null,
    t.consent?.consentId ?? null,
    t.consent?.authorizationDetails ?? null,
    t.audience ? joinList(t.audience) : null,
    t.format,
  ];
}

/** The statements storing `t` and, if given, its audit event. */
function inserting(t: NewAccessToken, event: AuditEventInput | undefined): Statement[] {
  return [[INSERT, insertParams(t)], ...(event ? [appendEvent(event)] : [])];
}

/** The rows in `state` at `now` (stores/tokens.ts tokenStateOf). */
function stateWhere(state: TokenState, now: Date) {
  if (state === "REVOKED") return { status: { not: "approved" } };
  return { status: "approved", expiresAt: state === "LIVE" ? { gt: now } : { lte: now } };
}

/** The rows of `owner`: its app, user and credential, those given. */
function ownerWhere(owner: TokenOwner) {
  return {
    ...(owner.appId ? { appId: owner.appId } : {}),
    ...(owner.userId ? { userId: owner.userId } : {}),
    ...(owner.credentialId ? { credentialId: owner.credentialId } : {}),
  };
}

/** The token store over `x`. */
export function tokenStore(x: Executor): TokenStore {
  const { sql, tokenCache: cache, prisma } = x;

  /**
   * Runs `write`, a change to cached token rows, then `evict`: the write's promise settles
   * once it has committed (group commit), so the eviction follows the commit, which is what
   * makes the cache exact (db/token-cache.ts). Inside a Prisma transaction, the commit's own
   * eviction follows (db/observed-adapter.ts).
   */
  async function changing<T>(evict: () => void, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      evict();
    }
  }

  /** Revokes every token of a family (stores/tokens.ts revokeFamily). */
  function revokeFamily(familyId: string, { at, by }: Revocation): Promise<number> {
    return changing(
      () => cache.evictFamily(familyId),
      () =>
        sql.run(
          `UPDATE "AccessToken" SET "refreshTokenStatus" = 'revoked',
             "revokedAt" = CASE WHEN "status" = 'approved' THEN ? ELSE "revokedAt" END,
             "revokedBy" = CASE WHEN "status" = 'approved' THEN ? ELSE "revokedBy" END,
             "status" = 'revoked'
           WHERE "familyId" = ? AND ("status" = 'approved' OR "refreshTokenStatus" = 'approved')`,
          [at, by, familyId],
        ),
    );
  }

  return {
    async insert(t, event) {
      if (event) await sql.batch(inserting(t, event));
      else await sql.run(INSERT, insertParams(t));
    },

    insertRedeemingCode(t, codeId, now, event) {
      return sql.transaction(async (tx) => {
        if ((await tx.run(`UPDATE "AuthorizationCode" SET "usedAt" = ? WHERE "id" = ? AND "usedAt" IS NULL`, [now, codeId])) !== 1) return false;
        await tx.batch(inserting(t, event));
        return true;
      });
    },

    insertRotating(t, previousId, event) {
      return changing(
        () => cache.evict(previousId),
        () =>
          sql.transaction(async (tx) => {
            const revoked = await tx.run(`UPDATE "AccessToken" SET "refreshTokenStatus" = 'revoked' WHERE "id" = ? AND "refreshTokenStatus" = 'approved'`, [previousId]);
            if (revoked !== 1) return false;
            await tx.batch(inserting(t, event));
            return true;
          }),
      );
    },

    async byId(id, fresh = false) {
      const cached = fresh ? undefined : cache.get(id);
      if (cached) return cached;
      const generation = cache.generation;
      const row = await sql.get<Row>(BY_ID, [id]);
      const token = row && parseRow(row);
      if (token && !fresh) cache.set(id, token, generation);
      return token;
    },

    revokeFamily,

    async revokeConsent(consentId, revocation) {
      // A consent is authorized once, by one code: its tokens are that code's family.
      const families = await prisma.accessToken.findMany({ where: { consentId }, select: { familyId: true }, distinct: ["familyId"] });
      let revoked = 0;
      for (const { familyId } of families) if (familyId !== null) revoked += await revokeFamily(familyId, revocation);
      return revoked;
    },

    async revokeAccessToken(id, { at, by }) {
      await changing(
        () => cache.evict(id),
        () => sql.run(`UPDATE "AccessToken" SET "status" = 'revoked', "revokedAt" = ?, "revokedBy" = ? WHERE "id" = ? AND "status" = 'approved'`, [at, by, id]),
      );
    },

    async revokeRow(id, { at, by }) {
      const t = await prisma.accessToken.findUnique({ where: { id } });
      if (!t) return undefined;
      return prisma.accessToken.update({
        where: { id },
        data: {
          ...(t.status === "approved" ? { status: "revoked", revokedAt: at, revokedBy: by } : {}),
          ...(t.refreshTokenStatus ? { refreshTokenStatus: "revoked" } : {}),
        },
      });
    },

    async revokeTokensOf(owner: TokenOwner, { at, by }) {
      const base = ownerWhere(owner);
      const access = await prisma.accessToken.updateMany({ where: { ...base, status: "approved" }, data: { status: "revoked", revokedAt: at, revokedBy: by } });
      await prisma.accessToken.updateMany({ where: { ...base, refreshTokenStatus: "approved" }, data: { refreshTokenStatus: "revoked" } });
      return access.count;
    },

    countLive(owner, now) {
      return prisma.accessToken.count({ where: { ...ownerWhere(owner), status: "approved", expiresAt: { gt: now } } });
    },

    deleteExpired(before, limit) {
      return sql.run(
        `DELETE FROM "AccessToken" WHERE "id" IN (SELECT "id" FROM "AccessToken"
           WHERE "expiresAt" < ? AND ("refreshTokenExpiresAt" IS NULL OR "refreshTokenExpiresAt" < ?) LIMIT ?)`,
        [before, before, limit],
      );
    },

    list(f, now, page) {
      const where = {
        AND: [
          f.appId ? { appId: f.appId } : {},
          f.userId ? { userId: f.userId } : {},
          f.clientId ? { credential: { consumerKey: f.clientId } } : {},
          ...(f.state ? [stateWhere(f.state, now)] : [f.status ? { status: f.status } : {}, f.liveOnly ? stateWhere("LIVE", now) : {}]),
        ],
      };
      return paginate((args) => prisma.accessToken.findMany({ ...args, where }), page, "desc");
    },

    async find(id) {
      return (await prisma.accessToken.findUnique({ where: { id } })) ?? undefined;
    },

    findByIdPrefix(prefix, limit) {
      return prisma.accessToken.findMany({ where: { id: { startsWith: prefix } }, orderBy: { id: "desc" }, take: limit });
    },

    async countIssued(starts, bucketMs) {
      const perBucket = await Promise.all(
        starts.map(async (start) => {
          const groups = await prisma.accessToken.groupBy({
            by: ["appId"],
            where: { issuedAt: { gte: start, lt: new Date(start.getTime() + bucketMs) } },
            _count: { _all: true },
          });
          return groups.map((g) => ({ start, appId: g.appId, count: g._count._all }));
        }),
      );
      return perBucket.flat();
    },
  };
}
