/**
 * Loads a {@link CatalogSeed} into an empty database, in one transaction.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import type { CatalogSeed } from "../stores/seed.js";

/**
 * Loads `seed` when the database has no organization yet. Otherwise points the seed's APIs
 * that are still there at the seed's upstream URLs: the demo upstreams take new ports at each
 * start (the payments API always, the accounts API with DEMO_UPSTREAM_PORT=0), and an API left
 * on the previous start's port would answer every call 502.
 * @returns true when it was loaded now.
 */
export async function loadSeed(prisma: PrismaClient, seed: CatalogSeed): Promise<boolean> {
  if ((await prisma.organization.count()) > 0) {
    for (const { name, upstreamUrl } of seed.apis) await prisma.api.updateMany({ where: { name, upstreamUrl: { not: upstreamUrl } }, data: { upstreamUrl } });
    return false;
  }
  await prisma.$transaction(async (tx) => {
    await tx.scope.createMany({ data: Object.entries(seed.scopes).map(([name, description]) => ({ name, description })) });
    const apis = new Map<string, string>();
    for (const a of seed.apis) apis.set(a.name, (await tx.api.create({ data: a })).id);
    const products = new Map<string, string>();
    for (const { apis: names, ...p } of seed.products) {
      const product = await tx.apiProduct.create({ data: { ...p, apis: { create: names.map((name) => ({ apiId: apis.get(name)! })) } } });
      products.set(p.name, product.id);
    }
    const organization = await tx.organization.create({ data: seed.organization });
    const developer = await tx.developer.create({ data: { ...seed.developer, organizationId: organization.id } });
    for (const { callbackUrls, consumerKey, consumerSecretHash, products: names, ...app } of seed.apps) {
      await tx.app.create({
        data: {
          ...app,
          developerId: developer.id,
          callbackUrls: { create: callbackUrls.map((url) => ({ url })) },
          credentials: { create: [{ consumerKey, consumerSecretHash, products: { create: names.map((name) => ({ apiProductId: products.get(name)! })) } }] },
        },
      });
    }
    for (const { totpSecret, ...user } of seed.users) {
      await tx.user.create({ data: { ...user, factors: { create: totpSecret ? [{ type: "totp", name: "Authenticator app", secret: totpSecret }] : [] } } });
    }
  });
  return true;
}
