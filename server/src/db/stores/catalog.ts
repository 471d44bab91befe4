/**
 * The gateway's and the metadata's view of the catalog (stores/catalog.ts): API routes read
 * by prepared statements and held in the catalog cache, and the described scope names.
 */
import { splitList } from "../../kernel/list.js";
import type { CatalogStore, ConsentCheck } from "../../stores/catalog.js";
import { booleanOf, type Row } from "../sql.js";
import type { Executor } from "./executor.js";

/** A row of the Api table, as the gateway's route needs it. */
interface ApiRow extends Row {
  id: string;
  name: string;
  upstreamUrl: string;
  requiredScopes: string;
  passCookies: unknown;
  requiredAcr: string;
  maxAgeSeconds: number | null;
  consentCheck: string;
}

/** The catalog store over `x`. */
export function catalogStore(x: Executor): CatalogStore {
  const { prisma, sql, catalog } = x;
  return {
    apiRoute: (name) =>
      catalog.get(`api:${name}`, async () => {
        // Prepared statements: a cache miss and each refresh of the catalog cache run them.
        const api = await sql.get<ApiRow>(`SELECT "id", "name", "upstreamUrl", "requiredScopes", "passCookies", "requiredAcr", "maxAgeSeconds", "consentCheck" FROM "Api" WHERE "name" = ?`, [name]);
        if (!api) return undefined;
        const products = await sql.all<{ name: string }>(
          `SELECT p."name" FROM "ApiProductApi" x JOIN "ApiProduct" p ON p."id" = x."apiProductId" WHERE x."apiId" = ? ORDER BY p."name"`,
          [api.id],
        );
        const url = new URL(api.upstreamUrl);
        return {
          name: api.name,
          upstream: { origin: url.origin, basePath: url.pathname.replace(/\/$/, "") },
          requiredScopes: splitList(api.requiredScopes),
          productNames: products.map((p) => p.name),
          passCookies: booleanOf(api.passCookies),
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
