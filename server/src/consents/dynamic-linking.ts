/**
 * The gateway's PSD2 dynamic-linking checks (RTS Art. 5): a payment call must carry exactly
 * the amounts and payees the PSU authorized, and an account call may reach only the accounts
 * and data the PSU authorized. Pure functions over the approved authorization details.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { decimalEquals, parseDecimal } from "../kernel/decimal.js";
import { isAmountOf, isCalendarDate, isPaymentText, member, shown, type AccountInformation, type AccountReference, type PaymentInitiation } from "./authorization-details.js";

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

/** The first difference between an account reference of a body and the authorized IBAN: exactly `{iban}`, that IBAN (spaces and letter case ignored). */
function accountMismatch(role: "creditor" | "debtor", given: unknown, authorized: string): string | undefined {
  if (isJsonObject(given) && Object.keys(given).length === 1 && referencedIban(given) === authorized) return undefined;
  const iban = isJsonObject(given) ? member(given, "iban") : undefined;
  return `the ${role} account ${typeof iban === "string" ? shown(iban) : "given"} differs from the authorized ${authorized}`;
}

/** The debtor account of a body, when it names one other than the authorized one. */
function debtorMismatch(body: Record<string, unknown>, authorized: AccountReference | undefined): string | undefined {
  if (!authorized || !Object.hasOwn(body, "debtorAccount")) return undefined;
  return accountMismatch("debtor", member(body, "debtorAccount"), authorized.iban);
}

/**
 * The members a payment of a body may have (Berlin Group sepa-credit-transfers, the ones a
 * bank executes on), and those of a bulk around its `payments`. Anything else is refused, so
 * no member the gateway did not look at can change what the upstream executes.
 */
const PAYMENT_MEMBERS = new Set([
  "instructedAmount", "creditorAccount", "creditorName", "debtorAccount", "creditorAgent", "creditorAddress", "ultimateCreditor",
  "ultimateDebtor", "endToEndIdentification", "instructionIdentification", "purposeCode", "remittanceInformationUnstructured", "requestedExecutionDate",
]);
const BULK_MEMBERS = new Set(["payments", "debtorAccount", "batchBookingPreferred", "requestedExecutionDate", "paymentInformationId"]);
const ADDRESS_MEMBERS = new Set(["streetName", "buildingNumber", "townName", "postCode", "country"]);
/** Most characters of a free-text member of a payment (ISO 20022 Max140Text). */
const PAYMENT_TEXT_MAX_LENGTH = 140;

/** Text as the PSU read it: NFC, runs of white space as one space, none at the ends (Verification of Payee compares names, not their spelling in code points). */
function foldedText(text: string): string {
  return text.normalize("NFC").replace(/\s+/gu, " ").trim();
}

/** The first member of `value` outside `allowed`, or the first member not of its kind (text: 1..140 characters of clean text; a date; a boolean; an address); undefined when none. */
function shapeProblem(value: Record<string, unknown>, allowed: ReadonlySet<string>, compared: ReadonlySet<string>): string | undefined {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) return `has an unknown member '${shown(key)}'`;
    if (compared.has(key)) continue;
    const v = member(value, key);
    if (key === "creditorAddress") {
      if (!isJsonObject(v)) return "creditorAddress must be a JSON object";
      const problem = shapeProblem(v, ADDRESS_MEMBERS, new Set());
      if (problem) return `creditorAddress ${problem}`;
    } else if (key === "batchBookingPreferred") {
      if (typeof v !== "boolean") return "batchBookingPreferred must be true or false";
    } else if (key === "requestedExecutionDate") {
      if (typeof v !== "string" || !isCalendarDate(v)) return "requestedExecutionDate must be a date YYYY-MM-DD";
    } else if (typeof v !== "string" || !isPaymentText(v)) {
      return `${key} must be text of 1 to ${PAYMENT_TEXT_MAX_LENGTH} characters without control or invisible characters`;
    }
  }
  return undefined;
}

/** Members compared with the approval as a whole rather than checked by their kind first. */
const COMPARED = new Set(["instructedAmount", "creditorAccount", "debtorAccount", "payments"]);

/**
 * The first difference between a text member of a payment and the text the PSU approved for
 * it, after {@link foldedText}: none when the body leaves it out (the approved text is then
 * forwarded, {@link completedPayment}); a difference when the PSU approved none. The
 * member, when present, is text already ({@link shapeProblem}).
 */
function textMismatch(payment: Record<string, unknown>, name: "creditorName" | "remittanceInformationUnstructured", label: string, authorized: string | undefined): string | undefined {
  if (!Object.hasOwn(payment, name)) return undefined;
  const given = member(payment, name) as string;
  if (authorized === undefined) return `the ${label} ${shown(given)} was not authorized: the PSU approved none`;
  return foldedText(given) === foldedText(authorized) ? undefined : `the ${label} ${shown(given)} differs from the authorized ${shown(authorized)}`;
}

/** The first difference between one payment object of a body and the authorized payment. */
function singleMismatch(body: unknown, authorized: PaymentInitiation): string | undefined {
  if (!isJsonObject(body)) return "the payment is not a JSON object";
  const shape = shapeProblem(body, PAYMENT_MEMBERS, COMPARED);
  if (shape) return `the payment ${shape}`;
  const instructed = member(body, "instructedAmount");
  const currency = isJsonObject(instructed) ? member(instructed, "currency") : undefined;
  const amount = isJsonObject(instructed) ? member(instructed, "amount") : undefined;
  if (typeof currency !== "string" || typeof amount !== "string" || Object.keys(instructed as object).length !== 2) {
    return "the payment has no instructedAmount of exactly a currency and an amount as strings";
  }
  if (!isAmountOf(amount, currency)) return `the amount ${shown(amount)} ${shown(currency)} is not a decimal string within the minor units of an ISO 4217 currency`;
  const given = parseDecimal(amount)!;
  const expected = parseDecimal(authorized.instructedAmount.amount);
  if (currency !== authorized.instructedAmount.currency || !expected || !decimalEquals(given, expected)) {
    return `the amount ${shown(amount)} ${shown(currency)} differs from the authorized ${authorized.instructedAmount.amount} ${authorized.instructedAmount.currency}`;
  }
  return (
    accountMismatch("creditor", member(body, "creditorAccount"), authorized.creditorAccount.iban) ??
    textMismatch(body, "creditorName", "creditor name", authorized.creditorName) ??
    textMismatch(body, "remittanceInformationUnstructured", "remittance information", authorized.remittanceInformationUnstructured) ??
    debtorMismatch(body, authorized.debtorAccount)
  );
}

/**
 * The first difference between a payment call's body and the payments the PSU authorized
 * (RTS Art. 5(1)(b) and 5(3)(b): the transaction is bound to its amount and payee, a batch
 * to its payments). The shape is the approval's: one approved payment is a single payment,
 * `{instructedAmount: {currency, amount}, creditorAccount: {iban}, creditorName?,
 * remittanceInformationUnstructured?, debtorAccount?: {iban}, …}`, and a `payments` member is
 * then refused; several are a bulk, `{payments: [...], debtorAccount?, batchBookingPreferred?,
 * …}`, matching entry by entry, in order. Both shapes are closed: a member outside the Berlin
 * Group payment members is refused (so nothing the gateway did not check reaches the
 * upstream), account references are `{iban}` alone, `requestedExecutionDate` is a calendar
 * date, and text members are 1..140 characters without control or invisible (`\p{Cf}`)
 * characters.
 * Compared: the amount, a decimal string the authorization server would accept (within the
 * currency's minor units: "3.000" EUR is refused), numerically ("1250.0" = "1250.00"; a JSON
 * number is refused); the currency, exactly; the creditor IBAN (spaces and letter case in the
 * body ignored); the creditor name and the remittance information, when given, after NFC
 * normalization and white-space folding, case-sensitively ({@link foldedText}; Regulation (EU)
 * 2024/886, Verification of Payee: the name the PSU confirmed; a remittance information the
 * PSU did not approve is refused); and, when the approved entry has a debtorAccount and the
 * body gives one, the debtor IBAN.
 * @param approved - the approved payment_initiation entries, in order.
 * @returns a description of the first difference, e.g. "the amount 1250.01 EUR differs from
 *   the authorized 1250.00 EUR" (it may echo the body: sanitize before a response), or
 *   undefined when the body matches.
 */
export function paymentMismatch(body: unknown, approved: readonly PaymentInitiation[]): string | undefined {
  if (approved.length === 0) return "no payment was authorized";
  if (!isJsonObject(body)) return "the body is not a JSON object";
  if (approved.length === 1) {
    if (Object.hasOwn(body, "payments")) return "the body is a bulk of payments but one payment was authorized";
    return singleMismatch(body, approved[0]!);
  }
  if (!Object.hasOwn(body, "payments")) return `the body is one payment but ${approved.length} were authorized`;
  const shape = shapeProblem(body, BULK_MEMBERS, COMPARED);
  if (shape) return `the bulk ${shape}`;
  const payments = member(body, "payments");
  if (!Array.isArray(payments)) return "payments is not an array";
  if (payments.length !== approved.length) return `the body has ${payments.length} payments but ${approved.length} were authorized`;
  for (const [i, authorized] of approved.entries()) {
    const mismatch = debtorMismatch(body, authorized.debtorAccount) ?? singleMismatch(payments[i], authorized);
    if (mismatch) return `payment ${i + 1}: ${mismatch}`;
  }
  return undefined;
}

/** The approved members `payment` leaves out: the creditor name, the remittance information, and with `debtor` the debtor account. */
function missingMembers(payment: Record<string, unknown>, authorized: PaymentInitiation, debtor: boolean): Record<string, unknown> {
  const missing: Record<string, unknown> = {};
  if (!Object.hasOwn(payment, "creditorName")) missing.creditorName = authorized.creditorName;
  const remittance = authorized.remittanceInformationUnstructured;
  if (remittance !== undefined && !Object.hasOwn(payment, "remittanceInformationUnstructured")) missing.remittanceInformationUnstructured = remittance;
  if (debtor && authorized.debtorAccount && !Object.hasOwn(payment, "debtorAccount")) missing.debtorAccount = { iban: authorized.debtorAccount.iban };
  return missing;
}

/**
 * The payment document to forward for a body that matched (`paymentMismatch` found nothing)
 * but left out something the PSU approved: the approved creditor name, remittance
 * information and debtor account filled in, so the bank executes the payment the PSU
 * approved rather than one its own defaults complete. In a bulk the debtor account goes
 * beside the payments when every approved payment has the same one (the Berlin Group bulk
 * shape), else into each payment.
 * @returns a new object with the added members last, or undefined when the body names all
 *   of them already (the body's bytes are then the document); `body` is not changed.
 */
export function completedPayment(body: Record<string, unknown>, approved: readonly PaymentInitiation[]): Record<string, unknown> | undefined {
  if (approved.length === 1) {
    const missing = missingMembers(body, approved[0]!, true);
    return Object.keys(missing).length === 0 ? undefined : { ...body, ...missing };
  }
  const payments = body.payments as Record<string, unknown>[];
  const completed: Record<string, unknown> = { ...body };
  let changed = false;
  const debtors = new Set(approved.map((a) => a.debtorAccount?.iban));
  const [shared] = debtors;
  if (debtors.size === 1 && shared !== undefined && !Object.hasOwn(body, "debtorAccount") && !payments.every((p) => Object.hasOwn(p, "debtorAccount"))) {
    completed.debtorAccount = { iban: shared };
    changed = true;
  }
  completed.payments = payments.map((payment, i) => {
    const missing = missingMembers(payment, approved[i]!, !Object.hasOwn(completed, "debtorAccount"));
    if (Object.keys(missing).length === 0) return payment;
    changed = true;
    return { ...payment, ...missing };
  });
  return changed ? completed : undefined;
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

/**
 * How often the approved account_information entries let a TPP read account data: at most
 * `frequencyPerDay` calls a day without the PSU (RTS Art. 36(5)(b), 1..4), and, for a one-off
 * consent (Berlin Group `recurringIndicator: false`), on one day only. Several entries are
 * held to the strictest: the lowest frequency, one-off when any entry is.
 * @param approved - at least one entry.
 */
export function accessLimits(approved: readonly AccountInformation[]): { frequencyPerDay: number; oneOff: boolean } {
  return {
    frequencyPerDay: Math.min(...approved.map((d) => d.frequencyPerDay)),
    oneOff: approved.some((d) => !d.recurringIndicator),
  };
}
