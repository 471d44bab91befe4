/**
 * Used JWT ids (`jti`) of client assertions (RFC 7523 §3, FAPI 2.0) and DPoP proofs
 * (RFC 9449 §11.1), kept until the JWT itself expires: in the database, so a JWT is accepted
 * once across all instances.
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
