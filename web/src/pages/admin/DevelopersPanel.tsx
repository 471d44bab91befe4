import { useState, type FormEvent } from "react";
import { CREATE_DEVELOPER, DEVELOPERS, ORGANIZATION, type Developer } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { SubmitButton, TextField } from "../../components/Field";
import { DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, LoadMore, Panel } from "../../components/Panel";
import { useAction, useConnection, useQuery } from "../../lib/useGraphQL";

/** The developers of one organization, and "Add a developer" (part of /admin/organizations). */
export function DevelopersPanel({ organizationId, onClose }: { organizationId: string; onClose: () => void }) {
  const org = useQuery(ORGANIZATION, { id: organizationId });
  const developers = useConnection(DEVELOPERS, { organizationId, first: 50 }, (d) => d.developers);
  const name = org.data?.organization?.name;

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
      title={name ? `Developers of ${name}` : "Developers"}
      actions={
        <button type="button" className="button secondary small" onClick={onClose}>
          Close<span className="visually-hidden"> developers</span>
        </button>
      }
    >
      <ListState
        loading={developers.loading}
        error={developers.error ?? org.error}
        isEmpty={developers.nodes.length === 0}
        empty="This organization has no developers yet."
        onRetry={developers.reload}
      >
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {developers.nodes.map((dev) => (
                <tr key={dev.id}>
                  <th scope="row">{dev.email}</th>
                  <td>{`${dev.firstName} ${dev.lastName}`.trim() || <span className="muted">—</span>}</td>
                  <td>
                    <DateTime value={dev.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <LoadMore hasNextPage={developers.hasNextPage} loading={developers.loadingMore} onLoadMore={developers.loadMore} what="developers" />
      </ListState>
      <AddDeveloper organizationId={organizationId} onAdded={(dev) => developers.update((nodes) => [...nodes, dev])} />
    </Panel>
  );
}

function AddDeveloper({ organizationId, onAdded }: { organizationId: string; onAdded: (dev: Developer) => void }) {
  const action = useAction();
  const [email, setEmail] = useState("");
  const [firstName, setFirstName] = useState("");
  const [lastName, setLastName] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      // Optional names are left out when blank (the server refuses empty strings).
      const input = {
        organizationId,
        email: email.trim(),
        ...(firstName.trim() ? { firstName: firstName.trim() } : {}),
        ...(lastName.trim() ? { lastName: lastName.trim() } : {}),
      };
      const { createDeveloper } = await graphql(CREATE_DEVELOPER, { input });
      setEmail("");
      setFirstName("");
      setLastName("");
      onAdded(createDeveloper);
      return `Developer ${createDeveloper.email} added.`;
    });
  }

  const busy = action.pending !== null;
  return (
    <form className="subform" onSubmit={onSubmit} aria-labelledby="add-developer-title">
      <h3 id="add-developer-title">Add a developer</h3>
      <div className="form-grid">
        <TextField label="Email" type="email" value={email} onChange={setEmail} required maxLength={320} autoComplete="off" />
        <TextField label="First name" value={firstName} onChange={setFirstName} maxLength={200} autoComplete="off" />
        <TextField label="Last name" value={lastName} onChange={setLastName} maxLength={200} autoComplete="off" />
        <div className="form-actions">
          <SubmitButton busy={busy}>Add developer</SubmitButton>
        </div>
      </div>
      <ActionNotices action={action} />
    </form>
  );
}
