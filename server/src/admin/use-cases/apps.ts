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
import { auditedChange, found, type Audited } from "./common.js";

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
 * Creates an app with its callback URLs and its first credential, approved for the API
 * products `apiProductIds`; settings left out take their defaults.
 * @throws NotFound for an unknown developer, Conflict when the developer has an app of this name, UnknownReference for an unknown product.
 */
export function createApp(
  db: Database,
  o: AppSettings & { developerId: string; name: string; callbackUrls: string[]; apiProductIds: string[] } & Audited,
): Promise<IssuedCredential> {
  const { audit, apiProductIds, ...app } = o;
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

/** Approves or revokes an app; revoking also revokes all its tokens. @throws NotFound */
export function setAppStatus(db: Database, o: { appId: string; status: "approved" | "revoked" } & Audited): Promise<AppRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const app = await stores.apps.update(o.appId, { status: o.status });
    if (o.status === "revoked") await stores.tokens.revokeTokensOf({ appId: o.appId }, new Date());
    return app;
  });
}

/**
 * Changes an app's client settings (token lifetimes, response profile, PKCE, introspection,
 * authentication methods); undefined keeps a setting. They apply to requests from now on.
 * @throws NotFound
 */
export function updateAppSettings(db: Database, o: { appId: string } & AppSettings & Audited): Promise<AppRecord> {
  const { appId, audit, ...settings } = o;
  return auditedChange(db, audit, (stores) => stores.apps.update(appId, settings));
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
      await stores.tokens.revokeTokensOf({ credentialId: old.id }, now);
    }
    return { app: await requireApp(stores, old.appId), credential, consumerKey, consumerSecret };
  });
}

/** Revokes a credential and the tokens issued to it. @throws NotFound */
export function revokeCredential(db: Database, o: { credentialId: string } & Audited): Promise<CredentialRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    const credential = await stores.apps.updateCredential(o.credentialId, { status: "revoked" });
    await stores.tokens.revokeTokensOf({ credentialId: o.credentialId }, new Date());
    return credential;
  });
}
