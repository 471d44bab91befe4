import { describe, expect, it } from "vitest";
import type { TrafficBucket } from "../api/admin";
import {
  bucketFormat,
  clientApps,
  formatLatency,
  bucketRange,
  failureFilter,
  formatRate,
  gridOf,
  rangeQuery,
  readRange,
  tokensBucketFilter,
  tokensOverTime,
  trafficBucketFilter,
  trafficBy,
  trafficOverTime,
  trafficTotals,
  zoneDescription,
} from "./dashboard";
import { routes } from "./routes";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A dashboard's grid: `count` buckets of `bucketSeconds` from `from`, "now" a little into the last one. */
function answer(from: string, bucketSeconds: number, count: number) {
  const to = new Date(Date.parse(from) + (count - 1) * bucketSeconds * 1000 + 1234).toISOString();
  return { from, to, bucketSeconds };
}

/** A token count of one client in one bucket, as the dashboard's query answers it. */
const issued = (start: string, appName: string, clientId: string, count: number) => ({ start, appName, clientId, count });

/** {@link tokensOverTime} of these counts on the grid of a dashboard answer. */
const tokensIn = (grid: Parameters<typeof gridOf>[0], counts: Parameters<typeof tokensOverTime>[0]) => tokensOverTime(counts, gridOf(grid));

const traffic = (start: string, api: string, clientId: string, ok: number, clientErrors: number, serverErrors: number): TrafficBucket => ({
  start,
  api,
  clientId,
  ok,
  clientErrors,
  serverErrors,
  appName: null,
  appId: null,
});

describe("the range in the URL", () => {
  it("reads 1h, 24h, 7d and 30d; anything else is the last 24 hours", () => {
    expect(readRange(new URLSearchParams("range=1h"))).toBe("HOUR");
    expect(readRange(new URLSearchParams("range=24h"))).toBe("DAY");
    expect(readRange(new URLSearchParams("range=7D"))).toBe("WEEK");
    expect(readRange(new URLSearchParams("range=30d"))).toBe("MONTH");
    expect(readRange(new URLSearchParams(""))).toBe("DAY");
    expect(readRange(new URLSearchParams("range=year"))).toBe("DAY");
  });

  it("links to the dashboard over a range, the default without a parameter", () => {
    expect(routes.dashboard()).toBe("/admin");
    expect(routes.dashboard("DAY")).toBe("/admin");
    expect(routes.dashboard("HOUR")).toBe("/admin?range=1h");
    expect(routes.dashboard("MONTH")).toBe("/admin?range=30d");
    expect(rangeQuery("WEEK")).toEqual({ range: "7d" });
    for (const range of ["HOUR", "DAY", "WEEK", "MONTH"] as const) {
      expect(readRange(new URLSearchParams(routes.dashboard(range).split("?")[1] ?? ""))).toBe(range);
    }
  });
});

describe("bucketing per range", () => {
  it("lays the range's buckets from the server's start until now", () => {
    expect(gridOf(answer("2026-11-24T10:00:00.000Z", 300, 12))).toEqual({ from: Date.parse("2026-11-24T10:00:00.000Z"), size: 5 * MINUTE, count: 12 });
    expect(gridOf(answer("2026-11-23T11:00:00.000Z", 3600, 24)).count).toBe(24);
    expect(gridOf(answer("2026-11-18T12:00:00.000Z", 21_600, 28)).count).toBe(28);
    expect(gridOf(answer("2026-10-26T00:00:00.000Z", 86_400, 30)).count).toBe(30);
    // "now" exactly at a bucket's end: no empty bucket after it.
    expect(gridOf({ from: "2026-11-24T10:00:00.000Z", to: "2026-11-24T11:00:00.000Z", bucketSeconds: 300 }).count).toBe(12);
  });

  it("counts tokens issued per client in 5-minute buckets (1 h), largest client first", () => {
    const { series, rows, total } = tokensIn(answer("2026-11-24T10:00:00.000Z", 300, 12), [
      issued("2026-11-24T10:00:00.000Z", "Acme Budgeting", "acme-key", 1),
      issued("2026-11-24T10:05:00.000Z", "Beta Pay", "beta-key", 4),
      issued("2026-11-24T10:55:00.000Z", "Acme Budgeting", "acme-key", 2),
      issued("2026-11-24T10:55:00.000Z", "Beta Pay", "beta-key", 1),
    ]);
    expect(series).toEqual([
      { key: "beta-key", name: "Beta Pay" },
      { key: "acme-key", name: "Acme Budgeting" },
    ]);
    expect(rows).toHaveLength(12);
    expect(rows[0]).toEqual({ start: Date.parse("2026-11-24T10:00:00.000Z"), counts: { "acme-key": 1 }, total: 1 });
    expect(rows[1]!.counts).toEqual({ "beta-key": 4 });
    expect(rows.slice(2, 11).every((r) => r.total === 0)).toBe(true);
    expect(rows[11]).toEqual({ start: Date.parse("2026-11-24T10:55:00.000Z"), counts: { "acme-key": 2, "beta-key": 1 }, total: 3 });
    expect(total).toBe(8);
  });

  it("puts each count in the bucket it starts in (6-hour buckets of 7 d), one near the edges in the nearest", () => {
    const { rows } = tokensIn(answer("2026-11-18T12:00:00.000Z", 21_600, 28), [
      issued("2026-11-18T17:59:59.000Z", "A", "a", 1),
      issued("2026-11-18T18:00:00.000Z", "A", "a", 2),
      issued("2026-11-25T18:00:01.000Z", "A", "a", 5),
    ]);
    expect(rows.map((r) => r.total).filter((n) => n > 0)).toEqual([1, 2, 5]);
    expect(rows[0]!.total).toBe(1);
    expect(rows[1]!.total).toBe(2);
    expect(rows[27]!.total).toBe(5);
  });

  it("names a client by its app, with the consumer key when two clients share the name, and an app without one by its name", () => {
    const { series, rows } = tokensIn(answer("2026-10-26T00:00:00.000Z", 86_400, 30), [
      issued("2026-10-26T00:00:00.000Z", "Same", "k1", 1),
      issued("2026-10-27T00:00:00.000Z", "Same", "k2", 1),
      issued("2026-10-27T00:00:00.000Z", "Keyless", "", 3),
    ]);
    expect(series).toEqual([
      { key: "app:Keyless", name: "Keyless" },
      { key: "k1", name: "Same (k1)" },
      { key: "k2", name: "Same (k2)" },
    ]);
    expect(rows[1]!.counts).toEqual({ k2: 1, "app:Keyless": 3 });
  });

  it("counts gateway calls per bucket by outcome (1-hour buckets of 24 h)", () => {
    const grid = gridOf(answer("2026-11-23T11:00:00.000Z", 3600, 24));
    const rows = trafficOverTime(
      [traffic("2026-11-23T11:00:00.000Z", "accounts", "k1", 5, 1, 0), traffic("2026-11-23T11:00:00.000Z", "payments", "k2", 2, 0, 3), traffic("2026-11-24T10:00:00.000Z", "accounts", "", 0, 4, 0)],
      grid,
    );
    expect(rows).toHaveLength(24);
    expect(rows[0]).toEqual({ start: Date.parse("2026-11-23T11:00:00.000Z"), counts: { ok: 7, clientErrors: 1, serverErrors: 3 }, total: 11 });
    expect(rows[23]).toEqual({ start: Date.parse("2026-11-24T10:00:00.000Z"), counts: { clientErrors: 4 }, total: 4 });
  });
});

describe("traffic per API and per client", () => {
  const calls = [
    traffic("2026-11-23T11:00:00.000Z", "accounts", "k1", 8, 2, 0),
    traffic("2026-11-23T12:00:00.000Z", "accounts", "k2", 0, 0, 0),
    traffic("2026-11-23T12:00:00.000Z", "payments", "k1", 1, 0, 1),
    traffic("2026-11-23T13:00:00.000Z", "", "", 0, 3, 0),
  ];

  it("adds calls, 4xx and 5xx, with the error rate", () => {
    expect(trafficTotals(calls)).toEqual({ calls: 15, clientErrors: 5, serverErrors: 1, errorRate: 6 / 15 });
    expect(trafficTotals([])).toEqual({ calls: 0, clientErrors: 0, serverErrors: 0, errorRate: 0 });
  });

  it("groups by API and by client, most calls first, leaving out those without calls", () => {
    expect(trafficBy(calls, "api")).toEqual([
      { key: "accounts", calls: 10, clientErrors: 2, serverErrors: 0, errorRate: 0.2 },
      { key: "", calls: 3, clientErrors: 3, serverErrors: 0, errorRate: 1 },
      { key: "payments", calls: 2, clientErrors: 0, serverErrors: 1, errorRate: 0.5 },
    ]);
    expect(trafficBy(calls, "clientId").map((r) => [r.key, r.calls])).toEqual([
      ["k1", 12],
      ["", 3],
    ]);
  });

  it("shows an error rate as a percentage", () => {
    expect(formatRate(0.125, "en-GB")).toBe("12.5%");
    expect(formatRate(2 / 3, "en-GB")).toBe("66.7%");
    expect(formatRate(0, "en-GB")).toBe("0%");
  });
});

describe("the audit log behind the figures", () => {
  const grid = gridOf(answer("2026-11-23T11:00:00.000Z", 3600, 24));
  const start = Date.parse("2026-11-23T15:00:00.000Z");
  const range = { from: "2026-11-23T15:00:00.000Z", to: "2026-11-23T16:00:00.000Z" };

  it("opens a bucket's time range", () => {
    expect(bucketRange(start, grid)).toEqual(range);
    expect(bucketRange(Date.parse("2026-11-24T10:00:00.000Z"), { size: 5 * MINUTE })).toEqual({ from: "2026-11-24T10:00:00.000Z", to: "2026-11-24T10:05:00.000Z" });
  });

  it("opens the refused calls of a traffic bucket, or all its events for the outcomes not audited call by call", () => {
    expect(trafficBucketFilter(start, grid)).toEqual({ type: "gateway.refused", ...range });
    expect(trafficBucketFilter(start, grid, "clientErrors")).toEqual({ type: "gateway.refused", ...range });
    expect(trafficBucketFilter(start, grid, "ok")).toEqual(range);
    expect(trafficBucketFilter(start, grid, "serverErrors")).toEqual(range);
  });

  it("opens the tokens issued in a bucket, to the client of the bar clicked", () => {
    expect(tokensBucketFilter(start, grid)).toEqual({ type: "token.issued", ...range });
    expect(tokensBucketFilter(start, grid, "acme-key")).toEqual({ type: "token.issued", clientId: "acme-key", ...range });
    expect(tokensBucketFilter(start, grid, "app:Keyless")).toEqual({ type: "token.issued", ...range });
  });

  it("opens a failures row's events: its client, type, API and reason over the range", () => {
    const dashboard = { from: "2026-11-23T11:00:00.000Z", to: "2026-11-24T10:20:01.234Z" };
    const filter = failureFilter({ type: "gateway.refused", clientId: "k1", api: "accounts", reason: "invalid_token", count: 3 }, dashboard);
    expect(routes.audit(filter)).toBe(
      `/admin/audit?${new URLSearchParams({ type: "gateway.refused", clientId: "k1", api: "accounts", reason: "invalid_token", from: dashboard.from, to: dashboard.to })}`,
    );
    expect(routes.audit(failureFilter({ type: "client.authentication_failed", clientId: "", api: "", reason: "invalid_client", count: 1 }, dashboard))).toBe(
      `/admin/audit?${new URLSearchParams({ type: "client.authentication_failed", reason: "invalid_client", from: dashboard.from, to: dashboard.to })}`,
    );
  });
});

describe("times", () => {
  const at = Date.parse("2026-11-24T14:05:00.000Z");

  it("reads bucket times per range, with the bucket's end in a label", () => {
    const options = { locale: "en-GB", timeZone: "UTC" };
    const hour = bucketFormat("HOUR", { size: 5 * MINUTE }, options);
    expect(hour.tick(at)).toBe("14:05");
    expect(hour.label(at)).toBe("Tue 24 Nov, 14:05 to 14:10");
    expect(bucketFormat("DAY", { size: HOUR }, options).label(Date.parse("2026-11-24T14:00:00.000Z"))).toBe("Tue 24 Nov, 14:00 to 15:00");
    const week = bucketFormat("WEEK", { size: 6 * HOUR }, options);
    expect(week.tick(Date.parse("2026-11-24T18:00:00.000Z"))).toBe("Tue 18:00");
    expect(week.label(Date.parse("2026-11-24T18:00:00.000Z"))).toBe("Tue 24 Nov, 18:00 to 00:00");
  });

  it("reads the 30 days' buckets as UTC days, whatever the zone", () => {
    const month = bucketFormat("MONTH", { size: 24 * HOUR }, { locale: "en-GB", timeZone: "America/New_York" });
    const day = Date.parse("2026-11-24T00:00:00.000Z");
    expect(month.tick(day)).toBe("24 Nov");
    expect(month.label(day)).toBe("Tue 24 Nov (UTC day)");
  });

  it("names the time zone with its offset at the time", () => {
    expect(zoneDescription("Europe/Berlin", new Date("2026-11-24T12:00:00Z"))).toBe("Europe/Berlin (UTC+01:00)");
    expect(zoneDescription("Europe/Berlin", new Date("2026-07-01T12:00:00Z"))).toBe("Europe/Berlin (UTC+02:00)");
    expect(zoneDescription("America/New_York", new Date("2026-11-24T12:00:00Z"))).toBe("America/New_York (UTC-05:00)");
    expect(zoneDescription("Asia/Kolkata", new Date("2026-11-24T12:00:00Z"))).toBe("Asia/Kolkata (UTC+05:30)");
    expect(zoneDescription("UTC", new Date("2026-11-24T12:00:00Z"))).toBe("UTC (UTC+00:00)");
  });
});

describe("clients and their apps", () => {
  it("names each consumer key the dashboard shows by its app, from the tokens issued, the traffic or the refusals; no client has none", () => {
    const apps = clientApps({
      tokensIssued: [{ start: "2026-11-24T10:00:00.000Z", appName: "Acme Budgeting", appId: "app-a", clientId: "acme-key", count: 1 }],
      traffic: [{ ...traffic("2026-11-24T10:00:00.000Z", "products", "beta-key", 1, 0, 0), appName: "Beta Pay", appId: "app-b" }, traffic("2026-11-24T10:00:00.000Z", "products", "", 1, 0, 0)],
      failures: [{ type: "gateway.refused", clientId: "gamma-key", appName: "Gamma", appId: "app-g", api: "accounts", reason: "insufficient_scope", count: 2 }],
    });
    expect([...apps.entries()]).toEqual([
      ["acme-key", { appName: "Acme Budgeting", appId: "app-a" }],
      ["beta-key", { appName: "Beta Pay", appId: "app-b" }],
      ["gamma-key", { appName: "Gamma", appId: "app-g" }],
    ]);
  });
});

describe("latency", () => {
  it("reads seconds as milliseconds below a second and as seconds above; the histograms' highest bound as a lower bound", () => {
    expect(formatLatency(0.00042, "en")).toBe("0.4 ms");
    expect(formatLatency(0.0125, "en")).toBe("13 ms");
    expect(formatLatency(0.25, "en")).toBe("250 ms");
    expect(formatLatency(1.25, "en")).toBe("1.25 s");
    expect(formatLatency(10, "en")).toBe("10 s or more");
  });
});
