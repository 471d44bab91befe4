/**
 * The app store (stores/apps.ts), on Prisma: apps, callback URLs, credentials and the API
 * products on credentials. Every write here empties the catalog cache (db/observed-adapter.ts),
 * which holds the clients the token endpoint reads.
 */
import type { Prisma } from "../../generated/prisma/client.js";
import { joinList, splitList } from "../../kernel/list.js";
import { isCleanText } from "../../kernel/text.js";
import type { AppRecord, AppSettings, AppStore, NewCredential } from "../../stores/apps.js";
import { paginate, substringSearch } from "../paginate.js";
import type { Executor } from "./executor.js";
import { withDomainErrors } from "./errors.js";
import { API_PRODUCT, toApiProduct } from "./products.js";

/** The columns of an AppRecord (its methods list still space-separated). */
const APP = {
  id: true,
  name: true,
  developerId: true,
  status: true,
  accessTokenLifetimeSeconds: true,
  refreshTokenLifetimeSeconds: true,
  tokenResponseProfile: true,
  requirePkce: true,
  requireNonce: true,
  requireSignedRequestObject: true,
  canIntrospect: true,
  tokenEndpointAuthMethods: true,
  securityProfile: true,
  jwks: true,
  jwksUri: true,
  tlsClientAuthParameter: true,
  tlsClientAuthValue: true,
  idTokenSignedResponseAlg: true,
  introspectionSignedResponseAlg: true,
  authorizationSignedResponseAlg: true,
  subjectType: true,
  sectorIdentifierUri: true,
  postLogoutRedirectUris: true,
  identityProviderId: true,
  registration: true,
  createdAt: true,
} satisfies Prisma.AppSelect;
/** An app's columns and the consumer keys of its credentials, which the app search matches too. */
const APP_WITH_KEYS = { ...APP, credentials: { select: { consumerKey: true } } } satisfies Prisma.AppSelect;
/** The columns of a CredentialRecord: never the secret's hash. */
const CREDENTIAL = { id: true, appId: true, consumerKey: true, status: true, expiresAt: true, createdAt: true } satisfies Prisma.CredentialSelect;

/**
 * An app row as its record (no JWK Set is stored as ""; an ID token, introspection or
 * authorization response algorithm other than ES256 reads as PS256, a subject type other than pairwise as public, as clients.ts reads them; the
 * post-logout redirect URIs are stored space-separated, as clients.ts splits them).
 */
function toApp({ tlsClientAuthParameter: parameter, tlsClientAuthValue: value, ...row }: Prisma.AppGetPayload<{ select: typeof APP }>): AppRecord {
  return {
    ...row,
    tlsClientAuth: parameter && value ? { parameter, value } : null,
    tokenEndpointAuthMethods: splitList(row.tokenEndpointAuthMethods),
    securityProfile: row.securityProfile === "fapi2" ? "fapi2" : "standard",
    jwks: row.jwks === "" ? null : row.jwks,
    idTokenSignedResponseAlg: row.idTokenSignedResponseAlg === "ES256" ? "ES256" : "PS256",
    introspectionSignedResponseAlg: row.introspectionSignedResponseAlg === "ES256" ? "ES256" : "PS256",
    authorizationSignedResponseAlg: row.authorizationSignedResponseAlg === "ES256" ? "ES256" : "PS256",
    subjectType: row.subjectType === "pairwise" ? "pairwise" : "public",
    postLogoutRedirectUris: splitList(row.postLogoutRedirectUris),
  };
}

/** The settings columns to write; undefined leaves a column as it is (or takes its default). */
function settingsColumns(s: AppSettings) {
  return {
    accessTokenLifetimeSeconds: s.accessTokenLifetimeSeconds,
    refreshTokenLifetimeSeconds: s.refreshTokenLifetimeSeconds,
    tokenResponseProfile: s.tokenResponseProfile,
    requirePkce: s.requirePkce,
    requireNonce: s.requireNonce,
    requireSignedRequestObject: s.requireSignedRequestObject,
    canIntrospect: s.canIntrospect,
    tokenEndpointAuthMethods: s.tokenEndpointAuthMethods && joinList(s.tokenEndpointAuthMethods),
    securityProfile: s.securityProfile,
    jwks: s.jwks === null ? "" : s.jwks,
    jwksUri: s.jwksUri,
    tlsClientAuthParameter: s.tlsClientAuth === undefined ? undefined : (s.tlsClientAuth?.parameter ?? null),
    tlsClientAuthValue: s.tlsClientAuth === undefined ? undefined : (s.tlsClientAuth?.value ?? null),
    idTokenSignedResponseAlg: s.idTokenSignedResponseAlg,
    introspectionSignedResponseAlg: s.introspectionSignedResponseAlg,
    authorizationSignedResponseAlg: s.authorizationSignedResponseAlg,
    subjectType: s.subjectType,
    sectorIdentifierUri: s.sectorIdentifierUri,
    postLogoutRedirectUris: s.postLogoutRedirectUris && joinList(s.postLogoutRedirectUris),
    identityProviderId: s.identityProviderId,
  };
}

/** A nested create of a credential with its products. */
function credentialColumns(c: NewCredential) {
  return { consumerKey: c.consumerKey, consumerSecretHash: c.consumerSecretHash, products: { create: c.products } };
}

/** The app store over `x`. */
export function appStore(x: Executor): AppStore {
  const { prisma, provider } = x;
  return {
    async list(f, page) {
      const search = f.search ? substringSearch(provider, f.search) : undefined;
      // The name or a consumer key of any of its credentials, current or revoked.
      const where = {
        ...(search ? { OR: [{ name: search.where }, { credentials: { some: { consumerKey: search.where } } }] } : {}),
        ...(f.developerId ? { developerId: f.developerId } : {}),
        ...(f.organizationId ? { developer: { organizationId: f.organizationId } } : {}),
        ...(f.status ? { status: f.status } : {}),
      };
      const found = (app: Prisma.AppGetPayload<{ select: typeof APP_WITH_KEYS }>) =>
        !search || search.matches(app.name) || app.credentials.some((c) => search.matches(c.consumerKey));
      const rows = await paginate((args) => prisma.app.findMany({ ...args, where, select: APP_WITH_KEYS }), page, "asc", found);
      return { ...rows, nodes: rows.nodes.map(({ credentials: _credentials, ...app }) => toApp(app)) };
    },
    async find(id) {
      // An id PostgreSQL cannot hold (kernel/text.ts) names no app.
      if (!isCleanText(id)) return undefined;
      const row = await prisma.app.findUnique({ where: { id }, select: APP });
      return row ? toApp(row) : undefined;
    },
    async ofDeveloper(developerId) {
      return (await prisma.app.findMany({ where: { developerId }, orderBy: { name: "asc" }, select: APP })).map(toApp);
    },
    async ofIdentityProvider(identityProviderId) {
      return (await prisma.app.findMany({ where: { identityProviderId }, orderBy: { name: "asc" }, select: APP })).map(toApp);
    },
    async create(a) {
      const row = await withDomainErrors(
        prisma.app.create({
          data: {
            ...settingsColumns(a),
            ...a.registered,
            ...(a.software ? { registeredOrganizationId: a.software.organizationId, softwareId: a.software.softwareId } : {}),
            status: a.status,
            developerId: a.developerId,
            name: a.name,
            callbackUrls: { create: a.callbackUrls.map((url) => ({ url })) },
            credentials: { create: [credentialColumns(a.credential)] },
          },
          select: { ...APP, credentials: { select: CREDENTIAL } },
        }),
      );
      const { credentials, ...app } = row;
      return { app: toApp(app), credential: credentials[0]! };
    },
    async update(id, changes) {
      const { software } = changes;
      const softwareColumns = software === null ? { softwareId: null } : software ? { registeredOrganizationId: software.organizationId, softwareId: software.softwareId } : {};
      const data = { ...settingsColumns(changes), ...changes.registered, ...softwareColumns, status: changes.status, name: changes.name };
      return toApp(await withDomainErrors(prisma.app.update({ where: { id }, data, select: APP }), "no app with this id"));
    },
    async findBySoftware({ organizationId, softwareId }) {
      const row = await prisma.app.findUnique({ where: { registeredOrganizationId_softwareId: { registeredOrganizationId: organizationId, softwareId } }, select: APP });
      return row ? toApp(row) : undefined;
    },
    countWithStatus: (status) => prisma.app.count({ where: { status } }),
    async delete(id) {
      await withDomainErrors(prisma.app.delete({ where: { id }, select: { id: true } }), "no app with this id");
    },
    async registrationAccessTokenHash(appId) {
      return (await prisma.app.findUnique({ where: { id: appId }, select: { registrationAccessTokenHash: true } }))?.registrationAccessTokenHash ?? undefined;
    },

    async callbackUrls(appId) {
      return (await prisma.callbackUrl.findMany({ where: { appId }, orderBy: { createdAt: "asc" }, select: { url: true } })).map((c) => c.url);
    },
    async addCallbackUrl(appId, url) {
      await withDomainErrors(prisma.callbackUrl.upsert({ where: { appId_url: { appId, url } }, create: { appId, url }, update: {}, select: { id: true } }));
    },
    async removeCallbackUrl(appId, url) {
      await prisma.callbackUrl.deleteMany({ where: { appId, url } });
    },

    credentials: (appId) => prisma.credential.findMany({ where: { appId }, orderBy: { createdAt: "asc" }, select: CREDENTIAL }),
    async findCredential(id) {
      return (await prisma.credential.findUnique({ where: { id }, select: CREDENTIAL })) ?? undefined;
    },
    addCredential: (appId, c) => withDomainErrors(prisma.credential.create({ data: { appId, ...credentialColumns(c) }, select: CREDENTIAL })),
    updateCredential: (id, data) => withDomainErrors(prisma.credential.update({ where: { id }, data, select: CREDENTIAL }), "no credential with this id"),
    async productsOfCredential(credentialId) {
      const rows = await prisma.credentialProduct.findMany({
        where: { credentialId },
        orderBy: { apiProduct: { name: "asc" } },
        select: { status: true, apiProduct: { select: API_PRODUCT } },
      });
      return rows.map((p) => ({ product: toApiProduct(p.apiProduct), status: p.status }));
    },
    async setProductStatus(credentialId, apiProductId, status) {
      await withDomainErrors(
        prisma.credentialProduct.upsert({
          where: { credentialId_apiProductId: { credentialId, apiProductId } },
          create: { credentialId, apiProductId, status },
          update: { status },
          select: { status: true },
        }),
      );
    },
  };
}
