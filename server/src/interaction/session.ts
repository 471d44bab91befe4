/**
 * Browser sessions for the sign-in and consent pages: express-session over the Session
 * table, a signed `HttpOnly` `SameSite=Lax` cookie (`Secure` when AUTH_URL is https), and
 * a per-session CSRF token checked on every state-changing interaction call.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import session from "express-session";
import { PrismaSessionStore } from "../accounts/session-store.js";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import { OAuthError } from "../oauth/errors.js";

declare module "express-session" {
  interface SessionData {
    /** The signed-in user. */
    userId?: string;
    /** CSRF token for this session (synchronizer token pattern). */
    csrfToken?: string;
    /** Interactions started in this browser; no other browser may answer them. */
    interactionIds?: string[];
  }
}

export const SESSION_COOKIE = "tollgate.sid";

/** The session middleware. */
export function sessions(config: Config, db: Db) {
  return session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret ?? randomBytes(32).toString("hex"),
    store: new PrismaSessionStore(db),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: config.trustProxyHops > 0,
    cookie: {
      httpOnly: true,
      sameSite: "lax",
      secure: config.authUrl.startsWith("https:"),
      path: "/",
      maxAge: config.sessionTtlSeconds * 1000,
    },
  });
}

/** The session's CSRF token, created on first use. */
export function csrfToken(req: Request): string {
  req.session.csrfToken ??= randomBytes(32).toString("base64url");
  return req.session.csrfToken;
}

/**
 * Rejects a state-changing call unless it is JSON and carries the session's CSRF token in
 * `X-CSRF-Token` (a cross-site form can do neither).
 */
export function requireCsrf(req: Request, _res: Response, next: NextFunction): void {
  const sent = req.get("x-csrf-token") ?? "";
  const expected = req.session.csrfToken ?? "";
  const ok = expected !== "" && sent.length === expected.length && timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
  if (!req.is("application/json")) throw new OAuthError("invalid_request", "Content-Type must be application/json", 415);
  if (!ok) throw new OAuthError("invalid_request", "missing or invalid CSRF token", 403);
  next();
}

/**
 * Stores the session now. Handlers call it before answering when they changed the session:
 * express-session's own save at the end of a response may let the headers out first, and
 * the browser's next request, on another database connection, could then read the old state.
 */
export function saveSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}

/**
 * Issues a new session id (session fixation defence) keeping the browser's interactions,
 * then binds the user and a fresh CSRF token.
 */
export function signInSession(req: Request, userId: string): Promise<void> {
  const interactionIds = req.session.interactionIds ?? [];
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) return reject(err);
      req.session.userId = userId;
      req.session.interactionIds = interactionIds;
      csrfToken(req);
      saveSession(req).then(resolve, reject);
    });
  });
}
