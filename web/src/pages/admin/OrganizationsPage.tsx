import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { CREATE_ORGANIZATION, ORGANIZATIONS, type Organization } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { SubmitButton, TextField } from "../../components/Field";
import { DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, LoadMore, Panel } from "../../components/Panel";
import { useAction, useConnection } from "../../lib/useGraphQL";
import { DevelopersPanel } from "./DevelopersPanel";

/** /admin/organizations[?organization=<id>]: organizations, and the developers of the selected one. */
export function OrganizationsPage() {
  const [params, setParams] = useSearchParams();
  const selected = params.get("organization");
  const organizations = useConnection(ORGANIZATIONS, { first: 50 }, (d) => d.organizations);

  function select(org: Organization) {
    setParams({ organization: org.id });
  }

  return (
    <AdminPage title="Organizations" intro="The companies whose developers own apps.">
      <Panel title="All organizations">
        <ListState
          loading={organizations.loading}
          error={organizations.error}
          isEmpty={organizations.nodes.length === 0}
          empty="There are no organizations yet. Create the first one below."
          onRetry={organizations.reload}
        >
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Display name</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {organizations.nodes.map((org) => (
                  <tr key={org.id} className={org.id === selected ? "selected" : undefined} aria-current={org.id === selected || undefined}>
                    <th scope="row">{org.name}</th>
                    <td>{org.displayName}</td>
                    <td>
                      <DateTime value={org.createdAt} />
                    </td>
                    <td className="cell-actions">
                      <button type="button" className="button secondary small" onClick={() => select(org)}>
                        Developers<span className="visually-hidden"> of {org.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore hasNextPage={organizations.hasNextPage} loading={organizations.loadingMore} onLoadMore={organizations.loadMore} what="organizations" />
        </ListState>
      </Panel>
      {selected && <DevelopersPanel key={selected} organizationId={selected} onClose={() => setParams({})} />}
      <CreateOrganization
        onCreated={(org) => {
          organizations.reload();
          select(org);
        }}
      />
    </AdminPage>
  );
}

function CreateOrganization({ onCreated }: { onCreated: (org: Organization) => void }) {
  const action = useAction();
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const input = displayName.trim() ? { name: name.trim(), displayName: displayName.trim() } : { name: name.trim() };
      const { createOrganization } = await graphql(CREATE_ORGANIZATION, { input });
      setName("");
      setDisplayName("");
      onCreated(createOrganization);
      return `Organization ${createOrganization.name} created.`;
    });
  }

  const busy = action.pending !== null;
  return (
    <Panel title="Create an organization">
      <form className="form-grid" onSubmit={onSubmit}>
        <TextField label="Name" value={name} onChange={setName} required maxLength={200} autoComplete="off" />
        <TextField
          label="Display name"
          hint="Optional; shown to end users on the consent page. Defaults to the name."
          value={displayName}
          onChange={setDisplayName}
          maxLength={200}
          autoComplete="off"
        />
        <div className="form-actions">
          <SubmitButton busy={busy}>Create organization</SubmitButton>
        </div>
      </form>
      <ActionNotices action={action} />
    </Panel>
  );
}
