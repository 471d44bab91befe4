/** Issued tokens (never their values), the global search and the audit log. */
import { splitList } from "../../kernel/list.js";
import { tokenStateOf } from "../../stores/tokens.js";
import { gqlError } from "../context.js";
import type { Resolvers } from "../generated/resolvers.js";
import { found } from "../use-cases/common.js";
import { revokeToken, revokeTokens } from "../use-cases/tokens.js";
import { check, checkOptional, v } from "../validation.js";
import { REQUEST_ID_PATTERN } from "../../kernel/limits.js";
import type { Database } from "../../stores/index.js";
import type { AuditEventRow } from "../../stores/audit.js";
import { adminEvent } from "./audit.js";

/** Most hits of each kind of the global search. */
const SEARCH_HITS = 10;
/** A token id prefix worth looking up: 4 or more of the id's characters (kernel/ids.ts). */
const TOKEN_ID_PREFIX = /^[0-9a-z]{4,25}$/;

/** The newest {@link SEARCH_HITS} audit events whose request id or interaction id is `id`. */
async function eventsOfRequest(audit: Database["audit"], id: string): Promise<AuditEventRow[]> {
  const page = { first: SEARCH_HITS };
  const [byRequest, byInteraction] = await Promise.all([audit.list({ requestId: id }, page), audit.list({ interactionId: id }, page)]);
  const seen = new Set<string>();
  return [...byRequest.nodes, ...byInteraction.nodes].filter((e) => !seen.has(e.id) && seen.add(e.id)).slice(0, SEARCH_HITS);
}

/** The app of a consumer key; undefined for none (an actor `user:…`, `admin:…` or "") or an unknown one. */
async function appOfKey(db: Database, consumerKey: string) {
  if (consumerKey === "" || consumerKey.includes(":")) return undefined;
  const client = await db.clients.byConsumerKey(consumerKey);
  return client ? db.apps.find(client.appId) : undefined;
}

/** Resolvers of the tokens domain: its Query and Mutation fields and its object types' fields. */
export const tokenResolvers: Resolvers = {
  Query: {
    tokens: (_p, a, { db }) => db.tokens.list(a, new Date(), { first: check(v.first, a.first, "first"), after: a.after }),
    search: async (_p, a, { db }) => {
      const text = check(v.search, a.text, "text");
      const page = { first: SEARCH_HITS };
      const [apps, users, tokens, psd2Consents, auditEvents] = await Promise.all([
        db.apps.list({ search: text }, page),
        db.users.list(text, page),
        TOKEN_ID_PREFIX.test(text) ? db.tokens.findByIdPrefix(text, SEARCH_HITS) : [],
        db.psd2Consents.list({ search: text }).then((found) => found.slice(0, SEARCH_HITS)),
        // A request's events, by either of its ids (a refusal found from the x-fapi-interaction-id its caller got).
        REQUEST_ID_PATTERN.test(text) ? eventsOfRequest(db.audit, text) : [],
      ]);
      return { apps: apps.nodes, users: users.nodes, tokens, psd2Consents, auditEvents };
    },
    auditEvents: async (_p, a, { db }) => {
      const page = { first: check(v.first, a.first, "first"), after: a.after };
      checkOptional(v.requestId, a.requestId, "requestId");
      checkOptional(v.requestId, a.interactionId, "interactionId");
      // A user is named by username; an unknown one has no events.
      const user = a.username ? await db.users.byUsername(a.username) : undefined;
      if (a.username && !user) return { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } };
      const { username: _username, first: _first, after: _after, ...filter } = a;
      return db.audit.list({ ...filter, userId: user?.id }, page);
    },
  },
  Mutation: {
    revokeToken: (_p, args, ctx, info) => revokeToken(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) }),
    revokeTokens: (_p, args, ctx, info) => {
      const { appId, userId } = args;
      const owner = appId ? { appId, userId: userId ?? undefined } : userId ? { userId } : undefined;
      if (!owner) throw gqlError("BAD_USER_INPUT", "give appId, userId or both");
      return revokeTokens(ctx.db, { ...owner, audit: adminEvent(args, ctx, info) });
    },
  },
  AuditEvent: {
    user: async (e, _a, { db }) => {
      const id = e.actor.startsWith("user:") ? e.actor.slice("user:".length) : e.subject;
      return (id ? await db.users.byId(id) : undefined) ?? null;
    },
    // What a change was made to (an app by id, or by consumer key for a registration), else the client that acted.
    app: async (e, _a, { db }) => {
      const changed = e.subject && /^(admin|registration)\./.test(e.type) ? ((await db.apps.find(e.subject)) ?? (await appOfKey(db, e.subject))) : undefined;
      return changed ?? (await appOfKey(db, e.actor.startsWith("client:") ? e.actor.slice("client:".length) : e.actor)) ?? null;
    },
    psd2Consent: async (e, _a, { db }) => (e.subject && /psd2/i.test(e.type) ? ((await db.psd2Consents.summary(e.subject)) ?? null) : null),
  },
  AccessToken: {
    app: (t, _a, { db }) => found(db.apps.find(t.appId), "no app with this id"),
    clientId: async (t, _a, { db }) => (await db.apps.findCredential(t.credentialId))?.consumerKey ?? "",
    user: (t, _a, { db }) => (t.userId ? db.users.byId(t.userId) : null),
    scopes: (t) => splitList(t.scope),
    products: (t) => splitList(t.apiProducts),
    state: (t) => tokenStateOf(t, new Date()),
  },
};
