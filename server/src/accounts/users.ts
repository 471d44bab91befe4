/**
 * End users (bank customers) and administrators.
 */
import { voidGrantsOf } from "../authorizations/repository.js";
import type { Db } from "../db/client.js";
import type { Sql } from "../db/sql.js";
import { paginate, substringSearch } from "../db/paginate.js";

export interface UserRecord {
  id: string;
  username: string;
  /** argon2id PHC string. */
  passwordHash: string;
  /** user | admin */
  role: string;
  /** active | disabled */
  status: string;
}

/** @returns the user with this username, or undefined. */
export async function findUserByUsername(db: Db, username: string): Promise<UserRecord | undefined> {
  return (await db.user.findUnique({ where: { username } })) ?? undefined;
}

/** @returns the user with this id, or undefined. */
export async function findUserById(db: Db, id: string): Promise<UserRecord | undefined> {
  return (await db.user.findUnique({ where: { id } })) ?? undefined;
}

/** True when the user exists and is active (direct SQL: the code and refresh grants). */
export async function isActiveUser(sql: Sql, id: string): Promise<boolean> {
  return (await sql.get(`SELECT 1 AS "active" FROM "User" WHERE "id" = ? AND "status" = 'active'`, [id])) !== undefined;
}

/** Users whose username contains `search`, oldest first. */
export async function listUsers(db: Db, search: string | null | undefined, first: number, after?: string | null) {
  const match = search ? substringSearch(db, search) : undefined;
  return paginate(
    (args) => db.user.findMany({ ...args, where: match ? { username: match.where } : {} }),
    first,
    after,
    "asc",
    (user) => match?.matches(user.username) ?? true,
  );
}

/** Creates a user. @param passwordHash - argon2id PHC string. */
export async function createUser(db: Db, data: { username: string; passwordHash: string; role: string }) {
  return db.user.create({ data });
}

/**
 * Sets a user's status. Disabling also voids, in the same transaction, the user's
 * unredeemed codes and live tokens ({@link voidGrantsOf}): a disabled customer keeps no access.
 * @throws Prisma P2025 when no user has this id.
 */
export async function setUserStatus(db: Db, id: string, status: "active" | "disabled", now: Date) {
  return db.$transaction(async (tx) => {
    const user = await tx.user.update({ where: { id }, data: { status } });
    if (status === "disabled") await voidGrantsOf(tx, { userId: id }, now);
    return user;
  });
}
