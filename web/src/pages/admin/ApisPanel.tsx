import { useState, type FormEvent } from "react";
import { ACR_PASSWORD, ACR_SCA } from "../../../../server/src/kernel/acr";
import { API_NAME_MAX_LENGTH, MAX_AGE_SECONDS, URL_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { graphql } from "../../api/graphql";
import type { Column } from "../../components/DataTable";
import { CheckboxField, SelectField, TextField } from "../../components/Field";
import { Subform } from "../../components/FormLayouts";
import { Chips, durationText, splitList } from "../../components/Format";
import { ListTable, type RowSource } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { useFields } from "../../lib/useFields";
import { FormInputError, useAction } from "../../lib/useGraphQL";
import { CREATE_API_STEP_UP, UPDATE_API_STEP_UP, type StepUpApi } from "../../api/sca";

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

/** An API's maximum sign-in age in words ("5 minutes"); "No limit" for null. */
const maxAgeName = (seconds: number | null) => (seconds === null ? "No limit" : durationText(seconds));

/** The hint of the maximum age field. */
const MAX_AGE_HINT = `Optional: ${MAX_AGE_SECONDS.min} to ${MAX_AGE_SECONDS.max} (${durationText(MAX_AGE_SECONDS.max)}). Blank: no limit.`;

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

/** The sign-in level select and the maximum age field of a form. */
function StepUpFields({ acr, maxAge }: { acr: { value: AcrChoice; onChange: (v: AcrChoice) => void }; maxAge: { value: string; onChange: (v: string) => void } }) {
  return (
    <>
      <SelectField label="Required sign-in" {...acr} options={ACR_CHOICES} />
      <TextField
        label="Maximum sign-in age (seconds)"
        hint={MAX_AGE_HINT}
        type="number"
        inputMode="numeric"
        min={MAX_AGE_SECONDS.min}
        max={MAX_AGE_SECONDS.max}
        step={1}
        {...maxAge}
        autoComplete="off"
      />
    </>
  );
}

const API_COLUMNS: Column<StepUpApi>[] = [
  { header: "Name", rowHeader: true, cell: (api) => <code>/{api.name}/</code> },
  { header: "Upstream URL", cell: (api) => <code>{api.upstreamUrl}</code> },
  { header: "Required scopes", cell: (api) => <Chips items={api.requiredScopes} /> },
  { header: "Required sign-in", cell: (api) => acrName(api.requiredAcr) },
  { header: "Maximum sign-in age", cell: (api) => maxAgeName(api.maxAgeSeconds) },
  { header: "Upstream cookies", cell: (api) => (api.passCookies ? "Passed to callers" : "Dropped") },
  { header: "In API products", cell: (api) => <Chips items={api.products.map((p) => p.name)} /> },
];

/** The APIs behind the gateway, "Create an API" and "Change an API's required sign-in" (part of /admin/products). */
export function ApisPanel({
  list,
  loaded,
  onCreated,
  onChanged,
}: {
  list: RowSource<StepUpApi>;
  loaded: boolean;
  onCreated: () => void;
  onChanged: (api: StepUpApi) => void;
}) {
  return (
    <Panel title="APIs">
      <p className="muted small">
        The gateway forwards <code>/&lt;name&gt;/…</code> to the API's upstream URL for tokens holding its required scopes. An API can also require a
        sign-in level, or a recent sign-in: a token whose user signed in with less, or longer ago, is refused until the app asks the user to sign in
        again (step-up).
      </p>
      <ListTable caption="APIs" list={list} columns={API_COLUMNS} rowKey={(api) => api.id} empty="There are no APIs yet." />
      {loaded && list.nodes.length > 0 && <ChangeStepUp apis={list.nodes} onChanged={onChanged} />}
      {loaded && <CreateApi onCreated={onCreated} />}
    </Panel>
  );
}

/** "Change an API's required sign-in": the API, then its sign-in level and maximum sign-in age (prefilled). */
function ChangeStepUp({ apis, onChanged }: { apis: readonly StepUpApi[]; onChanged: (api: StepUpApi) => void }) {
  const action = useAction();
  const [apiId, setApiId] = useState("");
  const [acr, setAcr] = useState<AcrChoice>("");
  const [maxAge, setMaxAge] = useState("");

  function choose(id: string) {
    const api = apis.find((a) => a.id === id);
    setApiId(id);
    setAcr((api?.requiredAcr ?? "") as AcrChoice);
    setMaxAge(api === undefined || api.maxAgeSeconds === null ? "" : String(api.maxAgeSeconds));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      if (apiId === "") throw new FormInputError("Choose an API.");
      const { updateApi } = await graphql(UPDATE_API_STEP_UP, { id: apiId, requiredAcr: acr === "" ? null : acr, maxAgeSeconds: maxAgeValue(maxAge) });
      onChanged(updateApi);
      return `/${updateApi.name}/ now requires: ${acrName(updateApi.requiredAcr).toLowerCase()}; maximum sign-in age: ${maxAgeName(updateApi.maxAgeSeconds).toLowerCase()}.`;
    });
  }

  return (
    <Subform title="Change an API's required sign-in" action={action} submitLabel="Save required sign-in" onSubmit={onSubmit}>
      <div className="form-grid">
        <SelectField
          label="API"
          value={apiId}
          onChange={choose}
          options={apis.map((a) => ({ value: a.id, label: `/${a.name}/` }))}
          required
          placeholder="Choose an API"
        />
        <StepUpFields acr={{ value: acr, onChange: setAcr }} maxAge={{ value: maxAge, onChange: setMaxAge }} />
      </div>
    </Subform>
  );
}

/** "Create an API": its gateway name, upstream URL, required scopes, required sign-in and cookie policy. */
function CreateApi({ onCreated }: { onCreated: () => void }) {
  const action = useAction();
  const fields = useFields({ name: "", upstreamUrl: "", requiredScopes: "", passCookies: false, requiredAcr: "" as AcrChoice, maxAgeSeconds: "" });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { name, upstreamUrl, requiredScopes, passCookies, requiredAcr, maxAgeSeconds } = fields.values;
      const input = {
        name: name.trim(),
        upstreamUrl: upstreamUrl.trim(),
        requiredScopes: splitList(requiredScopes),
        passCookies,
        requiredAcr: requiredAcr === "" ? null : requiredAcr,
        maxAgeSeconds: maxAgeValue(maxAgeSeconds),
      };
      const { createApi } = await graphql(CREATE_API_STEP_UP, { input });
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
        <StepUpFields acr={fields.bind("requiredAcr")} maxAge={fields.bind("maxAgeSeconds")} />
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
