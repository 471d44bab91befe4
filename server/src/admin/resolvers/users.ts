/** End users and administrators. */
import { gqlError, requireStaff, staffLabel } from "../context.js";
import type { Resolvers } from "../generated/resolvers.js";
import { createUser, resetUserFactors, setTemporaryPassword, setUserRole, setUserStatus, unblockUser } from "../use-cases/users.js";
import { check, v } from "../validation.js";
import { adminEvent } from "./audit.js";

/** Resolvers of the users domain: its Query and Mutation fields and its object types' fields. */
export const userResolvers: Resolvers = {
  Query: {
    me: (_p, _a, { actor }) => (actor?.kind === "user" ? actor : null),
    users: (_p, a, { db }) => db.users.list(a.search, { first: check(v.first, a.first, "first"), after: a.after }),
    user: (_p, a, { db }) => db.users.byId(a.id),
  },
  Mutation: {
    createUser: (_p, args, ctx, info) => {
      const { input } = args;
      return createUser(ctx.db, {
        username: check(v.username, input.username, "username"),
        password: check(v.password, input.password, "password"),
        role: input.role ?? "user",
        audit: adminEvent(args, ctx, info),
      });
    },
    setUserStatus: (_p, args, ctx, info) => {
      const signedInUserId = ctx.actor?.kind === "user" ? ctx.actor.userId : undefined;
      return setUserStatus(ctx.db, { userId: args.userId, status: args.status, signedInUserId, audit: adminEvent(args, ctx, info) });
    },
    setUserRole: (_p, args, ctx, info) => {
      const signedInUserId = ctx.actor?.kind === "user" ? ctx.actor.userId : undefined;
      return setUserRole(ctx.db, { userId: args.userId, role: args.role, signedInUserId, audit: adminEvent(args, ctx, info) });
    },
    // Audited as factor.reset with the count, which only the transaction knows (not admin.resetUserFactors).
    resetUserFactors: (_p, args, ctx) => resetUserFactors(ctx.db, { userId: args.userId, actor: staffLabel(ctx), request: ctx.request }),
    unblockUser: (_p, args, ctx, info) => unblockUser(ctx.db, ctx.throttle, { userId: args.id, now: new Date(), audit: adminEvent(args, ctx, info) }),
    // Support staff set one for PSUs only: a staff account's password is an admin's business (docs/getting-started.md, Supporting a user).
    setTemporaryPassword: (_p, args, ctx, info) => {
      const role = requireStaff(ctx);
      const allowed = (user: { role: string }) => {
        if (role !== "admin" && user.role !== "user") throw gqlError("FORBIDDEN", `the ${role} role may not set a temporary password for a staff account`);
      };
      return setTemporaryPassword(ctx.db, { userId: args.id, hours: ctx.temporaryPasswordHours, now: new Date(), allowed, audit: adminEvent(args, ctx, info) });
    },
  },
  User: {
    factors: (u, _a, { db }) => db.factors.list(u.id),
    blockedUntil: async (u, _a, { throttle }) => (await throttle.blockedUntil(u.username, new Date())) ?? null,
    psd2Consents: (u, _a, { db }) => db.psd2Consents.list({ userId: u.id }),
  },
  Me: {
    id: (me) => me.userId,
  },
};
