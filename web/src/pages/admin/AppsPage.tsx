import { Can } from "../../components/Can";
import { useState } from "react";
import { Link, useLocation, useSearchParams } from "react-router";
import { APPS, DEVELOPER, ORGANIZATION, type AppSummary, type IssuedCredential, type Status } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import type { Column } from "../../components/DataTable";
import { DateTime } from "../../components/Format";
import { StatusMessage } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import { SearchForm } from "../../components/SearchForm";
import { SelectField } from "../../components/Field";
import { SecretPanel } from "../../components/SecretPanel";
import { appFilterQuery, appFilterVariables, readAppFilter, type AppListFilter } from "../../lib/apps";
import { routes } from "../../lib/routes";
import { useConnection, useQuery } from "../../lib/useGraphQL";
import { AppStatusBadge } from "./AppRegistration";
import { CREATE_APP_FORM_ID, CreateAppForm } from "./CreateAppForm";

/** Moves focus (and so the view) to the first field of the "Create an app" form below the list. */
function goToCreateForm() {
  document.querySelector<HTMLElement>(`#${CREATE_APP_FORM_ID} :is(select, input, textarea, a)`)?.focus();
}

const PAGE_SIZE = 25;

/** The status filter's choices. */
const STATUS_OPTIONS: ReadonlyArray<{ value: Status | "all"; label: string }> = [
  { value: "all", label: "All" },
  { value: "approved", label: "Approved" },
  { value: "pending", label: "Pending approval" },
  { value: "revoked", label: "Revoked" },
];

const APP_COLUMNS: Column<AppSummary>[] = [
  { header: "Name", rowHeader: true, cell: (app) => <Link to={routes.appDetail(app.id)}>{app.name}</Link> },
  {
    header: "Developer",
    cell: (app) => (
      <Link to={routes.apps({ developer: app.developer.id })} aria-label={`Apps of developer ${app.developer.email}`}>
        {app.developer.email}
      </Link>
    ),
  },
  {
    header: "Organization",
    cell: (app) => (
      <Link to={routes.apps({ organization: app.developer.organization.id })} aria-label={`Apps of organization ${app.developer.organization.name}`}>
        {app.developer.organization.name}
      </Link>
    ),
  },
  { header: "Status", cell: (app) => <AppStatusBadge status={app.status} /> },
  { header: "Created", cell: (app) => <DateTime value={app.createdAt} /> },
];

/** "Apps of organization Acme Fintech Ltd", with a link back to every organization's. */
function OrganizationFilter({ id, onClear }: { id: string; onClear: () => void }) {
  const { data } = useQuery(ORGANIZATION, { id });
  return <FilterNotice what={`organization ${data?.organization?.name ?? "…"}`} onClear={onClear} clearLabel="Show every organization's apps" />;
}

/** "Apps of developer dana@…", with a link back to every developer's. */
function DeveloperFilter({ id, onClear }: { id: string; onClear: () => void }) {
  const { data } = useQuery(DEVELOPER, { id });
  return <FilterNotice what={`developer ${data?.developer?.email ?? "…"}`} onClear={onClear} clearLabel="Show every developer's apps" />;
}

function FilterNotice({ what, onClear, clearLabel }: { what: string; onClear: () => void; clearLabel: string }) {
  return (
    <p>
      Apps of {what}.{" "}
      <button type="button" className="link-button" onClick={onClear}>
        {clearLabel}
      </button>
    </p>
  );
}

/**
 * /admin/apps[?search=…&organization=…&developer=…&status=…]: apps by name or consumer key
 * (current or revoked), organization, developer and status (pending: registrations awaiting
 * the bank's approval), "Load more", and "Create app"
 * (then its key and secret, once).
 */
export function AppsPage() {
  const [params, setParams] = useSearchParams();
  const filter = readAppFilter(params);
  const { search } = filter;
  const narrow = (change: Partial<AppListFilter>) => setParams(appFilterQuery({ ...filter, ...change }), { replace: true });
  const apps = useConnection(APPS, { filter: appFilterVariables(filter), first: PAGE_SIZE }, (d) => d.apps);
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const [created, setCreated] = useState(0);
  // What the app page did before it came here (an app deleted: AppLifecycle.tsx).
  const notice = (useLocation().state as { notice?: string } | null)?.notice ?? "";

  return (
    <AdminPage title="Apps" intro="The developers' apps, their consumer keys and what they may call.">
      {notice && <StatusMessage text={notice} />}
      {issued && (
        <SecretPanel issued={issued} title={`App ${issued.app.name} created`} onDone={() => setIssued(null)}>
          <Link to={routes.appDetail(issued.app.id)}>Open {issued.app.name}</Link>
        </SecretPanel>
      )}
      <Panel
        title="All apps"
        actions={
          <Can mutation="createApp">
            <button type="button" className="button secondary small" onClick={goToCreateForm}>
              New app
            </button>
          </Can>
        }
      >
        <SearchForm
          id="app-search"
          label="Search by name or consumer key"
          name="Apps"
          initial={search}
          onSearch={(value) => narrow({ search: value })}
        />
        <SelectField label="Status" value={filter.status || "all"} onChange={(status) => narrow({ status: status === "all" ? "" : status })} options={STATUS_OPTIONS} />
        {filter.organization && <OrganizationFilter id={filter.organization} onClear={() => narrow({ organization: "" })} />}
        {filter.developer && <DeveloperFilter id={filter.developer} onClear={() => narrow({ developer: "" })} />}
        <PagedListTable
          caption="Apps"
          list={apps}
          columns={APP_COLUMNS}
          empty={appFilterVariables(filter) ? "No app matches these filters." : "There are no apps yet."}
        />
      </Panel>
      <Can mutation="createApp">
        <CreateAppForm
          key={created}
          onCreated={(credential) => {
            setIssued(credential);
            setCreated((n) => n + 1);
            apps.reload();
          }}
        />
      </Can>
    </AdminPage>
  );
}
