/**
 * Admin use cases of apps and their credentials. Each runs in one transaction with the
 * token revocations it takes and its audit event (common.ts). Tokens are checked against
 * their app, credential and products on every use, so what is revoked here stops working
 * at once; revoking the tokens too keeps them dead if the app or credential is approved again.
 */
import { randomBytes } from "node:crypto";
import { Conflict } from "../../kernel/domain-errors.js";
import { hashSecret, newSecret } from "../../kernel/secrets.js";
import type { AppRecord, AppSettings, CredentialRecord } from "../../stores/apps.js";
import type { Database, Stores } from "../../stores/index.js";
import { FAPI2_AUTH_METHODS } from "../../kernel/auth-methods.js";
import { inputError } from "../validation.js";
import { auditedChange, found, revocationBy, type Audited } from "./common.js";
import { checkIdentityProvider } from "./identity-providers.js";
import { registeredSoftwareOf } from "../../registration/clients.js";

/** A credential as issued: its consumer secret, shown this once and stored only as its SHA-256. */
export interface IssuedCredential {
  app: AppRecord;
  credential: CredentialRecord;
  /** The OAuth client_id. */
  consumerKey: string;
  /** The OAuth client_secret. */
  consumerSecret: string;
}

/** A new consumer key (192 random bits, 32 URL-safe characters) and secret (kernel/secrets.ts newSecret). */
function newKeyPair() {
  const consumerSecret = newSecret();
  return { consumerKey: randomBytes(24).toString("base64url"), consumerSecret, consumerSecretHash: hashSecret(consumerSecret) };
}

const requireApp = (stores: Stores, id: string) => found(stores.apps.find(id), "no app with this id");
const requireCredential = (stores: Stores, id: string) => found(stores.apps.findCredential(id), "no credential with this id");

/**
 * What a `fapi2` app is held to (FAPI 2.0 Security Profile §5.3.2.1: private_key_jwt only;
 * §5.3.2.2: PKCE) and, for Tollgate's fapi2 token response (oauth/token-response.ts), the
 * RFC 6749 profile. Switching an app to fapi2 sets them.
 */
const FAPI2_SETTINGS: Required<Pick<AppSettings, "tokenEndpointAuthMethods" | "tokenResponseProfile" | "requirePkce">> = {
  tokenEndpointAuthMethods: ["private_key_jwt"],
  tokenResponseProfile: "rfc6749",
  requirePkce: true,
};

/** What private_key_jwt and self_signed_tls_client_auth need and how to give it. */
const KEYS_FIRST = "needs the app's public signing keys: register a JWK Set or a jwks_uri first (setAppKeys)";
/** The methods that verify with the app's registered keys. */
const KEYED_METHODS = ["private_key_jwt", "self_signed_tls_client_auth"];
/** Why tls_client_auth cannot be allowed yet. */
const NO_TLS_NAME = "tls_client_auth needs the name the app's certificate carries: set tlsClientAuth first (RFC 8705 section 2.1.2)";

/** Why a required signed request object cannot be verified (RFC 9101 §6.2: with the client's keys). */
const NO_REQUEST_OBJECT_KEYS =
  "signed request objects (RFC 9101) are verified with the app's public signing keys: register a JWK Set or a jwks_uri first (setAppKeys), and keep them while requireSignedRequestObject is on";

/** The settings that must hold together: the security profile, what it fixes, the keys and the certificate name the methods and request objects need. */
type ProfileSettings = Pick<
  AppRecord,
  "securityProfile" | "tokenEndpointAuthMethods" | "tokenResponseProfile" | "requirePkce" | "requireSignedRequestObject" | "jwks" | "jwksUri" | "tlsClientAuth"
>;

/**
 * Why an app's settings cannot hold together, by the setting at fault: private_key_jwt or
 * self_signed_tls_client_auth without registered keys (`keys`), tls_client_auth without a
 * certificate name (`tlsClientAuth`), signed request objects required without registered keys
 * (`requireSignedRequestObject`), or a fapi2 app with a method other than private_key_jwt
 * and mutual TLS, or whose token response profile or PKCE requirement is not {@link FAPI2_SETTINGS}'.
 * @returns undefined when they hold together.
 */
function settingsProblem(app: ProfileSettings): { setting: "keys" | "tlsClientAuth" | "requireSignedRequestObject" | keyof typeof FAPI2_SETTINGS; message: string } | undefined {
  const hasKeys = app.jwks !== null || app.jwksUri !== null;
  const methods = app.tokenEndpointAuthMethods;
  if (app.securityProfile === "fapi2") {
    if (methods.length === 0 || methods.some((m) => !(FAPI2_AUTH_METHODS as readonly string[]).includes(m))) {
      return {
        setting: "tokenEndpointAuthMethods",
        message: "a fapi2 app authenticates with private_key_jwt or mutual TLS only (FAPI 2.0 Security Profile section 5.3.2.1); switch it to standard first",
      };
    }
    if (app.tokenResponseProfile !== FAPI2_SETTINGS.tokenResponseProfile) {
      return { setting: "tokenResponseProfile", message: "a fapi2 app gets RFC 6749 token responses (rfc6749), not the apigee format; switch it to standard first" };
    }
    if (!app.requirePkce) return { setting: "requirePkce", message: "a fapi2 app must use PKCE (FAPI 2.0 Security Profile section 5.3.2.2); switch it to standard first" };
  }
  const keyed = methods.find((m) => KEYED_METHODS.includes(m));
  if (keyed && !hasKeys) return { setting: "keys", message: app.securityProfile === "fapi2" ? `a fapi2 app authenticates with ${keyed}, which ${KEYS_FIRST}` : `${keyed} ${KEYS_FIRST}` };
  if (methods.includes("tls_client_auth") && !app.tlsClientAuth) return { setting: "tlsClientAuth", message: NO_TLS_NAME };
  if (app.requireSignedRequestObject && !hasKeys) return { setting: "requireSignedRequestObject", message: NO_REQUEST_OBJECT_KEYS };
  return undefined;
}

/**
 * Checks that `app` holds together (see {@link settingsProblem}).
 * @param keysField - the argument a missing key is reported on.
 * @throws BAD_USER_INPUT naming the setting at fault.
 */
function checkSettings(app: ProfileSettings, keysField: string): void {
  const problem = settingsProblem(app);
  if (problem) throw inputError(problem.setting === "keys" ? keysField : problem.setting, problem.message);
}

/**
 * The changes to write to `app` for `settings`: those given (undefined keeps a setting) and,
 * on a switch to fapi2, {@link FAPI2_SETTINGS} for those left out.
 */
function changesOf(app: AppRecord, settings: AppSettings): AppSettings {
  const given = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as AppSettings;
  const switching = settings.securityProfile === "fapi2" && app.securityProfile !== "fapi2";
  return switching ? { ...FAPI2_SETTINGS, ...given } : given;
}

/**
 * Creates an app with its callback URLs and its first credential, approved for the API
 * products `apiProductIds`; settings left out take their defaults. A new app has no keys:
 * it cannot allow private_key_jwt yet.
 * @throws NotFound for an unknown developer, Conflict when the developer has an app of this name, UnknownReference for an unknown product, BAD_USER_INPUT for private_key_jwt, self_signed_tls_client_auth or tls_client_auth (set their keys or certificate name after creation).
 */
export function createApp(
  db: Database,
  o: AppSettings & { developerId: string; name: string; callbackUrls: string[]; apiProductIds: string[] } & Audited,
): Promise<IssuedCredential> {
  const { audit, apiProductIds, ...app } = o;
  const problem = settingsProblem({ securityProfile: "standard", tokenEndpointAuthMethods: app.tokenEndpointAuthMethods ?? [], tokenResponseProfile: "", requirePkce: true, requireSignedRequestObject: false, jwks: null, jwksUri: null, tlsClientAuth: null });
  if (problem) throw inputError("tokenEndpointAuthMethods", problem.message);
  const { consumerKey, consumerSecret, consumerSecretHash } = newKeyPair();
  return auditedChange(db, audit, async (stores) => {
    await found(stores.organizations.findDeveloper(o.developerId), "no developer with this id");
    const created = await stores.apps.create({ ...app, credential: { consumerKey, consumerSecretHash, products: apiProductIds.map((apiProductId) => ({ apiProductId })) } });
    return { ...created, consumerKey, consumerSecret };
  });
}

/** Registers a redirect URI of an app (nothing when already there). @returns the app. @throws NotFound */
export function addCallbackUrl(db: Database, o: { appId: string; url: string } & Audited): Promise<AppRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const app = await requireApp(stores, o.appId);
    await stores.apps.addCallbackUrl(o.appId, o.url);
    return app;
  });
}

/** Removes a redirect URI of an app (nothing when not there). @returns the app. @throws NotFound */
export function removeCallbackUrl(db: Database, o: { appId: string; url: string } & Audited): Promise<AppRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const app = await requireApp(stores, o.appId);
    await stores.apps.removeCallbackUrl(o.appId, o.url);
    return app;
  });
}

/**
 * Approves or revokes an app; revoking also revokes all its tokens. A dynamically registered app
 * holds its software id while it is not revoked: revoking (or rejecting) frees it for a new
 * registration of the organization, approving takes it again (decisions.md "Dynamic client registration").
 * @throws NotFound; Conflict when approving a revoked registration whose software another registration of its organization now holds.
 */
export function setAppStatus(db: Database, o: { appId: string; status: "approved" | "revoked" } & Audited): Promise<AppRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const software = await registeredSoftwareOf(stores, await requireApp(stores, o.appId));
    const held = o.status === "revoked" ? null : software;
    const app = await stores.apps.update(o.appId, { status: o.status, ...(software ? { software: held } : {}) }).catch((error: unknown) => {
      if (error instanceof Conflict) throw new Conflict("another registration of this organization holds this software id now: approve that one, or revoke it first");
      throw error;
    });
    if (o.status === "revoked") await stores.tokens.revokeTokensOf({ appId: o.appId }, revocationBy(o.audit));
    return app;
  });
}

/**
 * Changes an app's client settings (token lifetimes, response profile, PKCE, introspection,
 * authentication methods, security profile, and the OpenID Connect ones: ID token signing
 * algorithm, subject type, sector identifier URI, post-logout redirect URIs, nonce requirement;
 * the signed request object requirement, RFC 9101, which needs the app's keys; and the
 * identity provider its PSUs sign in at, null for none);
 * undefined keeps a setting. They apply to requests from now on (the token endpoint and
 * /authorize read the app through the catalog cache, which this write empties). Switching to fapi2 also sets what
 * `FAPI2_SETTINGS` holds unless given; back to standard keeps the settings as they are.
 * @throws NotFound; BAD_USER_INPUT when the settings would not hold together: private_key_jwt
 *   or fapi2 without the app's keys, or a fapi2 app with other methods, the apigee profile or
 *   without PKCE; or for an unknown identity provider.
 */
export function updateAppSettings(db: Database, o: { appId: string } & AppSettings & Audited): Promise<AppRecord> {
  const { appId, audit, ...settings } = o;
  return auditedChange(db, audit, async (stores) => {
    const app = await requireApp(stores, appId);
    const changes = changesOf(app, settings);
    checkSettings({ ...app, ...changes }, settings.securityProfile === "fapi2" ? "securityProfile" : "tokenEndpointAuthMethods");
    await checkIdentityProvider(stores, changes.identityProviderId);
    return stores.apps.update(appId, changes);
  });
}

/**
 * Registers, replaces (rotates) or removes an app's public signing keys (private_key_jwt,
 * RFC 7523 §2.2): a JWK Set or a jwks_uri, never both (RFC 7591 §2); both null removes the
 * keys. The token endpoint reads the app's keys through the catalog cache, which this write
 * empties (db/observed-adapter.ts): the old keys stop verifying assertions on the next request.
 * Revokes nothing: tokens issued before stay valid.
 * @param o - `jwks`: the checked JSON text of a public JWK Set (oauth/jwks.ts parsePublicJwks);
 *   `jwksUri`: a checked URL (validation.ts `v.jwksUri`).
 * @throws NotFound; BAD_USER_INPUT when removing the keys of an app that is fapi2, allows private_key_jwt
 *   or requires signed request objects.
 */
export function setAppKeys(db: Database, o: { appId: string; jwks: string | null; jwksUri: string | null } & Audited): Promise<AppRecord> {
  const keys = { jwks: o.jwks, jwksUri: o.jwksUri };
  return auditedChange(db, o.audit, async (stores) => {
    checkSettings({ ...(await requireApp(stores, o.appId)), ...keys }, "jwks");
    return stores.apps.update(o.appId, keys);
  });
}

/**
 * Sets an API product's status on a credential (approved | pending | revoked), adding the
 * product if it was not there. @returns the credential.
 * @throws NotFound for an unknown credential, UnknownReference for an unknown product.
 */
export function setCredentialProductStatus(db: Database, o: { credentialId: string; apiProductId: string; status: string } & Audited): Promise<CredentialRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const credential = await requireCredential(stores, o.credentialId);
    await stores.apps.setProductStatus(o.credentialId, o.apiProductId, o.status);
    return credential;
  });
}

/**
 * Replaces an approved credential by a new one with the same products. The old one stays
 * valid for `graceSeconds`; with 0 it is revoked now, and so are its tokens.
 * @throws NotFound, Conflict when the credential is not approved.
 */
export function rotateCredential(db: Database, o: { credentialId: string; graceSeconds: number } & Audited): Promise<IssuedCredential> {
  const { consumerKey, consumerSecret, consumerSecretHash } = newKeyPair();
  return auditedChange(db, o.audit, async (stores) => {
    const old = await requireCredential(stores, o.credentialId);
    if (old.status !== "approved") throw new Conflict("only an approved credential can be rotated");
    const products = (await stores.apps.productsOfCredential(old.id)).map((p) => ({ apiProductId: p.product.id, status: p.status }));
    const credential = await stores.apps.addCredential(old.appId, { consumerKey, consumerSecretHash, products });
    const now = new Date();
    if (o.graceSeconds > 0) {
      await stores.apps.updateCredential(old.id, { expiresAt: new Date(now.getTime() + o.graceSeconds * 1000) });
    } else {
      await stores.apps.updateCredential(old.id, { status: "revoked" });
      await stores.tokens.revokeTokensOf({ credentialId: old.id }, revocationBy(o.audit, now));
    }
    return { app: await requireApp(stores, old.appId), credential, consumerKey, consumerSecret };
  });
}

/** Revokes a credential and the tokens issued to it. @throws NotFound */
export function revokeCredential(db: Database, o: { credentialId: string } & Audited): Promise<CredentialRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const credential = await stores.apps.updateCredential(o.credentialId, { status: "revoked" });
    await stores.tokens.revokeTokensOf({ credentialId: o.credentialId }, revocationBy(o.audit));
    return credential;
  });
}

/**
 * Renames an app. @returns the app.
 * @param o - `name`: checked as at creation (validation.ts `v.name`).
 * @throws NotFound, Conflict when its developer has an app of this name.
 */
export function renameApp(db: Database, o: { appId: string; name: string } & Audited): Promise<AppRecord> {
  return db.transaction(async (stores) => {
    const app = await requireApp(stores, o.appId);
    const renamed = await stores.apps.update(o.appId, { name: o.name });
    await stores.audit.record({ ...o.audit, details: { ...o.audit.details, previousName: app.name } });
    return renamed;
  });
}

/** What deleting an app did: the live access tokens it revoked before removing them. */
export interface DeletedApp {
  id: string;
  revokedTokens: number;
}

/**
 * Deletes an app: revokes its live tokens (so a cached token is refused at once, and the
 * revocation is recorded), then removes the app with its callback URLs, credentials (consumer
 * keys and secrets, their products), tokens, authorization codes, scope consents,
 * interactions and pushed requests (database cascade). Kept: its PSD2 consents and
 * authorization evidence (the bank's records; no relation to the app), the gateway traffic
 * counted for its consumer keys, and the audit log, whose `admin.deleteApp` event keeps the
 * app's name, organization and consumer keys (`details.app`) so earlier events naming its id
 * or keys still read.
 * @throws NotFound for an unknown app.
 */
export function deleteApp(db: Database, o: { appId: string } & Audited): Promise<DeletedApp> {
  return db.transaction(async (stores) => {
    const app = await requireApp(stores, o.appId);
    const developer = await stores.organizations.findDeveloper(app.developerId);
    const organization = developer && (await stores.organizations.find(developer.organizationId));
    const consumerKeys = (await stores.apps.credentials(app.id)).map((c) => c.consumerKey);
    const revokedTokens = await stores.tokens.revokeTokensOf({ appId: app.id }, revocationBy(o.audit));
    await stores.apps.delete(app.id);
    const named = { name: app.name, developerId: app.developerId, organizationName: organization ? organization.displayName || organization.name : "", consumerKeys };
    await stores.audit.record({ ...o.audit, details: { ...o.audit.details, app: named, revokedTokens } });
    return { id: app.id, revokedTokens };
  });
}
