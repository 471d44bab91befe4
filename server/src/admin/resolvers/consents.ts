/**
 * Remembered consents: admins see and revoke any (`Consent`); a signed-in user sees and
 * revokes their own (`MyConsent`, which holds only what the Account page shows).
 */
import { splitList } from "../../kernel/list.js";
import { requireUser, type AdminContext } from "../context.js";
import type { ConsentRow } from "../../stores/consents.js";
import type { Resolvers } from "../generated/resolvers.js";
import { found } from "../use-cases/common.js";
import { revokeConsent, revokeMyConsent } from "../use-cases/consents.js";
import { adminEvent } from "./audit.js";

/** The newest token row of a consent's user at its app, if any. */
async function newestToken(db: AdminContext["db"], c: ConsentRow) {
  return (await db.tokens.list({ userId: c.userId, appId: c.appId }, new Date(), { first: 1 })).nodes[0];
}

/** Resolvers of the consents domain: its Query and Mutation fields and its object types' fields. */
export const consentResolvers: Resolvers = {
  Query: {
    consents: (_p, a, { db }) => db.consents.list(a),
    consent: async (_p, a, { db }) => (await db.consents.find(a.id)) ?? null,
    myConsents: (_p, _a, ctx) => ctx.db.consents.list({ userId: requireUser(ctx).userId }),
  },
  Mutation: {
    revokeConsent: async (_p, args, ctx, info) => {
      await revokeConsent(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
    revokeMyConsent: async (_p, args, ctx) => {
      await revokeMyConsent(ctx.db, { id: args.id, userId: requireUser(ctx).userId, request: ctx.request });
      return args.id;
    },
  },
  Consent: {
    app: (c, _a, { db }) => found(db.apps.find(c.appId), "no app with this id"),
    user: (c, _a, { db }) => found(db.users.byId(c.userId), "no user with this id"),
    scopes: (c) => splitList(c.scope),
    evidence: (c, _a, { db }) => db.evidence.ofConsent(c.id),
  },
  AuthorizationEvidence: {
    answeredAt: (e) => e.createdAt,
  },
  MyConsent: {
    appName: async (c, _a, { db }) => (await db.apps.find(c.appId))?.name ?? "",
    organizationName: async (c, _a, { db }) => {
      const app = await db.apps.find(c.appId);
      const developer = app && (await db.organizations.findDeveloper(app.developerId));
      const organization = developer && (await db.organizations.find(developer.organizationId));
      return organization ? organization.displayName || organization.name : "";
    },
    scopes: (c, _a, { db }) => db.consents.describeScopes(splitList(c.scope)),
    grantedAt: (c) => c.updatedAt,
    /** The newest token of the user at the app (ids sort by creation); a refresh issues a new one. */
    lastUsedAt: async (c, _a, { db }) => (await newestToken(db, c))?.issuedAt ?? null,
    /** Its refresh token's expiry, while that refresh token is live (rotation keeps the family's expiry). */
    accessUntil: async (c, _a, { db }) => {
      const t = await newestToken(db, c);
      return t?.refreshTokenStatus === "approved" && t.refreshTokenExpiresAt !== null && t.refreshTokenExpiresAt > new Date() ? t.refreshTokenExpiresAt : null;
    },
  },
};
