/** Remembered consents: admins see and revoke any; a signed-in user sees and revokes their own. */
import { findApp } from "../../apps/management.js";
import { recordAuditEvent } from "../../audit/repository.js";
import { findUserById } from "../../accounts/users.js";
import { findConsent, listConsents, revokeConsent } from "../../authorizations/repository.js";
import { splitList } from "../../oauth/scopes.js";
import { gqlError, requireUser } from "../context.js";
import type { Resolvers } from "./types.js";

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
    app: (c: { appId: string }, _a, { db }) => findApp(db, c.appId),
    user: (c: { userId: string }, _a, { db }) => findUserById(db, c.userId),
    scopes: (c: { scope: string }) => splitList(c.scope),
  },
};
