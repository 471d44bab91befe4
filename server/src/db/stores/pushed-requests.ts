/**
 * The pushed authorization request store (stores/pushed-requests.ts), on Prisma.
 */
import type { PushedRequestStore } from "../../stores/pushed-requests.js";
import type { Executor } from "./executor.js";

/** The pushed authorization request store over `x`. */
export function pushedRequestStore(x: Executor): PushedRequestStore {
  const { prisma } = x;
  return {
    async insert({ parameters, ...rest }) {
      await prisma.pushedAuthorizationRequest.create({ data: { ...rest, parameters: JSON.stringify(parameters) } });
    },
    async find(requestUriHash, now) {
      const row = await prisma.pushedAuthorizationRequest.findUnique({ where: { requestUriHash } });
      if (!row || row.usedAt !== null || row.expiresAt <= now) return undefined;
      return { appId: row.appId, parameters: JSON.parse(row.parameters) as Record<string, string>, expiresAt: row.expiresAt };
    },
    async use(requestUriHash, now) {
      const row = await prisma.pushedAuthorizationRequest.findUnique({ where: { requestUriHash } });
      if (!row || row.usedAt !== null || row.expiresAt <= now) return undefined;
      const { count } = await prisma.pushedAuthorizationRequest.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: now } });
      return count === 1 ? { appId: row.appId, parameters: JSON.parse(row.parameters) as Record<string, string>, expiresAt: row.expiresAt } : undefined;
    },
    async deleteExpired(before, limit) {
      const ids = (await prisma.pushedAuthorizationRequest.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((r) => r.id);
      return ids.length === 0 ? 0 : (await prisma.pushedAuthorizationRequest.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
