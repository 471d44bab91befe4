import { useState, type FormEvent } from "react";
import { CREATE_API, type Api } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { CheckboxField, SubmitButton, TextField } from "../../components/Field";
import { Chips, splitList } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, Panel } from "../../components/Panel";
import { useAction } from "../../lib/useGraphQL";

/** The APIs behind the gateway, and "Create an API" (part of /admin/products). */
export function ApisPanel({
  apis,
  loading,
  error,
  loaded,
  onCreated,
}: {
  apis: Api[];
  loading: boolean;
  error: string | null;
  loaded: boolean;
  onCreated: () => void;
}) {
  return (
    <Panel title="APIs">
      <p className="muted small">
        The gateway forwards <code>/&lt;name&gt;/…</code> to the API's upstream URL for tokens holding its required scopes.
      </p>
      <ListState loading={loading} error={error} isEmpty={apis.length === 0} empty={loaded ? "There are no APIs yet." : ""}>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Upstream URL</th>
                <th scope="col">Required scopes</th>
                <th scope="col">Upstream cookies</th>
                <th scope="col">In API products</th>
              </tr>
            </thead>
            <tbody>
              {apis.map((api) => (
                <tr key={api.id}>
                  <th scope="row">
                    <code>/{api.name}/</code>
                  </th>
                  <td>
                    <code>{api.upstreamUrl}</code>
                  </td>
                  <td>
                    <Chips items={api.requiredScopes} />
                  </td>
                  <td>{api.passCookies ? "Passed to callers" : "Dropped"}</td>
                  <td>
                    <Chips items={api.products.map((p) => p.name)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      {loaded && <CreateApi onCreated={onCreated} />}
    </Panel>
  );
}

function CreateApi({ onCreated }: { onCreated: () => void }) {
  const action = useAction();
  const [name, setName] = useState("");
  const [upstreamUrl, setUpstreamUrl] = useState("");
  const [requiredScopes, setRequiredScopes] = useState("");
  const [passCookies, setPassCookies] = useState(false);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const input = { name: name.trim(), upstreamUrl: upstreamUrl.trim(), requiredScopes: splitList(requiredScopes), passCookies };
      const { createApi } = await graphql(CREATE_API, { input });
      setName("");
      setUpstreamUrl("");
      setRequiredScopes("");
      setPassCookies(false);
      onCreated();
      return `API ${createApi.name} created.`;
    });
  }

  return (
    <form className="subform" onSubmit={onSubmit} aria-labelledby="create-api-title">
      <h3 id="create-api-title">Create an API</h3>
      <div className="form-grid">
        <TextField
          label="Name"
          hint="The gateway path: lowercase letters, digits, . _ -"
          value={name}
          onChange={setName}
          required
          maxLength={63}
          pattern="[a-z0-9][a-z0-9._\-]*"
          autoComplete="off"
        />
        <TextField
          label="Upstream URL"
          type="url"
          value={upstreamUrl}
          onChange={setUpstreamUrl}
          required
          maxLength={2000}
          placeholder="https://accounts.internal.example"
          autoComplete="off"
        />
        <TextField label="Required scopes" hint="Separated by spaces or commas." value={requiredScopes} onChange={setRequiredScopes} autoComplete="off" />
      </div>
      <CheckboxField
        label="Pass the upstream's cookies to callers"
        hint="Off (recommended): the gateway drops the upstream's Set-Cookie, so an upstream cannot set cookies on Tollgate's own site. Turn on only for an API whose callers need its cookies."
        checked={passCookies}
        onChange={setPassCookies}
      />
      <div className="form-actions">
        <SubmitButton busy={action.pending !== null}>Create API</SubmitButton>
      </div>
      <ActionNotices action={action} />
    </form>
  );
}
