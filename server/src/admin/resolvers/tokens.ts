/** Issued tokens (never their values), the global search and the audit log. */
import { splitList } from "../../kernel/list.js";
import { tokenStateOf } from "../../stores/tokens.js";
import { gqlError } from "../context.js";
import type { Resolvers } from "../generated/resolvers.js";
import { found } from "../use-cases/common.js";
import { revokeToken, revokeTokens } from "../use-cases/tokens.js";
import { check, v } from "../validation.js";
import { adminEvent } from "./audit.js";

/** Most hits of each kind of the global search. */
const SEARCH_HITS = 10;
/** A token id prefix worth looking up: 4 or more of the id's characters (kernel/ids.ts). */
const TOKEN_ID_PREFIX = /^[0-9a-z]{4,25}$/;

/** Resolvers of the tokens domain: its Query and Mutation fields and its object types' fields. */
export const tokenResolvers: Resolvers = {
  Query: {
    tokens: (_p, a, { db }) => db.tokens.list(a, new Date(), { first: check(v.first, a.first, "first"), after: a.after }),
    search: async (_p, a, { db }) => {
      const text = check(v.search, a.text, "text");
      const page = { first: SEARCH_HITS };
      const [apps, users, tokens] = await Promise.all([
        db.apps.list({ search: text }, page),
        db.users.list(text, page),
        TOKEN_ID_PREFIX.test(text) ? db.tokens.findByIdPrefix(text, SEARCH_HITS) : [],
      ]);
      return { apps: apps.nodes, users: users.nodes, tokens };
    },
    auditEvents: async (_p, a, { db }) => {
      const page = { first: check(v.first, a.first, "first"), after: a.after };
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
  AccessToken: {
    app: (t, _a, { db }) => found(db.apps.find(t.appId), "no app with this id"),
    clientId: async (t, _a, { db }) => (await db.apps.findCredential(t.credentialId))?.consumerKey ?? "",
    user: (t, _a, { db }) => (t.userId ? db.users.byId(t.userId) : null),
    scopes: (t) => splitList(t.scope),
    products: (t) => splitList(t.apiProducts),
    state: (t) => tokenStateOf(t, new Date()),
  },
};
