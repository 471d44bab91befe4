/**
 * The console's side of the admin API's access rule (server/src/admin/resolvers/index.ts
 * `mayCall`): an `admin` calls everything; `support` and `auditor` read every query; `support`
 * may also revoke tokens and consents, reset a user's factors, end a sign-in block and set a
 * PSU's temporary password. The console hides what the
 * signed-in role may not do; the server decides.
 */
import type { Role } from "../api/session";

/** The roles that may use the console. */
export const STAFF_ROLES: readonly Role[] = ["admin", "support", "auditor"];

/** The mutations of the `support` role. */
export const SUPPORT_MUTATIONS: ReadonlySet<string> = new Set(["revokeToken", "revokeTokens", "revokeConsent", "revokePsd2Consent", "resetUserFactors", "unblockUser", "setTemporaryPassword"]);

/** Whether `role` may use the console at all. */
export function isStaff(role: Role): boolean {
  return STAFF_ROLES.includes(role);
}

/** Whether `role` may call the admin API's mutation `mutation` (e.g. "createApp"). */
export function can(role: Role, mutation: string): boolean {
  return role === "admin" || (role === "support" && SUPPORT_MUTATIONS.has(mutation));
}
