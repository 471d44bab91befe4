/**
 * APIs behind the gateway and the API products that grant them.
 */
import type { Db } from "../db/client.js";
import { splitList } from "../kernel/list.js";

/** A protected API as the gateway needs it. */
export interface ApiRoute {
  name: string;
  /**
   * Where calls are forwarded, from the API's absolute http(s) upstream URL, parsed once
   * when the route is loaded: its origin, and its path without a trailing slash (prefixed
   * to every forwarded path).
   */
  upstream: { origin: string; basePath: string };
  /** Scopes a token must all carry to call this API. */
  requiredScopes: string[];
  /** Names of the API products that grant this API. */
  productNames: string[];
  /** Whether the upstream's `Set-Cookie` reaches the caller; when false it is dropped (gateway/forward.ts). */
  passCookies: boolean;
}

/**
 * Finds the API served under gateway path prefix `name` (catalog cache, db/catalog-cache.ts).
 * @returns undefined when no API has this name.
 */
export function findApiByName(db: Db, name: string): Promise<ApiRoute | undefined> {
  return db.catalog.get(`api:${name}`, async () => {
    const api = await db.api.findUnique({ where: { name }, include: { products: { include: { apiProduct: true } } } });
    if (!api) return undefined;
    const url = new URL(api.upstreamUrl);
    return {
      name: api.name,
      upstream: { origin: url.origin, basePath: url.pathname.replace(/\/$/, "") },
      requiredScopes: splitList(api.requiredScopes),
      productNames: api.products.map((p) => p.apiProduct.name),
      passCookies: api.passCookies,
    };
  });
}

/** Names of all described scopes, sorted. */
export async function listScopeNames(db: Db): Promise<string[]> {
  return (await db.scope.findMany({ orderBy: { name: "asc" }, select: { name: true } })).map((s) => s.name);
}
