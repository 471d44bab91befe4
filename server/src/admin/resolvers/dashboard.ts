/**
 * The console's operations dashboard: tokens issued, gateway traffic and refusals over a
 * range ending now, in buckets, each client with its app's name; and the upstream latency per
 * API of this instance since it started, from its Prometheus histograms.
 */
import { histogramQuantile } from "../../kernel/histogram-quantile.js";
import type { Metrics } from "../../kernel/metrics.js";
import type { Stores } from "../../stores/index.js";
import type { TrafficBucket } from "../../stores/traffic.js";
import type { ApiLatency, DashboardLatency, DashboardRange, Resolvers } from "../generated/resolvers.js";

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
    dashboard: async (_p, { range }, { db, metrics }) => {
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
      const clientApps = await appsOfClients(db, [...traffic.map((t) => t.clientId), ...failures.map((f) => f.clientId)]);
      const withApp = <T extends { clientId: string }>(row: T) => ({ ...row, appName: clientApps.get(row.clientId)?.name ?? null, appId: clientApps.get(row.clientId)?.id ?? null });
      return {
        range,
        from,
        to: now,
        bucketSeconds: bucketMs / 1000,
        tokensIssued: issued.map((b) => ({ start: b.start, appId: b.appId, appName: apps.get(b.appId)!.name, clientId: apps.get(b.appId)!.clientId, count: b.count })),
        traffic: trafficBuckets(traffic).map(withApp),
        failures: failures.map(withApp),
        latency: metrics ? dashboardLatency(metrics) : null,
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

/** The app (id and name) of each distinct client id among `clientIds`; "" and unknown ones are left out. */
async function appsOfClients(db: Stores, clientIds: Iterable<string>): Promise<Map<string, { id: string; name: string }>> {
  const found = new Map<string, { id: string; name: string }>();
  for (const clientId of new Set(clientIds)) {
    if (clientId === "") continue;
    const client = await db.clients.byConsumerKey(clientId);
    if (client) found.set(clientId, { id: client.appId, name: client.appName });
  }
  return found;
}

/**
 * p50, p95 and p99 of each API's upstream latency (seconds) since the instance started, from
 * `tollgate_gateway_upstream_duration_seconds` (kernel/histogram-quantile.ts); APIs without a
 * forwarded call are left out.
 */
export function dashboardLatency(metrics: Pick<Metrics, "startedAt" | "upstreamLatencyBuckets">): DashboardLatency {
  const apis: ApiLatency[] = metrics
    .upstreamLatencyBuckets()
    .map(({ api, buckets }) => ({
      api,
      count: buckets.at(-1)?.cumulativeCount ?? 0,
      p50Seconds: histogramQuantile(0.5, buckets),
      p95Seconds: histogramQuantile(0.95, buckets),
      p99Seconds: histogramQuantile(0.99, buckets),
    }))
    .filter((a) => a.count > 0)
    .sort((a, b) => a.api.localeCompare(b.api));
  return { since: metrics.startedAt, apis };
}
