/** The bank's identity providers: the list, their settings (never the client secret), and what Tollgate's side of them is. */
import type { CreateIdentityProviderInput, InputMaybe, Resolvers, UpdateIdentityProviderInput } from "../generated/resolvers.js";
import { createIdentityProvider, deleteIdentityProvider, updateIdentityProvider, type IdentityProviderChanges } from "../use-cases/identity-providers.js";
import { check, checkNullable, checkOptional, v } from "../validation.js";
import { adminEvent } from "./audit.js";

/**
 * The checked fields of an identity provider input; absent ones undefined, a null or empty
 * customer number claim null (`sub`), a null or empty client secret undefined (none given).
 * @throws BAD_USER_INPUT naming the first invalid field.
 */
function providerChanges(input: UpdateIdentityProviderInput): IdentityProviderChanges {
  return {
    name: checkOptional(v.identityProviderName, input.name, "name"),
    issuer: checkOptional(v.issuer, input.issuer, "issuer"),
    clientId: checkOptional(v.upstreamClientId, input.clientId, "clientId"),
    clientAuthMethod: input.clientAuthMethod ?? undefined,
    clientSecret: input.clientSecret === "" ? undefined : checkOptional(v.upstreamClientSecret, input.clientSecret, "clientSecret"),
    scopes: checkOptional(v.scopes, input.scopes, "scopes"),
    customerNumberClaim: checkNullable(v.claimName, input.customerNumberClaim, "customerNumberClaim", true),
    scaAcrValues: checkOptional(v.acrValues, input.scaAcrValues, "scaAcrValues"),
  };
}

/** The checked settings of a new identity provider, with their defaults: scopes [openid], no customer number claim, no SCA acr values. */
function newProvider(input: CreateIdentityProviderInput) {
  const changes = providerChanges(input);
  return {
    ...changes,
    name: check(v.identityProviderName, input.name, "name"),
    issuer: check(v.issuer, input.issuer, "issuer"),
    clientId: check(v.upstreamClientId, input.clientId, "clientId"),
    clientAuthMethod: input.clientAuthMethod,
    scopes: changes.scopes ?? ["openid"],
    customerNumberClaim: changes.customerNumberClaim ?? null,
    scaAcrValues: changes.scaAcrValues ?? [],
  };
}

/**
 * The identity provider a setting names, as given: undefined when left out (kept), null when
 * null or empty (none). Its existence is checked by the use case.
 */
export function identityProviderId(id: InputMaybe<string> | undefined): string | null | undefined {
  return id === undefined ? undefined : id || null;
}

/** Resolvers of the identity providers. */
export const identityProviderResolvers: Resolvers = {
  Query: {
    identityProviders: (_p, _a, { db }) => db.identityProviders.list(),
    identityProvider: (_p, a, { db }) => db.identityProviders.find(a.id),
  },
  Mutation: {
    createIdentityProvider: (_p, args, ctx, info) => createIdentityProvider(ctx.db, ctx.federation, { ...newProvider(args.input), audit: adminEvent(args, ctx, info) }),
    updateIdentityProvider: (_p, args, ctx, info) =>
      updateIdentityProvider(ctx.db, ctx.federation, { id: args.id, ...providerChanges(args.input), audit: adminEvent(args, ctx, info) }),
    deleteIdentityProvider: async (_p, args, ctx, info) => {
      await deleteIdentityProvider(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
  },
  IdentityProvider: {
    hasClientSecret: (p) => p.clientSecret !== null,
    redirectUri: (_p, _a, { federation }) => federation.redirectUri,
    jwksUri: (_p, _a, { jwksUri }) => jwksUri,
    apps: (p, _a, { db }) => db.apps.ofIdentityProvider(p.id),
    apiProducts: (p, _a, { db }) => db.products.productsOfIdentityProvider(p.id),
  },
};
