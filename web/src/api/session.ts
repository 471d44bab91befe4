/**
 * The browser session outside an OAuth request: who is signed in, and the console's own
 * sign-in and sign-out (`/session`, same session, CSRF token and sign-in throttle as the
 * interaction API).
 */
import { isRecord, isString, malformed, post, request, type Credentials, type FactorProof } from "./interaction";

export type Role = "user" | "admin" | "support" | "auditor";

const ROLES: readonly string[] = ["user", "admin", "support", "auditor"];

function isRole(value: unknown): value is Role {
  return typeof value === "string" && ROLES.includes(value);
}

export interface SessionUser {
  username: string;
  role: Role;
}

export interface Session {
  user: SessionUser | null;
  csrfToken: string;
  /** A password was given and the second factor is awaited (`POST /session/factor`). */
  factorPending: boolean;
  /** A staff member's session ends after this many seconds without a request (ADMIN_IDLE_SECONDS); null for others. */
  idleSeconds: number | null;
  /** This request found the session idle for longer than that, and it has ended. */
  endedIdle: boolean;
  /** A sign-in with a temporary password awaits the new password (`POST /session/password`). */
  passwordChangePending: boolean;
}

/** A signed-in session, with its (new) CSRF token. */
export interface SignedIn {
  user: SessionUser;
  csrfToken: string;
}

/** The answer to the password: signed in, or the second factor or the new password (after a temporary one) comes next. */
export type SignInResult = SignedIn | { user: null; stage: "factor" | "password"; csrfToken: string };

function toUser(value: unknown): SessionUser | null | undefined {
  if (value === null) return null;
  if (isRecord(value) && isString(value.username) && isRole(value.role)) {
    return { username: value.username, role: value.role };
  }
  return undefined;
}

function toSession(body: unknown): Session {
  if (!isRecord(body) || !isString(body.csrfToken)) throw malformed(200);
  const user = toUser(body.user);
  if (user === undefined) throw malformed(200);
  const idleSeconds = typeof body.idleSeconds === "number" && body.idleSeconds > 0 ? body.idleSeconds : null;
  return {
    user,
    csrfToken: body.csrfToken,
    factorPending: body.factorPending === true,
    idleSeconds,
    endedIdle: body.endedIdle === true,
    passwordChangePending: body.passwordChangePending === true,
  };
}

/** GET /session */
export async function getSession(signal?: AbortSignal): Promise<Session> {
  return toSession(await request("/session", { method: "GET", headers: { Accept: "application/json" }, signal }));
}

/**
 * POST /session/login: signed in, or (when the account has a factor) the factor step, whether
 * or not the password was right. 401 invalid_credentials, 429 (Retry-After) when throttled,
 * 403 for a stale CSRF token. Also re-authenticates a signed-in session (Account page).
 */
export async function signIn(csrfToken: string, credentials: Credentials): Promise<SignInResult> {
  const body = await post("/session/login", csrfToken, { username: credentials.username, password: credentials.password });
  if (isRecord(body) && (body.stage === "factor" || body.stage === "password") && body.user === null && isString(body.csrfToken)) {
    return { user: null, stage: body.stage, csrfToken: body.csrfToken };
  }
  return signedIn(body);
}

function signedIn(body: unknown): SignedIn {
  const session = toSession(body);
  if (!session.user) throw malformed(200);
  return { user: session.user, csrfToken: session.csrfToken };
}

/** POST /session/factor: the second element; 401 invalid_credentials (the attempt is over: password again). */
export async function submitSessionFactor(csrfToken: string, proof: FactorProof): Promise<SignedIn | { user: null; stage: "password"; csrfToken: string }> {
  const body = await post("/session/factor", csrfToken, proof);
  if (isRecord(body) && body.stage === "password" && body.user === null && isString(body.csrfToken)) return { user: null, stage: "password", csrfToken: body.csrfToken };
  return signedIn(body);
}

/** POST /session/password: the new password after a sign-in with a temporary one. 400 (the rules), 409 (no sign-in waits for it). */
export async function submitSessionPassword(csrfToken: string, password: string): Promise<SignedIn> {
  return signedIn(await post("/session/password", csrfToken, { password }));
}

/** POST /session/logout */
export async function signOut(csrfToken: string): Promise<void> {
  await post("/session/logout", csrfToken, {});
}

/**
 * POST /session/end: signs out for an app's RP-Initiated Logout request, `params` as the
 * app sent them (id_token_hint, client_id, post_logout_redirect_uri, state), checked again by
 * the server.
 * @returns where the server sends the browser next (the app's registered URI, or /logout?signed-out).
 */
export async function endSession(csrfToken: string, params: Record<string, string>): Promise<string> {
  const body = await post("/session/end", csrfToken, params);
  if (!isRecord(body) || !isString(body.redirectTo)) throw malformed(200);
  return body.redirectTo;
}
