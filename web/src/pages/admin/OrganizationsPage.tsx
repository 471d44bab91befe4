import { Can } from "../../components/Can";
import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_ORGANIZATION, DELETE_ORGANIZATION, ERASE_ORGANIZATION, ORGANIZATIONS, UPDATE_ORGANIZATION, type Organization } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ActionButton } from "../../components/ActionButton";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { ConfirmedSubform } from "../../components/ConfirmedSubform";
import { actionsColumn, type Column } from "../../components/DataTable";
import { TextField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import { explainingConflict } from "../../lib/conflicts";
import { nonBlank, useFields } from "../../lib/useFields";
import { useAction, useConnection } from "../../lib/useGraphQL";
import { DevelopersPanel } from "./DevelopersPanel";

/** The display name's hint: where end users see it. */
const DISPLAY_NAME_HINT = "Shown to end users on the consent page. Defaults to the name.";

/** /admin/organizations[?organization=<id>]: organizations (edit, delete), and the developers of the selected one. */
export function OrganizationsPage() {
  const [params, setParams] = useSearchParams();
  const selected = params.get("organization");
  const organizations = useConnection(ORGANIZATIONS, { first: 50 }, (d) => d.organizations);
  const action = useAction();
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = organizations.nodes.find((org) => org.id === editingId);

  function select(org: Organization) {
    setParams({ organization: org.id });
  }

  function remove(org: Organization) {
    void action.run(async () => {
      await explainingConflict(graphql(DELETE_ORGANIZATION, { id: org.id }), "Delete its developers first.");
      forget(org);
      return `Organization ${org.name} deleted.`;
    }, org.id);
  }

  function erase(org: Organization) {
    void action.run(async () => {
      const { eraseOrganization } = await explainingConflict(graphql(ERASE_ORGANIZATION, { id: org.id }), "Each app's page has Delete app (Overview tab).");
      forget(org);
      return `Organization erased with its developers: ${eraseOrganization.auditEventsPseudonymized} audit events now name it ${eraseOrganization.pseudonym}.`;
    }, org.id);
  }

  function forget(org: Organization) {
    organizations.update((nodes) => nodes.filter((o) => o.id !== org.id));
    if (editingId === org.id) setEditingId(null);
    if (selected === org.id) setParams({});
  }

  const columns: Column<Organization>[] = [
    { header: "Name", rowHeader: true, cell: (org) => org.name },
    { header: "Display name", cell: (org) => org.displayName },
    { header: "Created", cell: (org) => <DateTime value={org.createdAt} /> },
    actionsColumn((org) => (
      <>
        <button type="button" className="button secondary small" onClick={() => select(org)}>
          Developers<span className="visually-hidden"> of {org.name}</span>
        </button>
        <Can mutation="updateOrganization">
          <ActionButton label="Edit" context={`organization ${org.name}`} onClick={() => setEditingId(org.id)} />
          <ConfirmButton
            label="Delete"
            context={`organization ${org.name}`}
            question={`Delete the organization ${org.name}? Only an organization without developers can be deleted.`}
            confirmLabel="Yes, delete the organization"
            {...action.button(org.id)}
            onConfirm={() => remove(org)}
          />
        </Can>
        <Can mutation="eraseOrganization">
          <ConfirmButton
            label="Erase"
            context={`organization ${org.name} (GDPR)`}
            question={`Erase ${org.name} and its developers (GDPR Art. 17)? Their names and emails are deleted, and the audit events that name them are pseudonymized. Refused while a developer has apps. This cannot be undone.`}
            confirmLabel="Yes, erase the organization"
            {...action.button(org.id)}
            onConfirm={() => erase(org)}
          />
        </Can>
      </>
    )),
  ];

  return (
    <AdminPage title="Organizations" intro="The companies whose developers own apps.">
      <Panel title="All organizations">
        <ActionNotices action={action} />
        <PagedListTable
          caption="Organizations"
          list={organizations}
          columns={columns}
          isCurrent={(org) => org.id === selected}
          empty="There are no organizations yet. Create the first one below."
        />
        {editing && (
          <EditOrganization
            key={editing.id}
            organization={editing}
            onSaved={(org) => organizations.update((nodes) => nodes.map((o) => (o.id === org.id ? org : o)))}
            onClose={() => setEditingId(null)}
          />
        )}
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
    <PanelForm mutation="createOrganization" title="Create an organization" action={action} submitLabel="Create organization" onSubmit={onSubmit}>
      <TextField label="Name" {...fields.bind("name")} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
      <TextField label="Display name" hint={`Optional. ${DISPLAY_NAME_HINT}`} {...fields.bind("displayName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
    </PanelForm>
  );
}

/** "Edit organization <name>": its name and display name, saved after a confirmation. */
function EditOrganization({ organization, onSaved, onClose }: { organization: Organization; onSaved: (org: Organization) => void; onClose: () => void }) {
  const action = useAction();
  const fields = useFields({ name: organization.name, displayName: organization.displayName });

  async function save() {
    const name = fields.values.name.trim();
    const { updateOrganization } = await graphql(UPDATE_ORGANIZATION, { id: organization.id, input: { name, displayName: fields.values.displayName.trim() || name } });
    onSaved(updateOrganization);
    return `Organization ${updateOrganization.name} saved.`;
  }

  return (
    <ConfirmedSubform
      title={`Edit organization ${organization.name}`}
      action={action}
      submitLabel="Save organization"
      question={`Save the changes to ${organization.name}? End users see the new display name on the consent page at once.`}
      confirmLabel="Yes, save"
      onConfirm={save}
      onClose={onClose}
    >
      <div className="form-grid">
        <TextField label="Name" {...fields.bind("name")} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
        <TextField label="Display name" hint={DISPLAY_NAME_HINT} {...fields.bind("displayName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
      </div>
    </ConfirmedSubform>
  );
}
