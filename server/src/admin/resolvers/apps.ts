/** Apps, callback URLs, signing keys and credentials (consumer key / secret). */
import { InvalidJwks, parsePublicJwks } from "../../oauth/jwks.js";
import { tlsClientAuthExpectation } from "../../certificates/client-auth.js";
import type { StoredAppRegistration } from "../../registration/clients.js";
import type { AppSettings, TlsClientAuthName } from "../../stores/apps.js";
import type {
  AppSettingsInput,
  InputMaybe,
  MutationSetAppKeysArgs,
  Resolvers,
  TlsClientAuthInput,
  TokenEndpointAuthMethod,
  TokenLifetimesInput,
} from "../generated/resolvers.js";
import {
  addCallbackUrl,
  createApp,
  deleteApp,
  removeCallbackUrl,
  renameApp,
  revokeCredential,
  rotateCredential,
  setAppKeys,
  setAppStatus,
  setCredentialProductStatus,
  updateAppSettings,
} from "../use-cases/apps.js";
import { found } from "../use-cases/common.js";
import { check, checkNullable, checkOptional, inputError, v } from "../validation.js";
import { securityProfileChange } from "../use-cases/profile-switch.js";
import { adminEvent } from "./audit.js";
import { identityProviderId } from "./identity-providers.js";

/** The checked token lifetimes of an input; absent ones undefined. */
function lifetimes(input: TokenLifetimesInput): AppSettings {
  return {
    accessTokenLifetimeSeconds: checkOptional(v.accessTokenLifetime, input.accessTokenLifetimeSeconds, "accessTokenLifetimeSeconds"),
    refreshTokenLifetimeSeconds: checkOptional(v.refreshTokenLifetime, input.refreshTokenLifetimeSeconds, "refreshTokenLifetimeSeconds"),
  };
}

/**
 * The checked client settings of an input (AppSettingsInput, CreateAppInput); absent ones undefined,
 * a null or empty `sectorIdentifierUri` or `identityProviderId` null (removed).
 * @throws BAD_USER_INPUT naming the field: no or repeated methods, a post-logout redirect URI that
 *   would not do as a callback URL or is repeated, a sector identifier URI that is not https (validation.ts).
 */
function settings(input: AppSettingsInput): AppSettings {
  return {
    tokenResponseProfile: input.tokenResponseProfile ?? undefined,
    requirePkce: input.requirePkce ?? undefined,
    canIntrospect: input.canIntrospect ?? undefined,
    tokenEndpointAuthMethods: authMethods(input.tokenEndpointAuthMethods),
    tlsClientAuth: tlsClientAuth(input.tlsClientAuth),
    securityProfile: input.securityProfile ?? undefined,
    idTokenSignedResponseAlg: input.idTokenSignedResponseAlg ?? undefined,
    introspectionSignedResponseAlg: input.introspectionSignedResponseAlg ?? undefined,
    authorizationSignedResponseAlg: input.authorizationSignedResponseAlg ?? undefined,
    subjectType: input.subjectType ?? undefined,
    sectorIdentifierUri: checkNullable(v.sectorIdentifierUri, input.sectorIdentifierUri, "sectorIdentifierUri", true),
    postLogoutRedirectUris: checkOptional(v.postLogoutRedirectUris, input.postLogoutRedirectUris, "postLogoutRedirectUris"),
    requireNonce: input.requireNonce ?? undefined,
    requireSignedRequestObject: input.requireSignedRequestObject ?? undefined,
    identityProviderId: identityProviderId(input.identityProviderId),
  };
}

/**
 * The checked certificate name of a tls_client_auth app (RFC 8705 §2.1.2; certificates/client-auth.ts):
 * undefined when not given, null to remove it.
 * @throws BAD_USER_INPUT for a DN that is not RFC 4514, an IP address that is not one, an empty value.
 */
function tlsClientAuth(input: InputMaybe<TlsClientAuthInput>): TlsClientAuthName | null | undefined {
  if (input == null) return input;
  try {
    return tlsClientAuthExpectation({ [input.parameter]: input.value });
  } catch (err) {
    throw inputError("tlsClientAuth", (err as Error).message);
  }
}

/** How an app registered itself (RFC 7591), as the admin API shows it; times from seconds since the epoch. */
function appRegistration(r: StoredAppRegistration) {
  const at = (seconds: number) => new Date(seconds * 1000);
  return {
    softwareId: r.metadata.softwareId,
    softwareVersion: r.metadata.softwareVersion ?? null,
    organizationId: r.organizationId ?? null,
    organizationName: r.organizationName ?? null,
    roles: r.roles,
    certificateOrganizationIdentifier: r.certificate?.organizationIdentifier ?? null,
    ncaName: r.certificate?.ncaName ?? null,
    ncaId: r.certificate?.ncaId ?? null,
    registeredAt: at(r.clientIdIssuedAt),
    statementIssuedAt: at(r.statementIssuedAt),
    statementExpiresAt: r.statementExpiresAt === undefined ? null : at(r.statementExpiresAt),
  };
}

/** The checked client authentication methods, or undefined when not given. */
function authMethods(methods: InputMaybe<TokenEndpointAuthMethod[]>): string[] | undefined {
  return checkOptional(v.authMethods, methods, "tokenEndpointAuthMethods");
}

/**
 * The checked keys of setAppKeys: the JSON text of the public JWK Set (only the members
 * oauth/jwks.ts keeps), or the jwks_uri; both null to remove the keys.
 * @throws BAD_USER_INPUT for an invalid set or URL, or both given (RFC 7591 §2: "MUST NOT both be present").
 */
async function appKeys(args: Pick<MutationSetAppKeysArgs, "jwks" | "jwksUri">): Promise<{ jwks: string | null; jwksUri: string | null }> {
  const { jwks, jwksUri } = args;
  if (jwks != null && jwksUri != null) throw inputError("jwksUri", "give a JWK Set (jwks) or a jwks_uri, not both (RFC 7591 section 2)");
  if (jwksUri != null) return { jwks: null, jwksUri: check(v.jwksUri, jwksUri, "jwksUri") };
  if (jwks == null) return { jwks: null, jwksUri: null };
  try {
    return { jwks: JSON.stringify(await parsePublicJwks(jwks)), jwksUri: null };
  } catch (err) {
    if (err instanceof InvalidJwks) throw inputError("jwks", err.message);
    throw err;
  }
}

/** Resolvers of the apps domain: its Query and Mutation fields and its object types' fields. */
export const appResolvers: Resolvers = {
  Query: {
    apps: (_p, a, { db }) => db.apps.list(a.filter ?? {}, { first: check(v.first, a.first, "first"), after: a.after }),
    app: (_p, a, { db }) => db.apps.find(a.id),
    // Only a dynamic registration is ever pending (setAppStatus refuses to make an app pending).
    pendingRegistrations: (_p, a, { db }) => db.apps.list({ status: "pending" }, { first: check(v.first, a.first, "first"), after: a.after }),
    pendingRegistrationCount: (_p, _a, { db }) => db.apps.countWithStatus("pending"),
  },
  Mutation: {
    createApp: (_p, args, ctx, info) => {
      const { input } = args;
      return createApp(ctx.db, {
        developerId: input.developerId,
        name: check(v.name, input.name, "name"),
        callbackUrls: (input.callbackUrls ?? []).map((u, i) => check(v.callbackUrl, u, `callbackUrls.${i}`)),
        apiProductIds: input.apiProductIds ?? [],
        ...lifetimes(input),
        ...settings(input),
        audit: adminEvent(args, ctx, info),
      });
    },
    addCallbackUrl: (_p, args, ctx, info) =>
      addCallbackUrl(ctx.db, { appId: args.appId, url: check(v.callbackUrl, args.url, "url"), audit: adminEvent(args, ctx, info) }),
    removeCallbackUrl: (_p, args, ctx, info) => removeCallbackUrl(ctx.db, { appId: args.appId, url: args.url, audit: adminEvent(args, ctx, info) }),
    setAppStatus: (_p, args, ctx, info) => {
      const { status } = args;
      if (status === "pending") throw inputError("status", "approve (approved) or revoke (revoked) an app; only a dynamic registration waits for approval (pending)");
      return setAppStatus(ctx.db, { appId: args.appId, status, audit: adminEvent(args, ctx, info) });
    },
    setTokenLifetimes: (_p, args, ctx, info) => updateAppSettings(ctx.db, { appId: args.appId, ...lifetimes(args.input), audit: adminEvent(args, ctx, info) }),
    setAppIntrospection: (_p, args, ctx, info) =>
      updateAppSettings(ctx.db, { appId: args.appId, canIntrospect: args.allowed, audit: adminEvent(args, ctx, info) }),
    setAppSettings: (_p, args, ctx, info) => updateAppSettings(ctx.db, { appId: args.appId, ...settings(args.input), audit: adminEvent(args, ctx, info) }),
    setAppKeys: async (_p, args, ctx, info) => setAppKeys(ctx.db, { appId: args.appId, ...(await appKeys(args)), audit: adminEvent(args, ctx, info) }),
    setCredentialProductStatus: (_p, args, ctx, info) => {
      const { credentialId, apiProductId, status } = args;
      return setCredentialProductStatus(ctx.db, { credentialId, apiProductId, status, audit: adminEvent(args, ctx, info) });
    },
    rotateCredential: (_p, args, ctx, info) =>
      rotateCredential(ctx.db, {
        credentialId: args.credentialId,
        graceSeconds: check(v.graceSeconds, args.graceSeconds, "graceSeconds"),
        audit: adminEvent(args, ctx, info),
      }),
    revokeCredential: (_p, args, ctx, info) => revokeCredential(ctx.db, { credentialId: args.credentialId, audit: adminEvent(args, ctx, info) }),
    renameApp: (_p, args, ctx, info) => renameApp(ctx.db, { appId: args.id, name: check(v.name, args.name, "name"), audit: adminEvent(args, ctx, info) }),
    deleteApp: (_p, args, ctx, info) => deleteApp(ctx.db, { appId: args.id, audit: adminEvent(args, ctx, info) }),
  },
  App: {
    registration: (app) => (app.registration === null ? null : appRegistration(JSON.parse(app.registration) as StoredAppRegistration)),
    developer: (app, _a, { db }) => found(db.organizations.findDeveloper(app.developerId), "no developer with this id"),
    callbackUrls: (app, _a, { db }) => db.apps.callbackUrls(app.id),
    credentials: (app, _a, { db }) => db.apps.credentials(app.id),
    identityProvider: (app, _a, { db }) => (app.identityProviderId === null ? null : db.identityProviders.find(app.identityProviderId)),
    liveTokenCount: (app, _a, { db }) => db.tokens.countLive({ appId: app.id }, new Date()),
    securityProfileChange: async (app, a, { db }) => securityProfileChange(app, a.to, await db.tokens.countLive({ appId: app.id }, new Date())),
  },
  Credential: {
    products: (c, _a, { db }) => db.apps.productsOfCredential(c.id),
  },
};
