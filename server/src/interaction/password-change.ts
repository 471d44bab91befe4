/**
 * The new password a user must choose after signing in with a temporary password (one an
 * administrator set in the console, admin/use-cases/users.ts setTemporaryPassword): the
 * sign-in step that follows the password, and the second factor when the account has one.
 * The session is signed in only once the new password is stored; until then the step is
 * pending in the session (taken once, expiring like the factor step).
 *
 * A temporary password past its end is refused at the password step like a wrong password
 * (sign-in.ts), so its answer tells nothing more.
 */
import { hash, verify } from "@node-rs/argon2";
import { z } from "zod";
import { InvalidRequest } from "../kernel/errors.js";
import { PASSWORD_LENGTH } from "../kernel/limits.js";
import { isCleanText } from "../kernel/text.js";
import type { RequestIds } from "../kernel/request-context.js";
import type { Stores } from "../stores/index.js";
import type { UserRecord } from "../stores/users.js";
import { AttemptOver, InvalidCredentials, temporaryPasswordExpired } from "./sign-in.js";
import type { PendingPasswordChange, SessionAuthentication } from "./session.js";

export type { PendingPasswordChange };

/** The body of the new password step: the password rules of the console's new users (kernel/limits.ts PASSWORD_LENGTH). */
export const newPasswordBody = z.object({
  password: z
    .string()
    .min(PASSWORD_LENGTH.min, `must be at least ${PASSWORD_LENGTH.min} characters`)
    .max(PASSWORD_LENGTH.max, `must be at most ${PASSWORD_LENGTH.max} characters`)
    .refine(isCleanText, "must be well-formed text without NUL"),
});

/** Whether the user signed in with a temporary password, so must choose a new one before going on. */
export const mustChangePassword = (user: Pick<UserRecord, "temporaryPasswordUntil">): boolean => user.temporaryPasswordUntil !== null;

/** The pending step of a finished sign-in. */
export function pendingPasswordChange(authentication: SessionAuthentication, interactionId: string | null, from: "login" | "factor"): PendingPasswordChange {
  return { userId: authentication.userId, amr: authentication.amr, authTime: authentication.authTime.getTime(), interactionId, from };
}

/**
 * Stores the new password (argon2id) in place of the temporary one, and audits `password.changed`.
 * @param password - checked with {@link newPasswordBody} by the caller.
 * @returns the user and the authentication to sign the session in with.
 * @throws AttemptOver (409) when the user is gone, disabled or no longer has a temporary password;
 *   InvalidCredentials (401) when the temporary password expired meanwhile; InvalidRequest (400)
 *   when the new password is the temporary one.
 */
export async function chooseNewPassword(
  db: Pick<Stores, "users" | "audit">,
  pending: PendingPasswordChange,
  password: string,
  now: Date,
  request?: RequestIds,
): Promise<{ user: UserRecord; authentication: SessionAuthentication }> {
  const user = await db.users.byId(pending.userId);
  if (!user || user.status !== "active" || !mustChangePassword(user)) throw new AttemptOver();
  if (temporaryPasswordExpired(user, now)) throw new InvalidCredentials();
  if (await verify(user.passwordHash, password).catch(() => false)) throw new InvalidRequest("choose a new password, not the temporary one");
  const changed = await db.users.setPassword(user.id, await hash(password), null);
  await db.audit.record({ type: "password.changed", actor: `user:${user.id}`, details: { temporary: true }, request });
  return { user: changed, authentication: { userId: user.id, amr: pending.amr, authTime: new Date(pending.authTime) } };
}
