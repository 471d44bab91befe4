/** Apps, callback URLs and credentials (consumer key / secret). */
import { randomBytes } from "node:crypto";
import {
  addCallbackUrl,
  callbackUrlsOf,
  createApp,
  credentialsOf,
  findApp,
  findCredential,
  listApps,
  productsOfCredential,
  removeCallbackUrl,
  rotateCredential,
  setCredentialProductStatus,
  setCredentialStatus,
  updateApp,
  type AppFilter,
} from "../../apps/management.js";
import { joinList, splitList } from "../../kernel/list.js";
import { hashSecret, newSecret } from "../../kernel/secrets.js";
import { revokeTokensOf } from "../../tokens/management.js";
import { gqlError, type AdminContext } from "../context.js";
import { check, checkOptional, v } from "../validation.js";
import { requireDeveloper } from "./organizations.js";
import type { Resolvers } from "./types.js";

/** A new consumer key: 192 random bits, 32 URL-safe characters. */
function newConsumerKey(): string {
  return randomBytes(24).toString("base64url");
}

async function requireApp(ctx: AdminContext, id: string) {
  const app = await findApp(ctx.db, id);
  if (!app) throw gqlError("NOT_FOUND", "no app with this id");
  return app;
}

async function requireCredential(ctx: AdminContext, id: string) {
  const credential = await findCredential(ctx.db, id);
  if (!credential) throw gqlError("NOT_FOUND", "no credential with this id");
  return credential;
}

interface CreateAppInput {
  developerId: string;
  name: string;
  callbackUrls?: string[];
  apiProductIds?: string[];
  accessTokenLifetimeSeconds?: number;
  refreshTokenLifetimeSeconds?: number;
  tokenResponseProfile?: "apigee" | "rfc6749";
  requirePkce?: boolean;
  canIntrospect?: boolean;
  tokenEndpointAuthMethods?: string[];
}

/** The client settings of an app (AppSettingsInput); null or absent keeps the value. */
interface AppSettingsInput {
  tokenResponseProfile?: "apigee" | "rfc6749" | null;
  requirePkce?: boolean | null;
  canIntrospect?: boolean | null;
  tokenEndpointAuthMethods?: string[] | null;
}

/** The checked client authentication methods as stored (space-separated), or undefined when not given. */
function authMethods(methods: string[] | null | undefined, field: string): string | undefined {
  const checked = checkOptional(v.authMethods, methods, field);
  return checked && joinList(checked);
}

export const appResolvers: Resolvers = {
  Query: {
    apps: (_p, a: { filter?: AppFilter; first: number; after?: string }, { db }) => listApps(db, a.filter ?? {}, check(v.first, a.first, "first"), a.after),
    app: (_p, a: { id: string }, { db }) => findApp(db, a.id),
  },
  Mutation: {
    createApp: async (_p, { input }: { input: CreateAppInput }, ctx) => {
      await requireDeveloper(ctx, input.developerId);
      const consumerKey = newConsumerKey();
      const consumerSecret = newSecret();
      const { app, credential } = await createApp(ctx.db, {
        developerId: input.developerId,
        name: check(v.name, input.name, "name"),
        callbackUrls: (input.callbackUrls ?? []).map((u, i) => check(v.callbackUrl, u, `callbackUrls.${i}`)),
        apiProductIds: input.apiProductIds ?? [],
        accessTokenLifetimeSeconds: checkOptional(v.accessTokenLifetime, input.accessTokenLifetimeSeconds, "accessTokenLifetimeSeconds"),
        refreshTokenLifetimeSeconds: checkOptional(v.refreshTokenLifetime, input.refreshTokenLifetimeSeconds, "refreshTokenLifetimeSeconds"),
        tokenResponseProfile: input.tokenResponseProfile,
        requirePkce: input.requirePkce ?? undefined,
        canIntrospect: input.canIntrospect ?? undefined,
        tokenEndpointAuthMethods: authMethods(input.tokenEndpointAuthMethods, "tokenEndpointAuthMethods"),
        consumerKey,
        consumerSecretHash: hashSecret(consumerSecret),
      });
      return { app, credential, consumerKey, consumerSecret };
    },
    addCallbackUrl: async (_p, a: { appId: string; url: string }, ctx) => {
      await requireApp(ctx, a.appId);
      await addCallbackUrl(ctx.db, a.appId, check(v.callbackUrl, a.url, "url"));
      return requireApp(ctx, a.appId);
    },
    removeCallbackUrl: async (_p, a: { appId: string; url: string }, ctx) => {
      await removeCallbackUrl(ctx.db, a.appId, a.url);
      return requireApp(ctx, a.appId);
    },
    /** Revoking an app also revokes its tokens, so they stay dead if it is approved again. */
    setAppStatus: async (_p, a: { appId: string; status: string }, ctx) => {
      await requireApp(ctx, a.appId);
      const app = await updateApp(ctx.db, a.appId, { status: a.status });
      if (a.status === "revoked") await revokeTokensOf(ctx.db, { appId: a.appId }, new Date());
      return app;
    },
    setTokenLifetimes: async (_p, a: { appId: string; input: { accessTokenLifetimeSeconds?: number; refreshTokenLifetimeSeconds?: number } }, ctx) => {
      await requireApp(ctx, a.appId);
      return updateApp(ctx.db, a.appId, {
        accessTokenLifetimeSeconds: checkOptional(v.accessTokenLifetime, a.input.accessTokenLifetimeSeconds, "accessTokenLifetimeSeconds"),
        refreshTokenLifetimeSeconds: checkOptional(v.refreshTokenLifetime, a.input.refreshTokenLifetimeSeconds, "refreshTokenLifetimeSeconds"),
      });
    },
    setAppIntrospection: async (_p, a: { appId: string; allowed: boolean }, ctx) => {
      await requireApp(ctx, a.appId);
      return updateApp(ctx.db, a.appId, { canIntrospect: a.allowed });
    },
    setAppSettings: async (_p, a: { appId: string; input: AppSettingsInput }, ctx) => {
      await requireApp(ctx, a.appId);
      const { tokenResponseProfile, requirePkce, canIntrospect, tokenEndpointAuthMethods } = a.input;
      return updateApp(ctx.db, a.appId, {
        tokenResponseProfile: tokenResponseProfile ?? undefined,
        requirePkce: requirePkce ?? undefined,
        canIntrospect: canIntrospect ?? undefined,
        tokenEndpointAuthMethods: authMethods(tokenEndpointAuthMethods, "tokenEndpointAuthMethods"),
      });
    },
    setCredentialProductStatus: async (_p, a: { credentialId: string; apiProductId: string; status: string }, ctx) => {
      await requireCredential(ctx, a.credentialId);
      await setCredentialProductStatus(ctx.db, a.credentialId, a.apiProductId, a.status);
      return requireCredential(ctx, a.credentialId);
    },
    rotateCredential: async (_p, a: { credentialId: string; graceSeconds: number }, ctx) => {
      const old = await requireCredential(ctx, a.credentialId);
      if (old.status !== "approved") throw gqlError("CONFLICT", "only an approved credential can be rotated");
      const grace = check(v.graceSeconds, a.graceSeconds, "graceSeconds");
      const consumerKey = newConsumerKey();
      const consumerSecret = newSecret();
      const credential = await rotateCredential(ctx.db, old.id, consumerKey, hashSecret(consumerSecret), grace > 0 ? new Date(Date.now() + grace * 1000) : null);
      // Without a grace period the old credential is revoked now, and so are its tokens.
      if (grace === 0) await revokeTokensOf(ctx.db, { credentialId: old.id }, new Date());
      return { app: await requireApp(ctx, old.appId), credential, consumerKey, consumerSecret };
    },
    /** Revokes the credential and the tokens issued to it. */
    revokeCredential: async (_p, a: { credentialId: string }, ctx) => {
      await requireCredential(ctx, a.credentialId);
      const credential = await setCredentialStatus(ctx.db, a.credentialId, "revoked");
      await revokeTokensOf(ctx.db, { credentialId: a.credentialId }, new Date());
      return credential;
    },
  },
  App: {
    developer: (app: { developerId: string }, _a, ctx) => requireDeveloper(ctx, app.developerId),
    callbackUrls: (app: { id: string }, _a, { db }) => callbackUrlsOf(db, app.id),
    credentials: (app: { id: string }, _a, { db }) => credentialsOf(db, app.id),
    tokenEndpointAuthMethods: (app: { tokenEndpointAuthMethods: string }) => splitList(app.tokenEndpointAuthMethods),
  },
  Credential: {
    products: async (c: { id: string }, _a, { db }) =>
      (await productsOfCredential(db, c.id)).map((p) => ({ product: p.apiProduct, status: p.status })),
  },
};
