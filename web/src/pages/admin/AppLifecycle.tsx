import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { APP_CHANGE_PREVIEW, DELETE_APP, RENAME_APP, type AppDetail } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { applyMutation } from "../../lib/applyMutation";
import { Can } from "../../components/Can";
import { ConfirmedSubform } from "../../components/ConfirmedSubform";
import { TextField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { Panel } from "../../components/Panel";
import { routes } from "../../lib/routes";
import { FormInputError, useAction, useQuery } from "../../lib/useGraphQL";

/** "N live access tokens", singular for one. */
export function liveTokensText(n: number): string {
  return `${n} live access token${n === 1 ? "" : "s"}`;
}

/** The app's name, changed with renameApp (checked as at creation; a name its developer's other app has is refused). */
export function RenameApp({ app, onChange }: { app: AppDetail; onChange: (app: AppDetail) => void }) {
  const action = useAction();
  const [name, setName] = useState(app.name);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = name.trim();
    void action.run(async () => {
      const renamed = await applyMutation(RENAME_APP, { id: app.id, name: value }, onChange);
      return `App renamed to ${renamed.name}.`;
    });
  }

  return (
    <PanelForm mutation="renameApp" title="Name" action={action} submitLabel="Rename app" onSubmit={onSubmit}>
      <TextField label="App name" value={name} onChange={setName} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
    </PanelForm>
  );
}

/**
 * Deleting the app: what it does (its live tokens revoked, its credentials, callback URLs,
 * codes and consents removed; PSD2 consents and the audit log kept; no undo), then a form that
 * asks for the app's name typed, and a last confirmation naming the live tokens. On success the
 * console goes to the app list, which says what was done.
 */
export function DeleteApp({ app }: { app: AppDetail }) {
  const [open, setOpen] = useState(false);
  return (
    <Can mutation="deleteApp">
      <Panel title="Delete app">
        {open ? (
          <DeleteAppForm app={app} onClose={() => setOpen(false)} />
        ) : (
          <>
            <p>Deleting the app revokes its live tokens and removes its consumer keys and secrets, callback URLs, authorization codes and consents. It cannot be undone.</p>
            <button type="button" className="button danger" onClick={() => setOpen(true)}>
              Delete app…
            </button>
          </>
        )}
      </Panel>
    </Can>
  );
}

function DeleteAppForm({ app, onClose }: { app: AppDetail; onClose: () => void }) {
  const action = useAction();
  const navigate = useNavigate();
  const [typed, setTyped] = useState("");
  const preview = useQuery(APP_CHANGE_PREVIEW, { id: app.id, to: app.securityProfile });
  const live = preview.data?.app?.liveTokenCount;
  const tokens = live === undefined ? "its live access tokens" : liveTokensText(live);

  return (
    <ConfirmedSubform
      title={`Delete ${app.name}`}
      action={action}
      submitLabel="Delete app"
      question={`Delete ${app.name}? This revokes ${tokens} and removes its credentials; it cannot be undone.`}
      confirmLabel="Yes, delete the app"
      check={() => {
        if (typed.trim() !== app.name) throw new FormInputError(`Type the app's name, ${app.name}, to confirm.`);
      }}
      onConfirm={async () => {
        const { deleteApp } = await graphql(DELETE_APP, { id: app.id });
        const notice = `${app.name} deleted: ${liveTokensText(deleteApp.revokedTokens)} revoked, its credentials removed.`;
        void navigate(routes.apps(), { state: { notice } });
        return notice;
      }}
      onClose={onClose}
    >
      <ul className="consequences">
        <li>Revokes {tokens}: they stop working at once, at the gateway and at introspection.</li>
        <li>Removes its consumer keys and secrets, signing keys, callback URLs, authorization codes and the PSUs' consents to it.</li>
        <li>Keeps its PSD2 consents, the authorization evidence and the audit log, which names the app by its id and keeps its name.</li>
        <li>Cannot be undone.</li>
      </ul>
      <TextField label={`Type the app's name (${app.name}) to confirm`} value={typed} onChange={setTyped} required autoComplete="off" />
    </ConfirmedSubform>
  );
}
