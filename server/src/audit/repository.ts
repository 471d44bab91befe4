/**
 * The append-only audit log of security events. Rows are only ever inserted (and, later,
 * purged past retention); details never contain secrets or tokens.
 */
import type { Db } from "../db/client.js";

/** Event types recorded today. */
export type AuditEventType = "client.authentication_failed" | `admin.${string}`;

export interface AuditEventInput {
  type: AuditEventType;
  /** Who: a client id, `user:<id>` or `admin:<username>`. */
  actor?: string;
  /** About what: an id or client id. */
  subject?: string;
  details?: Record<string, unknown>;
}

/** Appends one event. */
export async function recordAuditEvent(db: Db, e: AuditEventInput): Promise<void> {
  await db.auditEvent.create({
    data: { type: e.type, actor: e.actor ?? "", subject: e.subject ?? "", details: JSON.stringify(e.details ?? {}) },
  });
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
