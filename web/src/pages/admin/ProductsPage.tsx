import type { FormEvent } from "react";
import { NAME_MAX_LENGTH, PRODUCT_NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import type { Api } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ActionButton } from "../../components/ActionButton";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, type Column } from "../../components/DataTable";
import { CheckboxField, TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { Chips, splitList } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { toggled } from "../../lib/sets";
import { nonBlank, useFields } from "../../lib/useFields";
import { useAction, useQuery, type Action } from "../../lib/useGraphQL";
import { ApisPanel } from "./ApisPanel";
import { CREATE_API_PRODUCT_SCA, SCA_PRODUCTS_AND_APIS, UPDATE_API_PRODUCT_SCA, type ScaApiProduct } from "../../api/sca";

/** The product setting's name, as the console words it. */
const SCA_LABEL = "Requires strong customer authentication (PSD2)";

const PRODUCT_COLUMNS: Column<ScaApiProduct>[] = [
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
  { header: "Scopes", cell: (p) => <Chips items={p.scopes} /> },
  { header: "APIs", cell: (p) => <Chips items={p.apis.map((a) => a.name)} /> },
  { header: SCA_LABEL, cell: (p) => (p.requiresSca ? "Yes" : "No") },
];

/**
 * The products' columns with "Require strong customer authentication" per product, or
 * "Stop requiring…" behind a confirmation (it weakens what the product's scopes need).
 */
function productColumns(action: Action, setRequiresSca: (product: ScaApiProduct, on: boolean) => void): Column<ScaApiProduct>[] {
  return [
    ...PRODUCT_COLUMNS,
    actionsColumn((p) =>
      p.requiresSca ? (
        <ConfirmButton
          label="Stop requiring SCA"
          context={`for ${p.name}`}
          question={`Stop requiring strong customer authentication for ${p.name}? A password alone will then be enough for its scopes.`}
          confirmLabel="Yes, stop requiring"
          className="button secondary small"
          {...action.button(p.id)}
          onConfirm={() => setRequiresSca(p, false)}
        />
      ) : (
        <ActionButton label="Require SCA" context={`for ${p.name}`} {...action.button(p.id)} onClick={() => setRequiresSca(p, true)} />
      ),
    ),
  ];
}

/** /admin/products: API products (bundles of scopes and APIs granted to credentials) and the APIs behind the gateway. */
export function ProductsPage() {
  const query = useQuery(SCA_PRODUCTS_AND_APIS);
  const apis = query.data?.apis ?? [];
  const action = useAction();

  function setRequiresSca(product: ScaApiProduct, requiresSca: boolean) {
    void action.run(async () => {
      const { updateApiProduct } = await graphql(UPDATE_API_PRODUCT_SCA, { id: product.id, requiresSca });
      query.setData((d) => ({ ...d, apiProducts: d.apiProducts.map((p) => (p.id === updateApiProduct.id ? updateApiProduct : p)) }));
      return requiresSca
        ? `${product.name} now requires strong customer authentication: its scopes need a password and a second factor.`
        : `${product.name} no longer requires strong customer authentication.`;
    }, product.id);
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
          columns={productColumns(action, setRequiresSca)}
          rowKey={(p) => p.id}
          empty="There are no API products yet."
        />
        {query.data && <CreateProduct apis={apis} onCreated={query.reload} />}
      </Panel>
      <ApisPanel
        list={{ nodes: apis, loading: query.loading, error: query.data ? null : query.error }}
        loaded={query.data !== undefined}
        onCreated={query.reload}
        onChanged={(api) => query.setData((d) => ({ ...d, apis: d.apis.map((a) => (a.id === api.id ? api : a)) }))}
      />
    </AdminPage>
  );
}

/** "Create an API product": its name, texts, scopes and APIs. */
function CreateProduct({ apis, onCreated }: { apis: Api[]; onCreated: () => void }) {
  const action = useAction();
  const fields = useFields({ name: "", displayName: "", description: "", scopes: "", requiresSca: false, apiIds: new Set<string>() as ReadonlySet<string> });
  const { apiIds } = fields.values;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, displayName, description, scopes, requiresSca } = fields.values;
      const input = {
        name: name.trim(),
        ...nonBlank({ displayName, description }),
        scopes: splitList(scopes),
        requiresSca,
        apiIds: apis.map((a) => a.id).filter((id) => apiIds.has(id)),
      };
      const { createApiProduct } = await graphql(CREATE_API_PRODUCT_SCA, { input });
      fields.reset();
      onCreated();
      return `API product ${createApiProduct.name} created.`;
    });
  }

  return (
    <Subform title="Create an API product" action={action} submitLabel="Create API product" onSubmit={onSubmit}>
      <div className="form-grid">
        <TextField
          label="Name"
          hint="Letters, digits, . _ - (no spaces), e.g. PSD2-AISP-v1."
          {...fields.bind("name")}
          required
          maxLength={PRODUCT_NAME_MAX_LENGTH}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
          autoComplete="off"
        />
        <TextField label="Display name" hint="Optional." {...fields.bind("displayName")} maxLength={NAME_MAX_LENGTH} autoComplete="off" />
        <TextField label="Description" hint="Optional." {...fields.bind("description")} maxLength={TEXT_MAX_LENGTH} autoComplete="off" />
        <TextField label="Scopes" hint="Separated by spaces or commas, e.g. aisp extended_transaction_history." {...fields.bind("scopes")} autoComplete="off" />
      </div>
      <CheckboxField
        label={SCA_LABEL}
        hint="The user signs in with a password and a second factor (an authenticator app or a passkey) before an app gets any of this product's scopes. On for PSD2 account and payment products."
        checked={fields.values.requiresSca}
        onChange={fields.set("requiresSca")}
      />
      <fieldset className="fieldset">
        <legend>APIs</legend>
        {apis.length === 0 ? (
          <p className="hint">There are no APIs yet; create them below.</p>
        ) : (
          apis.map((api) => (
            <CheckboxField
              key={api.id}
              label={api.name}
              hint={api.upstreamUrl}
              checked={apiIds.has(api.id)}
              onChange={(on) => fields.set("apiIds")(toggled(apiIds, api.id, on))}
            />
          ))
        )}
      </fieldset>
    </Subform>
  );
}
