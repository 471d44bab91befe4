import { useState, type FormEvent } from "react";
import { URL_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { SET_APP_KEYS, SET_APP_SETTINGS, type AppDetail, type SecurityProfile } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { DataTable, type Column } from "../../components/DataTable";
import { SelectField, TextAreaField, TextField } from "../../components/Field";
import { PanelForm, Subform } from "../../components/FormLayouts";
import { Panel } from "../../components/Panel";
import { FormInputError, useAction } from "../../lib/useGraphQL";

type SetApp = (app: AppDetail) => void;

/** The security profiles as the console names them. */
export const SECURITY_PROFILES: ReadonlyArray<{ value: SecurityProfile; label: string }> = [
  { value: "standard", label: "Standard" },
  { value: "fapi2", label: "FAPI 2.0" },
];

/** The console's name of a security profile ("FAPI 2.0"). */
export function securityProfileName(profile: SecurityProfile): string {
  return SECURITY_PROFILES.find((p) => p.value === profile)!.label;
}

/** The app's security profile (setAppSettings `securityProfile`), with what FAPI 2.0 enforces. */
export function SecurityProfileSettings({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [profile, setProfile] = useState<SecurityProfile>(app.securityProfile);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { setAppSettings } = await graphql(SET_APP_SETTINGS, { appId: app.id, input: { securityProfile: profile } });
      onChange(setAppSettings);
      return profile === "fapi2"
        ? "FAPI 2.0 is on: the app now authenticates with private_key_jwt only, gets RFC 6749 token responses and must use PKCE."
        : "Standard profile is on. The client settings stayed as they were: change them below.";
    });
  }

  return (
    <PanelForm
      title="Security profile"
      intro={
        <p className="muted small">
          FAPI 2.0 enforces pushed authorization requests (PAR), PKCE S256, private_key_jwt client authentication and DPoP-bound tokens; it needs the
          app's signing keys.
        </p>
      }
      action={action}
      submitLabel="Save security profile"
      onSubmit={onSubmit}
    >
      <SelectField label="Security profile" value={profile} onChange={setProfile} options={SECURITY_PROFILES} />
    </PanelForm>
  );
}

/** A key of the app's registered JWK Set, as the table lists it. */
interface ListedKey {
  /** Position in the set, from 1. */
  number: number;
  kid?: string;
  kty?: string;
  crv?: string;
  alg?: string;
  use?: string;
}

/** The keys of a registered JWK Set (JSON text the server checked), numbered from 1. */
function listedKeys(jwks: string | null): ListedKey[] {
  if (jwks === null) return [];
  const { keys } = JSON.parse(jwks) as { keys: Omit<ListedKey, "number">[] };
  return keys.map((key, i) => ({ ...key, number: i + 1 }));
}

const none = <span className="muted">—</span>;

const KEY_COLUMNS: Column<ListedKey>[] = [
  { header: "Key ID (kid)", rowHeader: true, cell: (k) => (k.kid ? <code>{k.kid}</code> : <span className="muted">key {k.number}, no kid</span>) },
  { header: "Type (kty)", cell: (k) => (k.kty ? [k.kty, k.crv].filter(Boolean).join(" ") : none) },
  { header: "Algorithm (alg)", cell: (k) => k.alg ?? none },
  { header: "Use", cell: (k) => k.use ?? none },
];

/**
 * The app's public signing keys for private_key_jwt (setAppKeys): the registered JWK Set's
 * keys or the jwks_uri, a form to register or replace them (a rotation: the old keys stop
 * working at once) and "Remove keys" while the app does not use them (neither FAPI 2.0 nor
 * private_key_jwt: the server refuses that removal).
 */
export function SigningKeys({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [jwks, setJwks] = useState("");
  const [jwksUri, setJwksUri] = useState("");
  const hasKeys = app.jwks !== null || app.jwksUri !== null;
  const keysInUse = app.securityProfile === "fapi2" || app.tokenEndpointAuthMethods.includes("private_key_jwt");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const set = jwks.trim();
    const uri = jwksUri.trim();
    void action.run(async () => {
      if (set !== "" && uri !== "") throw new FormInputError("Paste a JWK Set or enter a jwks_uri, not both.");
      if (set === "" && uri === "") throw new FormInputError("Paste a JWK Set or enter a jwks_uri.");
      const { setAppKeys } = await graphql(SET_APP_KEYS, set !== "" ? { appId: app.id, jwks: set } : { appId: app.id, jwksUri: uri });
      onChange(setAppKeys);
      setJwks("");
      setJwksUri("");
      return hasKeys ? "Signing keys replaced: the old keys no longer verify the app's client assertions." : "Signing keys registered.";
    }, "save");
  }

  function remove() {
    void action.run(async () => {
      const { setAppKeys } = await graphql(SET_APP_KEYS, { appId: app.id });
      onChange(setAppKeys);
      return "Signing keys removed.";
    }, "remove");
  }

  return (
    <Panel
      title="Signing keys"
      actions={
        hasKeys &&
        !keysInUse && (
          <ConfirmButton
            label="Remove keys"
            question="Remove the app's signing keys? Its client assertions (private_key_jwt) stop working."
            confirmLabel="Yes, remove the keys"
            {...action.button("remove")}
            onConfirm={remove}
          />
        )
      }
    >
      <p className="muted small">Public keys that verify the app's client assertions (private_key_jwt). The private keys stay with the app.</p>
      {app.jwksUri !== null ? (
        <p>
          Published by the app at <code>{app.jwksUri}</code> (jwks_uri).
        </p>
      ) : (
        <DataTable caption="Registered signing keys" columns={KEY_COLUMNS} rows={listedKeys(app.jwks)} rowKey={(k) => k.number} empty="No signing keys are registered." />
      )}
      <Subform title={hasKeys ? "Replace the keys (rotation)" : "Register keys"} action={action} submitLabel="Save signing keys" onSubmit={onSubmit}>
        <TextAreaField
          label="JWK Set (JSON)"
          hint='{"keys": [...]}: 1 to 10 public keys for ES256 (EC P-256), PS256 (RSA of 2048 bits or more) or EdDSA (Ed25519).'
          rows={6}
          value={jwks}
          onChange={setJwks}
        />
        <TextField
          label="Or a jwks_uri"
          hint="Where the app publishes its JWK Set: https (http only on localhost)."
          type="url"
          value={jwksUri}
          onChange={setJwksUri}
          maxLength={URL_MAX_LENGTH}
          placeholder="https://app.example/jwks.json"
          autoComplete="off"
        />
      </Subform>
    </Panel>
  );
}
