import type { FormEvent } from "react";
import { useSearchParams } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_ORGANIZATION, ORGANIZATIONS, type Organization } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { actionsColumn, type Column } from "../../components/DataTable";
import { TextField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { DateTime } from "../../components/Format";
import { ListTable, LoadMore } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { nonBlank, useFields } from "../../lib/useFields";
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

  const columns: Column<Organization>[] = [
    { header: "Name", rowHeader: true, cell: (org) => org.name },
    { header: "Display name", cell: (org) => org.displayName },
    { header: "Created", cell: (org) => <DateTime value={org.createdAt} /> },
    actionsColumn((org) => (
      <button type="button" className="button secondary small" onClick={() => select(org)}>
        Developers<span className="visually-hidden"> of {org.name}</span>
      </button>
    )),
  ];

  return (
    <AdminPage title="Organizations" intro="The companies whose developers own apps.">
      <Panel title="All organizations">
        <ListTable
          caption="Organizations"
          list={organizations}
          columns={columns}
          rowKey={(org) => org.id}
          isCurrent={(org) => org.id === selected}
          empty="There are no organizations yet. Create the first one below."
        />
        <LoadMore list={organizations} what="organizations" />
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
  const fields = useFields({ name: "", displayName: "" });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, displayName } = fields.values;
      const { createOrganization } = await graphql(CREATE_ORGANIZATION, { input: { name: name.trim(), ...nonBlank({ displayName }) } });
      fields.reset();
      onCreated(createOrganization);
      return `Organization ${createOrganization.name} created.`;
    });
  }

  return (
    <PanelForm title="Create an organization" action={action} submitLabel="Create organization" onSubmit={onSubmit}>
      <TextField label="Name" {...fields.bind("name")} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
      <TextField
        label="Display name"
        hint="Optional; shown to end users on the consent page. Defaults to the name."
        {...fields.bind("displayName")}
        maxLength={NAME_MAX_LENGTH}
        autoComplete="off"
      />
    </PanelForm>
  );
}
