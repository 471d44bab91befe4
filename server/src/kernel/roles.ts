/**
 * Users' roles. `user` is an end user (a PSU); the staff roles use the console: `admin` may
 * do everything, `support` reads everything and revokes tokens and consents and resets
 * factors, `auditor` only reads (admin/resolvers/index.ts).
 */
export const STAFF_ROLES = ["admin", "support", "auditor"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Whether `role` is one of the {@link STAFF_ROLES}. */
export function isStaffRole(role: string): role is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(role);
}
