/**
 * Admin use cases of end users and administrators. Each runs in one transaction with the
 * revocations it takes and its audit event (common.ts).
 */
import type { RequestIds } from "../../kernel/request-context.js";
import { hash } from "@node-rs/argon2";
import { Conflict } from "../../kernel/domain-errors.js";
import type { AuditEventInput } from "../../stores/audit.js";
import type { Database } from "../../stores/index.js";
import type { UserRecord } from "../../stores/users.js";
import { auditedChange, found, revocationBy, voidGrants, type Audited } from "./common.js";

/**
 * Creates a user; the password is stored as its argon2id hash (hashed before the transaction).
 * @param o - `role`: user | admin | support | auditor.
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
    if (o.status === "disabled") await voidGrants(stores, { userId: o.userId }, revocationBy(o.audit));
    return user;
  });
}

/**
 * Changes a user's role (kernel/roles.ts STAFF_ROLES, or `user`), audited with the change.
 * @param o - `signedInUserId`: the administrator doing it, who cannot change their own role.
 * @throws NotFound for an unknown user; Conflict for the administrator's own role.
 */
export function setUserRole(db: Database, o: { userId: string; role: string; signedInUserId?: string } & Audited): Promise<UserRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    if (o.signedInUserId === o.userId) throw new Conflict("you cannot change your own role");
    return stores.users.setRole(o.userId, o.role);
  });
}

/**
 * Deletes every sign-in factor of a user (TOTP keys, WebAuthn credentials), e.g. after a
 * lost phone, ends the user's browser sessions and voids their grants ({@link voidGrants}):
 * whoever holds the lost factor keeps no access. Records `factor.reset` with how many factors
 * were deleted, all in one transaction.
 * @param o - `actor`: the administrator, as the audit log names them (context.ts staffLabel);
 *   `request`: the HTTP request's ids, for the event.
 * @returns the user, now without factors.
 * @throws NotFound "no user with this id".
 */
export function resetUserFactors(db: Database, o: { userId: string; actor: string; request?: RequestIds }): Promise<UserRecord> {
  return db.transaction(async (stores) => {
    const user = await found(stores.users.byId(o.userId), "no user with this id");
    const count = await stores.factors.deleteAll(user.id);
    const event: AuditEventInput = { type: "factor.reset", actor: o.actor, subject: user.id, details: { count }, request: o.request };
    await stores.sessions.destroyOfUser(user.id);
    await voidGrants(stores, { userId: user.id }, revocationBy(event));
    await stores.audit.record(event);
    return user;
  });
}
