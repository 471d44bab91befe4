import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { DASHBOARD, type ApiLatency, type Dashboard, type DashboardLatency, type DashboardRange, type FailureCount } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import { BucketChart, type ChartSeries } from "../../components/BucketChart";
import { DataTable, type Column } from "../../components/DataTable";
import { ExactTime } from "../../components/ExactTime";
import { durationText } from "../../components/Format";
import { LoadState } from "../../components/LoadState";
import { Panel } from "../../components/Panel";
import { browserTimeZone, eventTypeLabel } from "../../lib/audit";
import {
  bucketFormat,
  clientApps,
  failureFilter,
  formatLatency,
  formatRate,
  GATEWAY_REFUSED,
  gridOf,
  RANGES,
  rangeOption,
  readRange,
  tokensBucketFilter,
  tokensOverTime,
  TRAFFIC_SERIES,
  trafficBucketFilter,
  trafficBy,
  trafficOverTime,
  trafficTotals,
  wholeRange,
  zoneDescription,
  type TrafficTotals,
} from "../../lib/dashboard";
import { routes } from "../../lib/routes";
import { useQuery } from "../../lib/useGraphQL";

/** The traffic chart's colours: green, amber and red (styles.css --chart-N), readable on the light and the dark card. */
const OUTCOME_COLORS: Record<string, string> = { ok: "var(--chart-2)", clientErrors: "var(--chart-3)", serverErrors: "var(--chart-8)" };
const TRAFFIC_CHART_SERIES: ChartSeries[] = TRAFFIC_SERIES.map((s) => ({ ...s, color: OUTCOME_COLORS[s.key] }));

const none = (words: string) => <span className="muted">{words}</span>;

/** The apps of the clients a dashboard answer shows, by consumer key (lib/dashboard.ts clientApps). */
type ClientApps = ReturnType<typeof clientApps>;

/** The "App" column beside a "Client" column: the name of the consumer key's app, a link to its page; "—" when unknown. */
function appColumn<Row>(clientIdOf: (row: Row) => string, apps: ClientApps): Column<Row> {
  return {
    header: "App",
    cell: (row) => {
      const app = apps.get(clientIdOf(row));
      return app ? <Link to={routes.appDetail(app.appId)}>{app.appName}</Link> : none("—");
    },
  };
}

/** The range selector: a link per range, the current one marked; the range is the URL's. */
function RangeSelector({ current }: { current: DashboardRange }) {
  return (
    <nav aria-label="Time range" className="range-selector">
      <ul>
        {RANGES.map((r) => (
          <li key={r.range}>
            <Link to={routes.dashboard(r.range)} aria-current={r.range === current ? "true" : undefined}>
              {r.label}
              <span className="visually-hidden"> ({r.words})</span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

type TrafficRow = TrafficTotals & { key: string };

/** The columns of the traffic of each API or client (with its app): calls, 4xx, 5xx, error rate, and the audit events (and tokens) behind them. */
function trafficColumns(by: "api" | "clientId", dashboard: Dashboard, apps: ClientApps): Column<TrafficRow>[] {
  const range = wholeRange(dashboard);
  const links =
    by === "api"
      ? (r: TrafficRow) => (
          <Link to={routes.audit({ type: GATEWAY_REFUSED, api: r.key, ...range })}>
            Refused calls<span className="visually-hidden"> to {r.key}</span>
          </Link>
        )
      : (r: TrafficRow) => (
          <>
            <Link to={routes.audit({ clientId: r.key, ...range })}>
              Audit events<span className="visually-hidden"> of {r.key}</span>
            </Link>{" "}
            ·{" "}
            <Link to={routes.tokens({ clientId: r.key })}>
              Tokens<span className="visually-hidden"> of {r.key}</span>
            </Link>
          </>
        );
  return [
    {
      header: by === "api" ? "API" : "Client",
      rowHeader: true,
      cell: (r) => (r.key ? <code>{r.key}</code> : none(by === "api" ? "no API named" : "no valid token")),
    },
    ...(by === "clientId" ? [appColumn<TrafficRow>((r) => r.key, apps)] : []),
    { header: "Calls", className: "num", cell: (r) => r.calls },
    { header: "4xx", className: "num", cell: (r) => r.clientErrors },
    { header: "5xx", className: "num", cell: (r) => r.serverErrors },
    { header: "Error rate", className: "num", cell: (r) => formatRate(r.errorRate) },
    { header: "Details", cell: (r) => (r.key ? links(r) : none("—")) },
  ];
}

/** The columns of the refusals: who (the client and its app), what, where, why, how many, and the audit events behind them. */
function failureColumns(dashboard: Dashboard, apps: ClientApps): Column<FailureCount>[] {
  return [
    { header: "Client", rowHeader: true, cell: (f) => (f.clientId ? <code>{f.clientId}</code> : none("unknown")) },
    appColumn<FailureCount>((f) => f.clientId, apps),
    {
      header: "Type",
      cell: (f) => (
        <>
          <code>{f.type}</code>
          {eventTypeLabel(f.type) && <span className="block small muted">{eventTypeLabel(f.type)}</span>}
        </>
      ),
    },
    { header: "API", cell: (f) => (f.api ? <code>{f.api}</code> : none("—")) },
    { header: "Reason", cell: (f) => <code>{f.reason}</code> },
    { header: "Count", className: "num", cell: (f) => f.count },
    {
      header: "Audit log",
      cell: (f) => (
        <Link to={routes.audit(failureFilter(f, dashboard))}>
          Audit events
          <span className="visually-hidden">
            {" "}
            of {f.type} {f.reason} by {f.clientId || "unknown clients"}
            {f.api ? ` at ${f.api}` : ""}
          </span>
        </Link>
      ),
    },
  ];
}

const LATENCY_COLUMNS: Column<ApiLatency>[] = [
  { header: "API", rowHeader: true, cell: (a) => <code>{a.api}</code> },
  { header: "Calls", className: "num", cell: (a) => a.count },
  { header: "p50", className: "num", cell: (a) => formatLatency(a.p50Seconds) },
  { header: "p95", className: "num", cell: (a) => formatLatency(a.p95Seconds) },
  { header: "p99", className: "num", cell: (a) => formatLatency(a.p99Seconds) },
];

/**
 * The upstream latency per API (p50, p95, p99) of this instance since it started, from its
 * Prometheus histogram; without metrics (METRICS_PORT), what turns them on.
 */
function LatencyPanel({ latency }: { latency: DashboardLatency | null }) {
  return (
    <Panel title="Latency per API">
      {latency ? (
        <>
          <p className="small muted">
            Time from forwarding a call to the API's upstream until its response headers, as the metrics' histogram holds it: this instance's calls since it
            started at <ExactTime value={latency.since} />, whatever the range above. p50 is the median; p95 and p99: 95 and 99 calls in 100 were faster.
          </p>
          <DataTable
            caption="Upstream latency per API, p50, p95 and p99"
            columns={LATENCY_COLUMNS}
            rows={latency.apis}
            rowKey={(a) => a.api}
            empty="No call was forwarded to an upstream since this instance started."
            compact
          />
        </>
      ) : (
        <p className="empty">Latency figures need the metrics: set METRICS_PORT.</p>
      )}
    </Panel>
  );
}

/** The gateway calls of a dashboard answer per API or per client (with its app), in a panel titled "Traffic per API" or "Traffic per client". */
function TrafficPanel({ by, dashboard, apps }: { by: "api" | "clientId"; dashboard: Dashboard; apps: ClientApps }) {
  const what = by === "api" ? "API" : "client";
  return (
    <Panel title={`Traffic per ${what}`}>
      <DataTable
        caption={`Gateway calls per ${what}`}
        columns={trafficColumns(by, dashboard, apps)}
        rows={trafficBy(dashboard.traffic, by)}
        rowKey={(r) => r.key}
        empty={`No gateway calls in ${rangeOption(dashboard.range).words}.`}
        compact
      />
    </Panel>
  );
}

/** The figures of one dashboard answer: traffic and tokens over time, traffic and latency per API, traffic per client (with its app), refusals. */
function Figures({ dashboard }: { dashboard: Dashboard }) {
  const grid = gridOf(dashboard);
  const format = bucketFormat(dashboard.range, grid);
  const words = rangeOption(dashboard.range).words;
  const totals = trafficTotals(dashboard.traffic);
  const tokens = tokensOverTime(dashboard.tokensIssued, grid);
  const refusals = dashboard.failures.reduce((s, f) => s + f.count, 0);
  const apps = clientApps(dashboard);
  return (
    <>
      <div className="dashboard">
        <Panel title="Gateway traffic">
          {totals.calls > 0 ? (
            <>
              <p className="stat">
                <span className="stat-value">{totals.calls}</span> gateway {totals.calls === 1 ? "call" : "calls"}, {formatRate(totals.errorRate)} answered
                with an error ({totals.clientErrors} 4xx, {totals.serverErrors} 5xx)
              </p>
              <BucketChart
                rows={trafficOverTime(dashboard.traffic, grid)}
                series={TRAFFIC_CHART_SERIES}
                label="Gateway calls over time, by outcome"
                yTitle="Calls"
                format={format}
                bucketLink={(start, series) => routes.audit(trafficBucketFilter(start, grid, series))}
                linkText="Refused calls"
              />
            </>
          ) : (
            <p className="empty">No gateway calls in {words}.</p>
          )}
          <p className="small muted">Calls are counted every few seconds: those of the last seconds may not be in yet.</p>
        </Panel>
        <Panel title="Tokens issued">
          {tokens.total > 0 ? (
            <>
              <p className="stat">
                <span className="stat-value">{tokens.total}</span> {tokens.total === 1 ? "token" : "tokens"} issued to {tokens.series.length}{" "}
                {tokens.series.length === 1 ? "client" : "clients"}
              </p>
              <BucketChart
                rows={tokens.rows}
                series={tokens.series}
                label="Tokens issued over time, per client"
                yTitle="Tokens"
                format={format}
                bucketLink={(start, series) => routes.audit(tokensBucketFilter(start, grid, series))}
                linkText="Tokens issued"
              />
            </>
          ) : (
            <p className="empty">No tokens were issued in {words}.</p>
          )}
        </Panel>
      </div>
      <TrafficPanel by="api" dashboard={dashboard} apps={apps} />
      <LatencyPanel latency={dashboard.latency} />
      <TrafficPanel by="clientId" dashboard={dashboard} apps={apps} />
      <Panel title="Failures by client and reason">
        <p className="stat">
          <span className="stat-value">{refusals}</span> refused {refusals === 1 ? "request" : "requests"}: failed client authentications, refused token
          requests and refused gateway calls
        </p>
        <DataTable
          caption="Refused requests by client, type, API and reason"
          columns={failureColumns(dashboard, apps)}
          rows={dashboard.failures}
          rowKey={(f) => `${f.type}|${f.clientId}|${f.api}|${f.reason}`}
          empty={`No requests were refused in ${words}.`}
          compact
        />
      </Panel>
    </>
  );
}

/**
 * /admin[?range=1h|24h|7d|30d]: the operations view over a range ending now (the last 24
 * hours by default): gateway traffic and errors over time, per API and per client (named by its
 * app), upstream latency per API (p50, p95, p99), tokens issued per client, and refusals by
 * client and reason, each linking to the audit log.
 */
export function DashboardPage() {
  const [params] = useSearchParams();
  const range = readRange(params);
  const { data, loading, error, reload } = useQuery(DASHBOARD, { range });
  const zone = useMemo(browserTimeZone, []);
  // While another range loads, the last answer is not shown for it.
  const dashboard = data?.dashboard.range === range ? data.dashboard : undefined;
  return (
    <AdminPage title="Dashboard" intro={`Gateway traffic, tokens issued and refused requests over ${rangeOption(range).words}.`}>
      <div className="dashboard-bar">
        <RangeSelector current={range} />
        <button type="button" className="button secondary small" disabled={loading} aria-busy={loading || undefined} onClick={reload}>
          Refresh
        </button>
      </div>
      <LoadState loading={loading} error={error} isEmpty={!dashboard} onRetry={reload}>
        {dashboard && (
          <>
            <p className="muted small">
              From <ExactTime value={dashboard.from} /> to <ExactTime value={dashboard.to} />, in buckets of {durationText(dashboard.bucketSeconds)}. Times in{" "}
              {zoneDescription(zone, new Date(dashboard.to))}
              {dashboard.range === "MONTH" ? "; the days are UTC days." : "."}
            </p>
            <Figures dashboard={dashboard} />
          </>
        )}
      </LoadState>
    </AdminPage>
  );
}
