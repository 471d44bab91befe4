/**
 * The append-only audit log of security events. Rows are only ever inserted (and purged
 * past retention); details never contain secrets or tokens. Refusals (failed client
 * authentications, refused token requests and gateway calls) are aggregated: one row per
 * (type, client, reason, minute) whose `count` grows (http/refusal-audit.ts), so a flood
 * writes a bounded number of rows.
 */
import type { RequestIds } from "../kernel/request-context.js";
import type { Page, PageRequest } from "./page.js";

/** Event types; `admin.<mutation>` for every admin API change. */
export type AuditEventType =
  | "token.issued"
  | "token.refreshed"
  | "token.revoked"
  | "client.authentication_failed"
  | "token.refused"
  | "gateway.refused"
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
  // A user replaced the temporary password an administrator set (interaction/password-change.ts).
  | "password.changed"
  // PSD2 consents (stores/psd2-consents.ts): created by a TPP (Berlin Group API), revoked by the PSU, terminated by the TPP, used up by a payment.
  | "psd2_consent.created"
  | "psd2_consent.revoked"
  | "psd2_consent.terminated"
  | "psd2_consent.consumed"
  | "psd2_consent.payment_rejected"
  | "psd2_consent.payment_outcome_unknown"
  | "psd2_consent.payment_not_sent"
  // Dynamic client registration (registration/clients.ts, RFC 7591, RFC 7592).
  | "registration.created"
  | "registration.updated"
  | "registration.deleted"
  | `admin.${string}`;

export interface AuditEventInput {
  type: AuditEventType;
  /** Who: a client id, `user:<id>`, `admin:<username>` or `client:<client id>`. */
  actor?: string;
  /** About what: an id or client id. */
  subject?: string;
  details?: Record<string, unknown>;
  /** The request the event happened in (kernel/request-context.ts): its ids go into the details. */
  request?: RequestIds;
}

/** An aggregated event: `count` occurrences of one (type, actor, reason, minute), named by `aggregateKey`. */
export interface AggregatedAuditEvent extends AuditEventInput {
  /** When the first of them happened. */
  at: Date;
  /** Unique per aggregate, e.g. `token.refused|<client id>|<reason>|<minute>`; rows of other instances with the same key are added to. */
  aggregateKey: string;
  /** Occurrences to add, at least 1. */
  count: number;
  /** The refusal's reason (an RFC error code), filterable and counted apart. */
  reason: string;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  type: string;
  actor: string;
  subject: string;
  /** JSON. */
  details: string;
  /** Occurrences the row stands for: 1, or more for an aggregated refusal. */
  count: number;
}

/** Refusals of one type, client, API and reason (stores/audit.ts countRefusals). */
export interface RefusalCount {
  type: string;
  clientId: string;
  api: string;
  reason: string;
  count: number;
}

/** The aggregated refusals (http/refusal-audit.ts) among the event types. */
export const REFUSAL_TYPES: readonly AuditEventType[] = ["client.authentication_failed", "token.refused", "gateway.refused"];

/** The refusals and failures among the event types: the `failure` outcome; every other type is `success`. */
export const FAILURE_TYPES: readonly AuditEventType[] = [...REFUSAL_TYPES, "signin.failed", "sca.failed", "sca.blocked"];

/** Criteria of an audit search (the console's audit page); absent or null ones match everything. */
export interface AuditFilter {
  /** This event type exactly. */
  type?: string | null;
  /** This actor exactly. */
  actor?: string | null;
  /** Events by a client (its id, or `client:<id>` for the admin API) or about it (the subject). */
  clientId?: string | null;
  /** Events by a user (`user:<id>`) or about them (the subject). */
  userId?: string | null;
  /** Refused gateway calls to this API. */
  api?: string | null;
  /** Refusals with this reason. */
  reason?: string | null;
  /** `failure`: {@link FAILURE_TYPES}; `success`: every other type. */
  outcome?: "success" | "failure" | null;
  /** From this time on, inclusive. */
  from?: Date | null;
  /** Before this time. */
  to?: Date | null;
  /** Events of the request with this X-Request-Id (`details.request_id`, or one of a refusal's `details.request_ids`). */
  requestId?: string | null;
  /** Events of the request with this x-fapi-interaction-id (`details.interaction_id`, or one of `details.interaction_ids`). */
  interactionId?: string | null;
}

export interface AuditStore {
  /** Appends one event (actor and subject cut to 200 code points, made well-formed). */
  record(event: AuditEventInput): Promise<void>;
  /**
   * Adds `event.count` to the row of `event.aggregateKey`, or inserts it with that count (one
   * upsert, atomic across instances). The row keeps its first `at` and `details`, but for the ids of its
   * refusals: `details.request_ids` and `details.interaction_ids` gather those of later events too, up to
   * REFUSAL_IDS_KEPT each (added after the upsert; of two instances adding at the same moment, one's may be lost).
   */
  recordAggregate(event: AggregatedAuditEvent): Promise<void>;
  /**
   * The refusals in [from, to), counted (aggregated rows as their `count`) per type, client
   * (the actor), API (the subject) and reason, most first.
   * @param limit - the most groups returned.
   */
  countRefusals(from: Date, to: Date, limit: number): Promise<RefusalCount[]>;
  /** Events newest first, matching every criterion given. */
  list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEventRow>>;
  /** Deletes up to `limit` events older than `before`. @returns how many. */
  deleteBefore(before: Date, limit: number): Promise<number>;
  /**
   * The events about `subject` or whose details contain any of `texts` (a literal substring;
   * the caller matches exactly), oldest first: what an erasure (GDPR Art. 17) pseudonymizes.
   */
  mentioning(f: { subject: string; texts: string[] }): Promise<AuditEventRow[]>;
  /** Replaces an event's details (JSON text): only an erasure's pseudonymization rewrites an event. */
  setDetails(id: string, details: string): Promise<void>;
}
