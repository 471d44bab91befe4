/** API products and APIs. */
import type { ApiChanges, ApiProductChanges, ScopeDescription } from "../../stores/products.js";
import type { Resolvers, UpdateApiInput, UpdateApiProductInput } from "../generated/resolvers.js";
import { createApi, createApiProduct, deleteApi, deleteApiProduct, setScopeDescription, updateApi, updateApiProduct } from "../use-cases/products.js";
import { check, checkNullable, checkOptional, upstreamUrl, v } from "../validation.js";
import { adminEvent } from "./audit.js";
import { identityProviderId } from "./identity-providers.js";

/** The checked fields of a product input; absent ones undefined, a null or empty `identityProviderId` null (none). */
function productChanges(input: UpdateApiProductInput): ApiProductChanges & { scopeDescriptions?: ScopeDescription[] } {
  return {
    name: checkOptional(v.productName, input.name, "name"),
    displayName: checkOptional(v.name, input.displayName, "displayName"),
    description: checkOptional(v.optionalText, input.description, "description"),
    scopes: checkOptional(v.scopes, input.scopes, "scopes"),
    scopeDescriptions: checkOptional(v.scopeDescriptions, input.scopeDescriptions, "scopeDescriptions"),
    requiresSca: input.requiresSca ?? undefined,
    // GraphQL's enums check the values; each details type once.
    authorizationDetailsTypes: input.authorizationDetailsTypes ? [...new Set(input.authorizationDetailsTypes)] : undefined,
    accessTokenFormat: input.accessTokenFormat ?? undefined,
    identityProviderId: identityProviderId(input.identityProviderId),
    apiIds: input.apiIds ?? undefined,
  };
}

/**
 * The checked fields of an API input; absent ones undefined, and for the step-up fields
 * null (or an empty requiredAcr) is "none".
 * @param allowLinkLocal - ALLOW_LINK_LOCAL_UPSTREAMS (the context's allowLinkLocalUpstreams).
 */
function apiChanges(input: UpdateApiInput, allowLinkLocal: boolean): ApiChanges {
  return {
    name: checkOptional(v.apiName, input.name, "name"),
    upstreamUrl: checkOptional(upstreamUrl(allowLinkLocal), input.upstreamUrl, "upstreamUrl"),
    requiredScopes: checkOptional(v.scopes, input.requiredScopes, "requiredScopes"),
    passCookies: input.passCookies ?? undefined,
    requiredAcr: checkNullable(v.acr, input.requiredAcr, "requiredAcr", true),
    maxAgeSeconds: checkNullable(v.maxAgeSeconds, input.maxAgeSeconds, "maxAgeSeconds"),
    consentCheck: input.consentCheck ?? undefined,
  };
}

/** Resolvers of the products domain: its Query and Mutation fields and its object types' fields. */
export const productResolvers: Resolvers = {
  Query: {
    apiProducts: (_p, _a, { db }) => db.products.listProducts(),
    apis: (_p, _a, { db }) => db.products.listApis(),
    scopes: (_p, _a, { db }) => db.products.listScopes(),
  },
  Mutation: {
    createApiProduct: (_p, args, ctx, info) => {
      const { input } = args;
      const changes = productChanges(input);
      const name = check(v.productName, input.name, "name");
      return createApiProduct(ctx.db, { ...changes, name, displayName: changes.displayName ?? input.name, audit: adminEvent(args, ctx, info) });
    },
    updateApiProduct: (_p, args, ctx, info) => updateApiProduct(ctx.db, { id: args.id, ...productChanges(args.input), audit: adminEvent(args, ctx, info) }),
    deleteApiProduct: async (_p, args, ctx, info) => {
      await deleteApiProduct(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
    createApi: (_p, args, ctx, info) => {
      const { input } = args;
      const allow = ctx.allowLinkLocalUpstreams;
      return createApi(ctx.db, {
        ...apiChanges(input, allow),
        name: check(v.apiName, input.name, "name"),
        upstreamUrl: check(upstreamUrl(allow), input.upstreamUrl, "upstreamUrl"),
        audit: adminEvent(args, ctx, info),
      });
    },
    updateApi: (_p, args, ctx, info) =>
      updateApi(ctx.db, { id: args.id, ...apiChanges(args.input, ctx.allowLinkLocalUpstreams), audit: adminEvent(args, ctx, info) }),
    deleteApi: async (_p, args, ctx, info) => {
      await deleteApi(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
    setScopeDescription: (_p, args, ctx, info) => {
      const scope = check(v.scopeDescription, args.input, "input");
      return setScopeDescription(ctx.db, { ...scope, audit: adminEvent(args, ctx, info) });
    },
  },
  ApiProduct: {
    apis: (p, _a, { db }) => db.products.apisOfProduct(p.id),
    identityProvider: (p, _a, { db }) => (p.identityProviderId === null ? null : db.identityProviders.find(p.identityProviderId)),
    scopeDescriptions: async (p, _a, { db }) => {
      const descriptions = new Map((await db.products.listScopes()).map((s) => [s.name, s.description]));
      return p.scopes.map((name) => ({ name, description: descriptions.get(name) ?? "" }));
    },
  },
  Api: {
    products: (a, _a, { db }) => db.products.productsOfApi(a.id),
  },
};
