/**
 * The PSU's approval of a PSD2 consent at the consent page: which of their accounts a TPP
 * may read, which one a payment is made from (consents/accounts.ts lists them), and the
 * authorization details as approved (RFC 9396 §7: enriched with those accounts).
 */
import { InvalidRequest } from "../kernel/errors.js";
import type { PsuAccount } from "./accounts.js";
import { approvedDetails, type AccountReference, type AuthorizationDetail } from "./authorization-details.js";

/** What the PSU chose on the consent page: IBANs. */
export interface PsuChoice {
  accounts?: readonly string[];
  debtorAccount?: string;
}

/** The IBANs a request names itself: the accounts to read, the accounts to pay from. */
function namedIbans(requested: readonly AuthorizationDetail[]): string[] {
  return requested.flatMap((d) => (d.type === "payment_initiation" ? (d.debtorAccount ? [d.debtorAccount.iban] : []) : (d.access.accounts ?? []).map((a) => a.iban)));
}

/**
 * The details as the PSU approves them.
 * @param psuAccounts - the PSU's accounts (the account directory's answer).
 * @returns `approved`, or `refused` with the reason to send the TPP (`access_denied`) when
 *   the request names an account that is not the PSU's: a TPP cannot have it approved.
 * @throws InvalidRequest (400) when the PSU's choice names an account that is not theirs, or
 *   lacks a choice the details need (an account to read, an account to pay from).
 */
export function approve(
  requested: readonly AuthorizationDetail[],
  psuAccounts: readonly PsuAccount[],
  choice: PsuChoice,
): { approved: AuthorizationDetail[] } | { refused: string } {
  const own = new Set(psuAccounts.map((a) => a.iban));
  if (namedIbans(requested).some((iban) => !own.has(iban))) return { refused: "the request names an account that is not the user's" };
  const chosen = [...new Set(choice.accounts ?? [])];
  if (chosen.some((iban) => !own.has(iban)) || (choice.debtorAccount !== undefined && !own.has(choice.debtorAccount))) {
    throw new InvalidRequest("choose among your own accounts");
  }
  const allAccounts = requested.some((d) => d.type === "account_information" && d.access.allAccounts === true);
  const accounts: AccountReference[] = (allAccounts ? psuAccounts.map((a) => a.iban) : chosen).map((iban) => ({ iban }));
  return { approved: approvedDetails(requested, { accounts, debtorAccount: choice.debtorAccount === undefined ? undefined : { iban: choice.debtorAccount } }) };
}
