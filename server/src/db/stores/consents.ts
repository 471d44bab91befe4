/**
 * The consent store (stores/consents.ts), on Prisma, with the scopes' descriptions.
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { ConsentStore } from "../../stores/consents.js";
import type { Executor } from "./executor.js";

/** The consent store over `x`. */
export function consentStore(x: Executor): ConsentStore {
  const { prisma } = x;
  const scopesOf = async (userId: string, appId: string) => {
    const row = await prisma.consent.findUnique({ where: { userId_appId: { userId, appId } } });
    return row && row.revokedAt === null ? splitList(row.scope) : [];
  };
  return {
    scopesOf,
    async remember(userId, appId, scopes) {
      const scope = joinList([...new Set([...(await scopesOf(userId, appId)), ...scopes])]);
      await prisma.consent.upsert({ where: { userId_appId: { userId, appId } }, create: { userId, appId, scope }, update: { scope, revokedAt: null } });
    },
    list: (f) =>
      prisma.consent.findMany({
        where: { revokedAt: null, ...(f.userId ? { userId: f.userId } : {}), ...(f.appId ? { appId: f.appId } : {}) },
        orderBy: { updatedAt: "desc" },
      }),
    async find(id) {
      return (await prisma.consent.findUnique({ where: { id } })) ?? undefined;
    },
    async revoke(id, now) {
      const { count } = await prisma.consent.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
      return count === 1 ? ((await prisma.consent.findUnique({ where: { id } })) ?? undefined) : undefined;
    },
    async describeScopes(names) {
      const rows = await prisma.scope.findMany({ where: { name: { in: names } } });
      const byName = new Map(rows.map((r) => [r.name, r.description]));
      return names.map((name) => ({ name, description: byName.get(name) ?? name }));
    },
  };
}
