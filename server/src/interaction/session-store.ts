/**
 * express-session's store over the session store (stores/sessions.ts). Session ids are
 * stored as their SHA-256, so a database read does not yield usable session cookies.
 */
import session from "express-session";
import { hashSecret } from "../kernel/secrets.js";
import type { SessionStore } from "../stores/sessions.js";

/** Fallback lifetime of a session without a cookie expiry, milliseconds. */
const DEFAULT_TTL_MS = 30 * 60 * 1000;

function expiry(data: session.SessionData): Date {
  return data.cookie?.expires ? new Date(data.cookie.expires) : new Date(Date.now() + DEFAULT_TTL_MS);
}

/** express-session's Store interface (callbacks) over {@link SessionStore} (promises). */
export class ExpressSessionStore extends session.Store {
  constructor(private readonly sessions: SessionStore) {
    super();
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    this.sessions.read(hashSecret(sid), new Date()).then((data) => callback(null, data === undefined ? null : (JSON.parse(data) as session.SessionData)), callback);
  }

  override set(sid: string, data: session.SessionData, callback?: (err?: unknown) => void): void {
    this.sessions.write(hashSecret(sid), JSON.stringify(data), expiry(data)).then(() => callback?.(), (err) => callback?.(err));
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.sessions.destroy(hashSecret(sid)).then(() => callback?.(), (err) => callback?.(err));
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void): void {
    this.sessions.touch(hashSecret(sid), expiry(data)).then(() => callback?.(), () => callback?.());
  }
}
