/**
 * The gateway's PSD2 dynamic-linking checks (RTS Art. 5): a payment call must carry exactly
 * the amounts and payees the PSU authorized, and an account call may reach only the accounts
 * and data the PSU authorized. Pure functions over the approved authorization details.
 */
import { decimalEquals, parseDecimal } from "../kernel/decimal.js";
import { isJsonObject, member, shown, type AccountInformation, type AccountReference, type PaymentInitiation } from "./authorization-details.js";

/** An IBAN as callers write it in a body or path: ASCII letters, digits and spaces (no other characters, so none case-folds into another). */
const LOOSE_IBAN = /^[A-Za-z0-9 ]{1,64}$/;

/** `value`'s IBAN in electronic format (spaces removed, upper case), or undefined when it is no IBAN-like string. */
function electronicIban(value: unknown): string | undefined {
  return typeof value === "string" && LOOSE_IBAN.test(value) ? value.replaceAll(" ", "").toUpperCase() : undefined;
}

/** The IBAN of an account reference `{iban}` in a body, in electronic format; undefined when absent or malformed. */
function referencedIban(value: unknown): string | undefined {
  return isJsonObject(value) ? electronicIban(member(value, "iban")) : undefined;
}

/** The debtor account of a body, when it names one that differs from the authorized one. */
function debtorMismatch(body: Record<string, unknown>, authorized: AccountReference | undefined): string | undefined {
  if (!authorized || !Object.hasOwn(body, "debtorAccount")) return undefined;
  const given = member(body, "debtorAccount");
  if (referencedIban(given) === authorized.iban) return undefined;
  const iban = isJsonObject(given) ? member(given, "iban") : undefined;
  return `the debtor account ${typeof iban === "string" ? shown(iban) : "given"} differs from the authorized ${authorized.iban}`;
}

/** The first difference between one payment object of a body and the authorized payment. */
function singleMismatch(body: unknown, authorized: PaymentInitiation): string | undefined {
  if (!isJsonObject(body)) return "the payment is not a JSON object";
  const instructed = member(body, "instructedAmount");
  const currency = isJsonObject(instructed) ? member(instructed, "currency") : undefined;
  const amount = isJsonObject(instructed) ? member(instructed, "amount") : undefined;
  if (typeof currency !== "string" || typeof amount !== "string") return "the payment has no instructedAmount with a currency and an amount as strings";
  const given = parseDecimal(amount);
  const expected = parseDecimal(authorized.instructedAmount.amount);
  if (currency !== authorized.instructedAmount.currency || !given || !expected || !decimalEquals(given, expected)) {
    return `the amount ${shown(amount)} ${shown(currency)} differs from the authorized ${authorized.instructedAmount.amount} ${authorized.instructedAmount.currency}`;
  }
  const creditor = member(body, "creditorAccount");
  if (referencedIban(creditor) !== authorized.creditorAccount.iban) {
    const iban = isJsonObject(creditor) ? member(creditor, "iban") : undefined;
    return `the creditor account ${typeof iban === "string" ? shown(iban) : "given"} differs from the authorized ${authorized.creditorAccount.iban}`;
  }
  return debtorMismatch(body, authorized.debtorAccount);
}

/**
 * The first difference between a payment call's body and the payments the PSU authorized
 * (RTS Art. 5(1)(b) and 5(3)(b): the transaction is bound to its amount and payee, a batch
 * to its payments). The body (Berlin Group sepa-credit-transfers JSON) is either one payment
 * `{instructedAmount: {currency, amount}, creditorAccount: {iban}, creditorName,
 * debtorAccount?: {iban}, remittanceInformationUnstructured?}` matching the single approved
 * payment, or `{payments: [...], debtorAccount?}` (a bulk) matching the approved batch entry
 * by entry, in order. Compared: amount (numerically as a decimal string, never a float:
 * "1250.0" = "1250.00"; a JSON number is a mismatch), currency (exactly), creditor IBAN
 * (spaces and letter case in the body ignored) and, when the approved entry has a
 * debtorAccount and the body (or the bulk) gives one, the debtor IBAN. Other members are
 * not compared.
 * @param approved - the approved payment_initiation entries, in order.
 * @returns a description of the first difference, e.g. "the amount 1250.01 EUR differs from
 *   the authorized 1250.00 EUR" (it may echo the body: sanitize before a response), or
 *   undefined when the body matches.
 */
export function paymentMismatch(body: unknown, approved: readonly PaymentInitiation[]): string | undefined {
  if (approved.length === 0) return "no payment was authorized";
  if (!isJsonObject(body)) return "the body is not a JSON object";
  if (!Object.hasOwn(body, "payments")) {
    return approved.length === 1 ? singleMismatch(body, approved[0]!) : `the body is one payment but ${approved.length} were authorized`;
  }
  const payments = member(body, "payments");
  if (!Array.isArray(payments)) return "payments is not an array";
  if (payments.length !== approved.length) return `the body has ${payments.length} payments but ${approved.length} were authorized`;
  for (const [i, authorized] of approved.entries()) {
    const mismatch = debtorMismatch(body, authorized.debtorAccount) ?? singleMismatch(payments[i], authorized);
    if (mismatch) return `payment ${i + 1}: ${mismatch}`;
  }
  return undefined;
}

/**
 * What the approved account_information entries allow on one account (RTS Art. 36(1)):
 * `balances` and `transactions` as approved for the entry that lists it (any of them, should
 * there be several), or undefined when no entry lists the account. Only `access.accounts`
 * counts: for allAccounts these are the accounts the PSU had at approval
 * (approvedDetails). Validity (validUntil, status) is the caller's to check.
 * @param accountIban - the account of the call; spaces and letter case are ignored.
 */
export function accountAccess(accountIban: string, approved: readonly AccountInformation[]): { balances: boolean; transactions: boolean } | undefined {
  const iban = electronicIban(accountIban);
  let access: { balances: boolean; transactions: boolean } | undefined;
  for (const detail of approved) {
    if (!detail.access.accounts?.some((a) => a.iban === iban)) continue;
    access = {
      balances: access?.balances === true || detail.access.balances === true,
      transactions: access?.transactions === true || detail.access.transactions === true,
    };
  }
  return access;
}
