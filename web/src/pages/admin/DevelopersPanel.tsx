import type { FormEvent } from "react";
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_DEVELOPER, DEVELOPERS, ORGANIZATION, type Developer } from "../../api/admin";
import { graphql } from "../../api/graphql";
import type { Column } from "../../components/DataTable";
import { TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { DateTime } from "../../components/Format";
import { ListTable, LoadMore } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { nonBlank, useFields } from "../../lib/useFields";
import { useAction, useConnection, useQuery } from "../../lib/useGraphQL";

const DEVELOPER_COLUMNS: Column<Developer>[] = [
  { header: "Email", rowHeader: true, cell: (dev) => dev.email },
  { header: "Name", cell: (dev) => `${dev.firstName} ${dev.lastName}`.trim() || <span className="muted">—</span> },
  { header: "Created", cell: (dev) => <DateTime value={dev.createdAt} /> },
];

/** The developers of one organization, and "Add a developer" (part of /admin/organizations). */
export function DevelopersPanel({ organizationId, onClose }: { organizationId: string; onClose: () => void }) {
  const org = useQuery(ORGANIZATION, { id: organizationId });
  const developers = useConnection(DEVELOPERS, { organizationId, first: 50 }, (d) => d.developers);
  const name = org.data?.organization?.name;
  const title = name ? `Developers of ${name}` : "Developers";

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
      <ListTable
        caption={title}
        list={{ ...developers, error: developers.error ?? org.error }}
        columns={DEVELOPER_COLUMNS}
        rowKey={(dev) => dev.id}
        empty="This organization has no developers yet."
      />
      <LoadMore list={developers} what="developers" />
      <AddDeveloper organizationId={organizationId} onAdded={(dev) => developers.update((nodes) => [...nodes, dev])} />
    </Panel>
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
    <Subform title="Add a developer" action={action} submitLabel="Add developer" onSubmit={onSubmit}>
      <div className="form-grid">
        <TextField label="Email" type="email" {...fields.bind("email")} required maxLength={EMAIL_MAX_LENGTH} autoComplete="off" />
        <TextField label="First name" {...fields.bind("firstName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
        <TextField label="Last name" {...fields.bind("lastName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
      </div>
    </Subform>
  );
}
