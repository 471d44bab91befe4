/**
 * Scheduled purge of data past its use, so the tables do not grow without bound: expired
 * interactions and sessions, authorization codes whose token family is gone, token rows
 * past both their access and refresh expiry, audit events past retention, gateway traffic
 * counts older than 31 days, pushed authorization requests past their lifetime, used JWT ids
 * past their JWT's expiry, PSD2 consents a PSU never answered within a day (each
 * `/authorize` with authorization details creates one), and authorization evidence past its
 * consent's end and the evidence retention.
 * Deletes run in small batches with a pause in between, so requests are not stalled: each
 * batch is a few milliseconds of work on the one database connection, and the pause lets
 * the requests that queued meanwhile through (issue 6: p99 measured while the purge runs).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Stores } from "../stores/index.js";
import type { Metrics } from "../kernel/metrics.js";

/** Rows deleted per statement. */
const BATCH = 100;
/** Pause between two batches, milliseconds. At most BATCH rows per pause: 10,000 rows/s. */
const PAUSE_MS = 10;
const DAY_MS = 86_400_000;
/** How long a PSD2 consent may await the PSU's answer before the purge deletes it, milliseconds. */
const UNANSWERED_CONSENT_MS = DAY_MS;
/** How long gateway traffic counts are kept, milliseconds: the dashboard's longest range (30 days) and a day. */
const TRAFFIC_RETENTION_MS = 31 * DAY_MS;

export interface PurgeCounts {
  interactions: number;
  sessions: number;
  authorizationCodes: number;
  tokens: number;
  auditEvents: number;
  gatewayTraffic: number;
  pushedRequests: number;
  usedJtis: number;
  unansweredConsents: number;
  evidence: number;
}

/** How long records are kept past their use, days. */
export interface Retention {
  /** AUDIT_RETENTION_DAYS: audit events older than this are deleted. */
  auditDays: number;
  /** EVIDENCE_RETENTION_DAYS: authorization evidence is deleted this long after its consent ended (stores/evidence.ts). */
  evidenceDays: number;
}

async function drain(remove: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await remove(BATCH);
    total += n;
    if (n < BATCH) return total;
    await sleep(PAUSE_MS);
  }
}

/** The stores the purge deletes from. */
export type PurgedStores = Pick<Stores, "tokens" | "interactions" | "sessions" | "codes" | "audit" | "traffic" | "pushedRequests" | "replays" | "psd2Consents" | "evidence">;

/**
 * Deletes everything expired at `now`. Tokens go first, so that codes whose families
 * expired become deletable in the same run.
 */
export async function purgeExpired(db: PurgedStores, now: Date, retention: Retention): Promise<PurgeCounts> {
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const tokens = await drain((limit) => db.tokens.deleteExpired(now, limit));
  return {
    tokens,
    interactions: await drain((limit) => db.interactions.deleteExpired(now, limit)),
    sessions: await drain((limit) => db.sessions.deleteExpired(now, limit)),
    authorizationCodes: await drain((limit) => db.codes.deleteSpent(now, limit)),
    auditEvents: await drain((limit) => db.audit.deleteBefore(daysAgo(retention.auditDays), limit)),
    gatewayTraffic: await drain((limit) => db.traffic.deleteBefore(new Date(now.getTime() - TRAFFIC_RETENTION_MS), limit)),
    pushedRequests: await drain((limit) => db.pushedRequests.deleteExpired(now, limit)),
    usedJtis: await drain((limit) => db.replays.deleteExpired(now, limit)),
    unansweredConsents: await drain((limit) => db.psd2Consents.deleteUnanswered(new Date(now.getTime() - UNANSWERED_CONSENT_MS), limit)),
    evidence: await drain((limit) => db.evidence.deleteEnded(daysAgo(retention.evidenceDays), limit)),
  };
}

/**
 * Runs {@link purgeExpired} now and then every `intervalSeconds` (0: never).
 * @param metrics - adds each run's deleted rows per table; undefined: not counted.
 * @returns a function that stops the schedule.
 */
export function schedulePurge(db: PurgedStores, logger: Logger, intervalSeconds: number, retention: Retention, metrics?: Metrics): () => void {
  if (intervalSeconds === 0) return () => {};
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const purged = await purgeExpired(db, new Date(), retention);
      metrics?.purged({ ...purged });
      logger.info({ purged }, "purged expired data");
    } catch (err) {
      logger.error({ err }, "purge failed");
    } finally {
      running = false;
    }
  };
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
