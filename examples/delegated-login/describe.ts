/**
 * What a TPP asks for, in the PSU's words: scopes, payments and account access. The bank
 * words these as its own pages do; amounts are never put through a float.
 */
import type { AccountInformation, AuthorizationDetail, PaymentInitiation, PsuAccount } from "./tollgate.js";

/** The scopes of Tollgate's demo catalog in words; a scope not listed here is shown by its name. */
const SCOPES: Record<string, string> = {
  aisp: "Read your account details, balances and transactions",
  extended_transaction_history: "Read your transaction history beyond the last 90 days",
  pisp: "Initiate payments from your accounts",
  piisp: "Confirm that funds are available on your account",
  openid: "Know who you are at the bank",
  profile: "Read your name",
  email: "Read your email address",
  offline_access: "Keep access while you are not using the app",
};

/** Locale of amounts and dates. */
const LOCALE = "en-GB";

export function describeScope(scope: string): string {
  return SCOPES[scope] ?? scope;
}

/** An IBAN in print format: in groups of four ("DE89 3704 0044 0532 0130 00"). */
export function formatIban(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, "$1 ");
}

/**
 * An amount as a decimal string in the currency's format ("€1,250.00"): Intl formats the
 * integer part (a BigInt) with the right number of fraction digits, whose zeros are then
 * replaced by the amount's own digits.
 */
export function formatAmount({ currency, amount }: { currency: string; amount: string }): string {
  const [integer = "0", fraction = ""] = amount.split(".");
  const minor = new Intl.NumberFormat(LOCALE, { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const digits = Math.max(minor, fraction.length);
  const format = new Intl.NumberFormat(LOCALE, { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  return format
    .formatToParts(BigInt(/^\d+$/.test(integer) ? integer : "0"))
    .map((part) => (part.type === "fraction" ? fraction.padEnd(digits, "0") : part.value))
    .join("");
}

/** A date YYYY-MM-DD in words ("24 May 2027"). */
export function formatDate(date: string): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(time) ? date : new Intl.DateTimeFormat(LOCALE, { dateStyle: "long", timeZone: "UTC" }).format(time);
}

/** An account by its name among the PSU's, with its IBAN ("Savings, DE02 1203 …"); else its IBAN. */
export function describeAccount(iban: string, accounts: readonly PsuAccount[]): string {
  const name = accounts.find((a) => a.iban === iban)?.name;
  return name ? `${name}, ${formatIban(iban)}` : formatIban(iban);
}

export const isPayment = (d: AuthorizationDetail): d is PaymentInitiation => d.type === "payment_initiation";
export const isAccountAccess = (d: AuthorizationDetail): d is AccountInformation => d.type === "account_information";

/** Account access in words: "Read balances and transactions of the accounts you choose until 24 May 2027, up to 4 times a day". */
export function describeAccountAccess(detail: AccountInformation, accounts: readonly PsuAccount[]): string {
  const { access } = detail;
  const which = access.allAccounts
    ? "all your accounts"
    : access.accounts
      ? new Intl.ListFormat("en", { type: "conjunction" }).format(access.accounts.map((a) => describeAccount(a.iban, accounts)))
      : "the accounts you choose";
  const data = [access.balances && "balances", access.transactions && "transactions"].filter(Boolean).join(" and ");
  const what = data ? `Read ${data} of ${which}` : `Read the list of ${which}`;
  const often = detail.recurringIndicator ? (detail.frequencyPerDay === 1 ? "once a day" : `up to ${detail.frequencyPerDay} times a day`) : "once";
  return `${what} until ${formatDate(detail.validUntil)}, ${often}`;
}

/** What the request needs the PSU to choose: the account to pay from, the accounts to share. */
export function choicesNeeded(details: readonly AuthorizationDetail[] | null): { debtorAccount: boolean; accounts: boolean } {
  return {
    debtorAccount: (details ?? []).some((d) => isPayment(d) && !d.debtorAccount),
    accounts: (details ?? []).some((d) => isAccountAccess(d) && !d.access.accounts && !d.access.allAccounts),
  };
}

/** A one-line summary of the request for the login page ("approve a payment of €99.00 to ACME GmbH"). */
export function summary(scopes: readonly string[], details: readonly AuthorizationDetail[] | null): string[] {
  const lines = scopes.map(describeScope);
  for (const d of details ?? []) {
    if (isPayment(d)) lines.push(`Pay ${formatAmount(d.instructedAmount)} to ${d.creditorName}`);
    else lines.push(describeAccountAccess(d, []));
  }
  return lines;
}
