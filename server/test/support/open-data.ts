/**
 * An API that a client credentials token may call: account data needs the PSU
 * (gateway/access.ts: a consent the PSU approved, or the PSU's SCA), so suites whose point is
 * the gateway's handling of a token (its app, credential, products, binding, revocation,
 * counts) call this API instead, where no PSU is needed, like an Open Data API (branches,
 * products) beside a bank's PSD2 APIs.
 */
import type { TestServer } from "./server.js";

/** The gateway path of the API {@link addOpenDataApi} makes. */
export const OPEN_DATA = "/open-data/";

/**
 * Adds the API `open-data` to a seeded test server: no consent check, scope `aisp`, granted by
 * PSD2-AISP-v1 (so every demo app with that product reaches it), in front of the demo
 * upstream's `/echo/`, which answers with the request it received.
 * @param upstreamUrl - another upstream (default: the demo upstream's `/echo`).
 */
export async function addOpenDataApi(server: TestServer, upstreamUrl = `${server.demoUpstreamUrl}/echo`): Promise<void> {
  const product = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
  await server.prisma.api.create({ data: { name: "open-data", upstreamUrl, requiredScopes: "aisp", products: { create: [{ apiProductId: product.id }] } } });
}
