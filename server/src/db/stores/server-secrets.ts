/**
 * The server secret store (stores/server-secrets.ts), on Prisma: read at start only.
 */
import type { ServerSecretStore } from "../../stores/server-secrets.js";
import { Conflict } from "../../kernel/domain-errors.js";
import { withDomainErrors } from "./errors.js";
import type { Executor } from "./executor.js";

/** The server secret store over `x`. */
export function serverSecretStore(x: Executor): ServerSecretStore {
  const { prisma } = x;
  return {
    async sealed(name) {
      return (await prisma.serverSecret.findUnique({ where: { name } }))?.sealed;
    },
    async insertIfAbsent(name, sealed, now) {
      try {
        await withDomainErrors(prisma.serverSecret.create({ data: { name, sealed, createdAt: now } }));
        return sealed;
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        return (await prisma.serverSecret.findUniqueOrThrow({ where: { name } })).sealed;
      }
    },
    async replace(name, from, to) {
      await prisma.serverSecret.updateMany({ where: { name, sealed: from }, data: { sealed: to } });
    },
  };
}
