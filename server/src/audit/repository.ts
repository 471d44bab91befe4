/**
 * The append-only audit log of security events. Rows are only ever inserted (and, later,
 * purged past retention); details never contain secrets or tokens.
 */
import type { Db } from "../db/client.js";
import { newId } from "../kernel/ids.js";
import { paginate } from "../db/paginate.js";

/** Event types; `admin.<mutation>` for every admin API change. */
export type AuditEventType =
  | "token.issued"
  | "token.refreshed"
  | "token.revoked"
  | "client.authentication_failed"
  | "signin.succeeded"
  | "signin.failed"
  | "consent.granted"
  | "consent.revoked"
  | `admin.${string}`;

export interface AuditEventInput {
  type: AuditEventType;
  /** Who: a client id, `user:<id>` or `admin:<username>`. */
  actor?: string;
  /** About what: an id or client id. */
  subject?: string;
  details?: Record<string, unknown>;
}

/** Longest actor or subject stored, in code points. */
const MAX_STORED = 200;

/** Text fit to store: well-formed, no NUL, at most {@link MAX_STORED} code points (actors and subjects may echo input). */
function storable(value: string | undefined): string {
  const clean = (value ?? "").toWellFormed().replace(/\0/g, "");
  // No more UTF-16 units than the limit means no more code points either.
  return clean.length <= MAX_STORED ? clean : [...clean].slice(0, MAX_STORED).join("");
}

/** Appends one event (direct SQL: token issuance writes one per token). */
export async function recordAuditEvent(db: Db, e: AuditEventInput): Promise<void> {
  await db.sql.run(`INSERT INTO "AuditEvent" ("id", "at", "type", "actor", "subject", "details") VALUES (?, ?, ?, ?, ?, ?)`, [
    newId(),
    new Date(),
    e.type,
    storable(e.actor),
    storable(e.subject),
    JSON.stringify(e.details ?? {}),
  ]);
}

/**
 * Counts events of one type in each of the given hourly buckets.
 * @param hours - bucket starts; each bucket is [start, start + 1 h).
 */
export async function countAuditEventsPerHour(db: Db, type: AuditEventType, hours: Date[]): Promise<{ hour: Date; count: number }[]> {
  return Promise.all(
    hours.map(async (hour) => ({
      hour,
      count: await db.auditEvent.count({ where: { type, at: { gte: hour, lt: new Date(hour.getTime() + 3_600_000) } } }),
    })),
  );
}

/** Audit events newest first, optionally of one type and/or actor. */
export async function listAuditEvents(db: Db, f: { type?: string | null; actor?: string | null }, first: number, after?: string | null) {
  const where = { ...(f.type ? { type: f.type } : {}), ...(f.actor ? { actor: f.actor } : {}) };
  return paginate((args) => db.auditEvent.findMany({ ...args, where }), first, after, "desc");
}

/** Deletes up to `limit` events older than `before`. @returns how many were deleted. */
export async function deleteAuditEventsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const ids = (await db.auditEvent.findMany({ where: { at: { lt: before } }, select: { id: true }, take: limit })).map((r) => r.id);
  return ids.length === 0 ? 0 : (await db.auditEvent.deleteMany({ where: { id: { in: ids } } })).count;
}
