/**
 * API products and APIs, as the admin API manages them. Scope lists are stored
 * space-separated.
 */
import type { Db } from "../db/client.js";
import { joinList } from "../kernel/list.js";

export async function listApiProducts(db: Db) {
  return db.apiProduct.findMany({ orderBy: { name: "asc" } });
}

export async function findApiProduct(db: Db, id: string) {
  return db.apiProduct.findUnique({ where: { id } });
}

export async function apisOfProduct(db: Db, apiProductId: string) {
  return (await db.apiProductApi.findMany({ where: { apiProductId }, include: { api: true } })).map((l) => l.api);
}

export async function productsOfApi(db: Db, apiId: string) {
  return (await db.apiProductApi.findMany({ where: { apiId }, include: { apiProduct: true } })).map((l) => l.apiProduct);
}

export interface ApiProductData {
  name?: string;
  displayName?: string;
  description?: string;
  scopes?: string[];
  /** Replaces the product's APIs when given. */
  apiIds?: string[];
}

function productColumns(p: ApiProductData) {
  return {
    name: p.name,
    displayName: p.displayName,
    description: p.description,
    scopes: p.scopes === undefined ? undefined : joinList(p.scopes),
  };
}

export async function createApiProduct(db: Db, p: ApiProductData & { name: string }) {
  return db.apiProduct.create({ data: { ...productColumns(p), name: p.name, apis: { create: (p.apiIds ?? []).map((apiId) => ({ apiId })) } } });
}

export async function updateApiProduct(db: Db, id: string, p: ApiProductData) {
  return db.$transaction(async (tx) => {
    if (p.apiIds !== undefined) {
      await tx.apiProductApi.deleteMany({ where: { apiProductId: id } });
      await tx.apiProductApi.createMany({ data: p.apiIds.map((apiId) => ({ apiProductId: id, apiId })) });
    }
    return tx.apiProduct.update({ where: { id }, data: productColumns(p) });
  });
}

export async function deleteApiProduct(db: Db, id: string) {
  await db.apiProduct.delete({ where: { id } });
}

export async function listApis(db: Db) {
  return db.api.findMany({ orderBy: { name: "asc" } });
}

export interface ApiData {
  name?: string;
  upstreamUrl?: string;
  requiredScopes?: string[];
  /** Forward the upstream's Set-Cookie to callers (default false: dropped). */
  passCookies?: boolean;
}

export async function createApi(db: Db, a: ApiData & { name: string; upstreamUrl: string }) {
  return db.api.create({ data: { name: a.name, upstreamUrl: a.upstreamUrl, requiredScopes: joinList(a.requiredScopes ?? []), passCookies: a.passCookies } });
}

export async function updateApi(db: Db, id: string, a: ApiData) {
  return db.api.update({
    where: { id },
    data: {
      name: a.name,
      upstreamUrl: a.upstreamUrl,
      requiredScopes: a.requiredScopes === undefined ? undefined : joinList(a.requiredScopes),
      passCookies: a.passCookies,
    },
  });
}

export async function deleteApi(db: Db, id: string) {
  await db.api.delete({ where: { id } });
}
