/**
 * Browser sessions (express-session), stored by the SHA-256 of their id so that a database
 * read yields no usable session cookie.
 */
export interface SessionStore {
  /** @returns the session's JSON data, or undefined when unknown or expired at `now`. */
  read(sidHash: string, now: Date): Promise<string | undefined>;
  /** Creates or replaces a session. */
  write(sidHash: string, data: string, expiresAt: Date): Promise<void>;
  /** Moves a session's expiry. */
  touch(sidHash: string, expiresAt: Date): Promise<void>;
  destroy(sidHash: string): Promise<void>;
  /**
   * Deletes every session of user `userId`: signed in as them, or holding a sign-in of theirs
   * that waits for its second factor (an administrator's factor reset).
   * @returns how many.
   */
  destroyOfUser(userId: string): Promise<number>;
  /** Deletes up to `limit` sessions that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
