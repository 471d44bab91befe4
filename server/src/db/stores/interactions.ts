/**
 * The interaction store (stores/interactions.ts), on Prisma.
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { InteractionRecord, InteractionStage, InteractionStore } from "../../stores/interactions.js";
import type { Executor } from "./executor.js";

type Row = Omit<InteractionRecord, "scopes" | "stage" | "authentication" | "resource" | "responseMode"> & {
  scope: string;
  responseMode: string | null;
  resource: string | null;
  stage: string;
  amr: string;
  authTime: Date | null;
  upstreamStateHash: string | null;
  challengeHash: string | null;
  createdAt: Date;
  updatedAt: Date;
};

function parse(row: Row): InteractionRecord {
  const { scope, stage, amr, authTime, resource, responseMode, upstreamStateHash: _s, challengeHash: _h, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, responseMode: responseMode === "query.jwt" || responseMode === "form_post.jwt" ? responseMode : "query", scopes: splitList(scope), resource: resource === null ? null : splitList(resource), stage: stage as InteractionStage, authentication: authTime ? { amr: splitList(amr), authTime } : null };
}

/** The interaction store over `x`. */
export function interactionStore(x: Executor): InteractionStore {
  const { prisma } = x;
  const move = async (id: string, from: InteractionStage, data: object) => (await prisma.interaction.updateMany({ where: { id, stage: from }, data })).count === 1;
  return {
    async create(i) {
      const { scopes, authentication, resource, responseMode, ...rest } = i;
      return parse(
        await prisma.interaction.create({
          // The column's null is query mode.
          data: { ...rest, responseMode: responseMode === "query" ? null : responseMode, scope: joinList(scopes), resource: resource ? joinList(resource) : null, amr: joinList(authentication?.amr ?? []), authTime: authentication?.authTime ?? null },
        }),
      );
    },
    async find(id) {
      const row = await prisma.interaction.findUnique({ where: { id } });
      return row ? parse(row) : undefined;
    },
    advance: (id, from, to, userId) => move(id, from, { stage: to, ...(userId ? { userId } : {}) }),
    authenticate: (id, from, to, userId, authentication) =>
      move(id, from, { stage: to, userId, amr: joinList(authentication.amr), authTime: authentication.authTime }),
    restartLogin: (id, from) => move(id, from, { stage: "login", userId: null, amr: "", authTime: null }),
    sendUpstream: (id, stateHash) => move(id, "login", { upstreamStateHash: stateHash }),
    openChallenge: (id, stage, challengeHash) => move(id, stage, { challengeHash }),
    async byChallenge(challengeHash) {
      const row = await prisma.interaction.findUnique({ where: { challengeHash } });
      return row ? parse(row) : undefined;
    },
    async takeUpstream(stateHash) {
      const row = await prisma.interaction.findUnique({ where: { upstreamStateHash: stateHash } });
      if (!row || (await prisma.interaction.updateMany({ where: { id: row.id, upstreamStateHash: stateHash }, data: { upstreamStateHash: null } })).count !== 1) return undefined;
      return parse(row);
    },
    async deleteExpired(before, limit) {
      const ids = (await prisma.interaction.findMany({ where: { expiresAt: { lt: before } }, select: { id: true }, take: limit })).map((i) => i.id);
      return ids.length === 0 ? 0 : (await prisma.interaction.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
