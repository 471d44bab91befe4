/**
 * Used JWT ids (`jti`) of client assertions (RFC 7523 §3, FAPI 2.0), DPoP proofs
 * (RFC 9449 §11.1) and software statements (RFC 7591 §2.3: one statement registers one client),
 * kept until the JWT itself can no longer be accepted: in the database, so a JWT is accepted once
 * across all instances.
 */

export interface ReplayStore {
  /**
   * Records `key` as used until `expiresAt`.
   * @param key - identifies the JWT: a hash of its purpose, issuer and `jti`.
   * @param now - a record already past its `expiresAt` at `now` counts as unused.
   * @returns true the first time; false when `key` is in use (a replay).
   */
  firstUse(key: string, expiresAt: Date, now: Date): Promise<boolean>;
  /** Deletes up to `limit` records that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
