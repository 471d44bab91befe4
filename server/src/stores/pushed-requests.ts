/**
 * Pushed authorization requests (RFC 9126): the parameters a client pushed, referenced once
 * from the authorization endpoint by their `request_uri`, of which only the SHA-256 is stored.
 */

/** A pushed request as stored. */
export interface PushedRequestRecord {
  appId: string;
  /** The authorization parameters as pushed (RFC 9126 §2.1), one value each. */
  parameters: Record<string, string>;
  expiresAt: Date;
}

/** A request to store: the record plus the SHA-256 hex of its `request_uri`. */
export type NewPushedRequest = PushedRequestRecord & { requestUriHash: string };

export interface PushedRequestStore {
  insert(request: NewPushedRequest): Promise<void>;
  /**
   * Marks the request with this `request_uri` hash used at `now`, only if it was unused and
   * unexpired: the single-use guard (RFC 9126 §4).
   * @returns the request, or undefined when unknown, expired or already used.
   */
  use(requestUriHash: string, now: Date): Promise<PushedRequestRecord | undefined>;
  /** Deletes up to `limit` requests that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
