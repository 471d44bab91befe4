import { Can } from "../../components/Can";
import { useState } from "react";
import { ACR_PASSWORD, ACR_SCA } from "../../../../server/src/kernel/acr";
import { API_NAME_MAX_LENGTH, MAX_AGE_SECONDS } from "../../../../server/src/kernel/limits";
import { CREATE_API, DELETE_API, UPDATE_API, type Api, type ConsentCheck, type CreateApiInput } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { EditSubform } from "../../components/EditSubform";
import type { Column } from "../../components/DataTable";
import { editDeleteColumn } from "../../components/EditDeleteColumn";
import { CheckboxField, SecondsField, SelectField } from "../../components/Field";
import { NameField, UrlField, VerbatimField } from "../../components/VerbatimFields";
import { Subform, useCreate } from "../../components/FormLayouts";
import { Chips, durationText, splitList } from "../../components/Format";
import { ListTable, type RowSource } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { useFields } from "../../lib/useFields";
import { FormInputError, useAction, type Action } from "../../lib/useGraphQL";

/** An API's required sign-in level: "" for none, else an acr (server/src/kernel/acr.ts). */
type AcrChoice = "" | typeof ACR_PASSWORD | typeof ACR_SCA;

/** The sign-in levels an API can require, in words (the select's options). */
const ACR_CHOICES: ReadonlyArray<{ value: AcrChoice; label: string }> = [
  { value: "", label: "No requirement" },
  { value: ACR_PASSWORD, label: "Password" },
  { value: ACR_SCA, label: "Strong customer authentication (password and a second factor)" },
];

/** An API's required sign-in level in words ("Password"); "No requirement" for null. */
function acrName(acr: string | null): string {
  if (acr === ACR_SCA) return "Strong customer authentication";
  return ACR_CHOICES.find((c) => c.value === (acr ?? ""))?.label ?? acr ?? "";
}

/** The PSD2 dynamic linking checks of the gateway (schema.graphql ConsentCheck), in words. */
const CONSENT_CHECKS: ReadonlyArray<{ value: ConsentCheck; label: string }> = [
  { value: "none", label: "None" },
  { value: "accounts", label: "Accounts: only the authorized accounts and data" },
  { value: "payments", label: "Payments: a payment must match the authorized one" },
];

/** An API's consent check in words ("None"). */
const consentCheckName = (check: ConsentCheck) => CONSENT_CHECKS.find((c) => c.value === check)?.label ?? check;

/** An API's maximum sign-in age in words ("5 minutes"); "No limit" for null. */
const maxAgeName = (seconds: number | null) => (seconds === null ? "No limit" : durationText(seconds));

/**
 * The maximum age typed in a form: null when blank.
 * @throws FormInputError when it is not a whole number of seconds in range.
 */
function maxAgeValue(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const seconds = Number(trimmed);
  if (!Number.isInteger(seconds) || seconds < MAX_AGE_SECONDS.min || seconds > MAX_AGE_SECONDS.max) {
    throw new FormInputError(`Maximum sign-in age: a whole number of seconds from ${MAX_AGE_SECONDS.min} to ${MAX_AGE_SECONDS.max}, or blank.`);
  }
  return seconds;
}

/** What an API form holds (the name only when creating); a type alias, as useFields needs. */
type ApiDraft = {
  name: string;
  upstreamUrl: string;
  /** Separated by spaces or commas. */
  requiredScopes: string;
  passCookies: boolean;
  requiredAcr: AcrChoice;
  /** Seconds as typed; blank for no limit. */
  maxAgeSeconds: string;
  consentCheck: ConsentCheck;
};

/** The form's values for a new API, or for editing `api`. */
function apiDraft(api?: Api): ApiDraft {
  return {
    name: api?.name ?? "",
    upstreamUrl: api?.upstreamUrl ?? "",
    requiredScopes: api?.requiredScopes.join(" ") ?? "",
    passCookies: api?.passCookies ?? false,
    requiredAcr: (api?.requiredAcr ?? "") as AcrChoice,
    maxAgeSeconds: api?.maxAgeSeconds == null ? "" : String(api.maxAgeSeconds),
    consentCheck: api?.consentCheck ?? "none",
  };
}

/**
 * The input of createApi or updateApi: every setting but the name.
 * @throws FormInputError for a maximum sign-in age out of range.
 */
function apiSettings(draft: ApiDraft): Omit<CreateApiInput, "name"> {
  return {
    upstreamUrl: draft.upstreamUrl.trim(),
    requiredScopes: splitList(draft.requiredScopes),
    passCookies: draft.passCookies,
    requiredAcr: draft.requiredAcr === "" ? null : draft.requiredAcr,
    maxAgeSeconds: maxAgeValue(draft.maxAgeSeconds),
    consentCheck: draft.consentCheck,
  };
}

const API_COLUMNS: Column<Api>[] = [
  { header: "Name", rowHeader: true, cell: (api) => <code>/{api.name}/</code> },
  { header: "Upstream URL", cell: (api) => <code>{api.upstreamUrl}</code> },
  { header: "Required scopes", detail: true, cell: (api) => <Chips items={api.requiredScopes} /> },
  { header: "Required sign-in", detail: true, cell: (api) => acrName(api.requiredAcr) },
  { header: "Maximum sign-in age", detail: true, cell: (api) => maxAgeName(api.maxAgeSeconds) },
  { header: "Consent check (PSD2)", detail: true, cell: (api) => consentCheckName(api.consentCheck) },
  { header: "Upstream cookies", detail: true, cell: (api) => (api.passCookies ? "Passed to callers" : "Dropped") },
  { header: "In API products", detail: true, cell: (api) => <Chips items={api.products.map((p) => p.name)} /> },
];

/** The APIs' columns with "Edit" and "Delete" (behind a confirmation) per API. */
function apiColumns(action: Action, onEdit: (api: Api) => void, onDelete: (api: Api) => void): Column<Api>[] {
  return [
    ...API_COLUMNS,
    editDeleteColumn(action, onEdit, onDelete, {
      mutation: "updateApi",
      context: (api) => `API /${api.name}/`,
      question: (api) => `Delete the API /${api.name}/? Its gateway path is gone: calls to /${api.name}/ fail from now on, and products lose it.`,
      confirmLabel: "Yes, delete the API",
    }),
  ];
}

/**
 * The APIs behind the gateway, with "Edit" and "Delete" per API, and "Create an API" (part of /admin/products).
 * @param onSaved - shows an API's saved settings at once.
 * @param onChanged - loads the page's data again (an API was created or deleted, which changes products too).
 */
export function ApisPanel({
  list,
  loaded,
  onSaved,
  onChanged,
}: {
  list: RowSource<Api>;
  loaded: boolean;
  onSaved: (api: Api) => void;
  onChanged: () => void;
}) {
  const action = useAction();
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = list.nodes.find((api) => api.id === editingId);

  function remove(api: Api) {
    void action.run(async () => {
      await graphql(DELETE_API, { id: api.id });
      if (editingId === api.id) setEditingId(null);
      onChanged();
      return `API /${api.name}/ deleted: its gateway path is gone.`;
    }, api.id);
  }

  return (
    <Panel title="APIs">
      <p className="muted small">
        The gateway forwards <code>/&lt;name&gt;/…</code> to the API's upstream URL for tokens holding its required scopes. An API can also require a
        sign-in level, or a recent sign-in: a token whose user signed in with less, or longer ago, is refused until the app asks the user to sign in
        again (step-up).
      </p>
      <ActionNotices action={action} />
      <ListTable
        caption="APIs"
        list={list}
        columns={apiColumns(action, (api) => setEditingId(api.id), remove)}
        rowKey={(api) => api.id}
        isCurrent={(api) => api.id === editingId}
        empty="There are no APIs yet."
      />
      {editing && <EditApi key={editing.id} api={editing} onSaved={onSaved} onClose={() => setEditingId(null)} />}
      {loaded && (
        <Can mutation="createApi">
          <CreateApi onCreated={onChanged} />
        </Can>
      )}
    </Panel>
  );
}

/** The settings fields of the create and edit forms of an API (all but its name). */
function ApiSettingsFields({ fields }: { fields: ReturnType<typeof useFields<ApiDraft>> }) {
  return (
    <>
      <div className="form-grid">
        <UrlField label="Upstream URL" {...fields.bind("upstreamUrl")} required placeholder="https://accounts.internal.example" />
        <VerbatimField label="Required scopes" hint="Separated by spaces or commas." {...fields.bind("requiredScopes")} />
        <SelectField label="Required sign-in" {...fields.bind("requiredAcr")} options={ACR_CHOICES} />
        <SecondsField label="Maximum sign-in age" range={MAX_AGE_SECONDS} optional blank="no limit" {...fields.bind("maxAgeSeconds")} />
        <SelectField label="Consent check (PSD2 dynamic linking)" {...fields.bind("consentCheck")} options={CONSENT_CHECKS} />
      </div>
      <p className="hint">
        The consent check applies to calls made with a PSD2 consent's token: accounts lets through only the authorized accounts (by IBAN) and data;
        payments lets a payment through only when it matches the authorized one, and uses the consent up.
      </p>
      <CheckboxField
        label="Pass the upstream's cookies to callers"
        hint="Off (recommended): the gateway drops the upstream's Set-Cookie, so an upstream cannot set cookies on Tollgate's own site. Turn on only for an API whose callers need its cookies."
        checked={fields.values.passCookies}
        onChange={fields.set("passCookies")}
      />
    </>
  );
}

/** "Create an API": its gateway name and its settings. */
function CreateApi({ onCreated }: { onCreated: () => void }) {
  const fields = useFields(apiDraft());
  const create = useCreate(async () => {
    const { createApi } = await graphql(CREATE_API, { input: { name: fields.values.name.trim(), ...apiSettings(fields.values) } });
    return `API ${createApi.name} created.`;
  }, [fields.reset, onCreated]);

  return (
    <Subform mutation="createApi" title="Create an API" submitLabel="Create API" {...create}>
      <div className="form-grid">
        <NameField hint="The gateway path: lowercase letters, digits, . _ -" {...fields.bind("name")} maxLength={API_NAME_MAX_LENGTH} pattern="[a-z0-9][a-z0-9._\-]*" />
      </div>
      <ApiSettingsFields fields={fields} />
    </Subform>
  );
}

/** "Edit API /<name>/": its settings (the gateway path stays), saved after a confirmation. */
function EditApi({ api, onSaved, onClose }: { api: Api; onSaved: (api: Api) => void; onClose: () => void }) {
  const fields = useFields(apiDraft(api));

  async function save() {
    const { updateApi } = await graphql(UPDATE_API, { id: api.id, input: apiSettings(fields.values) });
    onSaved(updateApi);
    return `API /${updateApi.name}/ saved.`;
  }

  return (
    <EditSubform kind="API" name={`/${api.name}/`} consequence="The gateway applies them to its next calls." check={() => apiSettings(fields.values)} onSave={save} onClose={onClose}>
      <ApiSettingsFields fields={fields} />
    </EditSubform>
  );
}
