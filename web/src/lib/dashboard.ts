/**
 * The dashboard's pure parts (pages/admin/DashboardPage.tsx): its range as the URL holds it,
 * the server's buckets laid on the range's time grid as chart rows, traffic totals per API and
 * per client, the audit log filters its links open, and how bucket times and the time zone read.
 */
import type { ClientApp, Dashboard, DashboardRange, FailureCount, TokensIssuedBucket, TrafficBucket } from "../api/admin";
import type { AuditFilter } from "./audit";

/* The range */

/** A range of the selector: the API's name, the URL's, the label and the words for it. */
export interface RangeOption {
  range: DashboardRange;
  /** `range` in the page's URL. */
  param: string;
  /** On the selector ("7 d"). */
  label: string;
  /** In a sentence ("the last 7 days"). */
  words: string;
}

export const RANGES: readonly RangeOption[] = [
  { range: "HOUR", param: "1h", label: "1 h", words: "the last hour" },
  { range: "DAY", param: "24h", label: "24 h", words: "the last 24 hours" },
  { range: "WEEK", param: "7d", label: "7 d", words: "the last 7 days" },
  { range: "MONTH", param: "30d", label: "30 d", words: "the last 30 days" },
];

/** The range of the dashboard's URL without one (the API's default). */
export const DEFAULT_RANGE: DashboardRange = "DAY";

/** The selector's entry of a range. */
export const rangeOption = (range: DashboardRange): RangeOption => RANGES.find((r) => r.range === range) ?? RANGES[1]!;

/** The range of the dashboard's query string (`range=1h|24h|7d|30d`); the default when absent or unknown. */
export function readRange(params: URLSearchParams): DashboardRange {
  const param = params.get("range")?.trim().toLowerCase();
  return RANGES.find((r) => r.param === param)?.range ?? DEFAULT_RANGE;
}

/** The dashboard's query parameters for a range: none for the default. */
export const rangeQuery = (range: DashboardRange): Record<string, string> => (range === DEFAULT_RANGE ? {} : { range: rangeOption(range).param });

/* The time grid */

/** The range's buckets: the first one's start (ms), their width (ms) and how many there are. */
export interface Grid {
  from: number;
  size: number;
  count: number;
}

/** The grid of a dashboard answer: buckets of `bucketSeconds` from `from` until `to` (now, inside the last bucket). */
export function gridOf(dashboard: Pick<Dashboard, "from" | "to" | "bucketSeconds">): Grid {
  const from = Date.parse(dashboard.from);
  const size = dashboard.bucketSeconds * 1000;
  const count = Math.max(1, Math.ceil((Date.parse(dashboard.to) - from) / size));
  return { from, size, count };
}

/** One bucket of a chart: its start (ms) and a count per series. */
export interface Bucket {
  start: number;
  counts: Record<string, number>;
  total: number;
}

/**
 * The grid's buckets, each with the counts of the entries that start in it (an entry outside
 * the grid, e.g. from a clock a little ahead, counts in the nearest bucket).
 */
function lay(grid: Grid, entries: Iterable<{ start: string; key: string; count: number }>): Bucket[] {
  const buckets: Bucket[] = Array.from({ length: grid.count }, (_, i) => ({ start: grid.from + i * grid.size, counts: {}, total: 0 }));
  for (const entry of entries) {
    const t = Date.parse(entry.start);
    if (Number.isNaN(t) || entry.count === 0) continue;
    const index = Math.min(grid.count - 1, Math.max(0, Math.floor((t - grid.from) / grid.size)));
    const bucket = buckets[index]!;
    bucket.counts[entry.key] = (bucket.counts[entry.key] ?? 0) + entry.count;
    bucket.total += entry.count;
  }
  return buckets;
}

/** A series of a chart: its key in the buckets' counts and its name. */
export interface Series {
  key: string;
  name: string;
}

/* Tokens issued */

/** A client's series key: its consumer key, or its app's name when it has none. */
const clientKey = (b: Pick<TokensIssuedBucket, "clientId" | "appName">) => b.clientId || `app:${b.appName}`;

/** Whether a tokens series key is a consumer key (not an app without one). */
export const isClientId = (key: string) => !key.startsWith("app:");

/**
 * Tokens issued per bucket, one series per client (largest total first), named by its app;
 * an app name two clients share is followed by the consumer key.
 */
export function tokensOverTime(buckets: readonly Omit<TokensIssuedBucket, "appId">[], grid: Grid): { series: Series[]; rows: Bucket[]; total: number } {
  const totals = new Map<string, { appName: string; clientId: string; count: number }>();
  for (const b of buckets) {
    const key = clientKey(b);
    const sum = totals.get(key) ?? { appName: b.appName, clientId: b.clientId, count: 0 };
    sum.count += b.count;
    totals.set(key, sum);
  }
  const names = [...totals.values()].map((t) => t.appName);
  const shared = new Set(names.filter((name, i) => names.indexOf(name) !== i));
  const series = [...totals.entries()]
    .filter(([, t]) => t.count > 0)
    .sort(([, a], [, b]) => b.count - a.count || a.appName.localeCompare(b.appName) || a.clientId.localeCompare(b.clientId))
    .map(([key, t]) => ({ key, name: shared.has(t.appName) && t.clientId ? `${t.appName} (${t.clientId})` : t.appName }));
  const rows = lay(
    grid,
    buckets.map((b) => ({ start: b.start, key: clientKey(b), count: b.count })),
  );
  return { series, rows, total: rows.reduce((s, r) => s + r.total, 0) };
}

/* Gateway traffic */

/** The outcomes of gateway calls, as the traffic chart's series. */
export const TRAFFIC_SERIES = [
  { key: "ok", name: "OK (1xx to 3xx)" },
  { key: "clientErrors", name: "Refused or client error (4xx)" },
  { key: "serverErrors", name: "Server error (5xx)" },
] as const satisfies readonly Series[];

/** Gateway calls per bucket by outcome (series ok, clientErrors, serverErrors). */
export function trafficOverTime(traffic: readonly TrafficBucket[], grid: Grid): Bucket[] {
  return lay(
    grid,
    traffic.flatMap((b) => TRAFFIC_SERIES.map(({ key }) => ({ start: b.start, key, count: b[key] }))),
  );
}

/** Calls and errors of some traffic; `errorRate` is the share of 4xx and 5xx answers (0 without calls). */
export interface TrafficTotals {
  calls: number;
  clientErrors: number;
  serverErrors: number;
  errorRate: number;
}

/** The calls and errors of some traffic, e.g. of the whole range. */
export function trafficTotals(traffic: Iterable<TrafficBucket>): TrafficTotals {
  let calls = 0;
  let clientErrors = 0;
  let serverErrors = 0;
  for (const b of traffic) {
    calls += b.ok + b.clientErrors + b.serverErrors;
    clientErrors += b.clientErrors;
    serverErrors += b.serverErrors;
  }
  return { calls, clientErrors, serverErrors, errorRate: calls === 0 ? 0 : (clientErrors + serverErrors) / calls };
}

/** The traffic of each API or of each client ("" for none), most calls first. */
export function trafficBy(traffic: readonly TrafficBucket[], by: "api" | "clientId"): Array<TrafficTotals & { key: string }> {
  const groups = new Map<string, TrafficBucket[]>();
  for (const b of traffic) {
    const group = groups.get(b[by]);
    if (group) group.push(b);
    else groups.set(b[by], [b]);
  }
  return [...groups.entries()]
    .map(([key, buckets]) => ({ key, ...trafficTotals(buckets) }))
    .filter((row) => row.calls > 0)
    .sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key));
}

/** An error rate as a percentage with at most one decimal ("12.5%"). */
export function formatRate(rate: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(rate);
}

/* Clients and their apps */

/** The app (name and id) of each consumer key the dashboard shows, from its traffic, refusals and tokens issued; "" has none. */
export function clientApps(dashboard: Pick<Dashboard, "traffic" | "failures" | "tokensIssued">): Map<string, { appName: string; appId: string }> {
  const apps = new Map<string, { appName: string; appId: string }>();
  const add = (clientId: string, app: ClientApp) => {
    if (clientId && app.appName !== null && app.appId !== null && !apps.has(clientId)) apps.set(clientId, { appName: app.appName, appId: app.appId });
  };
  for (const t of dashboard.tokensIssued) add(t.clientId, t);
  for (const t of dashboard.traffic) add(t.clientId, t);
  for (const f of dashboard.failures) add(f.clientId, f);
  return apps;
}

/* Latency */

/**
 * A latency given in seconds, in the unit that reads best: milliseconds below a second ("0.4 ms",
 * "12 ms", "250 ms"), seconds from there ("1.25 s"); "10 s or more" at the histograms' highest
 * bound, above which nothing is known.
 */
export function formatLatency(seconds: number, locale?: string): string {
  if (seconds >= LATENCY_HIGHEST_BOUND_SECONDS) return `${LATENCY_HIGHEST_BOUND_SECONDS} s or more`;
  const milliseconds = seconds * 1000;
  if (milliseconds < 1000) return `${new Intl.NumberFormat(locale, { maximumFractionDigits: milliseconds < 10 ? 1 : 0 }).format(milliseconds)} ms`;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(seconds)} s`;
}

/** The highest finite bucket bound of the latency histograms, seconds (server/src/kernel/metrics.ts LATENCY_BUCKETS_SECONDS). */
export const LATENCY_HIGHEST_BOUND_SECONDS = 10;

/* The audit log behind the figures */

/** The time range of one bucket, [start, start + width), as the audit filter's ISO 8601 `from` and `to`. */
export function bucketRange(start: number, grid: Pick<Grid, "size">): Pick<AuditFilter, "from" | "to"> {
  return { from: new Date(start).toISOString(), to: new Date(start + grid.size).toISOString() };
}

/** The whole range of a dashboard answer, as the audit filter's `from` and `to`. */
export const wholeRange = (dashboard: Pick<Dashboard, "from" | "to">): Pick<AuditFilter, "from" | "to"> => ({ from: dashboard.from, to: dashboard.to });

/** The refusals of the gateway. */
export const GATEWAY_REFUSED = "gateway.refused";
/** Tokens issued. */
export const TOKEN_ISSUED = "token.issued";

/** The audit events of a failures row: its type, client, API and reason over the range. */
export function failureFilter(failure: Omit<FailureCount, "appName" | "appId">, dashboard: Pick<Dashboard, "from" | "to">): Partial<AuditFilter> {
  const { type, clientId, api, reason } = failure;
  return { type, clientId, api, reason, ...wholeRange(dashboard) };
}

/**
 * The audit events behind a bucket of the traffic chart: the refused calls (4xx) of the bucket;
 * for the other outcomes, which the audit log does not hold call by call, every event of it.
 * @param series - the outcome clicked; none: the bucket's row of the table.
 */
export function trafficBucketFilter(start: number, grid: Pick<Grid, "size">, series?: string): Partial<AuditFilter> {
  const refused = series === undefined || series === "clientErrors";
  return { ...(refused ? { type: GATEWAY_REFUSED } : {}), ...bucketRange(start, grid) };
}

/** The tokens issued in a bucket, to one client when a series (not an app without consumer key) is given. */
export function tokensBucketFilter(start: number, grid: Pick<Grid, "size">, series?: string): Partial<AuditFilter> {
  return { type: TOKEN_ISSUED, ...(series && isClientId(series) ? { clientId: series } : {}), ...bucketRange(start, grid) };
}

/* Times */

/** How a range's buckets read: on the axis (`tick`), and in the tooltip and the table (`label`, with its end). */
export interface BucketFormat {
  tick: (start: number) => string;
  label: (start: number) => string;
}

/**
 * The bucket times of a range, in the browser's locale and time zone (or those given): "14:05"
 * for 1 h and 24 h, "Tue 18:00" for 7 d, a UTC day ("24 Nov") for 30 d, whose buckets are UTC days.
 */
export function bucketFormat(range: DashboardRange, grid: Pick<Grid, "size">, options: { locale?: string; timeZone?: string } = {}): BucketFormat {
  const { locale, timeZone } = options;
  const format = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, { ...o, ...(timeZone ? { timeZone } : {}) });
  if (range === "MONTH") {
    const day = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" });
    const longDay = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
    return { tick: (t) => day.format(t), label: (t) => `${longDay.format(t)} (UTC day)` };
  }
  const time = format({ hour: "2-digit", minute: "2-digit" });
  const dayTime = format({ weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  const tick = range === "WEEK" ? format({ weekday: "short", hour: "2-digit", minute: "2-digit" }) : time;
  return { tick: (t) => tick.format(t), label: (t) => `${dayTime.format(t)} to ${time.format(t + grid.size)}` };
}

/**
 * A time zone with its offset at an instant, as the dashboard names it: "Europe/Berlin
 * (UTC+01:00)", "UTC (UTC+00:00)".
 */
export function zoneDescription(timeZone: string, at: Date): string {
  const part = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName");
  const offset = !part || part.value === "GMT" ? "UTC+00:00" : part.value.replace(/^GMT/, "UTC");
  return `${timeZone} (${offset})`;
}
