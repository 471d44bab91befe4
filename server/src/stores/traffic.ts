/**
 * Gateway traffic: calls counted per UTC minute, API, client and status class, added to by
 * every instance (http/traffic.ts), for the console's operations dashboard. A flood writes
 * at most one row per key and minute.
 */

/** Calls of one API by one client answered with one status class in one minute. */
export interface TrafficCount {
  /** Start of the UTC minute. */
  minute: Date;
  /** A registered API's name, or "" when the path named none. */
  api: string;
  /** The client id of the token presented, or "" when there was no valid one. */
  clientId: string;
  /** 1 to 5: the status code's first digit. */
  statusClass: number;
  count: number;
}

/** Calls of one API by one client with one status class in a bucket [start, start + width). */
export interface TrafficBucket extends Omit<TrafficCount, "minute"> {
  start: Date;
}

export interface TrafficStore {
  /** Adds each count to the row of its (minute, API, client, status class), inserting the row when missing (one upsert each, atomic across instances). */
  add(counts: TrafficCount[]): Promise<void>;
  /**
   * Sums the counts in each bucket [start, start + `bucketMs`) of `starts`, per API, client and status class.
   * @param bucketMs - the buckets' width, in milliseconds.
   */
  countIn(starts: Date[], bucketMs: number): Promise<TrafficBucket[]>;
  /** Deletes up to `limit` rows of minutes before `before`. @returns how many. */
  deleteBefore(before: Date, limit: number): Promise<number>;
}
