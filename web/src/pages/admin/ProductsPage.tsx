import { useState } from "react";
import { NAME_MAX_LENGTH, PRODUCT_NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import {
  CREATE_API_PRODUCT,
  DELETE_API_PRODUCT,
  PRODUCTS_AND_APIS,
  UPDATE_API_PRODUCT,
  type AccessTokenFormat,
  type Api,
  type ApiProduct,
  type AuthorizationDetailsType,
  type CreateApiProductInput,
  type IdentityProviderOption,
} from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { EditSubform } from "../../components/EditSubform";
import type { Column } from "../../components/DataTable";
import { editDeleteColumn } from "../../components/EditDeleteColumn";
import { CheckboxField, SelectField, TextField } from "../../components/Field";
import { NameField, VerbatimField } from "../../components/VerbatimFields";
import { Subform, useCreate } from "../../components/FormLayouts";
import { Chips, splitList } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { ScopeDescriptionFields } from "../../components/ScopeDescriptionFields";
import { signInName, signInOptions } from "../../lib/identity-providers";
import { missingDescriptionsMessage, scopeDescriptionsInput, scopeRows, storedDescriptions, undescribedScopes, type ScopeRow } from "../../lib/scope-descriptions";
import { toggled } from "../../lib/sets";
import { useFields } from "../../lib/useFields";
import { FormInputError, useAction, useQuery, type Action } from "../../lib/useGraphQL";
import { ApisPanel } from "./ApisPanel";

/** The product setting's name, as the console words it. */
const SCA_LABEL = "Requires strong customer authentication (PSD2)";

/** The RFC 9396 authorization details types, as the console words them. */
const DETAILS_TYPES: ReadonlyArray<{ value: AuthorizationDetailsType; label: string; hint: string }> = [
  { value: "account_information", label: "Account information (account_information)", hint: "PSD2 account access: which accounts, and what of them." },
  { value: "payment_initiation", label: "Payment initiation (payment_initiation)", hint: "A PSD2 payment: amount, creditor, accounts." },
];

/** The access token formats of a product (schema.graphql AccessTokenFormat), as the console words them. */
const ACCESS_TOKEN_FORMATS: ReadonlyArray<{ value: AccessTokenFormat; label: string }> = [
  { value: "opaque", label: "Opaque" },
  { value: "jwt", label: "JWT (RFC 9068)" },
];

/** A product's access token format in words ("JWT (RFC 9068)"). */
const accessTokenFormatName = (format: AccessTokenFormat) => ACCESS_TOKEN_FORMATS.find((f) => f.value === format)?.label ?? format;

/** A product's scopes, each with its description for end users. */
function ScopeList({ scopes }: { scopes: ApiProduct["scopeDescriptions"] }) {
  if (scopes.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="scope-list">
      {scopes.map((scope) => (
        <li key={scope.name}>
          <code>{scope.name}</code> <span className="muted small">{scope.description}</span>
        </li>
      ))}
    </ul>
  );
}

const PRODUCT_COLUMNS: Column<ApiProduct>[] = [
  { header: "Name", rowHeader: true, cell: (p) => <code>{p.name}</code> },
  {
    header: "Display name",
    cell: (p) => (
      <>
        {p.displayName}
        {p.description && <span className="muted small block">{p.description}</span>}
      </>
    ),
  },
  { header: "Scopes", detail: true, cell: (p) => <ScopeList scopes={p.scopeDescriptions} /> },
  { header: "APIs", detail: true, cell: (p) => <Chips items={p.apis.map((a) => a.name)} /> },
  { header: SCA_LABEL, detail: true, cell: (p) => (p.requiresSca ? "Yes" : "No") },
  { header: "Authorization details", detail: true, cell: (p) => <Chips items={p.authorizationDetailsTypes} /> },
  { header: "Access tokens", detail: true, cell: (p) => accessTokenFormatName(p.accessTokenFormat) },
  { header: "Sign-in", detail: true, cell: (p) => signInName(p.identityProvider) },
];

/** The products' columns with "Edit" and "Delete" (behind a confirmation) per product. */
function productColumns(action: Action, onEdit: (product: ApiProduct) => void, onDelete: (product: ApiProduct) => void): Column<ApiProduct>[] {
  return [
    ...PRODUCT_COLUMNS,
    editDeleteColumn(action, onEdit, onDelete, {
      mutation: "updateApiProduct",
      context: (p) => `API product ${p.name}`,
      question: (p) => `Delete the API product ${p.name}? Apps lose it from their credentials: their new tokens no longer get its scopes.`,
      confirmLabel: "Yes, delete the product",
    }),
  ];
}

/** /admin/products: API products (bundles of scopes and APIs granted to credentials) and the APIs behind the gateway. */
export function ProductsPage() {
  const query = useQuery(PRODUCTS_AND_APIS);
  const apis = query.data?.apis ?? [];
  const providers = query.data?.identityProviders ?? [];
  const stored = storedDescriptions(query.data?.scopes ?? []);
  const action = useAction();
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = query.data?.apiProducts.find((p) => p.id === editingId);

  function remove(product: ApiProduct) {
    void action.run(async () => {
      await graphql(DELETE_API_PRODUCT, { id: product.id });
      if (editingId === product.id) setEditingId(null);
      query.reload();
      return `API product ${product.name} deleted: apps no longer have it on their credentials.`;
    }, product.id);
  }

  /** Shows the saved product at once, then loads the page again (scope descriptions and the APIs' products may have changed). */
  function saved(product: ApiProduct) {
    query.setData((d) => ({ ...d, apiProducts: d.apiProducts.map((p) => (p.id === product.id ? product : p)) }));
    query.reload();
  }

  return (
    <AdminPage title="API products and APIs" intro="An API product grants scopes and APIs to the credentials it is approved on.">
      <Panel title="API products">
        <p className="muted small">
          A product that requires strong customer authentication (SCA, PSD2) gives its scopes only after the user signs in with a password and a
          second factor: an authenticator app or a passkey.
        </p>
        <ActionNotices action={action} />
        <ListTable
          caption="API products"
          list={{ ...query, nodes: query.data?.apiProducts ?? [] }}
          columns={productColumns(action, (p) => setEditingId(p.id), remove)}
          rowKey={(p) => p.id}
          isCurrent={(p) => p.id === editingId}
          empty="There are no API products yet."
        />
        {editing && <EditProduct key={editing.id} product={editing} apis={apis} providers={providers} stored={stored} onSaved={saved} onClose={() => setEditingId(null)} />}
        {query.data && <CreateProduct apis={apis} providers={providers} stored={stored} onCreated={query.reload} />}
      </Panel>
      <ApisPanel
        list={{ nodes: apis, loading: query.loading, error: query.data ? null : query.error }}
        loaded={query.data !== undefined}
        onSaved={(api) => query.setData((d) => ({ ...d, apis: d.apis.map((a) => (a.id === api.id ? api : a)) }))}
        onChanged={query.reload}
      />
    </AdminPage>
  );
}

/** What an API product form holds; a type alias, as useFields needs. */
type ProductDraft = {
  name: string;
  displayName: string;
  description: string;
  /** The scopes as typed: separated by spaces or commas. */
  scopes: string;
  /** Scope descriptions typed in the form, by scope name. */
  descriptions: ReadonlyMap<string, string>;
  requiresSca: boolean;
  detailsTypes: ReadonlySet<AuthorizationDetailsType>;
  accessTokenFormat: AccessTokenFormat;
  /** The identity provider's id; "": Tollgate's own sign-in. */
  identityProviderId: string;
  apiIds: ReadonlySet<string>;
};

/** The form's values for a new product, or for editing `product`. */
function productDraft(product?: ApiProduct): ProductDraft {
  return {
    name: product?.name ?? "",
    displayName: product?.displayName ?? "",
    description: product?.description ?? "",
    scopes: product?.scopes.join(" ") ?? "",
    descriptions: new Map(),
    requiresSca: product?.requiresSca ?? false,
    detailsTypes: new Set(product?.authorizationDetailsTypes),
    accessTokenFormat: product?.accessTokenFormat ?? "opaque",
    identityProviderId: product?.identityProvider?.id ?? "",
    apiIds: new Set(product?.apis.map((a) => a.id)),
  };
}

/** @throws FormInputError naming the scopes left without a description. */
function checkDescribed(rows: readonly ScopeRow[]): void {
  const missing = undescribedScopes(rows);
  if (missing.length > 0) throw new FormInputError(missingDescriptionsMessage(missing));
}

/** The input of createApiProduct or updateApiProduct (every field: an update replaces them all); a blank display name is the name. */
function productInput(draft: ProductDraft, rows: readonly ScopeRow[], apis: readonly Api[]): CreateApiProductInput {
  const name = draft.name.trim();
  return {
    name,
    displayName: draft.displayName.trim() || name,
    description: draft.description.trim(),
    scopes: rows.map((r) => r.name),
    scopeDescriptions: scopeDescriptionsInput(rows),
    requiresSca: draft.requiresSca,
    authorizationDetailsTypes: DETAILS_TYPES.map((t) => t.value).filter((t) => draft.detailsTypes.has(t)),
    accessTokenFormat: draft.accessTokenFormat,
    identityProviderId: draft.identityProviderId || null,
    apiIds: apis.map((a) => a.id).filter((id) => draft.apiIds.has(id)),
  };
}

/** The form state of a product and its scope rows. */
function useProductForm(product: ApiProduct | undefined, stored: ReadonlyMap<string, string>) {
  const fields = useFields(productDraft(product));
  const rows = scopeRows(splitList(fields.values.scopes), stored, fields.values.descriptions);
  return { fields, rows };
}

/** A checkbox a choice, checked while `selected` holds its value; a change passes on the next set. */
function SetCheckboxes<T extends string>({
  choices,
  selected,
  onChange,
}: {
  choices: ReadonlyArray<{ value: T; label: string; hint: string }>;
  selected: ReadonlySet<T>;
  onChange: (next: Set<T>) => void;
}) {
  return choices.map((c) => (
    <CheckboxField key={c.value} label={c.label} hint={c.hint} checked={selected.has(c.value)} onChange={(on) => onChange(toggled(selected, c.value, on))} />
  ));
}

/** The fields of the create and edit forms of a product. */
function ProductFields({ form, apis, providers }: { form: ReturnType<typeof useProductForm>; apis: readonly Api[]; providers: readonly IdentityProviderOption[] }) {
  const { fields, rows } = form;
  const { apiIds, detailsTypes, descriptions } = fields.values;
  return (
    <>
      <div className="form-grid">
        <NameField hint="Letters, digits, . _ - (no spaces), e.g. PSD2-AISP-v1." {...fields.bind("name")} maxLength={PRODUCT_NAME_MAX_LENGTH} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" />
        <TextField label="Display name" hint="Optional; defaults to the name." {...fields.bind("displayName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
        <TextField label="Description" hint="Optional." {...fields.bind("description")} maxLength={TEXT_MAX_LENGTH} autoComplete="off" />
        <VerbatimField label="Scopes" hint="Separated by spaces or commas, e.g. aisp extended_transaction_history." {...fields.bind("scopes")} />
      </div>
      <ScopeDescriptionFields rows={rows} onChange={(name, text) => fields.set("descriptions")(new Map(descriptions).set(name, text))} />
      <CheckboxField
        label={SCA_LABEL}
        hint="The user signs in with a password and a second factor (an authenticator app or a passkey) before an app gets any of this product's scopes. On for PSD2 account and payment products."
        checked={fields.values.requiresSca}
        onChange={fields.set("requiresSca")}
      />
      <SelectField
        label="Access token format"
        hint="JWT: signed tokens that your resource servers can validate offline with the JWK Set; opaque: validated by introspection or this gateway."
        {...fields.bind("accessTokenFormat")}
        options={ACCESS_TOKEN_FORMATS}
      />
      <SelectField
        label="Sign-in"
        hint="Where the PSUs of its grants sign in: Tollgate's own sign-in, or one of the bank's identity providers. An app's own choice comes first."
        {...fields.bind("identityProviderId")}
        options={signInOptions(providers)}
      />
      <fieldset className="fieldset">
        <legend>Authorization details types (RFC 9396)</legend>
        <p className="hint">What a client approved for this product may ask the user to authorize in detail.</p>
        <SetCheckboxes choices={DETAILS_TYPES} selected={detailsTypes} onChange={fields.set("detailsTypes")} />
      </fieldset>
      <fieldset className="fieldset">
        <legend>APIs</legend>
        {apis.length === 0 ? (
          <p className="hint">There are no APIs yet; create them below.</p>
        ) : (
          <SetCheckboxes choices={apis.map((api) => ({ value: api.id, label: api.name, hint: api.upstreamUrl }))} selected={apiIds} onChange={fields.set("apiIds")} />
        )}
      </fieldset>
    </>
  );
}

/** "Create an API product": its name, texts, scopes with their descriptions, SCA, access token format, sign-in, authorization details types and APIs. */
function CreateProduct({
  apis,
  providers,
  stored,
  onCreated,
}: {
  apis: readonly Api[];
  providers: readonly IdentityProviderOption[];
  stored: ReadonlyMap<string, string>;
  onCreated: () => void;
}) {
  const form = useProductForm(undefined, stored);
  const create = useCreate(async () => {
    checkDescribed(form.rows);
    const { createApiProduct } = await graphql(CREATE_API_PRODUCT, { input: productInput(form.fields.values, form.rows, apis) });
    return `API product ${createApiProduct.name} created.`;
  }, [form.fields.reset, onCreated]);

  return (
    <Subform mutation="createApiProduct" title="Create an API product" submitLabel="Create API product" {...create}>
      <ProductFields form={form} apis={apis} providers={providers} />
    </Subform>
  );
}

/** "Edit API product <name>": every field of the product, saved after a confirmation. */
function EditProduct({
  product,
  apis,
  providers,
  stored,
  onSaved,
  onClose,
}: {
  product: ApiProduct;
  apis: readonly Api[];
  providers: readonly IdentityProviderOption[];
  stored: ReadonlyMap<string, string>;
  onSaved: (product: ApiProduct) => void;
  onClose: () => void;
}) {
  const form = useProductForm(product, stored);

  async function save() {
    const { updateApiProduct } = await graphql(UPDATE_API_PRODUCT, { id: product.id, input: productInput(form.fields.values, form.rows, apis) });
    onSaved(updateApiProduct);
    return `API product ${updateApiProduct.name} saved.`;
  }

  return (
    <EditSubform kind="API product" name={product.name} consequence="They apply at once, to every app with this product." check={() => checkDescribed(form.rows)} onSave={save} onClose={onClose}>
      <ProductFields form={form} apis={apis} providers={providers} />
    </EditSubform>
  );
}
