/**
 * The product store (stores/products.ts), on Prisma: API products and APIs. Scope lists
 * are stored space-separated. Every write here empties the catalog cache (db/observed-adapter.ts).
 */
import type { Prisma } from "../../generated/prisma/client.js";
import { joinList, splitList } from "../../kernel/list.js";
import type { ConsentCheck } from "../../stores/catalog.js";
import { accessTokenFormatOf } from "../../stores/clients.js";
import type { ApiChanges, ApiProductChanges, ApiProductRecord, ApiRecord, ProductStore } from "../../stores/products.js";
import type { Executor } from "./executor.js";
import { withDomainErrors } from "./errors.js";

/** The columns of an ApiProductRecord. */
export const API_PRODUCT = { id: true, name: true, displayName: true, description: true, scopes: true, requiresSca: true, authorizationDetailsTypes: true, accessTokenFormat: true, identityProviderId: true, createdAt: true } satisfies Prisma.ApiProductSelect;
/** The columns of an ApiRecord. */
const API = { id: true, name: true, upstreamUrl: true, requiredScopes: true, passCookies: true, requiredAcr: true, maxAgeSeconds: true, consentCheck: true, createdAt: true } satisfies Prisma.ApiSelect;

/** An API product row as its record. */
export function toApiProduct(row: Prisma.ApiProductGetPayload<{ select: typeof API_PRODUCT }>): ApiProductRecord {
  return {
    ...row,
    scopes: splitList(row.scopes),
    authorizationDetailsTypes: splitList(row.authorizationDetailsTypes),
    accessTokenFormat: accessTokenFormatOf(row.accessTokenFormat),
  };
}

/** An API row as its record ("" in requiredAcr: none). */
function toApi(row: Prisma.ApiGetPayload<{ select: typeof API }>): ApiRecord {
  return { ...row, requiredScopes: splitList(row.requiredScopes), requiredAcr: row.requiredAcr === "" ? null : row.requiredAcr, consentCheck: row.consentCheck as ConsentCheck };
}

/** The product columns to write; undefined leaves a column as it is. */
function productColumns(p: ApiProductChanges) {
  return {
    name: p.name,
    displayName: p.displayName,
    description: p.description,
    scopes: p.scopes && joinList(p.scopes),
    requiresSca: p.requiresSca,
    authorizationDetailsTypes: p.authorizationDetailsTypes && joinList(p.authorizationDetailsTypes),
    accessTokenFormat: p.accessTokenFormat,
    identityProviderId: p.identityProviderId,
  };
}

/** The API columns to write; undefined leaves a column as it is, a null requiredAcr is stored as "" (none). */
function apiColumns(a: ApiChanges) {
  return {
    name: a.name,
    upstreamUrl: a.upstreamUrl,
    requiredScopes: a.requiredScopes && joinList(a.requiredScopes),
    passCookies: a.passCookies,
    requiredAcr: a.requiredAcr === null ? "" : a.requiredAcr,
    maxAgeSeconds: a.maxAgeSeconds,
    consentCheck: a.consentCheck,
  };
}

/** The product store over `x`. */
export function productStore(x: Executor): ProductStore {
  const { prisma } = x;
  return {
    async listProducts() {
      return (await prisma.apiProduct.findMany({ orderBy: { name: "asc" }, select: API_PRODUCT })).map(toApiProduct);
    },
    async productsOfIdentityProvider(identityProviderId) {
      return (await prisma.apiProduct.findMany({ where: { identityProviderId }, orderBy: { name: "asc" }, select: API_PRODUCT })).map(toApiProduct);
    },
    async apisOfProduct(apiProductId) {
      return (await prisma.apiProductApi.findMany({ where: { apiProductId }, select: { api: { select: API } } })).map((l) => toApi(l.api));
    },
    async createProduct(p) {
      const data = { ...productColumns(p), name: p.name, apis: { create: (p.apiIds ?? []).map((apiId) => ({ apiId })) } };
      return toApiProduct(await withDomainErrors(prisma.apiProduct.create({ data, select: API_PRODUCT })));
    },
    async updateProduct(id, p) {
      const apis = p.apiIds && { deleteMany: {}, create: p.apiIds.map((apiId) => ({ apiId })) };
      return toApiProduct(await withDomainErrors(prisma.apiProduct.update({ where: { id }, data: { ...productColumns(p), apis }, select: API_PRODUCT })));
    },
    async deleteProduct(id) {
      await withDomainErrors(prisma.apiProduct.delete({ where: { id }, select: { id: true } }));
    },

    async listApis() {
      return (await prisma.api.findMany({ orderBy: { name: "asc" }, select: API })).map(toApi);
    },
    async productsOfApi(apiId) {
      return (await prisma.apiProductApi.findMany({ where: { apiId }, select: { apiProduct: { select: API_PRODUCT } } })).map((l) => toApiProduct(l.apiProduct));
    },
    async createApi(a) {
      const data = { ...apiColumns(a), name: a.name, upstreamUrl: a.upstreamUrl, requiredScopes: joinList(a.requiredScopes ?? []) };
      return toApi(await withDomainErrors(prisma.api.create({ data, select: API })));
    },
    async updateApi(id, a) {
      return toApi(await withDomainErrors(prisma.api.update({ where: { id }, data: apiColumns(a), select: API })));
    },
    async deleteApi(id) {
      await withDomainErrors(prisma.api.delete({ where: { id }, select: { id: true } }));
    },

    async listScopes() {
      const [products, rows] = await Promise.all([prisma.apiProduct.findMany({ select: { scopes: true } }), prisma.scope.findMany()]);
      const descriptions = new Map(rows.map((r) => [r.name, r.description]));
      const names = [...new Set(products.flatMap((p) => splitList(p.scopes)))].sort();
      return names.map((name) => ({ name, description: descriptions.get(name) ?? "" }));
    },
    async describedScopes(names) {
      const rows = await prisma.scope.findMany({ where: { name: { in: [...names] }, description: { not: "" } }, select: { name: true } });
      return new Set(rows.map((r) => r.name));
    },
    async describeScopes(descriptions) {
      for (const { name, description } of descriptions) {
        await prisma.scope.upsert({ where: { name }, create: { name, description }, update: { description } });
      }
    },
  };
}
