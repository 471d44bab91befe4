/** End users and administrators. */
import { hash } from "@node-rs/argon2";
import { createUser, findUserById, listUsers, setUserStatus } from "../../accounts/users.js";
import { gqlError } from "../context.js";
import { check, v } from "../validation.js";
import type { Resolvers } from "./types.js";

export const userResolvers: Resolvers = {
  Query: {
    me: (_p, _a, { actor }) => (actor?.kind === "user" ? { id: actor.userId, username: actor.username, role: actor.role } : null),
    users: (_p, a: { search?: string; first: number; after?: string }, { db }) => listUsers(db, a.search, check(v.first, a.first, "first"), a.after),
  },
  Mutation: {
    createUser: async (_p, { input }: { input: { username: string; password: string; role?: string } }, { db }) =>
      createUser(db, {
        username: check(v.username, input.username, "username"),
        passwordHash: await hash(check(v.password, input.password, "password")),
        role: input.role ?? "user",
      }),
    /** Disabling a user also voids their codes and tokens: a disabled customer keeps no access. */
    setUserStatus: async (_p, a: { userId: string; status: "active" | "disabled" }, { db, actor }) => {
      if (!(await findUserById(db, a.userId))) throw gqlError("NOT_FOUND", "no user with this id");
      if (a.status === "disabled" && actor?.kind === "user" && actor.userId === a.userId) throw gqlError("CONFLICT", "you cannot disable yourself");
      return setUserStatus(db, a.userId, a.status, new Date());
    },
  },
};
