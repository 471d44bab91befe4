import { useState } from "react";
import {
  ACR_VALUE_MAX_LENGTH,
  ACR_VALUES_MAX_COUNT,
  CLAIM_NAME_MAX_LENGTH,
  IDENTITY_PROVIDER_NAME_MAX_LENGTH,
  UPSTREAM_CLIENT_ID_MAX_LENGTH,
  UPSTREAM_CLIENT_SECRET_MAX_LENGTH,
} from "../../../../server/src/kernel/limits";
import { CREATE_IDENTITY_PROVIDER, DELETE_IDENTITY_PROVIDER, IDENTITY_PROVIDERS, UPDATE_IDENTITY_PROVIDER, type IdentityProvider } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { EditSubform } from "../../components/EditSubform";
import type { Column } from "../../components/DataTable";
import { editDeleteColumn } from "../../components/EditDeleteColumn";
import { SelectField, TextField } from "../../components/Field";
import { NameField, UrlField, VerbatimField } from "../../components/VerbatimFields";
import { Subform, useCreate } from "../../components/FormLayouts";
import { Chips } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { CopyButton } from "../../components/SecretPanel";
import { clientAuthName, identityProviderDraft, identityProviderInput, UPSTREAM_CLIENT_AUTH_METHODS, usedBy, type IdentityProviderDraft } from "../../lib/identity-providers";
import { useFields } from "../../lib/useFields";
import { useAction, useQuery, type Action } from "../../lib/useGraphQL";

const COLUMNS: Column<IdentityProvider>[] = [
  { header: "Name", rowHeader: true, cell: (p) => p.name },
  { header: "Issuer", cell: (p) => <code>{p.issuer}</code> },
  {
    header: "Client authentication",
    cell: (p) => (
      <>
        {clientAuthName(p.clientAuthMethod)}
        <span className="muted small block">
          Client id <code>{p.clientId}</code>
        </span>
      </>
    ),
  },
  { header: "SCA acr values", cell: (p) => <Chips items={p.scaAcrValues} /> },
  { header: "Used by", cell: (p) => usedBy(p) },
];

/** The providers' columns with "Edit" and "Delete" (behind a confirmation) per provider. */
function providerColumns(action: Action, onEdit: (provider: IdentityProvider) => void, onDelete: (provider: IdentityProvider) => void): Column<IdentityProvider>[] {
  return [
    ...COLUMNS,
    editDeleteColumn(action, onEdit, onDelete, {
      mutation: "updateIdentityProvider",
      context: (p) => `identity provider ${p.name}`,
      question: (p) => `Delete the identity provider ${p.name}? Its apps and API products fall back to Tollgate's own sign-in.`,
      confirmLabel: "Yes, delete the identity provider",
    }),
  ];
}

/**
 * What the bank's admin registers at a provider for Tollgate: its redirect URI and, for
 * private_key_jwt, its JWK Set URL, each with "Copy". Every provider has the same; they come
 * with the providers, so they show once there is one.
 */
function TollgateRegistration({ provider }: { provider: IdentityProvider | undefined }) {
  return (
    <Panel title="Tollgate at the identity provider">
      {provider ? (
        <>
          <p className="muted small">Register Tollgate as a client at each identity provider with these values.</p>
          <dl className="secret-values">
            {[
              { term: "Redirect URI", what: "redirect URI", value: provider.redirectUri, id: "redirect-uri" },
              { term: "JWK Set URL (for private_key_jwt)", what: "JWK Set URL", value: provider.jwksUri, id: "jwks-uri" },
            ].map(({ term, what, value, id }) => (
              <div key={id}>
                <dt>{term}</dt>
                <dd>
                  <code data-testid={id}>{value}</code>
                  <CopyButton value={value} what={what} />
                </dd>
              </div>
            ))}
          </dl>
        </>
      ) : (
        <p className="empty">Tollgate's redirect URI and JWK Set URL, to register at the provider, are shown here once the first identity provider is added.</p>
      )}
    </Panel>
  );
}

/**
 * /admin/identity-providers: the bank's own OpenID Providers, where the PSUs of the apps and
 * API products that name one sign in; what to register at them for Tollgate; each provider's
 * settings, its edit and deletion, and a form to add one. Its client secret is never shown.
 */
export function IdentityProvidersPage() {
  const query = useQuery(IDENTITY_PROVIDERS);
  const providers = query.data?.identityProviders ?? [];
  const action = useAction();
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = providers.find((p) => p.id === editingId);

  function remove(provider: IdentityProvider) {
    void action.run(async () => {
      await graphql(DELETE_IDENTITY_PROVIDER, { id: provider.id });
      if (editingId === provider.id) setEditingId(null);
      query.reload();
      return `Identity provider ${provider.name} deleted: its apps and API products use Tollgate's own sign-in.`;
    }, provider.id);
  }

  function saved(provider: IdentityProvider) {
    query.setData((d) => ({ identityProviders: d.identityProviders.map((p) => (p.id === provider.id ? provider : p)) }));
    query.reload();
  }

  return (
    <AdminPage
      title="Identity providers"
      intro="The bank's own OpenID Providers. The PSUs of an app or API product that names one sign in there instead of at Tollgate, which takes their identity and, from its acr, whether they passed strong customer authentication. An app's choice comes before its products'."
    >
      <TollgateRegistration provider={providers[0]} />
      <Panel title="Identity providers">
        <ActionNotices action={action} />
        <ListTable
          caption="Identity providers"
          list={{ ...query, nodes: providers }}
          columns={providerColumns(action, (p) => setEditingId(p.id), remove)}
          rowKey={(p) => p.id}
          isCurrent={(p) => p.id === editingId}
          empty="There are no identity providers yet: PSUs sign in at Tollgate."
        />
        {editing && <EditProvider key={editing.id} provider={editing} onSaved={saved} onClose={() => setEditingId(null)} />}
        {query.data && <CreateProvider onCreated={query.reload} />}
      </Panel>
    </AdminPage>
  );
}

/** The fields of the create and edit forms of a provider; the client secret only for client_secret_basic. */
function ProviderFields({ fields, storedSecret }: { fields: ReturnType<typeof useFields<IdentityProviderDraft>>; storedSecret: boolean }) {
  const basic = fields.values.clientAuthMethod === "client_secret_basic";
  return (
    <div className="form-grid">
      <NameField
        hint="Shown to PSUs while they sign in there. Letters, digits, spaces, . _ -"
        {...fields.bind("name")}
        maxLength={IDENTITY_PROVIDER_NAME_MAX_LENGTH}
        pattern="[A-Za-z0-9 ._\-]+"
      />
      <UrlField
        label="Issuer"
        hint="Its issuer identifier: https, without query or fragment. Its metadata is read from there at the first sign-in."
        {...fields.bind("issuer")}
        required
        placeholder="https://idp.bank.example/realms/retail"
      />
      <VerbatimField label="Client id" hint="Tollgate's client id at the provider." {...fields.bind("clientId")} required maxLength={UPSTREAM_CLIENT_ID_MAX_LENGTH} />
      <SelectField label="Client authentication" hint="How Tollgate authenticates at the provider's token endpoint." {...fields.bind("clientAuthMethod")} options={UPSTREAM_CLIENT_AUTH_METHODS} />
      {basic && (
        <TextField
          label="Client secret"
          hint={storedSecret ? "Leave blank to keep the stored secret. It is stored sealed and never shown." : "The secret the provider issued to Tollgate. It is stored sealed and never shown."}
          type="password"
          {...fields.bind("clientSecret")}
          required={!storedSecret}
          maxLength={UPSTREAM_CLIENT_SECRET_MAX_LENGTH}
          autoComplete="new-password"
        />
      )}
      <VerbatimField label="Scopes" hint="Separated by spaces or commas; openid is always asked for." {...fields.bind("scopes")} />
      <VerbatimField label="Customer number claim" hint="Optional: the ID token claim naming the bank's customer number. Blank: sub." {...fields.bind("customerNumberClaim")} maxLength={CLAIM_NAME_MAX_LENGTH} />
      <VerbatimField
        label="SCA acr values"
        hint={`Optional: the provider's acr values that mean strong customer authentication, separated by spaces or commas (at most ${ACR_VALUES_MAX_COUNT}, each at most ${ACR_VALUE_MAX_LENGTH} characters).`}
        {...fields.bind("scaAcrValues")}
      />
    </div>
  );
}

/** "Add an identity provider": its settings; nothing is fetched from it yet. */
function CreateProvider({ onCreated }: { onCreated: () => void }) {
  const fields = useFields(identityProviderDraft());
  const create = useCreate(async () => {
    const { createIdentityProvider } = await graphql(CREATE_IDENTITY_PROVIDER, { input: identityProviderInput(fields.values) });
    return `Identity provider ${createIdentityProvider.name} added. Choose it for apps or API products to send their PSUs there.`;
  }, [fields.reset, onCreated]);

  return (
    <Subform mutation="createIdentityProvider" title="Add an identity provider" submitLabel="Add identity provider" {...create}>
      <ProviderFields fields={fields} storedSecret={false} />
    </Subform>
  );
}

/** "Edit identity provider <name>": every setting, the client secret blank (kept), saved after a confirmation. */
function EditProvider({ provider, onSaved, onClose }: { provider: IdentityProvider; onSaved: (provider: IdentityProvider) => void; onClose: () => void }) {
  const fields = useFields(identityProviderDraft(provider));

  async function save() {
    const { updateIdentityProvider } = await graphql(UPDATE_IDENTITY_PROVIDER, { id: provider.id, input: identityProviderInput(fields.values) });
    onSaved(updateIdentityProvider);
    fields.set("clientSecret")("");
    return `Identity provider ${updateIdentityProvider.name} saved.`;
  }

  return (
    <EditSubform kind="identity provider" name={provider.name} consequence="Sign-ins that start from now on use them." onSave={save} onClose={onClose}>
      <ProviderFields fields={fields} storedSecret={provider.hasClientSecret} />
    </EditSubform>
  );
}
