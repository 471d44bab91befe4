/**
 * The audit store (stores/audit.ts): appends by direct SQL (token issuance writes one per
 * token), lists and counts with Prisma.
 */
import { newId } from "../../kernel/ids.js";
import type { AuditStore } from "../../stores/audit.js";
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

const HOUR_MS = 3_600_000;

/** The audit store over `x`. */
export function auditStore(x: Executor): AuditStore {
  const { prisma, sql } = x;
  return {
    async record(e) {
      await sql.run(`INSERT INTO "AuditEvent" ("id", "at", "type", "actor", "subject", "details") VALUES (?, ?, ?, ?, ?, ?)`, [
        newId(),
        new Date(),
        e.type,
        storable(e.actor),
        storable(e.subject),
        JSON.stringify(e.details ?? {}),
      ]);
    },
    countPerHour: (type, hours) =>
      Promise.all(hours.map(async (hour) => ({ hour, count: await prisma.auditEvent.count({ where: { type, at: { gte: hour, lt: new Date(hour.getTime() + HOUR_MS) } } }) }))),
    list(f, page) {
      const where = { ...(f.type ? { type: f.type } : {}), ...(f.actor ? { actor: f.actor } : {}) };
      return paginate((args) => prisma.auditEvent.findMany({ ...args, where }), page, "desc");
    },
    async deleteBefore(before, limit) {
      const ids = (await prisma.auditEvent.findMany({ where: { at: { lt: before } }, select: { id: true }, take: limit })).map((r) => r.id);
      return ids.length === 0 ? 0 : (await prisma.auditEvent.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
