/**
 * The browser session outside an OAuth request: who is signed in, and the console's own
 * sign-in and sign-out (`/session`, same session, CSRF token and sign-in throttle as the
 * interaction API).
 */
import { isRecord, isString, malformed, post, request, type Credentials } from "./interaction";

export type Role = "user" | "admin";

export interface SessionUser {
  username: string;
  role: Role;
}

export interface Session {
  user: SessionUser | null;
  csrfToken: string;
}

function toUser(value: unknown): SessionUser | null | undefined {
  if (value === null) return null;
  if (isRecord(value) && isString(value.username) && (value.role === "user" || value.role === "admin")) {
    return { username: value.username, role: value.role };
  }
  return undefined;
}

function toSession(body: unknown): Session {
  if (!isRecord(body) || !isString(body.csrfToken)) throw malformed(200);
  const user = toUser(body.user);
  if (user === undefined) throw malformed(200);
  return { user, csrfToken: body.csrfToken };
}

/** GET /session */
export async function getSession(signal?: AbortSignal): Promise<Session> {
  return toSession(await request("/session", { method: "GET", headers: { Accept: "application/json" }, signal }));
}

/** POST /session/login: 401 invalid_credentials, 429 (Retry-After) when throttled, 403 for a stale CSRF token. */
export async function signIn(csrfToken: string, credentials: Credentials): Promise<Session & { user: SessionUser }> {
  const session = toSession(await post("/session/login", csrfToken, { username: credentials.username, password: credentials.password }));
  if (!session.user) throw malformed(200);
  return { user: session.user, csrfToken: session.csrfToken };
}

/** POST /session/logout */
export async function signOut(csrfToken: string): Promise<void> {
  await post("/session/logout", csrfToken, {});
}
