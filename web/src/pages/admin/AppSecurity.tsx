import { Can } from "../../components/Can";
import { useId, useRef, useState, type FormEvent } from "react";
import { URL_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import {
  APP_CHANGE_PREVIEW,
  SET_APP_KEYS,
  SET_APP_SETTINGS,
  type AppDetail,
  type AppSettings,
  type SecurityProfile,
  type SigningAlgorithm,
  type SubjectType,
  type TlsClientAuthParameter,
  type TokenResponseProfile,
} from "../../api/admin";
import { graphql, GraphQLRequestError } from "../../api/graphql";
import { applyMutation } from "../../lib/applyMutation";
import { ConfirmButton, ConfirmQuestion } from "../../components/ConfirmButton";
import { DataTable, type Column } from "../../components/DataTable";
import { CheckboxField, SelectField, TextAreaField } from "../../components/Field";
import { UrlField, VerbatimField } from "../../components/VerbatimFields";
import { splitLines } from "../../components/Format";
import { PanelForm, Subform } from "../../components/FormLayouts";
import { Panel } from "../../components/Panel";
import {
  authMethodsFor,
  fapi2MethodsOf,
  inputMessageAbout,
  TLS_CLIENT_AUTH_PARAMETERS,
  tlsClientAuthExample,
  tlsClientAuthInput,
  usesSigningKeys,
} from "../../lib/client-auth";
import { toggled } from "../../lib/sets";
import { FormInputError, useAction } from "../../lib/useGraphQL";
import { RequirePkceField } from "./RequirePkceField";

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

/**
 * The app's security profile (setAppSettings `securityProfile`), with what FAPI 2.0 enforces. An
 * app switching to FAPI 2.0 keeps those of its client authentication methods FAPI 2.0 allows
 * (mutual TLS, private_key_jwt); with none of them, the server gives it private_key_jwt.
 * A switch is confirmed first, after the consequences the server derives from its profile rules
 * (App.securityProfileChange: the client secret that stops working, PAR, DPoP, the live tokens).
 */
export function SecurityProfileSettings({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [profile, setProfile] = useState<SecurityProfile>(app.securityProfile);
  /** The consequences of the switch being confirmed; null when none is asked. */
  const [consequences, setConsequences] = useState<string[] | null>(null);
  /** The consequences, which the confirmation opens beside (and gives focus back to). */
  const consequencesRef = useRef<HTMLDivElement>(null);
  const consequencesId = useId();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      if (profile === app.securityProfile) return `The app has the ${securityProfileName(profile)} profile already.`;
      const { app: preview } = await graphql(APP_CHANGE_PREVIEW, { id: app.id, to: profile });
      setConsequences(preview?.securityProfileChange ?? []);
      return undefined;
    });
  }

  function onConfirm() {
    setConsequences(null);
    void action.run(async () => {
      const kept = profile === "fapi2" && app.securityProfile !== "fapi2" ? fapi2MethodsOf(app.tokenEndpointAuthMethods) : undefined;
      const input: AppSettings = { securityProfile: profile, ...(kept && { tokenEndpointAuthMethods: kept }) };
      const saved = await applyMutation(SET_APP_SETTINGS, { appId: app.id, input }, onChange);
      return profile === "fapi2"
        ? `FAPI 2.0 is on: the app now authenticates with ${saved.tokenEndpointAuthMethods.join(" or ")} only, gets RFC 6749 token responses and must use PKCE.`
        : "Standard profile is on. The client settings stayed as they were: change them below.";
    });
  }

  return (
    <PanelForm
      mutation="setAppSettings"
      title="Security profile"
      intro={
        <p className="muted small">
          FAPI 2.0 enforces pushed authorization requests (PAR), PKCE S256, client authentication with private_key_jwt or mutual TLS, and
          sender-constrained tokens (DPoP, or the client certificate); private_key_jwt needs the app's signing keys.
        </p>
      }
      action={action}
      submitLabel="Save security profile"
      onSubmit={onSubmit}
    >
      <SelectField
        label="Security profile"
        value={profile}
        onChange={(next) => {
          setProfile(next);
          setConsequences(null);
        }}
        options={SECURITY_PROFILES}
      />
      {consequences && (
        <>
          {/* The consequences come first: the confirmation opens beside them once they are in the page. */}
          <div className="confirm-step" ref={consequencesRef} tabIndex={-1}>
            <p id={consequencesId}>What switching {app.name} to {securityProfileName(profile)} changes:</p>
            <ul className="consequences" aria-labelledby={consequencesId}>
              {consequences.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          </div>
          <ConfirmQuestion
            question={`Switch ${app.name} to ${securityProfileName(profile)}?`}
            confirmLabel={`Yes, switch to ${securityProfileName(profile)}`}
            trigger={consequencesRef}
            onConfirm={onConfirm}
            onClose={() => setConsequences(null)}
          />
        </>
      )}
    </PanelForm>
  );
}

const TOKEN_RESPONSE_PROFILES = [
  { value: "apigee", label: "Apigee (the product spec's response, numbers as strings)" },
  { value: "rfc6749", label: "RFC 6749 (plain OAuth 2.0, for strict client libraries)" },
] as const;

const SIGNING_ALGORITHMS: ReadonlyArray<{ value: SigningAlgorithm; label: string }> = [
  { value: "PS256", label: "PS256 (RSASSA-PSS with SHA-256)" },
  { value: "ES256", label: "ES256 (ECDSA P-256 with SHA-256)" },
];

const SUBJECT_TYPES: ReadonlyArray<{ value: SubjectType; label: string }> = [
  { value: "public", label: "Public (the customer's own identifier)" },
  { value: "pairwise", label: "Pairwise (per sector)" },
];

/**
 * The token response profile, PKCE, introspection, client authentication methods and
 * tls_client_auth certificate name of the app, the algorithms of its signed introspection responses
 * (RFC 9701) and authorization responses (JARM), and its OpenID Connect settings: ID token signing
 * algorithm, subject identifiers, sector identifier URI, post-logout redirect URIs (one per line)
 * and nonce requirement (setAppSettings). A FAPI 2.0 app keeps RFC 6749 responses, PKCE and a
 * nonce with openid, and chooses among private_key_jwt and mutual TLS. A refused certificate name
 * (BAD_USER_INPUT on `tlsClientAuth`) is shown by its field; other refusals in the form's alert.
 */
export function ClientSettings({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [profile, setProfile] = useState<TokenResponseProfile>(app.tokenResponseProfile);
  const [requirePkce, setRequirePkce] = useState(app.requirePkce);
  const [idTokenAlg, setIdTokenAlg] = useState<SigningAlgorithm>(app.idTokenSignedResponseAlg);
  const [subjectType, setSubjectType] = useState<SubjectType>(app.subjectType);
  const [sectorUri, setSectorUri] = useState(app.sectorIdentifierUri ?? "");
  const [postLogoutUris, setPostLogoutUris] = useState(app.postLogoutRedirectUris.join("\n"));
  const [requireNonce, setRequireNonce] = useState(app.requireNonce);
  const [requireSignedRequestObject, setRequireSignedRequestObject] = useState(app.requireSignedRequestObject);
  const [canIntrospect, setCanIntrospect] = useState(app.canIntrospect);
  const [introspectionAlg, setIntrospectionAlg] = useState<SigningAlgorithm>(app.introspectionSignedResponseAlg);
  const [authorizationAlg, setAuthorizationAlg] = useState<SigningAlgorithm>(app.authorizationSignedResponseAlg);
  const [methods, setMethods] = useState(new Set(app.tokenEndpointAuthMethods));
  const [tlsParameter, setTlsParameter] = useState<TlsClientAuthParameter>(app.tlsClientAuth?.parameter ?? "tls_client_auth_subject_dn");
  const [tlsValue, setTlsValue] = useState(app.tlsClientAuth?.value ?? "");
  const [tlsError, setTlsError] = useState<string | undefined>();
  const tlsErrorId = useId();
  const fapi2 = app.securityProfile === "fapi2";
  const offered = authMethodsFor(app.securityProfile);
  const showCertificateName = methods.has("tls_client_auth") || app.tlsClientAuth !== null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setTlsError(undefined);
    void action.run(async () => {
      const tokenEndpointAuthMethods = offered.map((m) => m.value).filter((m) => methods.has(m));
      if (tokenEndpointAuthMethods.length === 0) throw new FormInputError("Choose at least one client authentication method.");
      const tlsClientAuth = showCertificateName ? tlsClientAuthInput(app.tlsClientAuth, tlsParameter, tlsValue) : undefined;
      const input: AppSettings = {
        ...(!fapi2 && { tokenResponseProfile: profile, requirePkce, requireNonce }),
        idTokenSignedResponseAlg: idTokenAlg,
        subjectType,
        sectorIdentifierUri: sectorUri.trim() || null,
        postLogoutRedirectUris: splitLines(postLogoutUris),
        canIntrospect,
        introspectionSignedResponseAlg: introspectionAlg,
        authorizationSignedResponseAlg: authorizationAlg,
        requireSignedRequestObject,
        tokenEndpointAuthMethods,
        ...(tlsClientAuth !== undefined && { tlsClientAuth }),
      };
      try {
        await applyMutation(SET_APP_SETTINGS, { appId: app.id, input }, onChange);
      } catch (err) {
        const aboutName = err instanceof GraphQLRequestError && err.code === "BAD_USER_INPUT" ? inputMessageAbout("tlsClientAuth", err.message) : undefined;
        if (aboutName === undefined) throw err;
        setTlsError(aboutName);
        throw new FormInputError("The client settings were not saved: correct the certificate name.");
      }
      return "Client settings saved. They apply to requests from now on.";
    });
  }

  return (
    <PanelForm
      mutation="setAppSettings"
      title="Client settings"
      intro={
        fapi2 && (
          <p className="muted small">
            FAPI 2.0 fixes the rest: client authentication with private_key_jwt or mutual TLS (RFC 8705) only, RFC 6749 token responses, PKCE
            required, and a nonce with every openid sign-in request.
          </p>
        )
      }
      action={action}
      submitLabel="Save client settings"
      onSubmit={onSubmit}
    >
      {!fapi2 && <SelectField label="Token response" value={profile} onChange={setProfile} options={TOKEN_RESPONSE_PROFILES} />}
      {!fapi2 && <RequirePkceField checked={requirePkce} onChange={setRequirePkce} />}
      <SelectField
        label="Authorization response algorithm"
        hint="How authorization responses are signed when the app asks for them signed (response_mode=jwt, JARM); otherwise they are plain query parameters."
        value={authorizationAlg}
        onChange={setAuthorizationAlg}
        options={SIGNING_ALGORITHMS}
      />
      <CheckboxField
        label="Require signed request objects (JAR)"
        hint="Authorization and pushed requests must come as a request object signed with the app's keys (RFC 9101); others are refused. Register the app's keys first."
        checked={requireSignedRequestObject}
        onChange={setRequireSignedRequestObject}
      />
      <fieldset className="fieldset wide">
        <legend>OpenID Connect</legend>
        <p className="hint">How the app signs customers in with the openid scope: its ID tokens, the identifier it gets for a customer, and logout.</p>
        <SelectField
          label="ID token algorithm"
          hint="How the app's ID tokens are signed (OpenID Connect). PS256 is the usual choice of open-banking ecosystems; ES256 is cheaper to sign."
          value={idTokenAlg}
          onChange={setIdTokenAlg}
          options={SIGNING_ALGORITHMS}
        />
        <SelectField
          label="Subject identifiers"
          hint="The customer identifier (sub) in ID tokens and UserInfo. Pairwise gives each sector its own, so unrelated apps cannot match customers; changing it changes the identifier the app sees."
          value={subjectType}
          onChange={setSubjectType}
          options={SUBJECT_TYPES}
        />
        <UrlField
          label="Sector identifier URI"
          hint="For pairwise identifiers: an https URL whose host is the app's sector, shared by the apps that should see one identifier. Empty: the host of the callback URLs."
          value={sectorUri}
          onChange={setSectorUri}
          placeholder="https://tpp.example/sector.json"
        />
        <TextAreaField
          label="Post-logout redirect URIs"
          hint="One per line. Where the bank may send the customer after signing out at the app's request (RP-Initiated Logout), matched exactly: https (http only on localhost)."
          value={postLogoutUris}
          onChange={setPostLogoutUris}
          placeholder="https://app.example/signed-out"
        />
        {!fapi2 && (
          <CheckboxField
            label="Require nonce with openid"
            hint="Sign-in requests with the openid scope must carry a nonce, which the ID token repeats; without one they are refused (invalid_request)."
            checked={requireNonce}
            onChange={setRequireNonce}
          />
        )}
      </fieldset>
      <CheckboxField
        label="May introspect tokens"
        hint="For resource servers: the app may call the introspection endpoint (RFC 7662)."
        checked={canIntrospect}
        onChange={setCanIntrospect}
      />
      {canIntrospect && (
        <SelectField
          label="Introspection response algorithm"
          hint="How introspection responses are signed when the app asks for a JWT (RFC 9701, Accept: application/token-introspection+jwt); otherwise it gets plain JSON."
          value={introspectionAlg}
          onChange={setIntrospectionAlg}
          options={SIGNING_ALGORITHMS}
        />
      )}
      <fieldset className="fieldset wide">
        <legend>Client authentication</legend>
        <p className="hint">How the app may prove its identity; one method per request.</p>
        {offered.map((m) => (
          <CheckboxField key={m.value} label={m.label} hint={m.hint} checked={methods.has(m.value)} onChange={(on) => setMethods((prev) => toggled(prev, m.value, on))} />
        ))}
      </fieldset>
      {showCertificateName && (
        <fieldset className="fieldset wide">
          <legend>Certificate name (tls_client_auth)</legend>
          <p className="hint">
            The name the app's TLS client certificate must carry (RFC 8705 §2.1.2): its subject DN, or a DNS name, URI, IP address or email address
            among its subject alternative names. Clear the value to remove it.
          </p>
          <SelectField label="Name type" value={tlsParameter} onChange={setTlsParameter} options={TLS_CLIENT_AUTH_PARAMETERS} />
          <VerbatimField
            label="Value"
            value={tlsValue}
            onChange={setTlsValue}
            maxLength={URL_MAX_LENGTH}
            placeholder={tlsClientAuthExample(tlsParameter)}
            describedBy={tlsError ? tlsErrorId : undefined}
            aria-invalid={tlsError ? true : undefined}
          />
          {tlsError && (
            <p id={tlsErrorId} className="inline-alert">
              {tlsError}
            </p>
          )}
        </fieldset>
      )}
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
 * The app's public signing keys for private_key_jwt and self_signed_tls_client_auth
 * (setAppKeys): the registered JWK Set's keys or the jwks_uri, a form to register or replace
 * them (a rotation: the old keys stop working at once) and "Remove keys" while the app does not
 * use them (neither of those methods: the server refuses that removal).
 */
export function SigningKeys({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [jwks, setJwks] = useState("");
  const [jwksUri, setJwksUri] = useState("");
  const hasKeys = app.jwks !== null || app.jwksUri !== null;
  const keysInUse = usesSigningKeys(app.tokenEndpointAuthMethods);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const set = jwks.trim();
    const uri = jwksUri.trim();
    void action.run(async () => {
      if (set !== "" && uri !== "") throw new FormInputError("Paste a JWK Set or enter a jwks_uri, not both.");
      if (set === "" && uri === "") throw new FormInputError("Paste a JWK Set or enter a jwks_uri.");
      await applyMutation(SET_APP_KEYS, set !== "" ? { appId: app.id, jwks: set } : { appId: app.id, jwksUri: uri }, onChange);
      setJwks("");
      setJwksUri("");
      return hasKeys ? "Signing keys replaced: the old keys no longer verify the app's client assertions." : "Signing keys registered.";
    }, "save");
  }

  function remove() {
    void action.run(async () => {
      await applyMutation(SET_APP_KEYS, { appId: app.id }, onChange);
      return "Signing keys removed.";
    }, "remove");
  }

  return (
    <Panel
      title="Signing keys"
      actions={
        hasKeys &&
        !keysInUse && (
          <Can mutation="setAppKeys">
            <ConfirmButton
              label="Remove keys"
              question="Remove the app's signing keys? It can then use neither private_key_jwt nor self_signed_tls_client_auth."
              confirmLabel="Yes, remove the keys"
              {...action.button("remove")}
              onConfirm={remove}
            />
          </Can>
        )
      }
    >
      <p className="muted small">
        Public keys that verify the app's client assertions (private_key_jwt) and self-signed TLS client certificates (self_signed_tls_client_auth). The
        private keys stay with the app.
      </p>
      {app.jwksUri !== null ? (
        <p>
          Published by the app at <code>{app.jwksUri}</code> (jwks_uri).
        </p>
      ) : (
        <DataTable caption="Registered signing keys" columns={KEY_COLUMNS} rows={listedKeys(app.jwks)} rowKey={(k) => k.number} empty="No signing keys are registered." />
      )}
      <Subform mutation="setAppKeys" title={hasKeys ? "Replace the keys (rotation)" : "Register keys"} action={action} submitLabel="Save signing keys" onSubmit={onSubmit}>
        <TextAreaField
          label="JWK Set (JSON)"
          hint='{"keys": [...]}: 1 to 10 public keys for ES256 (EC P-256), PS256 (RSA of 2048 bits or more) or EdDSA (Ed25519).'
          rows={6}
          value={jwks}
          onChange={setJwks}
        />
        <UrlField label="Or a jwks_uri" hint="Where the app publishes its JWK Set: https (http only on localhost)." value={jwksUri} onChange={setJwksUri} placeholder="https://app.example/jwks.json" />
      </Subform>
    </Panel>
  );
}
