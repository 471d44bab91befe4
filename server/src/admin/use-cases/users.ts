/**
 * Admin use cases of end users and administrators. Each runs in one transaction with the
 * revocations it takes and its audit event (common.ts).
 */
import { hash } from "@node-rs/argon2";
import { Conflict } from "../../kernel/domain-errors.js";
import type { Database } from "../../stores/index.js";
import type { UserRecord } from "../../stores/users.js";
import { auditedChange, voidGrants, type Audited } from "./common.js";

/**
 * Creates a user; the password is stored as its argon2id hash (hashed before the transaction).
 * @param o - `role`: user | admin.
 * @throws Conflict when the username is taken.
 */
export async function createUser(db: Database, o: { username: string; password: string; role: string } & Audited): Promise<UserRecord> {
  const passwordHash = await hash(o.password);
  return auditedChange(db, o.audit, (stores) => stores.users.create({ username: o.username, passwordHash, role: o.role }));
}

/**
 * Activates or disables a user. Disabling also voids the user's unredeemed codes and live
 * tokens ({@link voidGrants}): a disabled customer keeps no access.
 * @param o - `signedInUserId`: the administrator making the change, when signed in as a user: they may not disable themselves.
 * @throws NotFound "no user with this id", Conflict when an administrator disables themselves.
 */
export function setUserStatus(
  db: Database,
  o: { userId: string; status: "active" | "disabled"; signedInUserId?: string } & Audited,
): Promise<UserRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    if (o.status === "disabled" && o.signedInUserId === o.userId) throw new Conflict("you cannot disable yourself");
    const user = await stores.users.setStatus(o.userId, o.status);
    if (o.status === "disabled") await voidGrants(stores, { userId: o.userId }, new Date());
    return user;
  });
}
