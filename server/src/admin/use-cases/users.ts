/**
 * Admin use cases of end users and administrators. Each runs in one transaction with the
 * revocations it takes and its audit event (common.ts).
 */
import type { RequestIds } from "../../kernel/request-context.js";
import { hash } from "@node-rs/argon2";
import { randomBytes } from "node:crypto";
import type { SignInThrottle } from "../../interaction/throttle.js";
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
 * Changes a user's role (kernel/roles.ts STAFF_ROLES, or `user`), audited with the change, and
 * ends the user's browser sessions: the role, and a staff session's idle limit
 * (ADMIN_IDLE_SECONDS, set at sign-in), take effect at their next sign-in.
 * @param o - `signedInUserId`: the administrator doing it, who cannot change their own role.
 * @throws NotFound for an unknown user; Conflict for the administrator's own role.
 */
export function setUserRole(db: Database, o: { userId: string; role: string; signedInUserId?: string } & Audited): Promise<UserRecord> {
  return auditedChange(db, o.audit, async (stores) => {
    if (o.signedInUserId === o.userId) throw new Conflict("you cannot change your own role");
    const user = await stores.users.setRole(o.userId, o.role);
    await stores.sessions.destroyOfUser(o.userId);
    return user;
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

/**
 * Ends a user's sign-in block (PSD2 RTS Art. 4(3)(b)) now: their failed attempts are cleared
 * (interaction/throttle.ts), their IP's are not. Audited with the end the block had.
 * @param o - `now`: the time the block is read at.
 * @returns the user.
 * @throws NotFound "no user with this id".
 */
export async function unblockUser(
  db: Database,
  throttle: Pick<SignInThrottle, "blockedUntil" | "unblock">,
  o: { userId: string; now: Date } & Audited,
): Promise<UserRecord> {
  const user = await found(db.users.byId(o.userId), "no user with this id");
  const blockedUntil = await throttle.blockedUntil(user.username, o.now);
  await throttle.unblock(user.username);
  const audit = { ...o.audit, details: { ...o.audit.details, blockedUntil: blockedUntil?.toISOString() ?? null } };
  return auditedChange(db, audit, async () => user);
}

/** Random bytes of a temporary password: 18 bytes, 144 bits, 24 base64url characters. */
const TEMPORARY_PASSWORD_BYTES = 18;

/**
 * Sets a strong random temporary password for a user, stored as its argon2id hash with its
 * end, and ends the user's browser sessions. At the next sign-in (after the second factor,
 * when the user has one) the user must choose a new password (interaction/password-change.ts);
 * after `validUntil` the temporary one is refused like a wrong password.
 * @param o - `hours`: TEMPORARY_PASSWORD_HOURS; `allowed`: throws when the caller may not set one for this user.
 * @returns the user, the password (the only time it exists in clear) and its end.
 * @throws NotFound "no user with this id", or what `allowed` throws.
 */
export async function setTemporaryPassword(
  db: Database,
  o: { userId: string; hours: number; now: Date; allowed: (user: UserRecord) => void } & Audited,
): Promise<{ user: UserRecord; password: string; validUntil: Date }> {
  const password = randomBytes(TEMPORARY_PASSWORD_BYTES).toString("base64url");
  const passwordHash = await hash(password);
  const validUntil = new Date(o.now.getTime() + o.hours * 3_600_000);
  const audit = { ...o.audit, details: { ...o.audit.details, validUntil: validUntil.toISOString() } };
  const user = await auditedChange(db, audit, async (stores) => {
    o.allowed(await found(stores.users.byId(o.userId), "no user with this id"));
    await stores.sessions.destroyOfUser(o.userId);
    return stores.users.setPassword(o.userId, passwordHash, validUntil);
  });
  return { user, password, validUntil };
}
