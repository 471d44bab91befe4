import { Can } from "../../components/Can";
import { useState, type FormEvent } from "react";
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_DEVELOPER, DELETE_DEVELOPER, DEVELOPERS, ERASE_DEVELOPER, ORGANIZATION, UPDATE_DEVELOPER, type Developer } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ActionButton } from "../../components/ActionButton";
import { ConfirmButton } from "../../components/ConfirmButton";
import { ConfirmedSubform } from "../../components/ConfirmedSubform";
import { actionsColumn, type Column } from "../../components/DataTable";
import { TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import { explainingConflict } from "../../lib/conflicts";
import { developerName } from "../../lib/developers";
import { nonBlank, useFields } from "../../lib/useFields";
import { useAction, useConnection, useQuery, type Action } from "../../lib/useGraphQL";

const DEVELOPER_COLUMNS: Column<Developer>[] = [
  { header: "Email", rowHeader: true, cell: (dev) => dev.email },
  { header: "Name", cell: (dev) => developerName(dev) || <span className="muted">—</span> },
  { header: "Created", cell: (dev) => <DateTime value={dev.createdAt} /> },
];

/** The developers' columns with "Edit", "Delete" and "Erase" (both behind a confirmation) per developer. */
function developerColumns(action: Action, onEdit: (dev: Developer) => void, onDelete: (dev: Developer) => void, onErase: (dev: Developer) => void): Column<Developer>[] {
  return [
    ...DEVELOPER_COLUMNS,
    actionsColumn((dev) => (
      <Can mutation="updateDeveloper">
        <ActionButton label="Edit" context={`developer ${dev.email}`} onClick={() => onEdit(dev)} />
        <ConfirmButton
          label="Delete"
          context={`developer ${dev.email}`}
          question={`Delete the developer ${dev.email}? Only a developer without apps can be deleted.`}
          confirmLabel="Yes, delete the developer"
          {...action.button(dev.id)}
          onConfirm={() => onDelete(dev)}
        />
        <Can mutation="eraseDeveloper">
          <ConfirmButton
            label="Erase"
            context={`developer ${dev.email} (GDPR)`}
            question={`Erase ${dev.email} (GDPR Art. 17)? Their email and names are deleted, and the audit events that name them are pseudonymized. Only a developer without apps can be erased. This cannot be undone.`}
            confirmLabel="Yes, erase the developer"
            {...action.button(dev.id)}
            onConfirm={() => onErase(dev)}
          />
        </Can>
      </Can>
    )),
  ];
}

/** The developers of one organization (edit, delete), and "Add a developer" (part of /admin/organizations). */
export function DevelopersPanel({ organizationId, onClose }: { organizationId: string; onClose: () => void }) {
  const org = useQuery(ORGANIZATION, { id: organizationId });
  const developers = useConnection(DEVELOPERS, { organizationId, first: 50 }, (d) => d.developers);
  const action = useAction();
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = developers.nodes.find((dev) => dev.id === editingId);
  const name = org.data?.organization?.name;
  const title = name ? `Developers of ${name}` : "Developers";

  function remove(dev: Developer) {
    void action.run(async () => {
      await explainingConflict(graphql(DELETE_DEVELOPER, { id: dev.id }), "Delete their apps first, each on its page (Overview tab).");
      forget(dev);
      return `Developer ${dev.email} deleted.`;
    }, dev.id);
  }

  function erase(dev: Developer) {
    void action.run(async () => {
      const { eraseDeveloper } = await explainingConflict(graphql(ERASE_DEVELOPER, { id: dev.id }), "Each app's page has Delete app (Overview tab).");
      forget(dev);
      return `Developer erased: ${eraseDeveloper.auditEventsPseudonymized} audit events now name them ${eraseDeveloper.pseudonym}.`;
    }, dev.id);
  }

  function forget(dev: Developer) {
    developers.update((nodes) => nodes.filter((d) => d.id !== dev.id));
    if (editingId === dev.id) setEditingId(null);
  }

  if (org.data && !org.data.organization) {
    return (
      <Panel title="Developers">
        <p role="alert" className="alert">
          This organization does not exist (any more).
        </p>
        <button type="button" className="button secondary small" onClick={onClose}>
          Close
        </button>
      </Panel>
    );
  }

  return (
    <Panel
      title={title}
      actions={
        <button type="button" className="button secondary small" onClick={onClose}>
          Close<span className="visually-hidden"> developers</span>
        </button>
      }
    >
      <ActionNotices action={action} />
      <PagedListTable
        caption={title}
        list={{ ...developers, error: developers.error ?? org.error }}
        what="developers"
        columns={developerColumns(action, (dev) => setEditingId(dev.id), remove, erase)}
        isCurrent={(dev) => dev.id === editingId}
        empty="This organization has no developers yet."
      />
      {editing && (
        <EditDeveloper
          key={editing.id}
          developer={editing}
          onSaved={(dev) => developers.update((nodes) => nodes.map((d) => (d.id === dev.id ? dev : d)))}
          onClose={() => setEditingId(null)}
        />
      )}
      <AddDeveloper organizationId={organizationId} onAdded={(dev) => developers.update((nodes) => [...nodes, dev])} />
    </Panel>
  );
}

/** A developer's email and names, as the add and edit forms take them. */
function DeveloperFields({ fields }: { fields: ReturnType<typeof useFields<{ email: string; firstName: string; lastName: string }>> }) {
  return (
    <div className="form-grid">
      <TextField label="Email" type="email" {...fields.bind("email")} required maxLength={EMAIL_MAX_LENGTH} autoComplete="off" />
      <TextField label="First name" {...fields.bind("firstName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
      <TextField label="Last name" {...fields.bind("lastName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
    </div>
  );
}

function AddDeveloper({ organizationId, onAdded }: { organizationId: string; onAdded: (dev: Developer) => void }) {
  const action = useAction();
  const fields = useFields({ email: "", firstName: "", lastName: "" });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { email, firstName, lastName } = fields.values;
      const { createDeveloper } = await graphql(CREATE_DEVELOPER, { input: { organizationId, email: email.trim(), ...nonBlank({ firstName, lastName }) } });
      fields.reset();
      onAdded(createDeveloper);
      return `Developer ${createDeveloper.email} added.`;
    });
  }

  return (
    <Subform mutation="createDeveloper" title="Add a developer" action={action} submitLabel="Add developer" onSubmit={onSubmit}>
      <DeveloperFields fields={fields} />
    </Subform>
  );
}

/** "Edit developer <email>": the email and names (a blank name keeps its value), saved after a confirmation. */
function EditDeveloper({ developer, onSaved, onClose }: { developer: Developer; onSaved: (dev: Developer) => void; onClose: () => void }) {
  const action = useAction();
  const fields = useFields({ email: developer.email, firstName: developer.firstName, lastName: developer.lastName });

  async function save() {
    const { email, firstName, lastName } = fields.values;
    const { updateDeveloper } = await graphql(UPDATE_DEVELOPER, { id: developer.id, input: { email: email.trim(), ...nonBlank({ firstName, lastName }) } });
    onSaved(updateDeveloper);
    return `Developer ${updateDeveloper.email} saved.`;
  }

  return (
    <ConfirmedSubform
      title={`Edit developer ${developer.email}`}
      action={action}
      submitLabel="Save developer"
      question={`Save the changes to ${developer.email}?`}
      confirmLabel="Yes, save"
      onConfirm={save}
      onClose={onClose}
    >
      <DeveloperFields fields={fields} />
    </ConfirmedSubform>
  );
}
