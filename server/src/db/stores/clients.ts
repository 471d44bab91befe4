/**
 * The client store (stores/clients.ts): credentials joined with their app, developer,
 * organization, approved products and callback URLs by prepared statements, held in the
 * catalog cache; the secret hash read by one prepared statement, never from the cache.
 */
import { parseClientAuthMethods } from "../../kernel/auth-methods.js";
import { splitList } from "../../kernel/list.js";
import { accessTokenFormatOf, type ClientRecord, type ClientStore, type JwkSet } from "../../stores/clients.js";
import { booleanOf, nullableDateOf, type Row } from "../sql.js";
import type { Executor } from "./executor.js";

/** A credential joined with its app, developer and organization. */
interface CredentialRow extends Row {
  id: string;
  consumerKey: string;
  consumerSecretHash: string;
  credentialStatus: string;
  expiresAt: unknown;
  appId: string;
  appName: string;
  appStatus: string;
  tokenResponseProfile: string;
  idTokenSignedResponseAlg: string;
  authorizationSignedResponseAlg: string;
  introspectionSignedResponseAlg: string;
  subjectType: string;
  sectorIdentifierUri: string | null;
  postLogoutRedirectUris: string;
  accessTokenLifetimeSeconds: number;
  refreshTokenLifetimeSeconds: number;
  requirePkce: unknown;
  requireNonce: unknown;
  requireSignedRequestObject: unknown;
  identityProviderId: string | null;
  canIntrospect: unknown;
  tokenEndpointAuthMethods: string;
  securityProfile: string;
  jwks: string;
  jwksUri: string | null;
  tlsClientAuthParameter: string | null;
  tlsClientAuthValue: string | null;
  developerEmail: string;
  organizationName: string;
}

const CREDENTIAL_SELECT = `SELECT c."id", c."consumerKey", c."consumerSecretHash", c."status" AS "credentialStatus", c."expiresAt",
  a."id" AS "appId", a."name" AS "appName", a."status" AS "appStatus", a."tokenResponseProfile", a."idTokenSignedResponseAlg", a."authorizationSignedResponseAlg", a."introspectionSignedResponseAlg", a."subjectType", a."sectorIdentifierUri", a."postLogoutRedirectUris", a."accessTokenLifetimeSeconds",
  a."refreshTokenLifetimeSeconds", a."requirePkce", a."requireNonce", a."requireSignedRequestObject", a."identityProviderId", a."canIntrospect", a."tokenEndpointAuthMethods", a."securityProfile", a."jwks",
  a."jwksUri", a."tlsClientAuthParameter", a."tlsClientAuthValue", d."email" AS "developerEmail", o."name" AS "organizationName"
FROM "Credential" c JOIN "App" a ON a."id" = c."appId" JOIN "Developer" d ON d."id" = a."developerId" JOIN "Organization" o ON o."id" = d."organizationId"`;

/** An approved product of a credential. */
interface ProductRow extends Row {
  name: string;
  scopes: string;
  requiresSca: unknown;
  authorizationDetailsTypes: string;
  accessTokenFormat: string;
  identityProviderId: string | null;
}

const PRODUCTS_SELECT = `SELECT p."name", p."scopes", p."requiresSca", p."authorizationDetailsTypes", p."accessTokenFormat", p."identityProviderId"
FROM "CredentialProduct" cp JOIN "ApiProduct" p ON p."id" = cp."apiProductId"
WHERE cp."credentialId" = ? AND cp."status" = 'approved' ORDER BY p."name"`;

/** The catalog cache key of a client by consumer key. */
const byConsumerKey = (consumerKey: string) => `client:${consumerKey}`;

/** The client store over `x`. */
export function clientStore(x: Executor): ClientStore {
  const { prisma, sql, catalog } = x;

  /**
   * Loads a credential by id or consumer key with its app, developer and organization, its
   * approved products and its app's callback URLs: three prepared statements (a cache miss
   * and each refresh of the catalog cache run them; as one Prisma query with includes they
   * cost about a millisecond of CPU, once a second per client and instance).
   */
  async function load(where: { consumerKey: string } | { id: string }): Promise<ClientRecord | undefined> {
    const [column, value] = "consumerKey" in where ? ['"consumerKey"', where.consumerKey] : ['"id"', where.id];
    const c = await sql.get<CredentialRow>(`${CREDENTIAL_SELECT} WHERE c.${column} = ?`, [value]);
    if (!c) return undefined;
    const [products, callbackUrls] = await Promise.all([
      sql.all<ProductRow>(PRODUCTS_SELECT, [c.id]),
      sql.all<{ url: string }>(`SELECT "url" FROM "CallbackUrl" WHERE "appId" = ? ORDER BY "url"`, [c.appId]),
    ]);
    return {
      clientId: c.consumerKey,
      credentialId: c.id,
      consumerSecretHash: c.consumerSecretHash,
      credentialStatus: c.credentialStatus,
      credentialExpiresAt: nullableDateOf(c.expiresAt),
      appId: c.appId,
      appName: c.appName,
      appStatus: c.appStatus,
      organizationName: c.organizationName,
      developerEmail: c.developerEmail,
      tokenResponseProfile: c.tokenResponseProfile === "rfc6749" ? "rfc6749" : "apigee",
      idTokenSignedResponseAlg: c.idTokenSignedResponseAlg === "ES256" ? "ES256" : "PS256",
      authorizationSignedResponseAlg: c.authorizationSignedResponseAlg === "ES256" ? "ES256" : "PS256",
      introspectionSignedResponseAlg: c.introspectionSignedResponseAlg === "ES256" ? "ES256" : "PS256",
      subjectType: c.subjectType === "pairwise" ? "pairwise" : "public",
      sectorIdentifierUri: c.sectorIdentifierUri,
      postLogoutRedirectUris: splitList(c.postLogoutRedirectUris),
      accessTokenLifetimeSeconds: c.accessTokenLifetimeSeconds,
      refreshTokenLifetimeSeconds: c.refreshTokenLifetimeSeconds,
      requirePkce: booleanOf(c.requirePkce),
      requireNonce: booleanOf(c.requireNonce),
      requireSignedRequestObject: booleanOf(c.requireSignedRequestObject),
      identityProviderId: c.identityProviderId,
      canIntrospect: booleanOf(c.canIntrospect),
      tokenEndpointAuthMethods: parseClientAuthMethods(splitList(c.tokenEndpointAuthMethods)),
      securityProfile: c.securityProfile === "fapi2" ? "fapi2" : "standard",
      jwks: c.jwks === "" ? null : (JSON.parse(c.jwks) as JwkSet),
      jwksUri: c.jwksUri,
      tlsClientAuth: c.tlsClientAuthParameter && c.tlsClientAuthValue ? { parameter: c.tlsClientAuthParameter, value: c.tlsClientAuthValue } : null,
      products: products.map((p) => ({ name: p.name, scopes: splitList(p.scopes), requiresSca: booleanOf(p.requiresSca), authorizationDetailsTypes: splitList(p.authorizationDetailsTypes),
        accessTokenFormat: accessTokenFormatOf(p.accessTokenFormat),
        identityProviderId: p.identityProviderId,
      })),
      callbackUrls: callbackUrls.map((u) => u.url),
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
