import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { APPS, type IssuedCredential } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import { SearchForm } from "../../components/SearchForm";
import { Badge, DateTime } from "../../components/Format";
import { ListState, LoadMore, Panel } from "../../components/Panel";
import { SecretPanel } from "../../components/SecretPanel";
import { useConnection } from "../../lib/useGraphQL";
import { CREATE_APP_FORM_ID, CreateAppForm } from "./CreateAppForm";

/** Moves focus (and so the view) to the first field of the "Create an app" form below the list. */
function goToCreateForm() {
  document.querySelector<HTMLElement>(`#${CREATE_APP_FORM_ID} :is(select, input, textarea, a)`)?.focus();
}

const PAGE_SIZE = 25;

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
          <Link to={`/admin/apps/${encodeURIComponent(issued.app.id)}`}>Open {issued.app.name}</Link>
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
          maxLength={200}
          initial={search}
          onSearch={(value) => setParams(value ? { search: value } : {}, { replace: true })}
        />
        <ListState
          loading={apps.loading}
          error={apps.error}
          isEmpty={apps.nodes.length === 0}
          empty={search ? `No app name contains “${search}”.` : "There are no apps yet."}
          onRetry={apps.reload}
        >
          <div className="table-wrap">
            <table className="table" aria-busy={apps.loading || undefined}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Developer</th>
                  <th scope="col">Organization</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {apps.nodes.map((app) => (
                  <tr key={app.id}>
                    <th scope="row">
                      <Link to={`/admin/apps/${encodeURIComponent(app.id)}`}>{app.name}</Link>
                    </th>
                    <td>{app.developer.email}</td>
                    <td>{app.developer.organization.name}</td>
                    <td>
                      <Badge>{app.status}</Badge>
                    </td>
                    <td>
                      <DateTime value={app.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore hasNextPage={apps.hasNextPage} loading={apps.loadingMore} onLoadMore={apps.loadMore} what="apps" />
        </ListState>
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
