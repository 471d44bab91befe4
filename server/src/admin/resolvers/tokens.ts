/** Issued tokens (never their values), the dashboard's hourly figures and the audit log. */
import { findApp, findCredential } from "../../apps/management.js";
import { findUserById } from "../../accounts/users.js";
import { countAuditEventsPerHour, listAuditEvents } from "../../audit/repository.js";
import { splitList } from "../../kernel/list.js";
import { countTokensIssuedPerHour, findToken, listTokens, revokeTokenById, revokeTokensOf, type TokenFilter } from "../../tokens/management.js";
import { gqlError } from "../context.js";
import { check, v } from "../validation.js";
import type { Resolvers } from "./types.js";

const HOUR_MS = 3_600_000;

/** Starts of the last 24 whole hours, oldest first, the current hour last. */
export function last24Hours(now: Date): Date[] {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: 24 }, (_, i) => new Date(current - (23 - i) * HOUR_MS));
}

export const tokenResolvers: Resolvers = {
  Query: {
    tokens: (_p, a: TokenFilter & { first: number; after?: string }, { db }) => listTokens(db, a, new Date(), check(v.first, a.first, "first"), a.after),
    auditEvents: (_p, a: { type?: string; actor?: string; first: number; after?: string }, { db }) =>
      listAuditEvents(db, a, check(v.first, a.first, "first"), a.after),
    dashboard: async (_p, _a, { db }) => {
      const hours = last24Hours(new Date());
      const [issued, failed] = await Promise.all([countTokensIssuedPerHour(db, hours), countAuditEventsPerHour(db, "client.authentication_failed", hours)]);
      const appNames = new Map<string, string>();
      for (const appId of new Set(issued.map((b) => b.appId))) appNames.set(appId, (await findApp(db, appId))?.name ?? appId);
      return {
        tokensIssuedPerHour: issued.map((b) => ({ hour: b.hour, appName: appNames.get(b.appId)!, count: b.count })),
        failedClientAuthenticationsPerHour: failed,
      };
    },
  },
  Mutation: {
    revokeToken: async (_p, a: { id: string }, { db }) => {
      if (!(await findToken(db, a.id))) throw gqlError("NOT_FOUND", "no token with this id");
      return revokeTokenById(db, a.id, new Date());
    },
    revokeTokens: (_p, a: { appId?: string; userId?: string }, { db }) => {
      if (!a.appId && !a.userId) throw gqlError("BAD_USER_INPUT", "give appId, userId or both");
      return revokeTokensOf(db, { appId: a.appId ?? undefined, userId: a.userId ?? undefined }, new Date());
    },
  },
  AccessToken: {
    app: (t: { appId: string }, _a, { db }) => findApp(db, t.appId),
    clientId: async (t: { credentialId: string }, _a, { db }) => (await findCredential(db, t.credentialId))?.consumerKey ?? "",
    user: (t: { userId: string | null }, _a, { db }) => (t.userId ? findUserById(db, t.userId) : null),
    scopes: (t: { scope: string }) => splitList(t.scope),
    products: (t: { apiProducts: string }) => splitList(t.apiProducts),
  },
};
