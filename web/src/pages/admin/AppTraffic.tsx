import { Link } from "react-router";
import { DASHBOARD, type AppDetail } from "../../api/admin";
import { BucketChart } from "../../components/BucketChart";
import { LoadState } from "../../components/LoadState";
import { Panel } from "../../components/Panel";
import { bucketFormat, formatRate, gridOf, TRAFFIC_SERIES, trafficOverTime, trafficTotals } from "../../lib/dashboard";
import { routes } from "../../lib/routes";
import { useQuery } from "../../lib/useGraphQL";

/**
 * The app's gateway traffic over the last 24 hours, by outcome: the dashboard's traffic
 * (per client, so per consumer key) narrowed to the app's consumer keys, current and revoked,
 * and the refusals recorded for them. The whole picture, other ranges included, is on the dashboard.
 */
export function AppTraffic({ app }: { app: AppDetail }) {
  const query = useQuery(DASHBOARD, { range: "DAY" });
  const dashboard = query.data?.dashboard;
  const keys = new Set(app.credentials.map((c) => c.consumerKey));
  const traffic = dashboard?.traffic.filter((b) => keys.has(b.clientId)) ?? [];
  const refusals = dashboard?.failures.filter((f) => keys.has(f.clientId)).reduce((n, f) => n + f.count, 0) ?? 0;
  const totals = trafficTotals(traffic);
  return (
    <Panel title="Gateway traffic, last 24 hours">
      <LoadState loading={query.loading} error={query.error} isEmpty={!dashboard} onRetry={query.reload}>
        {dashboard && (
          <>
            {totals.calls > 0 ? (
              <>
                <p className="stat">
                  <span className="stat-value">{totals.calls}</span> gateway {totals.calls === 1 ? "call" : "calls"}, {formatRate(totals.errorRate)} answered with an error (
                  {totals.clientErrors} 4xx, {totals.serverErrors} 5xx)
                </p>
                <BucketChart
                  rows={trafficOverTime(traffic, gridOf(dashboard))}
                  series={[...TRAFFIC_SERIES]}
                  label={`Gateway calls of ${app.name} over time, by outcome`}
                  yTitle="Calls"
                  format={bucketFormat(dashboard.range, gridOf(dashboard))}
                />
              </>
            ) : (
              <p className="empty">No gateway calls with this app's tokens in the last 24 hours.</p>
            )}
            <p>
              {refusals} refused {refusals === 1 ? "request" : "requests"} of this app (client authentication, token requests, gateway calls).{" "}
              <Link to={routes.dashboard("DAY")}>The dashboard</Link> shows every app and other ranges.
            </p>
          </>
        )}
      </LoadState>
    </Panel>
  );
}
