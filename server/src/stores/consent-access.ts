/**
 * The use of PSD2 account information consents at the gateway, shared by every instance:
 * how often a consent's account data was read without the PSU on a day (RTS Art. 36(5)(b);
 * Berlin Group `frequencyPerDay`), and on which day it was first read (a one-off consent,
 * Berlin Group `recurringIndicator: false`, serves that day only).
 */

/** One account data call made with a consent, as the gateway saw it. */
export interface ConsentAccessCall {
  /** The UTC day of the call, `YYYY-MM-DD`. */
  day: string;
  /** No PSU took part (the TPP sent no `PSU-IP-Address`): the call counts against `limit`. */
  unattended: boolean;
  /** Most unattended calls allowed on one day (the consent's frequencyPerDay, 1..4). */
  limit: number;
  /** A one-off consent: calls only on the day of its first call. */
  oneOff: boolean;
}

/**
 * What became of the call: `granted` (recorded), `exceeded` (an unattended call over the
 * day's limit; nothing recorded), or `usedUp` (a one-off consent on a later day than its first
 * call; nothing recorded).
 */
export type ConsentAccessOutcome = "granted" | "exceeded" | "usedUp";

export interface ConsentAccessStore {
  /**
   * Records one account data call of consent `consentId`, in one atomic step: the first call
   * sets the consent's first day; an unattended call is counted only while the day's count is
   * below `call.limit` (a new day starts again from zero), so parallel calls on several
   * instances never exceed it.
   */
  record(consentId: string, call: ConsentAccessCall): Promise<ConsentAccessOutcome>;
}
