/**
 * The audit store (stores/audit.ts): appends and aggregated upserts by direct SQL (token
 * issuance writes one per token), lists and counts with Prisma.
 */
import { newId } from "../../kernel/ids.js";
import { FAILURE_TYPES, REFUSAL_TYPES, type AuditEventInput, type AuditEventRow, type AuditFilter, type AuditStore } from "../../stores/audit.js";
import { REFUSAL_IDS_KEPT } from "../../kernel/limits.js";
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

/** The strings of `value` when it is an array (else none). */
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/**
 * The details (JSON) of an aggregated row with the request and interaction ids of `added`
 * appended to its own, each list cut to {@link REFUSAL_IDS_KEPT}.
 * @returns the new JSON, or undefined when nothing changes (full already, or no ids added).
 */
export function withIdsOf(json: string, added: Record<string, unknown>): string | undefined {
  let details: Record<string, unknown>;
  try {
    details = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const requestIds = strings(details.request_ids);
  const more = strings(added.request_ids).slice(0, REFUSAL_IDS_KEPT - requestIds.length);
  if (more.length === 0) return undefined;
  const interactionIds = strings(details.interaction_ids);
  const moreInteractions = strings(added.interaction_ids).slice(0, REFUSAL_IDS_KEPT - interactionIds.length);
  return JSON.stringify({ ...details, request_ids: [...requestIds, ...more], interaction_ids: [...interactionIds, ...moreInteractions] });
}

/** Whether `details` (JSON) names the request id or the interaction id the filter asks for (the exact check after SQL's LIKE). */
function namesRequest(json: string, f: Pick<AuditFilter, "requestId" | "interactionId">): boolean {
  let details: Record<string, unknown>;
  try {
    details = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return false;
  }
  const has = (one: string, many: string, id: string) => details[one] === id || strings(details[many]).includes(id);
  return (!f.requestId || has("request_id", "request_ids", f.requestId)) && (!f.interactionId || has("interaction_id", "interaction_ids", f.interactionId));
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
      const id = newId();
      await sql.run(
        `INSERT INTO "AuditEvent" ("id", "at", "type", "actor", "subject", "details", "count", "aggregateKey", "reason") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT ("aggregateKey") DO UPDATE SET "count" = "AuditEvent"."count" + excluded."count"`,
        [id, e.at, e.type, storable(e.actor), storable(e.subject), JSON.stringify(e.details ?? {}), e.count, e.aggregateKey, storable(e.reason)],
      );
      // A row that was there already gathers this flush's ids, while it keeps fewer than REFUSAL_IDS_KEPT (compare-and-set on its details).
      const row = await sql.get<{ id: string; details: string }>(`SELECT "id", "details" FROM "AuditEvent" WHERE "aggregateKey" = ?`, [e.aggregateKey]);
      const merged = row && row.id !== id ? withIdsOf(row.details, e.details ?? {}) : undefined;
      if (row && merged !== undefined) await sql.run(`UPDATE "AuditEvent" SET "details" = ? WHERE "id" = ? AND "details" = ?`, [merged, row.id, row.details]);
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
          // The id as a JSON string anywhere in the details narrows the rows (LIKE); namesRequest checks where.
          f.requestId ? { details: { contains: JSON.stringify(f.requestId) } } : {},
          f.interactionId ? { details: { contains: JSON.stringify(f.interactionId) } } : {},
        ],
      };
      const byRequest = f.requestId || f.interactionId ? (row: AuditEventRow) => namesRequest(row.details, f) : undefined;
      return paginate<AuditEventRow>((args) => prisma.auditEvent.findMany({ ...args, where }), page, "desc", byRequest);
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
