/**
 * RFC 9396 authorization details (PSD2 payments and account access) as the SPA receives them,
 * and in plain words. The words are English (the SPA's language); amounts and dates follow the
 * `locale` passed in (the call sites pass `navigator.language`), so that every function here
 * is pure and testable.
 */

import type { AccountInformation, AccountReference, Amount, AuthorizationDetail, PaymentInitiation } from "../../../server/src/stores/authorization-details";
import type { PsuAccount } from "../../../server/src/consents/accounts";

// The shapes are the server's (types only: nothing of the server is bundled).
export type { AccountInformation, AccountReference, Amount, AuthorizationDetail, PaymentInitiation, PsuAccount };

/**
 * The status of a PSD2 consent (Berlin Group NextGenPSD2 consent status), and for a payment's
 * what became of it at the bank (server/src/consents/lifecycle.ts): "consumed" (made),
 * "paymentPending", "paymentRejected", "outcomeUnknown".
 */
export type Psd2ConsentStatus =
  | "received"
  | "valid"
  | "rejected"
  | "revokedByPsu"
  | "terminatedByTpp"
  | "expired"
  | "consumed"
  | "paymentPending"
  | "paymentRejected"
  | "outcomeUnknown";

/* Reading the wire shape */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";
const isOptional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);

/** The amount grammar of the design (a positive decimal, at most 15 integer digits). */
const AMOUNT = /^(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `code` is a currency Intl can format (Intl.NumberFormat throws a RangeError otherwise). */
function isCurrency(code: unknown): code is string {
  if (!isString(code) || !/^[A-Z]{3}$/.test(code)) return false;
  try {
    new Intl.NumberFormat("en", { style: "currency", currency: code });
    return true;
  } catch {
    return false;
  }
}

/** The date parts of a YYYY-MM-DD calendar date, or undefined when it is not a real date ("2027-02-30"). */
function dateParts(date: string): [year: number, month: number, day: number] | undefined {
  const match = CALENDAR_DATE.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const utc = new Date(Date.UTC(year, month - 1, day));
  return utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day ? [year, month, day] : undefined;
}

const isAccountReference = (v: unknown): v is AccountReference => isRecord(v) && isString(v.iban) && v.iban !== "";
const isAmount = (v: unknown): v is Amount => isRecord(v) && isCurrency(v.currency) && isString(v.amount) && AMOUNT.test(v.amount);
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";

function isPaymentInitiation(v: Record<string, unknown>): boolean {
  return (
    isAmount(v.instructedAmount) &&
    isString(v.creditorName) &&
    isAccountReference(v.creditorAccount) &&
    isOptional(v.remittanceInformationUnstructured, isString) &&
    isOptional(v.debtorAccount, isAccountReference)
  );
}

function isAccountInformation(v: Record<string, unknown>): boolean {
  const { access } = v;
  return (
    isRecord(access) &&
    isOptional(access.accounts, (a) => Array.isArray(a) && a.length > 0 && a.every(isAccountReference)) &&
    isOptional(access.allAccounts, (a) => a === true) &&
    isOptional(access.balances, isBoolean) &&
    isOptional(access.transactions, isBoolean) &&
    isString(v.validUntil) &&
    dateParts(v.validUntil) !== undefined &&
    Number.isInteger(v.frequencyPerDay) &&
    (v.frequencyPerDay as number) >= 1 &&
    isBoolean(v.recurringIndicator)
  );
}

/**
 * The authorization details of a server answer, checked against the wire shape (RFC 9396 §2,
 * the types of the design), or undefined when `value` is not a non-empty array of them: a
 * page never shows (nor lets the PSU approve) details it could not put into words. Members
 * the SPA does not show are kept as they are.
 */
export function parseAuthorizationDetails(value: unknown): AuthorizationDetail[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const valid = value.every(
    (d) =>
      isRecord(d) &&
      ((d.type === "payment_initiation" && isPaymentInitiation(d)) || (d.type === "account_information" && isAccountInformation(d))),
  );
  return valid ? (value as AuthorizationDetail[]) : undefined;
}

/**
 * The authorization details of a PSD2 consent from the admin API (`Psd2Consent.authorizationDetails`,
 * JSON text), or undefined when the text is not JSON of {@link parseAuthorizationDetails}' shape.
 */
export function readAuthorizationDetails(json: string): AuthorizationDetail[] | undefined {
  try {
    return parseAuthorizationDetails(JSON.parse(json));
  } catch {
    return undefined;
  }
}

/** The PSU's accounts of an interaction answer, or undefined when `value` is not a list of them. */
export function parsePsuAccounts(value: unknown): PsuAccount[] | undefined {
  if (!Array.isArray(value) || !value.every((a) => isRecord(a) && isString(a.iban) && isString(a.name) && isString(a.currency))) return undefined;
  return (value as PsuAccount[]).map(({ iban, name, currency }) => ({ iban, name, currency }));
}

/* What the PSU chooses at consent */

/** Whether a detail is a payment. */
export const isPayment = (detail: AuthorizationDetail): detail is PaymentInitiation => detail.type === "payment_initiation";
/** Whether a detail is account access. */
export const isAccountAccess = (detail: AuthorizationDetail): detail is AccountInformation => detail.type === "account_information";

/** The account access the PSU picks the accounts of at consent: no accounts given, and not all accounts. */
export function accountsToChoose(details: readonly AuthorizationDetail[]): AccountInformation | undefined {
  return details.filter(isAccountAccess).find((d) => !d.access.accounts && !d.access.allAccounts);
}

/** Whether the PSU picks the account to pay from at consent: a payment without a debtor account. */
export function needsDebtorAccount(details: readonly AuthorizationDetail[]): boolean {
  return details.some((d) => isPayment(d) && !d.debtorAccount);
}

/** What the PSU chose at consent: the IBANs of the accounts to share, and of the account to pay from ("" for none yet). */
export interface ConsentChoice {
  accounts: ReadonlySet<string>;
  debtorAccount: string;
}

/**
 * The choice's part of the consent decision (POST /interaction/:id/consent): `accounts` for
 * an account access that names none ({@link accountsToChoose}), `debtorAccount` for payments
 * that name none ({@link needsDebtorAccount}); undefined while one of those is not chosen yet.
 */
export function choiceDecision(details: readonly AuthorizationDetail[], choice: ConsentChoice): { accounts?: string[]; debtorAccount?: string } | undefined {
  const decision: { accounts?: string[]; debtorAccount?: string } = {};
  if (accountsToChoose(details)) {
    if (choice.accounts.size === 0) return undefined;
    decision.accounts = [...choice.accounts];
  }
  if (needsDebtorAccount(details)) {
    if (choice.debtorAccount === "") return undefined;
    decision.debtorAccount = choice.debtorAccount;
  }
  return decision;
}

/* Formatting */

/** An IBAN in print format (ISO 13616): upper case, in groups of four ("DE89 3704 0044 0532 0130 00"). */
export function formatIban(iban: string): string {
  return iban
    .replace(/\s+/g, "")
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, "$1 ");
}

/** The number of minor unit digits of a currency (ISO 4217 via Intl: EUR 2, JPY 0). @throws RangeError for an unknown currency. */
function minorUnits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * An amount in the locale's currency format ("€1,250.00" in en-GB, "1.250,00 €" in de-DE), with
 * at least the currency's minor units and every fraction digit the amount has.
 *
 * The decimal string never goes through a float (exact beyond 15 significant digits): Intl
 * formats the integer part as a BigInt with the wanted number of fraction digits, which gives
 * the locale's grouping, decimal sign and currency placement (formatToParts), and the fraction
 * part's zeros are then replaced by the amount's own digits.
 *
 * @throws RangeError for an amount outside the design's grammar or an unknown currency code.
 */
export function formatAmount({ amount, currency }: Amount, locale: string): string {
  if (!AMOUNT.test(amount)) throw new RangeError(`Not a decimal amount: ${amount}`);
  const [integer = "0", fraction = ""] = amount.split(".");
  const digits = Math.max(fraction.length, minorUnits(currency));
  const format = new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  const shown = fraction.padEnd(digits, "0");
  return format
    .formatToParts(BigInt(integer))
    .map((part) => (part.type === "fraction" ? shown : part.value))
    .join("");
}

/**
 * The exact sum of decimal string amounts of one currency, as a decimal string with the most
 * fraction digits of the addends ("1000.5" + "499.50" = "1500.00"): BigInt arithmetic on the
 * amounts scaled to that many digits.
 */
export function sumAmounts(amounts: readonly string[]): string {
  const scale = Math.max(0, ...amounts.map((a) => a.split(".")[1]?.length ?? 0));
  const scaled = (a: string) => {
    const [integer = "0", fraction = ""] = a.split(".");
    return BigInt(integer + fraction.padEnd(scale, "0"));
  };
  const total = amounts.reduce((sum, a) => sum + scaled(a), 0n).toString().padStart(scale + 1, "0");
  return scale === 0 ? total : `${total.slice(0, -scale)}.${total.slice(-scale)}`;
}

/**
 * A calendar date (YYYY-MM-DD) in the locale's long format ("24 May 2027", "24. Mai 2027").
 * The date is formatted in UTC from its UTC parts, so no time zone moves it to the day before
 * or after. A text that is not a real date is returned as it is.
 */
export function formatDate(date: string, locale: string): string {
  const parts = dateParts(date);
  if (!parts) return date;
  const [year, month, day] = parts;
  return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(new Date(Date.UTC(year, month - 1, day)));
}

/** The calendar date of `now` in the browser's time zone, as YYYY-MM-DD (what the PSU calls "today"). */
export function localToday(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

const DAY_MS = 86_400_000;

/**
 * The number of days of access from `today` to `validUntil` (both YYYY-MM-DD), both days
 * included: 1 when access ends today, 181 for the longest consent (today + 180 days); 0 when
 * `validUntil` is past or either text is not a real date.
 */
export function accessDays(validUntil: string, today: string): number {
  const end = dateParts(validUntil);
  const start = dateParts(today);
  if (!end || !start) return 0;
  const days = (Date.UTC(end[0], end[1] - 1, end[2]) - Date.UTC(start[0], start[1] - 1, start[2])) / DAY_MS + 1;
  return Math.max(0, days);
}

/**
 * How long access lasts: "until 24 May 2027 (181 days)", or "until 24 May 2027" when `today`
 * is not given or the date is past (see {@link accessDays}).
 */
export function describeAccessPeriod(validUntil: string, locale: string, today?: string): string {
  const until = `until ${formatDate(validUntil, locale)}`;
  const days = today === undefined ? 0 : accessDays(validUntil, today);
  return days > 0 ? `${until} (${days} ${days === 1 ? "day" : "days"})` : until;
}

/**
 * How long access lasts until an instant (ISO 8601), in the browser's calendar: "until
 * 22 February 2027 (90 days)", the days counted from `now` and rounded; "until …" alone
 * when it is less than half a day away.
 */
export function describeAccessUntil(instant: string, locale: string, now: Date = new Date()): string {
  const until = new Date(instant);
  const days = Math.round((until.getTime() - now.getTime()) / DAY_MS);
  const date = `until ${formatDate(localToday(until), locale)}`;
  return days > 0 ? `${date} (${days} ${days === 1 ? "day" : "days"})` : date;
}

/** Lists in English words ("A, B, and C"), like the rest of the text. */
const andList = new Intl.ListFormat("en", { type: "conjunction" });

/** An account by its name among the PSU's accounts, with its IBAN ("Main current account (DE89 …)"), else its IBAN. */
export function describeAccount(iban: string, accounts: readonly PsuAccount[]): string {
  const name = accounts.find((a) => a.iban === iban)?.name;
  return name ? `${name} (${formatIban(iban)})` : formatIban(iban);
}

/**
 * A payment in words, in parts: the page prints "Pay <amount> to <payee>", the payee's IBAN on
 * a line of its own, then where it is paid from and the reference. The payee's name and the
 * reference are the TPP's text: the page isolates each (`<bdi>`), so right-to-left letters in
 * them cannot reorder the amount or the IBAN, and never puts an IBAN on the payee's line,
 * where such a name could pass for one (the server refuses bidirectional controls in them too).
 */
export interface PaymentDescription {
  /** The amount in the locale's currency format: "€1,250.00". */
  amount: string;
  /** The payee's name, as the TPP sent it: "ACME GmbH". */
  creditorName: string;
  /** The payee's IBAN in print format: "DE75 5121 0800 1245 1261 99". */
  creditorIban: string;
  /** The account paid from (named when it is one of the PSU's): "Main current account (DE89 …)"; null when the PSU picks it. */
  debtorAccount: string | null;
  /** The remittance information, as the TPP sent it: "Invoice 42"; null when the payment has none. */
  reference: string | null;
}

/**
 * A payment in plain words ({@link PaymentDescription}): the amount in the locale's format, the
 * payee's name and IBAN, the debtor account when known (named when it is one of `accounts`,
 * see {@link describeAccount}), and the remittance information.
 */
export function describePayment(payment: PaymentInitiation, accounts: readonly PsuAccount[], locale: string): PaymentDescription {
  return {
    amount: formatAmount(payment.instructedAmount, locale),
    creditorName: payment.creditorName,
    creditorIban: formatIban(payment.creditorAccount.iban),
    debtorAccount: payment.debtorAccount ? describeAccount(payment.debtorAccount.iban, accounts) : null,
    reference: payment.remittanceInformationUnstructured ?? null,
  };
}

/** A batch of payments in words: the count and totals, and each payment. */
export interface BatchDescription {
  /** "3 payments, €1,500.00 in total" */
  text: string;
  payments: PaymentDescription[];
}

/**
 * Several payments in plain words: "3 payments, €1,500.00 in total" (one exact total per
 * currency, in the order the currencies first appear: "2 payments, €1,000.00 and US$20.00 in
 * total"), and each payment as {@link describePayment} says it.
 */
export function describeBatch(payments: readonly PaymentInitiation[], accounts: readonly PsuAccount[], locale: string): BatchDescription {
  const byCurrency = new Map<string, string[]>();
  for (const { instructedAmount } of payments) {
    byCurrency.set(instructedAmount.currency, [...(byCurrency.get(instructedAmount.currency) ?? []), instructedAmount.amount]);
  }
  const totals = [...byCurrency].map(([currency, amounts]) => formatAmount({ currency, amount: sumAmounts(amounts) }, locale));
  const count = `${payments.length} ${payments.length === 1 ? "payment" : "payments"}`;
  return { text: `${count}, ${andList.format(totals)} in total`, payments: payments.map((p) => describePayment(p, accounts, locale)) };
}

/** "once a day", "twice a day", "up to 4 times a day". */
export function describeFrequency(perDay: number): string {
  if (perDay === 1) return "once a day";
  if (perDay === 2) return "twice a day";
  return `up to ${perDay} times a day`;
}

/**
 * Account access in plain words: "Read balances and transactions of Main current account and
 * Savings until 24 May 2027, up to 4 times a day".
 * - The accounts: their names among `accounts` (the PSU's), else their IBANs in groups of
 *   four; "all your accounts" for allAccounts; "the accounts you choose" when the PSU picks them.
 * - Neither balances nor transactions: "Read the list of all your accounts" (or "of your
 *   accounts: …").
 * - How long: "until <date>", with the number of days when `today` (YYYY-MM-DD) is given
 *   ({@link describeAccessPeriod}); how often: {@link describeFrequency}, or "one-off access"
 *   when the access is not recurring.
 */
export function describeAccountAccess(detail: AccountInformation, accounts: readonly PsuAccount[], locale: string, today?: string): string {
  const { access } = detail;
  const named = access.accounts?.map((a) => accounts.find((own) => own.iban === a.iban)?.name ?? formatIban(a.iban));
  const which = access.allAccounts ? "all your accounts" : named ? andList.format(named) : "the accounts you choose";
  const data = [access.balances && "balances", access.transactions && "transactions"].filter(Boolean).join(" and ");
  const what = data ? `Read ${data} of ${which}` : `Read the list of ${named && !access.allAccounts ? `your accounts: ${which}` : which}`;
  const often = detail.recurringIndicator ? describeFrequency(detail.frequencyPerDay) : "one-off access";
  return `${what} ${describeAccessPeriod(detail.validUntil, locale, today)}, ${often}`;
}

/** A PSD2 consent's status in the PSU's words. */
const STATUS_FOR_PSU: Record<Psd2ConsentStatus, string> = {
  received: "Awaiting your approval",
  valid: "Active",
  rejected: "Rejected",
  revokedByPsu: "Withdrawn by you",
  terminatedByTpp: "Ended by the provider",
  expired: "Expired",
  consumed: "Used",
  paymentPending: "Payment in progress",
  paymentRejected: "Rejected by the bank",
  outcomeUnknown: "Outcome pending: the bank has not confirmed the payment yet",
};

/** A PSD2 consent's status in an administrator's words (the PSU is "the user"). */
const STATUS_FOR_ADMIN: Record<Psd2ConsentStatus, string> = {
  ...STATUS_FOR_PSU,
  received: "Awaiting approval",
  revokedByPsu: "Withdrawn by the user",
  outcomeUnknown: "Outcome unknown",
};

const isStatus = (status: string): status is Psd2ConsentStatus => Object.hasOwn(STATUS_FOR_PSU, status);

/**
 * A PSD2 consent's status in words ("Active", "Withdrawn by you"), for the PSU or for an
 * administrator; a status this SPA does not know is returned as it is.
 */
export function describeStatus(status: string, reader: "psu" | "admin"): string {
  if (!isStatus(status)) return status;
  return (reader === "psu" ? STATUS_FOR_PSU : STATUS_FOR_ADMIN)[status];
}

/** The badge tone of a PSD2 consent status: ok while usable, warn while awaiting approval or the bank, neutral once over. */
export function statusTone(status: string): "ok" | "warn" | "bad" | "neutral" {
  if (status === "valid") return "ok";
  if (status === "received" || status === "paymentPending" || status === "outcomeUnknown") return "warn";
  if (status === "rejected" || status === "revokedByPsu" || status === "terminatedByTpp" || status === "paymentRejected") return "bad";
  return "neutral";
}
