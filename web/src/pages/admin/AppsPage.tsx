import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { APPS, type AppSummary, type IssuedCredential } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import type { Column } from "../../components/DataTable";
import { Badge, DateTime } from "../../components/Format";
import { ListTable, LoadMore } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { SearchForm } from "../../components/SearchForm";
import { SecretPanel } from "../../components/SecretPanel";
import { routes } from "../../lib/routes";
import { useConnection } from "../../lib/useGraphQL";
import { CREATE_APP_FORM_ID, CreateAppForm } from "./CreateAppForm";

/** Moves focus (and so the view) to the first field of the "Create an app" form below the list. */
function goToCreateForm() {
  document.querySelector<HTMLElement>(`#${CREATE_APP_FORM_ID} :is(select, input, textarea, a)`)?.focus();
}

const PAGE_SIZE = 25;

const APP_COLUMNS: Column<AppSummary>[] = [
  { header: "Name", rowHeader: true, cell: (app) => <Link to={routes.appDetail(app.id)}>{app.name}</Link> },
  { header: "Developer", cell: (app) => app.developer.email },
  { header: "Organization", cell: (app) => app.developer.organization.name },
  { header: "Status", cell: (app) => <Badge>{app.status}</Badge> },
  { header: "Created", cell: (app) => <DateTime value={app.createdAt} /> },
];

/** /admin/apps[?search=…]: apps by name, "Load more", and "Create app" (then its key and secret, once). */
export function AppsPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get("search")?.trim() ?? "";
  const apps = useConnection(APPS, { filter: search ? { search } : undefined, first: PAGE_SIZE }, (d) => d.apps);
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const [created, setCreated] = useState(0);

  return (
    <AdminPage title="Apps" intro="The developers' apps, their consumer keys and what they may call.">
      {issued && (
        <SecretPanel issued={issued} title={`App ${issued.app.name} created`} onDone={() => setIssued(null)}>
          <Link to={routes.appDetail(issued.app.id)}>Open {issued.app.name}</Link>
        </SecretPanel>
      )}
      <Panel
        title="All apps"
        actions={
          <button type="button" className="button secondary small" onClick={goToCreateForm}>
            New app
          </button>
        }
      >
        <SearchForm
          id="app-search"
          label="Search by name"
          name="Apps"
          maxLength={NAME_MAX_LENGTH}
          initial={search}
          onSearch={(value) => setParams(value ? { search: value } : {}, { replace: true })}
        />
        <ListTable
          caption="Apps"
          list={apps}
          columns={APP_COLUMNS}
          rowKey={(app) => app.id}
          empty={search ? `No app name contains “${search}”.` : "There are no apps yet."}
        />
        <LoadMore list={apps} what="apps" />
      </Panel>
      <CreateAppForm
        key={created}
        onCreated={(credential) => {
          setIssued(credential);
          setCreated((n) => n + 1);
          apps.reload();
        }}
      />
    </AdminPage>
  );
}
