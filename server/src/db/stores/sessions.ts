/**
 * The browser session store (stores/sessions.ts), on Prisma.
 */
import type { SessionStore } from "../../stores/sessions.js";
import type { Executor } from "./executor.js";

/** The session store over `x`. */
export function sessionStore(x: Executor): SessionStore {
  const { prisma } = x;
  return {
    async read(sidHash, now) {
      const row = await prisma.session.findUnique({ where: { sidHash } });
      return row && row.expiresAt > now ? row.data : undefined;
    },
    async write(sidHash, data, expiresAt) {
      await prisma.session.upsert({ where: { sidHash }, create: { sidHash, data, expiresAt }, update: { data, expiresAt } });
    },
    async touch(sidHash, expiresAt) {
      await prisma.session.updateMany({ where: { sidHash }, data: { expiresAt } });
    },
    async destroy(sidHash) {
      await prisma.session.deleteMany({ where: { sidHash } });
    },
    async destroyOfUser(userId) {
      // The session data is express-session's JSON.stringify: `"userId":"<id>"` is the signed-in
      // user or a pending sign-in's (interaction/session.ts); JSON escaping keeps a typed
      // username from spelling it. A scan of the table, for a rare administrator's change.
      return (await prisma.session.deleteMany({ where: { data: { contains: `"userId":${JSON.stringify(userId)}` } } })).count;
    },
    async deleteExpired(before, limit) {
      const ids = (await prisma.session.findMany({ where: { expiresAt: { lt: before } }, select: { sidHash: true }, take: limit })).map((s) => s.sidHash);
      return ids.length === 0 ? 0 : (await prisma.session.deleteMany({ where: { sidHash: { in: ids } } })).count;
    },
  };
}
