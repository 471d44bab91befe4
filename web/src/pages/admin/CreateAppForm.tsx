import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { NAME_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { API_PRODUCT_OPTIONS, CREATE_APP, type ApiProductOption, type DeveloperOption, type IssuedCredential, type TokenResponseProfile } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ADMIN_CONFIRMATION_REQUIRED, AdminAccessConfirmation } from "../../components/AdminAccessConfirmation";
import { DeveloperPicker } from "../../components/DeveloperPicker";
import { CheckboxField, SubmitButton, TextAreaField, TextField } from "../../components/Field";
import { splitLines } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { LoadState } from "../../components/LoadState";
import { Panel } from "../../components/Panel";
import { partitionAdminProducts, productLabel } from "../../lib/api-products";
import { routes } from "../../lib/routes";
import { toggled } from "../../lib/sets";
import { useFields } from "../../lib/useFields";
import { FormInputError, useAction, useQuery } from "../../lib/useGraphQL";
import { RequirePkceField } from "./RequirePkceField";

/** The form's element id ("New app" on the list moves focus into it). */
export const CREATE_APP_FORM_ID = "create-app";

/**
 * "Create app" on /admin/apps: the app and its first credential, with the chosen API products
 * approved on it. Safe defaults: PKCE is required, and the admin API product sits apart and
 * needs a second confirmation.
 */
export function CreateAppForm({ onCreated }: { onCreated: (issued: IssuedCredential) => void }) {
  const options = useQuery(API_PRODUCT_OPTIONS);
  const action = useAction();
  const [developer, setDeveloper] = useState<DeveloperOption | null>(null);
  const fields = useFields({
    name: "",
    callbackUrls: "",
    productIds: new Set<string>() as ReadonlySet<string>,
    adminConfirmed: false,
    profile: "apigee" as TokenResponseProfile,
    requirePkce: true,
  });
  const { productIds, profile } = fields.values;

  const products = options.data?.apiProducts ?? [];
  const { regular, admin } = partitionAdminProducts(products);
  const adminChosen = admin.some((p) => productIds.has(p.id));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, callbackUrls, requirePkce, adminConfirmed } = fields.values;
      if (developer === null) throw new FormInputError("Choose the developer the app belongs to.");
      if (adminChosen && !adminConfirmed) throw new FormInputError(ADMIN_CONFIRMATION_REQUIRED);
      const { createApp } = await graphql(CREATE_APP, {
        input: {
          developerId: developer.id,
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

  /** A product's checkbox. */
  const productBox = (p: ApiProductOption) => (
    <CheckboxField
      key={p.id}
      label={productLabel(p)}
      hint={p.scopes.length > 0 ? `Scopes: ${p.scopes.join(", ")}` : "No scopes"}
      checked={productIds.has(p.id)}
      onChange={(on) => fields.set("productIds")(toggled(productIds, p.id, on))}
    />
  );

  return (
    <Panel title="Create an app" id={CREATE_APP_FORM_ID}>
      <form className="form-stack" onSubmit={onSubmit}>
        <DeveloperPicker value={developer} onChange={setDeveloper} />
        <TextField label="Name" {...fields.bind("name")} required maxLength={NAME_MAX_LENGTH} autoComplete="off" />
        <TextAreaField
          label="Callback URLs"
          hint="One per line. Needed for the authorization code flow; leave empty for client credentials only."
          {...fields.bind("callbackUrls")}
          placeholder="https://app.example/callback"
        />
        <LoadState loading={options.loading} error={options.error} isEmpty={!options.data} onRetry={options.reload}>
          <fieldset className="fieldset">
            <legend>API products</legend>
            {regular.length === 0 ? (
              <p className="hint">
                There are no API products yet (<Link to={routes.products()}>create one</Link>). The app can be created without any.
              </p>
            ) : (
              <>
                <p className="hint">Approved on the app's first credential.</p>
                {regular.map(productBox)}
              </>
            )}
          </fieldset>
          {admin.length > 0 && (
            <fieldset className="fieldset caution">
              <legend>Admin API</legend>
              <p className="hint">Leave this out for third-party apps.</p>
              {admin.map(productBox)}
              {adminChosen && <AdminAccessConfirmation confirmed={fields.values.adminConfirmed} onChange={fields.set("adminConfirmed")} />}
            </fieldset>
          )}
        </LoadState>
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
    </Panel>
  );
}
