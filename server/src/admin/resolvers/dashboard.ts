/**
 * The console's operations dashboard: tokens issued, gateway traffic and refusals over a
 * range ending now, in buckets.
 */
import type { TrafficBucket } from "../../stores/traffic.js";
import type { DashboardRange, Resolvers } from "../generated/resolvers.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Each range's bucket width (milliseconds) and number of buckets. */
const RANGES: Record<DashboardRange, { bucketMs: number; buckets: number }> = {
  HOUR: { bucketMs: 5 * MINUTE_MS, buckets: 12 },
  DAY: { bucketMs: HOUR_MS, buckets: 24 },
  WEEK: { bucketMs: 6 * HOUR_MS, buckets: 28 },
  MONTH: { bucketMs: 24 * HOUR_MS, buckets: 30 },
};

/** The most refusal groups the dashboard lists. */
const MAX_FAILURES = 100;

/** The buckets of a range ending at `now`: aligned on the bucket width (UTC), the current one last. */
export function dashboardWindow(range: DashboardRange, now: Date): { starts: Date[]; bucketMs: number } {
  const { bucketMs, buckets } = RANGES[range];
  const current = Math.floor(now.getTime() / bucketMs) * bucketMs;
  return { bucketMs, starts: Array.from({ length: buckets }, (_, i) => new Date(current - (buckets - 1 - i) * bucketMs)) };
}

/** Resolvers of the dashboard. */
export const dashboardResolvers: Resolvers = {
  Query: {
    dashboard: async (_p, { range }, { db }) => {
      const now = new Date();
      const { starts, bucketMs } = dashboardWindow(range, now);
      const from = starts[0]!;
      const [issued, traffic, failures] = await Promise.all([
        db.tokens.countIssued(starts, bucketMs),
        db.traffic.countIn(starts, bucketMs),
        db.audit.countRefusals(from, now, MAX_FAILURES),
      ]);
      const apps = new Map<string, { name: string; clientId: string }>();
      for (const appId of new Set(issued.map((b) => b.appId))) {
        const [app, credentials] = await Promise.all([db.apps.find(appId), db.apps.credentials(appId)]);
        apps.set(appId, { name: app?.name ?? appId, clientId: credentials.find((c) => c.status === "approved")?.consumerKey ?? "" });
      }
      return {
        range,
        from,
        to: now,
        bucketSeconds: bucketMs / 1000,
        tokensIssued: issued.map((b) => ({ start: b.start, appName: apps.get(b.appId)!.name, clientId: apps.get(b.appId)!.clientId, count: b.count })),
        traffic: trafficBuckets(traffic),
        failures,
      };
    },
  },
};

/** The traffic counts per bucket, API and client, with the status classes as columns. */
function trafficBuckets(rows: TrafficBucket[]) {
  const buckets = new Map<string, { start: Date; api: string; clientId: string; ok: number; clientErrors: number; serverErrors: number }>();
  for (const r of rows) {
    const key = `${r.start.getTime()}|${r.api}|${r.clientId}`;
    const bucket = buckets.get(key) ?? { start: r.start, api: r.api, clientId: r.clientId, ok: 0, clientErrors: 0, serverErrors: 0 };
    if (r.statusClass === 5) bucket.serverErrors += r.count;
    else if (r.statusClass === 4) bucket.clientErrors += r.count;
    else bucket.ok += r.count;
    buckets.set(key, bucket);
  }
  return [...buckets.values()];
}
