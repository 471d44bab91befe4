/**
 * express-session store over the Session table. Session ids are stored as their SHA-256,
 * so a database read does not yield usable session cookies.
 */
import session from "express-session";
import type { Db } from "../db/client.js";
import { hashSecret } from "../kernel/secrets.js";

/** Fallback lifetime of a session without a cookie expiry, milliseconds. */
const DEFAULT_TTL_MS = 30 * 60 * 1000;

function expiry(data: session.SessionData): Date {
  return data.cookie?.expires ? new Date(data.cookie.expires) : new Date(Date.now() + DEFAULT_TTL_MS);
}

export class PrismaSessionStore extends session.Store {
  constructor(private readonly db: Db) {
    super();
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    this.read(sid).then((data) => callback(null, data), callback);
  }

  private async read(sid: string): Promise<session.SessionData | null> {
    const row = await this.db.session.findUnique({ where: { sidHash: hashSecret(sid) } });
    return row && row.expiresAt > new Date() ? (JSON.parse(row.data) as session.SessionData) : null;
  }

  override set(sid: string, data: session.SessionData, callback?: (err?: unknown) => void): void {
    const sidHash = hashSecret(sid);
    const record = { data: JSON.stringify(data), expiresAt: expiry(data) };
    this.db.session.upsert({ where: { sidHash }, create: { sidHash, ...record }, update: record }).then(() => callback?.(), (err) => callback?.(err));
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.db.session.deleteMany({ where: { sidHash: hashSecret(sid) } }).then(() => callback?.(), (err) => callback?.(err));
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void): void {
    this.db.session.updateMany({ where: { sidHash: hashSecret(sid) }, data: { expiresAt: expiry(data) } }).then(() => callback?.(), () => callback?.());
  }
}

/** Deletes up to `limit` sessions that expired before `before`. @returns how many were deleted. */
export async function deleteExpiredSessions(db: Db, before: Date, limit: number): Promise<number> {
  const ids = (await db.session.findMany({ where: { expiresAt: { lt: before } }, select: { sidHash: true }, take: limit })).map((s) => s.sidHash);
  return ids.length === 0 ? 0 : (await db.session.deleteMany({ where: { sidHash: { in: ids } } })).count;
}
