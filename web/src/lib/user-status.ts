/**
 * A user's sign-in state in the console's words (pages/admin/UsersPage.tsx): blocked after too
 * many failed sign-ins (PSD2 RTS Art. 4(3)(b)), or signing in with a temporary password.
 */

/** Whether two instants fall on the same day in `timeZone` (the browser's when undefined). */
function sameDay(a: Date, b: Date, timeZone?: string): boolean {
  const day = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", ...(timeZone ? { timeZone } : {}) });
  return day.format(a) === day.format(b);
}

/**
 * "until 14:05", or with the date when it is not today ("until 30 Nov, 14:05"), in the
 * browser's locale and time zone unless given.
 */
export function untilText(instant: string, now: Date = new Date(), locale?: string, timeZone?: string): string {
  const until = new Date(instant);
  const zone = timeZone ? { timeZone } : {};
  const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", ...zone }).format(until);
  if (sameDay(until, now, timeZone)) return `until ${time}`;
  const date = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", ...zone }).format(until);
  return `until ${date}, ${time}`;
}

/** What the users list shows as a user's status: "Blocked until 14:05" while blocked, else the status ("active", "disabled"). */
export function statusText(user: { status: string; blockedUntil: string | null }, now: Date = new Date(), locale?: string, timeZone?: string): string {
  return user.blockedUntil && Date.parse(user.blockedUntil) > now.getTime() ? `Blocked ${untilText(user.blockedUntil, now, locale, timeZone)}` : user.status;
}
