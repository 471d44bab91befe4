/**
 * End users (bank customers) and administrators.
 */
import type { Db } from "../db/client.js";

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
