/**
 * Apps and their credentials, as the OAuth endpoints see them (RFC 6749 §2 clients).
 */
import type { Db } from "../db/client.js";
import { parseClientAuthMethods, type ClientAuthMethod } from "../oauth/auth-methods.js";
import { splitList } from "../kernel/list.js";

/** Token response format of an app: the spec's Apigee format, or strict RFC 6749. */
export type TokenResponseProfile = "apigee" | "rfc6749";

/** An app's credential with everything the token endpoint needs, joined in one query. */
export interface ClientRecord {
  /** The consumer key (OAuth `client_id`). */
  clientId: string;
  credentialId: string;
  /** SHA-256 hex of the consumer secret. */
  consumerSecretHash: string;
  /** approved | revoked */
  credentialStatus: string;
  /** End of the credential's validity (rotation grace period), if any. */
  credentialExpiresAt: Date | null;
  appId: string;
  appName: string;
  /** approved | revoked */
  appStatus: string;
  organizationName: string;
  developerEmail: string;
  tokenResponseProfile: TokenResponseProfile;
  /** Seconds. */
  accessTokenLifetimeSeconds: number;
  /** Seconds. */
  refreshTokenLifetimeSeconds: number;
  requirePkce: boolean;
  /** May call the introspection endpoint (RFC 7662). */
  canIntrospect: boolean;
  /** Client authentication methods the app may use (RFC 6749 §2.3.1); default client_secret_basic only. */
  tokenEndpointAuthMethods: ClientAuthMethod[];
  /** API products approved on this credential, with their scopes. */
  products: { name: string; scopes: string[] }[];
  /** Registered redirect URIs, matched exactly. */
  callbackUrls: string[];
}

/** Loads a credential by id or consumer key, joined in one Prisma query. */
async function loadClient(db: Db, where: { consumerKey: string } | { id: string }): Promise<ClientRecord | undefined> {
  const c = await db.credential.findUnique({
    where,
    include: {
      products: { where: { status: "approved" }, include: { apiProduct: true }, orderBy: { apiProduct: { name: "asc" } } },
      app: { include: { developer: { include: { organization: true } }, callbackUrls: true } },
    },
  });
  if (!c) return undefined;
  const { app } = c;
  return {
    clientId: c.consumerKey,
    credentialId: c.id,
    consumerSecretHash: c.consumerSecretHash,
    credentialStatus: c.status,
    credentialExpiresAt: c.expiresAt,
    appId: app.id,
    appName: app.name,
    appStatus: app.status,
    organizationName: app.developer.organization.name,
    developerEmail: app.developer.email,
    tokenResponseProfile: app.tokenResponseProfile === "rfc6749" ? "rfc6749" : "apigee",
    accessTokenLifetimeSeconds: app.accessTokenLifetimeSeconds,
    refreshTokenLifetimeSeconds: app.refreshTokenLifetimeSeconds,
    requirePkce: app.requirePkce,
    canIntrospect: app.canIntrospect,
    tokenEndpointAuthMethods: parseClientAuthMethods(splitList(app.tokenEndpointAuthMethods)),
    products: c.products.map((p) => ({ name: p.apiProduct.name, scopes: splitList(p.apiProduct.scopes) })),
    callbackUrls: app.callbackUrls.map((u) => u.url),
  };
}

/** The catalog cache key of a client by consumer key. */
const byConsumerKey = (consumerKey: string) => `client:${consumerKey}`;

/**
 * Finds a credential by consumer key with its app, developer, organization, approved
 * products and callback URLs (catalog cache, db/catalog-cache.ts).
 * @returns undefined when no credential has this key.
 */
export function findClientByConsumerKey(db: Db, consumerKey: string): Promise<ClientRecord | undefined> {
  return db.catalog.get(byConsumerKey(consumerKey), () => loadClient(db, { consumerKey }));
}

/**
 * The record {@link findClientByConsumerKey} would answer from the catalog cache right now,
 * without loading anything.
 * @returns undefined when the cache holds no fresh entry for this key.
 */
export function cachedClientByConsumerKey(db: Db, consumerKey: string): Promise<ClientRecord | undefined> | undefined {
  return db.catalog.peek(byConsumerKey(consumerKey));
}

/**
 * The SHA-256 hex of the consumer secret of the credential with this key, read from the
 * database, never from the cache: one prepared, indexed read that costs the same whether
 * or not the key exists (client authentication, oauth/client-auth.ts).
 * @returns undefined when no credential has this key.
 */
export async function findConsumerSecretHash(db: Db, consumerKey: string): Promise<string | undefined> {
  const row = await db.sql.get<{ consumerSecretHash: string }>(`SELECT "consumerSecretHash" FROM "Credential" WHERE "consumerKey" = ?`, [consumerKey]);
  return row?.consumerSecretHash;
}

/** Like {@link findClientByConsumerKey}, by credential id (a token's credential). */
export function findClientByCredentialId(db: Db, credentialId: string): Promise<ClientRecord | undefined> {
  return db.catalog.get(`credential:${credentialId}`, () => loadClient(db, { id: credentialId }));
}

/** An app's name, organization and status, for display and status checks. @returns undefined when unknown. */
export async function findAppSummary(db: Db, appId: string): Promise<{ name: string; organizationName: string; status: string } | undefined> {
  const app = await db.app.findUnique({ where: { id: appId }, include: { developer: { include: { organization: true } } } });
  return app ? { name: app.name, organizationName: app.developer.organization.name, status: app.status } : undefined;
}
