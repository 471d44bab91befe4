/**
 * The client store (stores/clients.ts): credentials joined with their app, developer,
 * organization, approved products and callback URLs in one Prisma query, held in the
 * catalog cache; the secret hash read by one prepared statement, never from the cache.
 */
import { parseClientAuthMethods } from "../../kernel/auth-methods.js";
import { splitList } from "../../kernel/list.js";
import type { ClientRecord, ClientStore, JwkSet } from "../../stores/clients.js";
import type { Executor } from "./executor.js";

/** The catalog cache key of a client by consumer key. */
const byConsumerKey = (consumerKey: string) => `client:${consumerKey}`;

/** The client store over `x`. */
export function clientStore(x: Executor): ClientStore {
  const { prisma, sql, catalog } = x;

  /** Loads a credential by id or consumer key, joined in one Prisma query. */
  async function load(where: { consumerKey: string } | { id: string }): Promise<ClientRecord | undefined> {
    const c = await prisma.credential.findUnique({
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
      securityProfile: app.securityProfile === "fapi2" ? "fapi2" : "standard",
      jwks: app.jwks === "" ? null : (JSON.parse(app.jwks) as JwkSet),
      jwksUri: app.jwksUri,
      tlsClientAuth: app.tlsClientAuthParameter && app.tlsClientAuthValue ? { parameter: app.tlsClientAuthParameter, value: app.tlsClientAuthValue } : null,
      products: c.products.map((p) => ({ name: p.apiProduct.name, scopes: splitList(p.apiProduct.scopes), requiresSca: p.apiProduct.requiresSca, authorizationDetailsTypes: splitList(p.apiProduct.authorizationDetailsTypes) })),
      callbackUrls: app.callbackUrls.map((u) => u.url),
    };
  }

  return {
    byConsumerKey: (consumerKey) => catalog.get(byConsumerKey(consumerKey), () => load({ consumerKey })),
    cachedByConsumerKey: (consumerKey) => catalog.peek(byConsumerKey(consumerKey)),
    async consumerSecretHash(consumerKey) {
      const row = await sql.get<{ consumerSecretHash: string }>(`SELECT "consumerSecretHash" FROM "Credential" WHERE "consumerKey" = ?`, [consumerKey]);
      return row?.consumerSecretHash;
    },
    byCredentialId: (credentialId) => catalog.get(`credential:${credentialId}`, () => load({ id: credentialId })),
    async appSummary(appId) {
      const app = await prisma.app.findUnique({ where: { id: appId }, include: { developer: { include: { organization: true } } } });
      if (!app) return undefined;
      const { organization } = app.developer;
      return { name: app.name, organizationName: organization.displayName || organization.name, status: app.status, refreshTokenLifetimeSeconds: app.refreshTokenLifetimeSeconds };
    },
  };
}
