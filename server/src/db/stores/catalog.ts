/**
 * The gateway's and the metadata's view of the catalog (stores/catalog.ts): API routes
 * held in the catalog cache, and the described scope names.
 */
import { splitList } from "../../kernel/list.js";
import type { CatalogStore, ConsentCheck } from "../../stores/catalog.js";
import type { Executor } from "./executor.js";

/** The catalog store over `x`. */
export function catalogStore(x: Executor): CatalogStore {
  const { prisma, catalog } = x;
  return {
    apiRoute: (name) =>
      catalog.get(`api:${name}`, async () => {
        const api = await prisma.api.findUnique({ where: { name }, include: { products: { include: { apiProduct: true } } } });
        if (!api) return undefined;
        const url = new URL(api.upstreamUrl);
        return {
          name: api.name,
          upstream: { origin: url.origin, basePath: url.pathname.replace(/\/$/, "") },
          requiredScopes: splitList(api.requiredScopes),
          productNames: api.products.map((p) => p.apiProduct.name),
          passCookies: api.passCookies,
          requiredAcr: api.requiredAcr === "" ? null : api.requiredAcr,
          maxAgeSeconds: api.maxAgeSeconds,
          consentCheck: api.consentCheck as ConsentCheck,
        };
      }),
    authorizationDetailsTypes: () =>
      catalog.get("authorization-details-types", async () => {
        const products = await prisma.apiProduct.findMany({ select: { authorizationDetailsTypes: true } });
        return [...new Set(products.flatMap((p) => splitList(p.authorizationDetailsTypes)))].sort();
      }),
    async scopeNames() {
      return (await prisma.scope.findMany({ orderBy: { name: "asc" }, select: { name: true } })).map((s) => s.name);
    },
  };
}
