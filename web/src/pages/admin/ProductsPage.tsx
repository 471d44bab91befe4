import { useState, type FormEvent } from "react";
import { CREATE_API_PRODUCT, PRODUCTS_AND_APIS, type Api, type ApiProduct } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { CheckboxField, SubmitButton, TextField } from "../../components/Field";
import { Chips, splitList } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, Panel } from "../../components/Panel";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { ApisPanel } from "./ApisPanel";

/** /admin/products: API products (bundles of scopes and APIs granted to credentials) and the APIs behind the gateway. */
export function ProductsPage() {
  const query = useQuery(PRODUCTS_AND_APIS);
  const products = query.data?.apiProducts ?? [];
  const apis = query.data?.apis ?? [];
  return (
    <AdminPage title="API products and APIs" intro="An API product grants scopes and APIs to the credentials it is approved on.">
      <Panel title="API products">
        <ListState
          loading={query.loading}
          error={query.error}
          isEmpty={products.length === 0}
          empty={query.data ? "There are no API products yet." : ""}
          onRetry={query.reload}
        >
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Display name</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">APIs</th>
                </tr>
              </thead>
              <tbody>
                {products.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">
                      <code>{p.name}</code>
                    </th>
                    <td>
                      {p.displayName}
                      {p.description && <span className="muted small block">{p.description}</span>}
                    </td>
                    <td>
                      <Chips items={p.scopes} />
                    </td>
                    <td>
                      <Chips items={p.apis.map((a) => a.name)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </ListState>
        {query.data && <CreateProduct apis={apis} onCreated={query.reload} />}
      </Panel>
      <ApisPanel apis={apis} loading={query.loading} error={query.data ? null : query.error} loaded={query.data !== undefined} onCreated={query.reload} />
    </AdminPage>
  );
}

function CreateProduct({ apis, onCreated }: { apis: Api[]; onCreated: (product: ApiProduct) => void }) {
  const action = useAction();
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [description, setDescription] = useState("");
  const [scopes, setScopes] = useState("");
  const [apiIds, setApiIds] = useState<ReadonlySet<string>>(new Set());

  function toggle(id: string, on: boolean) {
    setApiIds((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const input = {
        name: name.trim(),
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(description.trim() ? { description: description.trim() } : {}),
        scopes: splitList(scopes),
        apiIds: apis.map((a) => a.id).filter((id) => apiIds.has(id)),
      };
      const { createApiProduct } = await graphql(CREATE_API_PRODUCT, { input });
      setName("");
      setDisplayName("");
      setDescription("");
      setScopes("");
      setApiIds(new Set());
      onCreated(createApiProduct);
      return `API product ${createApiProduct.name} created.`;
    });
  }

  return (
    <form className="subform" onSubmit={onSubmit} aria-labelledby="create-product-title">
      <h3 id="create-product-title">Create an API product</h3>
      <div className="form-grid">
        <TextField
          label="Name"
          hint="Letters, digits, . _ - (no spaces), e.g. PSD2-AISP-v1."
          value={name}
          onChange={setName}
          required
          maxLength={100}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
          autoComplete="off"
        />
        <TextField label="Display name" hint="Optional." value={displayName} onChange={setDisplayName} maxLength={100} autoComplete="off" />
        <TextField label="Description" hint="Optional." value={description} onChange={setDescription} maxLength={500} autoComplete="off" />
        <TextField label="Scopes" hint="Separated by spaces or commas, e.g. aisp extended_transaction_history." value={scopes} onChange={setScopes} autoComplete="off" />
      </div>
      <fieldset className="fieldset">
        <legend>APIs</legend>
        {apis.length === 0 ? (
          <p className="hint">There are no APIs yet; create them below.</p>
        ) : (
          apis.map((api) => (
            <CheckboxField key={api.id} label={api.name} hint={api.upstreamUrl} checked={apiIds.has(api.id)} onChange={(on) => toggle(api.id, on)} />
          ))
        )}
      </fieldset>
      <div className="form-actions">
        <SubmitButton busy={action.pending !== null}>Create API product</SubmitButton>
      </div>
      <ActionNotices action={action} />
    </form>
  );
}
