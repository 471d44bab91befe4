/**
 * Pushed authorization requests (RFC 9126): the parameters a client pushed, referenced from
 * the authorization endpoint by their `request_uri` until a code is issued for them, of which
 * only the SHA-256 is stored.
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
   * The request with this `request_uri` hash, read without using it: it may be loaded again
   * (a reload of the authorization page) until its code is issued (FAPI 2.0 §5.3.2.2 note 3).
   * @returns the request, or undefined when unknown, expired or already used.
   */
  find(requestUriHash: string, now: Date): Promise<PushedRequestRecord | undefined>;
  /**
   * Marks the request with this `request_uri` hash used at `now`, only if it was unused and
   * unexpired: {@link find} answers nothing for it any more (RFC 9126 §4).
   * @returns the request, or undefined when unknown, expired or already used.
   */
  use(requestUriHash: string, now: Date): Promise<PushedRequestRecord | undefined>;
  /** Deletes up to `limit` requests that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
