/**
 * Apps, their callback URLs and credentials, as the admin API manages them.
 */
import type { Db } from "../db/client.js";
import { paginate, substringSearch } from "../db/paginate.js";

export interface AppFilter {
  search?: string | null;
  developerId?: string | null;
  organizationId?: string | null;
  status?: string | null;
}

export async function listApps(db: Db, filter: AppFilter, first: number, after?: string | null) {
  const search = filter.search ? substringSearch(db, filter.search) : undefined;
  const where = {
    ...(search ? { name: search.where } : {}),
    ...(filter.developerId ? { developerId: filter.developerId } : {}),
    ...(filter.organizationId ? { developer: { organizationId: filter.organizationId } } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  return paginate((args) => db.app.findMany({ ...args, where }), first, after, "asc", (app) => search?.matches(app.name) ?? true);
}

export async function findApp(db: Db, id: string) {
  return db.app.findUnique({ where: { id } });
}

export async function appsOfDeveloper(db: Db, developerId: string) {
  return db.app.findMany({ where: { developerId }, orderBy: { name: "asc" } });
}

export async function callbackUrlsOf(db: Db, appId: string): Promise<string[]> {
  return (await db.callbackUrl.findMany({ where: { appId }, orderBy: { createdAt: "asc" } })).map((c) => c.url);
}

export async function credentialsOf(db: Db, appId: string) {
  return db.credential.findMany({ where: { appId }, orderBy: { createdAt: "asc" } });
}

export async function findCredential(db: Db, id: string) {
  return db.credential.findUnique({ where: { id } });
}

export async function productsOfCredential(db: Db, credentialId: string) {
  return db.credentialProduct.findMany({ where: { credentialId }, include: { apiProduct: true }, orderBy: { apiProduct: { name: "asc" } } });
}

/** An app's client settings: on creation a field left out takes its default, on update it keeps its value. */
export interface AppSettings {
  /** Seconds. */
  accessTokenLifetimeSeconds?: number;
  /** Seconds. */
  refreshTokenLifetimeSeconds?: number;
  tokenResponseProfile?: string;
  requirePkce?: boolean;
  canIntrospect?: boolean;
  /** Space-separated client authentication methods (RFC 7591 names). */
  tokenEndpointAuthMethods?: string;
}

export interface NewApp extends AppSettings {
  developerId: string;
  name: string;
  callbackUrls: string[];
  apiProductIds: string[];
  consumerKey: string;
  /** SHA-256 hex of the consumer secret. */
  consumerSecretHash: string;
}

/** Creates an app with its callback URLs and first credential, approved for the given products, in one transaction. */
export async function createApp(db: Db, a: NewApp) {
  return db.$transaction(async (tx) => {
    const app = await tx.app.create({
      data: {
        developerId: a.developerId,
        name: a.name,
        accessTokenLifetimeSeconds: a.accessTokenLifetimeSeconds,
        refreshTokenLifetimeSeconds: a.refreshTokenLifetimeSeconds,
        tokenResponseProfile: a.tokenResponseProfile,
        requirePkce: a.requirePkce,
        canIntrospect: a.canIntrospect,
        tokenEndpointAuthMethods: a.tokenEndpointAuthMethods,
        callbackUrls: { create: a.callbackUrls.map((url) => ({ url })) },
      },
    });
    const credential = await tx.credential.create({
      data: {
        appId: app.id,
        consumerKey: a.consumerKey,
        consumerSecretHash: a.consumerSecretHash,
        products: { create: a.apiProductIds.map((apiProductId) => ({ apiProductId })) },
      },
    });
    return { app, credential };
  });
}

export async function addCallbackUrl(db: Db, appId: string, url: string) {
  await db.callbackUrl.upsert({ where: { appId_url: { appId, url } }, create: { appId, url }, update: {} });
}

export async function removeCallbackUrl(db: Db, appId: string, url: string) {
  await db.callbackUrl.deleteMany({ where: { appId, url } });
}

/**
 * Changes an app's status or settings; undefined fields keep their value.
 * @throws Prisma P2025 when no app has this id.
 */
export async function updateApp(db: Db, id: string, data: AppSettings & { status?: string }) {
  return db.app.update({ where: { id }, data });
}

/** Sets an API product's status on a credential, adding the product if it was not there. */
export async function setCredentialProductStatus(db: Db, credentialId: string, apiProductId: string, status: string) {
  await db.credentialProduct.upsert({
    where: { credentialId_apiProductId: { credentialId, apiProductId } },
    create: { credentialId, apiProductId, status },
    update: { status },
  });
}

/**
 * Replaces a credential by a new one with the same products (approved), in one transaction.
 * The old credential is revoked now, or stays valid until `oldExpiresAt`.
 */
export async function rotateCredential(db: Db, credentialId: string, consumerKey: string, consumerSecretHash: string, oldExpiresAt: Date | null) {
  return db.$transaction(async (tx) => {
    const old = await tx.credential.findUniqueOrThrow({ where: { id: credentialId }, include: { products: true } });
    const credential = await tx.credential.create({
      data: {
        appId: old.appId,
        consumerKey,
        consumerSecretHash,
        products: { create: old.products.map((p) => ({ apiProductId: p.apiProductId, status: p.status })) },
      },
    });
    await tx.credential.update({ where: { id: credentialId }, data: oldExpiresAt ? { expiresAt: oldExpiresAt } : { status: "revoked" } });
    return credential;
  });
}

export async function setCredentialStatus(db: Db, id: string, status: string) {
  return db.credential.update({ where: { id }, data: { status } });
}
