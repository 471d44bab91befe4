import { Link } from "react-router";
import { DASHBOARD } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import { HourlyChart } from "../../components/HourlyChart";
import { LoadState } from "../../components/LoadState";
import { Panel } from "../../components/Panel";
import { failuresByHour, hourRange, tokensByHour } from "../../lib/dashboard";
import { routes } from "../../lib/routes";
import { useQuery } from "../../lib/useGraphQL";

/** The audit log's failed client authentications of one hour. */
const FAILED_AUTHENTICATION = "client.authentication_failed";
const failuresOfHour = (hour: number) => routes.audit({ type: FAILED_AUTHENTICATION, ...hourRange(hour) });

/** /admin: tokens issued and failed client authentications per hour over the last 24 hours. */
export function DashboardPage() {
  const { data, loading, error, reload } = useQuery(DASHBOARD);
  const tokens = data ? tokensByHour(data.dashboard.tokensIssuedPerHour) : null;
  const failures = data ? failuresByHour(data.dashboard.failedClientAuthenticationsPerHour) : null;
  const refresh = (
    <button type="button" className="button secondary small" disabled={loading} aria-busy={loading || undefined} onClick={reload}>
      Refresh
    </button>
  );
  return (
    <AdminPage title="Dashboard" intro="The last 24 hours, per hour, in your time zone.">
      <div className="dashboard">
        <Panel title="Tokens issued" actions={refresh}>
          <LoadState loading={loading} error={error} isEmpty={!tokens} onRetry={reload}>
            {tokens && tokens.total > 0 ? (
              <>
                <p className="stat">
                  <span className="stat-value">{tokens.total}</span> tokens issued to {tokens.apps.length}{" "}
                  {tokens.apps.length === 1 ? "app" : "apps"}
                </p>
                <HourlyChart rows={tokens.rows} series={tokens.apps.map((name) => ({ key: name, name }))} label="Tokens issued per hour, per app" />
              </>
            ) : (
              <p className="empty">No tokens were issued in the last 24 hours.</p>
            )}
          </LoadState>
        </Panel>
        <Panel title="Failed client authentications">
          {/* A load error is shown once, in the panel above. */}
          <LoadState loading={loading} error={null} isEmpty={!failures}>
            {!failures ? (
              <p className="empty">Not available.</p>
            ) : failures.total > 0 ? (
              <>
                <p className="stat">
                  <span className="stat-value">{failures.total}</span> failed client authentications (wrong or unknown consumer key or secret)
                </p>
                <HourlyChart
                  rows={failures.rows}
                  series={[{ key: "failed", name: "Failed authentications", color: "#dc2626" }]}
                  label="Failed client authentications per hour"
                  hourLink={failuresOfHour}
                />
                <p className="small">
                  <Link to={routes.audit({ type: FAILED_AUTHENTICATION, from: hourRange(failures.rows[0]?.hour ?? Date.now()).from })}>
                    Failed client authentications of the last 24 hours in the audit log
                  </Link>{" "}
                  <span className="muted">(a click on a bar shows its hour)</span>
                </p>
              </>
            ) : (
              <p className="empty">No failed client authentications in the last 24 hours.</p>
            )}
          </LoadState>
        </Panel>
      </div>
    </AdminPage>
  );
}
