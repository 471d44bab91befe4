import { Link, useSearchParams } from "react-router";
import { SEARCH, type FoundApp, type NamedAuditEvent, type SearchResults } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import { DataTable, type Column } from "../../components/DataTable";
import { Badge, Chips } from "../../components/Format";
import { LoadState } from "../../components/LoadState";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { revokeColumn, tokenColumns } from "../../components/TokenColumns";
import { routes } from "../../lib/routes";
import { countOf, matchingKeys, readSearchText, resultsSummary, searchesRequests, searchesTokens } from "../../lib/search";
import { eventTypeLabel, readDetails, refusalOf, requestFilter } from "../../lib/audit";
import { ExactTime } from "../../components/ExactTime";
import { psd2ConsentColumns } from "./Psd2ConsentRows";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { AppStatusBadge } from "./AppRegistration";

type FoundUser = SearchResults["users"][number];

/** The app's consumer keys the text is part of, else its current ones. */
function ConsumerKeys({ app, text }: { app: FoundApp; text: string }) {
  const matching = matchingKeys(app.credentials, text);
  const keys = matching.length > 0 ? app.credentials.filter((c) => matching.includes(c.consumerKey)) : app.credentials.filter((c) => c.status === "approved");
  return <Chips items={keys.map((c) => (c.status === "approved" ? c.consumerKey : `${c.consumerKey} (revoked)`))} />;
}

function appColumns(text: string): Column<FoundApp>[] {
  return [
    { header: "App", rowHeader: true, cell: (a) => <Link to={routes.appDetail(a.id)}>{a.name}</Link> },
    { header: "Organization", cell: (a) => a.developer.organization.name },
    { header: "Status", cell: (a) => <AppStatusBadge status={a.status} /> },
    { header: "Consumer keys", cell: (a) => <ConsumerKeys app={a} text={text} /> },
    {
      header: "Tokens",
      cell: (a) => (
        <Link to={routes.tokens({ appId: a.id })}>
          Tokens<span className="visually-hidden"> of {a.name}</span>
        </Link>
      ),
    },
  ];
}

const USER_COLUMNS: Column<FoundUser>[] = [
  { header: "User", rowHeader: true, cell: (u) => <Link to={routes.users({ search: u.username, user: u.id })}>{u.username}</Link> },
  { header: "Role", cell: (u) => u.role },
  { header: "Status", cell: (u) => <Badge>{u.status}</Badge> },
  {
    header: "Tokens",
    cell: (u) => (
      <Link to={routes.tokens({ userId: u.id })}>
        Tokens<span className="visually-hidden"> of {u.username}</span>
      </Link>
    ),
  },
];

/**
 * The columns of the audit events of a request: each opens the audit log at its request (by the
 * interaction id or request id searched for), where its details are.
 */
function auditColumns(text: string): Column<NamedAuditEvent>[] {
  return [
    {
      header: "Event",
      rowHeader: true,
      cell: (e) => (
        <Link to={routes.audit(requestFilter(readDetails(e.details), text))}>
          {eventTypeLabel(e.type) ?? e.type}
          <span className="visually-hidden"> of request {text}</span>
        </Link>
      ),
    },
    { header: "Time", cell: (e) => <ExactTime value={e.at} /> },
    { header: "App", cell: (e) => (e.app ? <bdi>{e.app.name}</bdi> : <span className="muted">—</span>) },
    { header: "User", cell: (e) => e.user?.username ?? <span className="muted">—</span> },
    { header: "Reason", cell: (e) => refusalOf(readDetails(e.details)).reason ?? <span className="muted">—</span> },
    { header: "Count", className: "num", cell: (e) => (e.count > 1 ? `×${e.count}` : <span className="muted">—</span>) },
  ];
}

/** What the search found for `text`: a sentence announcing it, then the apps, users and tokens (with "Revoke" on live ones), PSD2 consents and audit events. */
function Results({ text }: { text: string }) {
  const query = useQuery(SEARCH, { text });
  const action = useAction();
  const results = query.data?.search;
  const tokenColumnsWithRevoke = [
    ...tokenColumns({ state: true, app: true, user: true }),
    revokeColumn(action, (revoked) =>
      query.setData((d) => ({ search: { ...d.search, tokens: d.search.tokens.map((t) => (t.id === revoked.id ? { ...t, ...revoked } : t)) } })),
    ),
  ];
  return (
    <>
      {/* Always rendered, so that screen readers announce the summary when it appears. */}
      <p role="status" className="search-summary">
        {results ? resultsSummary(results, text) : ""}
      </p>
      <LoadState loading={query.loading} error={query.error} isEmpty={!results} onRetry={query.reload}>
        {results && (
          <>
            <Panel title={`Apps (${results.apps.length})`}>
              <DataTable
                caption="Apps found"
                columns={appColumns(text)}
                rows={results.apps}
                rowKey={(a) => a.id}
                empty={`No app’s name or consumer key contains “${text}”.`}
              />
            </Panel>
            <Panel title={`Users (${results.users.length})`}>
              <DataTable caption="Users found" columns={USER_COLUMNS} rows={results.users} rowKey={(u) => u.id} empty={`No username contains “${text}”.`} />
            </Panel>
            <Panel title={`Tokens (${results.tokens.length})`}>
              <ActionNotices action={action} />
              <DataTable
                caption="Tokens found"
                columns={tokenColumnsWithRevoke}
                rows={results.tokens}
                rowKey={(t) => t.id}
                empty={
                  searchesTokens(text)
                    ? `No token id starts with “${text}”.`
                    : "Tokens are found by the start of their id: 4 or more lowercase letters and digits, e.g. a refusal’s token_id_prefix."
                }
              />
            </Panel>
            <Panel title={`PSD2 consents (${results.psd2Consents.length})`}>
              <DataTable
                caption="PSD2 consents found"
                columns={psd2ConsentColumns({ withPsu: true })}
                rows={results.psd2Consents}
                rowKey={(c) => c.id}
                empty={`No PSD2 consent has the id “${text}”, or a user, app or consumer key containing it.`}
              />
            </Panel>
            <Panel title={`Audit events (${results.auditEvents.length})`}>
              <DataTable
                caption="Audit events found"
                columns={auditColumns(text)}
                rows={results.auditEvents}
                rowKey={(e) => e.id}
                empty={
                  searchesRequests(text)
                    ? `No audit event of a request with the id or x-fapi-interaction-id “${text}”.`
                    : "Audit events are found by their request’s X-Request-Id or x-fapi-interaction-id."
                }
              />
            </Panel>
          </>
        )}
      </LoadState>
    </>
  );
}

/** At most this many of each kind are found (schema.graphql SearchResults). */
const HITS = 10;

/** /admin/search?q=…: what the console's search box (AdminLayout) finds: apps, users, tokens, PSD2 consents and audit events. */
export function SearchPage() {
  const [params] = useSearchParams();
  const text = readSearchText(params);
  return (
    <AdminPage
      title={text ? `Search for “${text}”` : "Search"}
      intro={`Apps by name or consumer key, users by username, tokens by the start of their id, PSD2 consents by id, user or app, audit events by their request’s id or x-fapi-interaction-id; ${countOf(HITS, "result")} of each at most.`}
    >
      {text ? (
        <Results key={text} text={text} />
      ) : (
        <p>Type an app’s name or consumer key, a username, the start of a token’s id, a consent id or a request’s x-fapi-interaction-id in the search box above.</p>
      )}
    </AdminPage>
  );
}
