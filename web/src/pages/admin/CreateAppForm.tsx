import type { FormEvent } from "react";
import { Link } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_APP, CREATE_APP_OPTIONS, type IssuedCredential, type TokenResponseProfile } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { CheckboxField, SelectField, SubmitButton, TextAreaField, TextField } from "../../components/Field";
import { splitLines } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { LoadState } from "../../components/LoadState";
import { Panel } from "../../components/Panel";
import { routes } from "../../lib/routes";
import { toggled } from "../../lib/sets";
import { useFields } from "../../lib/useFields";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { RequirePkceField } from "./RequirePkceField";

/** The form's element id ("New app" on the list moves focus into it). */
export const CREATE_APP_FORM_ID = "create-app";

/** "Create app" on /admin/apps: the app and its first credential, with the chosen API products approved on it. */
export function CreateAppForm({ onCreated }: { onCreated: (issued: IssuedCredential) => void }) {
  const options = useQuery(CREATE_APP_OPTIONS);
  const action = useAction();
  const fields = useFields({
    developerId: "",
    name: "",
    callbackUrls: "",
    productIds: new Set<string>() as ReadonlySet<string>,
    profile: "apigee" as TokenResponseProfile,
    requirePkce: false,
  });
  const { productIds, profile } = fields.values;

  const developers = options.data?.developers.nodes ?? [];
  const products = options.data?.apiProducts ?? [];

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { developerId, name, callbackUrls, requirePkce } = fields.values;
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

  return (
    <Panel title="Create an app" id={CREATE_APP_FORM_ID}>
      <LoadState loading={options.loading} error={options.error} isEmpty={!options.data} onRetry={options.reload}>
        {developers.length === 0 ? (
          <p className="empty">
            An app belongs to a developer, and there are no developers yet. <Link to={routes.organizations()}>Add one to an organization</Link>{" "}
            first.
          </p>
        ) : (
          <form className="form-stack" onSubmit={onSubmit}>
            <SelectField
              label="Developer"
              {...fields.bind("developerId")}
              required
              placeholder="Choose a developer"
              options={developers.map((d) => ({
                value: d.id,
                label: `${d.email}${d.firstName || d.lastName ? ` (${`${d.firstName} ${d.lastName}`.trim()})` : ""} · ${d.organization.name}`,
              }))}
            />
            <TextField label="Name" {...fields.bind("name")} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
            <TextAreaField
              label="Callback URLs"
              hint="One per line. Needed for the authorization code flow; leave empty for client credentials only."
              {...fields.bind("callbackUrls")}
              placeholder="https://app.example/callback"
            />
            <fieldset className="fieldset">
              <legend>API products</legend>
              {products.length === 0 ? (
                <p className="hint">
                  There are no API products yet (<Link to={routes.products()}>create one</Link>). The app can be created without any.
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
                      onChange={(on) => fields.set("productIds")(toggled(productIds, p.id, on))}
                    />
                  ))}
                </>
              )}
            </fieldset>
            <fieldset className="fieldset">
              <legend>Token response</legend>
              <div className="check">
                <input id="profile-apigee" type="radio" name="profile" checked={profile === "apigee"} onChange={() => fields.set("profile")("apigee")} />
                <label htmlFor="profile-apigee">Apigee</label>
                <span className="hint check-hint">The product spec's response (numbers as strings, developer and product fields). The default.</span>
              </div>
              <div className="check">
                <input id="profile-rfc6749" type="radio" name="profile" checked={profile === "rfc6749"} onChange={() => fields.set("profile")("rfc6749")} />
                <label htmlFor="profile-rfc6749">RFC 6749</label>
                <span className="hint check-hint">Plain OAuth 2.0, for strict client libraries.</span>
              </div>
            </fieldset>
            <RequirePkceField checked={fields.values.requirePkce} onChange={fields.set("requirePkce")} />
            <div className="form-actions">
              <SubmitButton busy={action.pending !== null}>Create app</SubmitButton>
            </div>
            <ActionNotices action={action} />
          </form>
        )}
      </LoadState>
    </Panel>
  );
}
