import type { Dashboard } from "../api/admin";

/** One hour of a chart: its start (ms) and a count per series. */
export interface HourRow {
  hour: number;
  counts: Record<string, number>;
  total: number;
}

const HOUR = 3_600_000;

/** The 24 hours ending with the current one, plus any other hour the server reported, in order. */
function hours(reported: readonly number[], now: number): number[] {
  const current = Math.floor(now / HOUR) * HOUR;
  const all = new Set<number>();
  for (let i = 23; i >= 0; i--) all.add(current - i * HOUR);
  for (const h of reported) all.add(h);
  return [...all].sort((a, b) => a - b);
}

function hourOf(iso: string): number | null {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : Math.floor(t / HOUR) * HOUR;
}

/** Tokens issued per hour, one series per app (apps by total, largest first). */
export function tokensByHour(buckets: Dashboard["tokensIssuedPerHour"], now = Date.now()) {
  const totals = new Map<string, number>();
  const cells = new Map<number, Record<string, number>>();
  for (const b of buckets) {
    const hour = hourOf(b.hour);
    if (hour === null) continue;
    totals.set(b.appName, (totals.get(b.appName) ?? 0) + b.count);
    const row = cells.get(hour) ?? {};
    row[b.appName] = (row[b.appName] ?? 0) + b.count;
    cells.set(hour, row);
  }
  const apps = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
  const rows: HourRow[] = hours([...cells.keys()], now).map((hour) => {
    const counts = cells.get(hour) ?? {};
    return { hour, counts, total: Object.values(counts).reduce((s, n) => s + n, 0) };
  });
  const total = [...totals.values()].reduce((s, n) => s + n, 0);
  return { apps, rows, total };
}

/** Failed client authentications per hour (series "failed"). */
export function failuresByHour(buckets: Dashboard["failedClientAuthenticationsPerHour"], now = Date.now()) {
  const cells = new Map<number, number>();
  for (const b of buckets) {
    const hour = hourOf(b.hour);
    if (hour !== null) cells.set(hour, (cells.get(hour) ?? 0) + b.count);
  }
  const rows: HourRow[] = hours([...cells.keys()], now).map((hour) => {
    const n = cells.get(hour) ?? 0;
    return { hour, counts: { failed: n }, total: n };
  });
  return { rows, total: [...cells.values()].reduce((s, n) => s + n, 0) };
}

/** The time range of one hour of a chart, [start, start + 1 h), as ISO 8601 instants (an audit log filter's `from` and `to`). */
export function hourRange(hour: number): { from: string; to: string } {
  return { from: new Date(hour).toISOString(), to: new Date(hour + HOUR).toISOString() };
}

const hourFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayHourFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" });

/** "14:00" on an axis. */
export const formatHour = (hour: number) => hourFormat.format(hour);
/** "Tue 14:00" in a tooltip or table. */
export const formatDayHour = (hour: number) => dayHourFormat.format(hour);
