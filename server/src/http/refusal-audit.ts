/**
 * The refusal audit: refused token requests, refused gateway calls and failed client
 * authentications are audited without letting a caller multiply database writes. Each
 * process keeps one aggregate per (type, client id, API, reason, minute) in memory and
 * flushes the aggregates every few seconds (AUDIT_REFUSAL_FLUSH_SECONDS) and on shutdown,
 * each as one upsert that adds its count to the row of its key (stores/audit.ts
 * `recordAggregate`), so N instances share one row per key. A flood of refusals thus writes
 * at most one row per key and minute, and one statement per key and flush.
 *
 * The keys are bounded by what is registered: the client id is a registered one or "" (an
 * unknown, caller-chosen client id never becomes a key), the API a registered one or "", the
 * reason an RFC error code.
 */
import { Tally } from "../kernel/tally.js";
import type { AuditStore } from "../stores/audit.js";
import { REFUSAL_IDS_KEPT } from "../kernel/limits.js";

/** The audited kinds of refusal. */
export type RefusalType = "client.authentication_failed" | "token.refused" | "gateway.refused";

/** One refused request, as the refusal observer (http/refusals.ts) sees it. */
export interface Refusal {
  type: RefusalType;
  /** A registered client's id, or "". */
  clientId: string;
  /** A registered API's name (gateway), or "". */
  api: string;
  /** The RFC error code (RFC 6749 §5.2, RFC 6750 §3.1), or `no_token` for a gateway call without one. */
  reason: string;
  /** The error description the caller got. */
  description: string;
  /** The path the request was for (e.g. /oauth2/v1/token); the endpoint, or the gateway. */
  endpoint: string;
  /** The first characters of the presented token's row id (never the token), when it had the shape of one. */
  tokenIdPrefix?: string;
  requestId: string;
  /** The FAPI interaction id (`x-fapi-interaction-id`). */
  interactionId: string;
  /** The caller's address. */
  ip: string;
}

const MINUTE_MS = 60_000;

/** An aggregate as held until its flush: its first refusal and time, and the ids of up to {@link REFUSAL_IDS_KEPT} of its refusals. */
interface Held {
  refusal: Refusal;
  at: Date;
  requestIds: string[];
  interactionIds: string[];
}

/** Adds the ids of `refusal` to `held`, while it keeps fewer than {@link REFUSAL_IDS_KEPT}. */
function keepIds(held: Held, refusal: Refusal): void {
  if (held.requestIds.length >= REFUSAL_IDS_KEPT) return;
  held.requestIds.push(refusal.requestId);
  held.interactionIds.push(refusal.interactionId);
}

/** Aggregates refusals per key and minute (a {@link Tally}), and writes them through `audit.recordAggregate`. */
export class RefusalAudit {
  readonly #tally: Tally<Held>;

  /**
   * @param flushSeconds - seconds between flushes (AUDIT_REFUSAL_FLUSH_SECONDS).
   * @param onError - told when a flush fails (its aggregates are dropped, not retried: the database is failing).
   */
  constructor(audit: Pick<AuditStore, "recordAggregate">, flushSeconds: number, onError: (err: unknown) => void) {
    this.#tally = new Tally(
      (entries) =>
        Promise.all(
          entries.map(({ key, first: { refusal: r, at, requestIds, interactionIds }, count }) =>
            audit.recordAggregate({
              type: r.type,
              actor: r.clientId,
              subject: r.api,
              reason: r.reason,
              at,
              count,
              aggregateKey: key,
              details: {
                reason: r.reason,
                description: r.description,
                endpoint: r.endpoint,
                ...(r.api ? { api: r.api } : {}),
                ...(r.tokenIdPrefix ? { token_id_prefix: r.tokenIdPrefix } : {}),
                request_id: r.requestId,
                interaction_id: r.interactionId,
                request_ids: requestIds,
                interaction_ids: interactionIds,
                ip: r.ip,
              },
            }),
          ),
        ),
      flushSeconds,
      onError,
    );
  }

  /**
   * Counts one refusal in its aggregate: key `<type>|<client id>|<api>|<reason>|<UTC minute>`,
   * e.g. `token.refused|demo-budgeting-key||invalid_grant|2026-11-27T10:15`. The first refusal
   * of an aggregate gives its time and details; the ids of up to {@link REFUSAL_IDS_KEPT} of them are kept
   * (`request_ids`, `interaction_ids`, the first's first), across flushes and instances too (stores/audit.ts).
   * @param now - when it happened.
   */
  record(refusal: Refusal, now: Date = new Date()): void {
    const minute = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS).toISOString().slice(0, 16);
    this.#tally.add(
      `${refusal.type}|${refusal.clientId}|${refusal.api}|${refusal.reason}|${minute}`,
      () => ({ refusal, at: now, requestIds: [refusal.requestId], interactionIds: [refusal.interactionId] }),
      (held) => keepIds(held, refusal),
    );
  }

  /** Writes every aggregate held, one upsert each. Resolves when they are written (or failed, see `onError`); never rejects. */
  flush(): Promise<void> {
    return this.#tally.flush();
  }

  /** Stops the schedule and flushes what is held (on shutdown, before the database closes). */
  close(): Promise<void> {
    return this.#tally.close();
  }
}
