import type { FormEvent } from "react";
import { NAME_MAX_LENGTH, PRODUCT_NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_API_PRODUCT, PRODUCTS_AND_APIS, type Api, type ApiProduct } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import type { Column } from "../../components/DataTable";
import { CheckboxField, TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { Chips, splitList } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { toggled } from "../../lib/sets";
import { nonBlank, useFields } from "../../lib/useFields";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { ApisPanel } from "./ApisPanel";

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
  { header: "Scopes", cell: (p) => <Chips items={p.scopes} /> },
  { header: "APIs", cell: (p) => <Chips items={p.apis.map((a) => a.name)} /> },
];

/** /admin/products: API products (bundles of scopes and APIs granted to credentials) and the APIs behind the gateway. */
export function ProductsPage() {
  const query = useQuery(PRODUCTS_AND_APIS);
  const apis = query.data?.apis ?? [];
  return (
    <AdminPage title="API products and APIs" intro="An API product grants scopes and APIs to the credentials it is approved on.">
      <Panel title="API products">
        <ListTable
          caption="API products"
          list={{ ...query, nodes: query.data?.apiProducts ?? [] }}
          columns={PRODUCT_COLUMNS}
          rowKey={(p) => p.id}
          empty="There are no API products yet."
        />
        {query.data && <CreateProduct apis={apis} onCreated={query.reload} />}
      </Panel>
      <ApisPanel
        list={{ nodes: apis, loading: query.loading, error: query.data ? null : query.error }}
        loaded={query.data !== undefined}
        onCreated={query.reload}
      />
    </AdminPage>
  );
}

/** "Create an API product": its name, texts, scopes and APIs. */
function CreateProduct({ apis, onCreated }: { apis: Api[]; onCreated: () => void }) {
  const action = useAction();
  const fields = useFields({ name: "", displayName: "", description: "", scopes: "", apiIds: new Set<string>() as ReadonlySet<string> });
  const { apiIds } = fields.values;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, displayName, description, scopes } = fields.values;
      const input = {
        name: name.trim(),
        ...nonBlank({ displayName, description }),
        scopes: splitList(scopes),
        apiIds: apis.map((a) => a.id).filter((id) => apiIds.has(id)),
      };
      const { createApiProduct } = await graphql(CREATE_API_PRODUCT, { input });
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
