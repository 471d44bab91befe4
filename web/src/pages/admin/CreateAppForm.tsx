import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { CREATE_APP, CREATE_APP_OPTIONS, type IssuedCredential, type TokenResponseProfile } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { CheckboxField, SelectField, SubmitButton, TextAreaField, TextField } from "../../components/Field";
import { splitLines } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, Panel } from "../../components/Panel";
import { toggled } from "../../lib/sets";
import { useAction, useQuery } from "../../lib/useGraphQL";

/** The form's element id ("New app" on the list moves focus into it). */
export const CREATE_APP_FORM_ID = "create-app";

/** "Create app" on /admin/apps: the app and its first credential, with the chosen API products approved on it. */
export function CreateAppForm({ onCreated }: { onCreated: (issued: IssuedCredential) => void }) {
  const options = useQuery(CREATE_APP_OPTIONS);
  const action = useAction();
  const [developerId, setDeveloperId] = useState("");
  const [name, setName] = useState("");
  const [callbackUrls, setCallbackUrls] = useState("");
  const [productIds, setProductIds] = useState<ReadonlySet<string>>(new Set());
  const [profile, setProfile] = useState<TokenResponseProfile>("apigee");
  const [requirePkce, setRequirePkce] = useState(false);

  const developers = options.data?.developers.nodes ?? [];
  const products = options.data?.apiProducts ?? [];


  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { createApp } = await graphql(CREATE_APP, {
        input: {
          developerId,
          name: name.trim(),
          callbackUrls: splitLines(callbackUrls),
          apiProductIds: products.map((p) => p.id).filter((id) => productIds.has(id)),
          tokenResponseProfile: profile,
          requirePkce,
        },
      });
      onCreated(createApp);
    });
  }

  const busy = action.pending !== null;
  return (
    <Panel title="Create an app" id={CREATE_APP_FORM_ID}>
      <ListState
        loading={options.loading}
        error={options.error}
        isEmpty={!options.data}
        empty=""
        onRetry={options.reload}
      >
        {developers.length === 0 ? (
          <p className="empty">
            An app belongs to a developer, and there are no developers yet. <Link to="/admin/organizations">Add one to an organization</Link>{" "}
            first.
          </p>
        ) : (
          <form className="form-stack" onSubmit={onSubmit}>
            <SelectField
              label="Developer"
              value={developerId}
              onChange={setDeveloperId}
              required
              placeholder="Choose a developer"
              options={developers.map((d) => ({
                value: d.id,
                label: `${d.email}${d.firstName || d.lastName ? ` (${`${d.firstName} ${d.lastName}`.trim()})` : ""} · ${d.organization.name}`,
              }))}
            />
            <TextField label="Name" value={name} onChange={setName} required maxLength={200} autoComplete="off" />
            <TextAreaField
              label="Callback URLs"
              hint="One per line. Needed for the authorization code flow; leave empty for client credentials only."
              value={callbackUrls}
              onChange={setCallbackUrls}
              placeholder="https://app.example/callback"
            />
            <fieldset className="fieldset">
              <legend>API products</legend>
              {products.length === 0 ? (
                <p className="hint">
                  There are no API products yet (<Link to="/admin/products">create one</Link>). The app can be created without any.
                </p>
              ) : (
                <>
                  <p className="hint">Approved on the app's first credential.</p>
                  {products.map((p) => (
                    <CheckboxField
                      key={p.id}
                      label={p.displayName && p.displayName !== p.name ? `${p.displayName} (${p.name})` : p.name}
                      hint={p.scopes.length > 0 ? `Scopes: ${p.scopes.join(", ")}` : "No scopes"}
                      checked={productIds.has(p.id)}
                      onChange={(on) => setProductIds((prev) => toggled(prev, p.id, on))}
                    />
                  ))}
                </>
              )}
            </fieldset>
            <fieldset className="fieldset">
              <legend>Token response</legend>
              <div className="check">
                <input id="profile-apigee" type="radio" name="profile" checked={profile === "apigee"} onChange={() => setProfile("apigee")} />
                <label htmlFor="profile-apigee">Apigee</label>
                <span className="hint check-hint">The product spec's response (numbers as strings, developer and product fields). The default.</span>
              </div>
              <div className="check">
                <input id="profile-rfc6749" type="radio" name="profile" checked={profile === "rfc6749"} onChange={() => setProfile("rfc6749")} />
                <label htmlFor="profile-rfc6749">RFC 6749</label>
                <span className="hint check-hint">Plain OAuth 2.0, for strict client libraries.</span>
              </div>
            </fieldset>
            <CheckboxField
              label="Require PKCE"
              hint="Authorization requests without a code_challenge (S256) are refused."
              checked={requirePkce}
              onChange={setRequirePkce}
            />
            <div className="form-actions">
              <SubmitButton busy={busy}>Create app</SubmitButton>
            </div>
            <ActionNotices action={action} />
          </form>
        )}
      </ListState>
    </Panel>
  );
}
