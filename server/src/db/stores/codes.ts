/**
 * The authorization code store (stores/codes.ts). The code and refresh grants read and
 * use codes by direct prepared SQL; the flow inserts with Prisma.
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { AuthorizationCodeRecord, AuthorizationCodeStore } from "../../stores/codes.js";
import { authenticationOf, dateOf, nullableDateOf } from "../sql.js";
import type { Executor } from "./executor.js";

const SELECT = `SELECT "id", "appId", "userId", "redirectUri", "scope", "codeChallenge", "codeChallengeMethod", "dpopJkt", "nonce", "resource", "acr", "amr", "authTime", "authenticatedBy", "consentId", "authorizationDetails", "expiresAt", "usedAt" FROM "AuthorizationCode"`;

function parse(row: Record<string, unknown>): AuthorizationCodeRecord {
  return {
    id: String(row.id),
    appId: String(row.appId),
    userId: String(row.userId),
    redirectUri: String(row.redirectUri),
    scopes: splitList(String(row.scope)),
    codeChallenge: (row.codeChallenge as string | null) ?? null,
    codeChallengeMethod: (row.codeChallengeMethod as string | null) ?? null,
    dpopJkt: (row.dpopJkt as string | null) ?? null,
    nonce: (row.nonce as string | null) ?? null,
    resource: typeof row.resource === "string" ? splitList(row.resource) : null,
    authentication: typeof row.acr === "string" ? authenticationOf(row.acr, row.amr, row.authTime, row.authenticatedBy) : null,
    consent: typeof row.authorizationDetails === "string" ? { consentId: (row.consentId as string | null) ?? null, authorizationDetails: row.authorizationDetails } : null,
    expiresAt: dateOf(row.expiresAt),
    usedAt: nullableDateOf(row.usedAt),
  };
}

/** The authorization code store over `x`. */
export function codeStore(x: Executor): AuthorizationCodeStore {
  const { prisma, sql } = x;
  const one = async (column: "codeHash" | "id", value: string) => {
    const row = await sql.get<Record<string, unknown>>(`${SELECT} WHERE "${column}" = ?`, [value]);
    return row && parse(row);
  };
  return {
    async insert(c) {
      const { scopes, authentication, consent, resource, ...rest } = c;
      await prisma.authorizationCode.create({
        data: {
          ...rest,
          resource: resource ? joinList(resource) : null,
          consentId: consent?.consentId ?? null,
          authorizationDetails: consent?.authorizationDetails ?? null,
          scope: joinList(scopes), acr: authentication?.acr ?? null, amr: authentication ? joinList(authentication.amr) : null, authTime: authentication?.authTime ?? null,
          authenticatedBy: authentication?.authenticatedBy ?? null },
      });
    },
    byHash: (codeHash) => one("codeHash", codeHash),
    byId: (id) => one("id", id),
    async deleteUnredeemed(owner) {
      await prisma.authorizationCode.deleteMany({ where: { ...owner, usedAt: null } });
    },
    async deleteSpent(before, limit) {
      const candidates = (await prisma.authorizationCode.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((c) => c.id);
      if (candidates.length === 0) return 0;
      const withTokens = new Set(
        (await prisma.accessToken.findMany({ where: { familyId: { in: candidates } }, select: { familyId: true }, distinct: ["familyId"] })).map((t) => t.familyId),
      );
      const ids = candidates.filter((id) => !withTokens.has(id));
      return ids.length === 0 ? 0 : (await prisma.authorizationCode.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
