/**
 * Remembered consents: admins see and revoke any (`Consent`); a signed-in user sees and
 * revokes their own (`MyConsent`, which holds only what the Account page shows).
 */
import { findDeveloper, findOrganization } from "../../accounts/organizations.js";
import { findApp } from "../../apps/management.js";
import { recordAuditEvent } from "../../audit/repository.js";
import { findUserById } from "../../accounts/users.js";
import { describeScopes, findConsent, listConsents, revokeConsent } from "../../authorizations/repository.js";
import { splitList } from "../../kernel/list.js";
import { listTokens } from "../../tokens/management.js";
import { gqlError, requireUser } from "../context.js";
import type { Resolvers } from "./types.js";

/** The consent row fields the Consent and MyConsent resolvers read. */
interface ConsentRow {
  appId: string;
  userId: string;
  scope: string;
  updatedAt: Date;
}

export const consentResolvers: Resolvers = {
  Query: {
    consents: (_p, a: { userId?: string; appId?: string }, { db }) => listConsents(db, a),
    myConsents: (_p, _a, ctx) => listConsents(ctx.db, { userId: requireUser(ctx).userId }),
  },
  Mutation: {
    revokeConsent: async (_p, a: { id: string }, { db }) => {
      if (!(await revokeConsent(db, a.id, new Date()))) throw gqlError("NOT_FOUND", "no live consent with this id");
      return a.id;
    },
    revokeMyConsent: async (_p, a: { id: string }, ctx) => {
      const user = requireUser(ctx);
      const consent = await findConsent(ctx.db, a.id);
      if (!consent || consent.userId !== user.userId || !(await revokeConsent(ctx.db, a.id, new Date()))) {
        throw gqlError("NOT_FOUND", "no live consent of yours with this id");
      }
      await recordAuditEvent(ctx.db, { type: "consent.revoked", actor: `user:${user.userId}`, subject: consent.appId });
      return a.id;
    },
  },
  Consent: {
    app: (c: ConsentRow, _a, { db }) => findApp(db, c.appId),
    user: (c: ConsentRow, _a, { db }) => findUserById(db, c.userId),
    scopes: (c: ConsentRow) => splitList(c.scope),
  },
  MyConsent: {
    appName: async (c: ConsentRow, _a, { db }) => (await findApp(db, c.appId))?.name ?? "",
    organizationName: async (c: ConsentRow, _a, { db }) => {
      const app = await findApp(db, c.appId);
      const developer = app && (await findDeveloper(db, app.developerId));
      const organization = developer && (await findOrganization(db, developer.organizationId));
      return organization ? organization.displayName || organization.name : "";
    },
    scopes: (c: ConsentRow, _a, { db }) => describeScopes(db, splitList(c.scope)),
    grantedAt: (c: ConsentRow) => c.updatedAt,
    /** The newest token of the user at the app (ids sort by creation); a refresh issues a new one. */
    lastUsedAt: async (c: ConsentRow, _a, { db }) => (await listTokens(db, { userId: c.userId, appId: c.appId }, new Date(), 1)).nodes[0]?.issuedAt ?? null,
  },
};
