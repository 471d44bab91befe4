/**
 * The user store (stores/users.ts): Prisma, but for the grants' status check, one prepared statement.
 */
import type { UserStore } from "../../stores/users.js";
import { paginate, substringSearch } from "../paginate.js";
import type { Executor } from "./executor.js";
import { withDomainErrors } from "./errors.js";

/** The user store over `x`. */
export function userStore(x: Executor): UserStore {
  const { prisma, sql, provider } = x;
  return {
    async byUsername(username) {
      return (await prisma.user.findUnique({ where: { username } })) ?? undefined;
    },
    async byId(id) {
      return (await prisma.user.findUnique({ where: { id } })) ?? undefined;
    },
    async isActive(id) {
      return (await sql.get(`SELECT 1 AS "active" FROM "User" WHERE "id" = ? AND "status" = 'active'`, [id])) !== undefined;
    },
    list(search, page) {
      const match = search ? substringSearch(provider, search) : undefined;
      return paginate(
        (args) => prisma.user.findMany({ ...args, where: match ? { username: match.where } : {} }),
        page,
        "asc",
        (user) => match?.matches(user.username) ?? true,
      );
    },
    create: (data) => withDomainErrors(prisma.user.create({ data })),
    setStatus: (id, status) => withDomainErrors(prisma.user.update({ where: { id }, data: { status } }), "no user with this id"),
    setRole: (id, role) => withDomainErrors(prisma.user.update({ where: { id }, data: { role } }), "no user with this id"),
    setPassword: (id, passwordHash, temporaryUntil) =>
      withDomainErrors(prisma.user.update({ where: { id }, data: { passwordHash, temporaryPasswordUntil: temporaryUntil } }), "no user with this id"),
  };
}
