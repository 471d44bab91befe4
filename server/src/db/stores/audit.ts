/**
 * The audit store (stores/audit.ts): appends and aggregated upserts by direct SQL (token
 * issuance writes one per token), lists and counts with Prisma.
 */
import { newId } from "../../kernel/ids.js";
import { FAILURE_TYPES, REFUSAL_TYPES, type AuditEventInput, type AuditStore } from "../../stores/audit.js";
import type { Statement } from "../sql.js";
import { paginate } from "../paginate.js";
import type { Executor } from "./executor.js";

/** Longest actor or subject stored, in code points. */
const MAX_STORED = 200;

/** Text fit to store: well-formed, no NUL, at most {@link MAX_STORED} code points (actors and subjects may echo input). */
function storable(value: string | undefined): string {
  const clean = (value ?? "").toWellFormed().replace(/\0/g, "");
  // No more UTF-16 units than the limit means no more code points either.
  return clean.length <= MAX_STORED ? clean : [...clean].slice(0, MAX_STORED).join("");
}

/**
 * The details of `e` with the ids of the request it happened in, when it names one:
 * `interaction_id` (the FAPI interaction id, FAPI 1.0 Baseline §6.2.1 item 13) and
 * `request_id` (X-Request-Id), so an event can be found from either; a key of `details` wins.
 */
function detailsOf(e: AuditEventInput): Record<string, unknown> {
  const { request, details } = e;
  return request ? { interaction_id: request.interactionId, request_id: request.requestId, ...details } : (details ?? {});
}

/** The statement appending event `e`, at the current time: for {@link AuditStore.record}, and for the token store, which stores a token's event with it. */
export function appendEvent(e: AuditEventInput): Statement {
  return [
    `INSERT INTO "AuditEvent" ("id", "at", "type", "actor", "subject", "details") VALUES (?, ?, ?, ?, ?, ?)`,
    [newId(), new Date(), e.type, storable(e.actor), storable(e.subject), JSON.stringify(detailsOf(e))],
  ];
}

/** The audit store over `x`. */
export function auditStore(x: Executor): AuditStore {
  const { prisma, sql } = x;
  return {
    async record(e) {
      await sql.run(...appendEvent(e));
    },
    async recordAggregate(e) {
      // One statement on both providers: a second instance's row for the key is added to, atomically.
      await sql.run(
        `INSERT INTO "AuditEvent" ("id", "at", "type", "actor", "subject", "details", "count", "aggregateKey", "reason") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT ("aggregateKey") DO UPDATE SET "count" = "AuditEvent"."count" + excluded."count"`,
        [newId(), e.at, e.type, storable(e.actor), storable(e.subject), JSON.stringify(e.details ?? {}), e.count, e.aggregateKey, storable(e.reason)],
      );
    },
    async countRefusals(from, to, limit) {
      const groups = await prisma.auditEvent.groupBy({
        by: ["type", "actor", "subject", "reason"],
        where: { type: { in: [...REFUSAL_TYPES] }, at: { gte: from, lt: to } },
        _sum: { count: true },
        orderBy: { _sum: { count: "desc" } },
        take: limit,
      });
      return groups.map((g) => ({ type: g.type, clientId: g.actor, api: g.subject, reason: g.reason ?? "", count: g._sum.count ?? 0 }));
    },
    list(f, page) {
      const failures = [...FAILURE_TYPES];
      const where = {
        AND: [
          f.type ? { type: f.type } : {},
          f.actor ? { actor: f.actor } : {},
          f.clientId ? { OR: [{ actor: f.clientId }, { actor: `client:${f.clientId}` }, { subject: f.clientId }] } : {},
          f.userId ? { OR: [{ actor: `user:${f.userId}` }, { subject: f.userId }] } : {},
          f.api ? { type: "gateway.refused", subject: f.api } : {},
          f.reason ? { reason: f.reason } : {},
          f.outcome ? { type: f.outcome === "failure" ? { in: failures } : { notIn: failures } } : {},
          f.from || f.to ? { at: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {},
        ],
      };
      return paginate((args) => prisma.auditEvent.findMany({ ...args, where }), page, "desc");
    },
    async deleteBefore(before, limit) {
      const ids = (await prisma.auditEvent.findMany({ where: { at: { lt: before } }, select: { id: true }, take: limit })).map((r) => r.id);
      return ids.length === 0 ? 0 : (await prisma.auditEvent.deleteMany({ where: { id: { in: ids } } })).count;
    },
    mentioning({ subject, texts }) {
      const where = { OR: [{ subject }, ...texts.filter((t) => t !== "").map((t) => ({ details: { contains: t } }))] };
      return prisma.auditEvent.findMany({ where, orderBy: { at: "asc" } });
    },
    async setDetails(id, details) {
      await prisma.auditEvent.update({ where: { id }, data: { details }, select: { id: true } });
    },
  };
}
