/**
 * The append-only audit log of security events. Rows are only ever inserted (and purged
 * past retention); details never contain secrets or tokens.
 */
import type { Page, PageRequest } from "./page.js";

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
  | "sca.succeeded"
  | "sca.failed"
  | "sca.blocked"
  | "factor.enrolled"
  | "factor.removed"
  | "factor.reset"
  | `admin.${string}`;

export interface AuditEventInput {
  type: AuditEventType;
  /** Who: a client id, `user:<id>`, `admin:<username>` or `client:<client id>`. */
  actor?: string;
  /** About what: an id or client id. */
  subject?: string;
  details?: Record<string, unknown>;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  type: string;
  actor: string;
  subject: string;
  /** JSON. */
  details: string;
}

export interface AuditStore {
  /** Appends one event (actor and subject cut to 200 code points, made well-formed). */
  record(event: AuditEventInput): Promise<void>;
  /** Counts events of one type in each hourly bucket [start, start + 1 h). */
  countPerHour(type: AuditEventType, hours: Date[]): Promise<{ hour: Date; count: number }[]>;
  /** Events newest first, optionally of one type and/or actor. */
  list(filter: { type?: string | null; actor?: string | null }, page: PageRequest): Promise<Page<AuditEventRow>>;
  /** Deletes up to `limit` events older than `before`. @returns how many. */
  deleteBefore(before: Date, limit: number): Promise<number>;
}
