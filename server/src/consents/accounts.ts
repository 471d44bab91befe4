/**
 * Where a PSU's payment accounts come from: the consent page lists them so that the PSU
 * chooses which accounts a TPP may read, or which account a payment is made from.
 *
 * A bank plugs its core banking in here: implement {@link AccountDirectory} (one call per
 * consent page, with the PSU's user id, username and customer number) and pass it to `createServer`
 * (server.ts `accounts`). Tollgate keeps only the IBANs the PSU chose, in the consent's
 * approved authorization details; names and currencies are shown, never stored.
 */

/** A payment account of a PSU, as the consent page shows it. */
export interface PsuAccount {
  /** IBAN in electronic format (no spaces, upper case, ISO 13616). */
  iban: string;
  /** The account's name as the PSU knows it, e.g. "Main current account". */
  name: string;
  /** ISO 4217 currency code of the account. */
  currency: string;
}

/** The bank's directory of PSU accounts. */
export interface AccountDirectory {
  /**
   * The payment accounts the PSU may grant access to or pay from (an empty list when none).
   * @param psu - the signed-in PSU: the user id and the username of Tollgate's user record,
   *   and the bank's customer number when the PSU signed in at its identity provider
   *   (federation/: the provider's customer number claim; null otherwise).
   */
  accountsOf(psu: { userId: string; username: string; customerNumber: string | null }): Promise<PsuAccount[]>;
}
