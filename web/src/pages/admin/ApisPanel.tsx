import type { FormEvent } from "react";
import { API_NAME_MAX_LENGTH, URL_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_API, type Api } from "../../api/admin";
import { graphql } from "../../api/graphql";
import type { Column } from "../../components/DataTable";
import { CheckboxField, TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { Chips, splitList } from "../../components/Format";
import { ListTable, type RowSource } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { useFields } from "../../lib/useFields";
import { useAction } from "../../lib/useGraphQL";

const API_COLUMNS: Column<Api>[] = [
  { header: "Name", rowHeader: true, cell: (api) => <code>/{api.name}/</code> },
  { header: "Upstream URL", cell: (api) => <code>{api.upstreamUrl}</code> },
  { header: "Required scopes", cell: (api) => <Chips items={api.requiredScopes} /> },
  { header: "Upstream cookies", cell: (api) => (api.passCookies ? "Passed to callers" : "Dropped") },
  { header: "In API products", cell: (api) => <Chips items={api.products.map((p) => p.name)} /> },
];

/** The APIs behind the gateway, and "Create an API" (part of /admin/products). */
export function ApisPanel({ list, loaded, onCreated }: { list: RowSource<Api>; loaded: boolean; onCreated: () => void }) {
  return (
    <Panel title="APIs">
      <p className="muted small">
        The gateway forwards <code>/&lt;name&gt;/…</code> to the API's upstream URL for tokens holding its required scopes.
      </p>
      <ListTable caption="APIs" list={list} columns={API_COLUMNS} rowKey={(api) => api.id} empty="There are no APIs yet." />
      {loaded && <CreateApi onCreated={onCreated} />}
    </Panel>
  );
}

/** "Create an API": its gateway name, upstream URL, required scopes and cookie policy. */
function CreateApi({ onCreated }: { onCreated: () => void }) {
  const action = useAction();
  const fields = useFields({ name: "", upstreamUrl: "", requiredScopes: "", passCookies: false });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, upstreamUrl, requiredScopes, passCookies } = fields.values;
      const input = { name: name.trim(), upstreamUrl: upstreamUrl.trim(), requiredScopes: splitList(requiredScopes), passCookies };
      const { createApi } = await graphql(CREATE_API, { input });
      fields.reset();
      onCreated();
      return `API ${createApi.name} created.`;
    });
  }

  return (
    <Subform title="Create an API" action={action} submitLabel="Create API" onSubmit={onSubmit}>
      <div className="form-grid">
        <TextField
          label="Name"
          hint="The gateway path: lowercase letters, digits, . _ -"
          {...fields.bind("name")}
          required
          maxLength={API_NAME_MAX_LENGTH}
          pattern="[a-z0-9][a-z0-9._\-]*"
          autoComplete="off"
        />
        <TextField
          label="Upstream URL"
          type="url"
          {...fields.bind("upstreamUrl")}
          required
          maxLength={URL_MAX_LENGTH}
          placeholder="https://accounts.internal.example"
          autoComplete="off"
        />
        <TextField label="Required scopes" hint="Separated by spaces or commas." {...fields.bind("requiredScopes")} autoComplete="off" />
      </div>
      <CheckboxField
        label="Pass the upstream's cookies to callers"
        hint="Off (recommended): the gateway drops the upstream's Set-Cookie, so an upstream cannot set cookies on Tollgate's own site. Turn on only for an API whose callers need its cookies."
        checked={fields.values.passCookies}
        onChange={fields.set("passCookies")}
      />
    </Subform>
  );
}
