/**
 * The interaction store (stores/interactions.ts), on Prisma.
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { InteractionRecord, InteractionStage, InteractionStore } from "../../stores/interactions.js";
import type { Executor } from "./executor.js";

type Row = Omit<InteractionRecord, "scopes" | "stage"> & { scope: string; stage: string; createdAt: Date; updatedAt: Date };

function parse(row: Row): InteractionRecord {
  const { scope, stage, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, scopes: splitList(scope), stage: stage as InteractionStage };
}

/** The interaction store over `x`. */
export function interactionStore(x: Executor): InteractionStore {
  const { prisma } = x;
  return {
    async create(i) {
      const { scopes, ...rest } = i;
      return parse(await prisma.interaction.create({ data: { ...rest, scope: joinList(scopes) } }));
    },
    async find(id) {
      const row = await prisma.interaction.findUnique({ where: { id } });
      return row ? parse(row) : undefined;
    },
    async advance(id, from, to, userId) {
      const { count } = await prisma.interaction.updateMany({ where: { id, stage: from }, data: { stage: to, ...(userId ? { userId } : {}) } });
      return count === 1;
    },
    async deleteExpired(before, limit) {
      const ids = (await prisma.interaction.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((i) => i.id);
      return ids.length === 0 ? 0 : (await prisma.interaction.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
