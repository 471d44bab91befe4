/**
 * PSD2 consents as RFC 9396 rich authorization requests: the two `authorization_details`
 * types this server offers (payment_initiation, account_information), their strict parser,
 * the enrichment with the PSU's choices at consent, the refresh grant's narrowing rule and
 * the totals a batch of payments is bound to. The shapes (stores/authorization-details.ts)
 * are the same JSON on the server and in the SPA (web/src/lib/authorization-details.ts).
 *
 * Parsing walks only the members the shapes allow: an unknown member is refused by its name,
 * never descended into, and every list is bounded before its entries are read, so the cost
 * is linear in the input.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { isValidIBAN } from "ibantools";
import { sumDecimals, decimalEquals, formatDecimal, parseDecimal, type Decimal } from "../kernel/decimal.js";
import { InvalidRequest, OAuthError } from "../kernel/errors.js";
import { isDisplayText } from "../kernel/text.js";

// The shapes are the stores' (stored as JSON on consents, codes and tokens): re-exported for the domain.
import type { AccountInformation, AccountReference, Amount, AuthorizationDetail, PaymentInitiation } from "../stores/authorization-details.js";
export type { AccountInformation, AccountReference, Amount, AuthorizationDetail, PaymentInitiation };

/** RFC 9396 §5: `authorization_details` is malformed or asks for what the client may not have; 400 `invalid_authorization_details`. */
export class InvalidAuthorizationDetails extends OAuthError {
  constructor(description: string) {
    super("invalid_authorization_details", description, 400);
  }
}

/** Most entries in one request (a batch of payments is several payment_initiation entries). */
const MAX_ENTRIES = 100;
/** Most accounts in one account_information entry. */
const MAX_ACCOUNTS = 20;
/** Longest validity of account access: RTS Art. 10a, 180 days since Regulation (EU) 2022/2360. */
const MAX_VALIDITY_DAYS = 180;
/** RTS Art. 36(5)(b): account data at most four times a day without the PSU. */
const MAX_FREQUENCY_PER_DAY = 4;
const CREDITOR_NAME_MAX_LENGTH = 70;
const REMITTANCE_MAX_LENGTH = 140;
/** Longest echo of a caller's value in an error description. */
const SHOWN_MAX_LENGTH = 40;
const DAY_MS = 86_400_000;

/** The parameter's name, the root of every error path. */
const ROOT = "authorization_details";

/** RFC 9396 §2.2 common data fields: our types do not use them. */
const COMMON_FIELDS = new Set(["locations", "actions", "datatypes", "identifier", "privileges"]);

const PAYMENT_MEMBERS = ["type", "instructedAmount", "creditorName", "creditorAccount", "remittanceInformationUnstructured", "debtorAccount"] as const;
const ACCOUNT_INFORMATION_MEMBERS = ["type", "access", "validUntil", "frequencyPerDay", "recurringIndicator"] as const;
const ACCESS_MEMBERS = ["accounts", "allAccounts", "balances", "transactions"] as const;

/** An amount: at most 15 integer digits, no leading zero, a point and fraction digits optional. */
const AMOUNT = /^(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/;
/** The outline of an IBAN in electronic format (ISO 13616: country, check digits, up to 30 characters); ibantools checks the rest. */
const IBAN_OUTLINE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/;
const CALENDAR_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** ISO 4217 codes known to Intl, upper case. */
const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** A caller's value for an error description, cut to {@link SHOWN_MAX_LENGTH} characters. Shared with dynamic-linking.ts and berlin-group.ts. */
export function shown(value: string): string {
  return value.length > SHOWN_MAX_LENGTH ? `${value.slice(0, SHOWN_MAX_LENGTH)}...` : value;
}

/** Throws the refusal "<at> <problem>". @throws InvalidAuthorizationDetails always */
function fail(at: string, problem: string): never {
  throw new InvalidAuthorizationDetails(`${at} ${problem}`);
}


/** An own member's value; undefined when absent (never one inherited from Object.prototype). Shared with dynamic-linking.ts and berlin-group.ts. */
export function member(value: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(value, name) ? value[name] : undefined;
}

/**
 * `value` as a JSON object with only `allowed` members (strict) and every `required` one.
 * Shared with berlin-group.ts. An unknown member is refused by its name, its value unread.
 * @param at - the path of `value` in error descriptions, e.g. "authorization_details[1]".
 * @throws InvalidAuthorizationDetails naming the path and the member.
 */
export function checkObject(value: unknown, at: string, allowed: readonly string[], required: readonly string[]): Record<string, unknown> {
  if (!isJsonObject(value)) fail(at, "must be a JSON object");
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    if (COMMON_FIELDS.has(key)) fail(`${at}.${key}`, "is an RFC 9396 common field, which this type does not use");
    fail(at, `has an unknown member '${shown(key)}'`);
  }
  for (const key of required) if (!Object.hasOwn(value, key)) fail(`${at}.${key}`, "is missing");
  return value;
}

/** A boolean member, or undefined when absent. @throws InvalidAuthorizationDetails */
function optionalBoolean(value: unknown, at: string): boolean | undefined {
  if (value !== undefined && typeof value !== "boolean") fail(at, "must be true or false");
  return value;
}

/** 1..`max` characters (code points) of well-formed text without control, invisible (format, `\p{Cf}`) or line-separator characters (kernel/text.ts `isDisplayText`): it is shown to the PSU, and none may restyle the payee line. @throws InvalidAuthorizationDetails */
function text(value: unknown, at: string, max: number): string {
  if (typeof value !== "string") fail(at, "must be a string");
  if (!isDisplayText(value)) fail(at, "must be text without control or invisible characters (such as bidirectional overrides)");
  const length = [...value].length;
  if (length < 1 || length > max) fail(at, `must have 1 to ${max} characters`);
  return value;
}

/** True for 1..140 characters of text fit to show (kernel/text.ts `isDisplayText`): a free-text member of a payment body at the gateway (dynamic-linking.ts). */
export function isPaymentText(value: string): boolean {
  const length = [...value].length;
  return length >= 1 && length <= REMITTANCE_MAX_LENGTH && isDisplayText(value);
}

/**
 * An account reference `{iban}`: an IBAN in electronic format (upper case, no spaces) with a
 * valid checksum and country format (ISO 13616, checked by ibantools). Shared with berlin-group.ts.
 * @throws InvalidAuthorizationDetails, e.g. "authorization_details[1].creditorAccount.iban is not a valid IBAN ..."
 */
export function checkAccountReference(value: unknown, at: string): AccountReference {
  const iban = member(checkObject(value, at, ["iban"], ["iban"]), "iban");
  if (typeof iban !== "string" || !IBAN_OUTLINE.test(iban) || !isValidIBAN(iban)) fail(`${at}.iban`, "is not a valid IBAN (electronic format: upper case, no spaces)");
  return { iban };
}

/** The number of fraction digits of `currency` (ISO 4217 minor units, as Intl knows them: EUR 2, JPY 0, BHD 3). */
function minorUnits(currency: string): number {
  // Always set for style "currency"; the lib types it optional.
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** An instructed amount `{currency, amount}`: a known ISO 4217 code, a decimal string > 0 within the currency's minor units. @throws InvalidAuthorizationDetails */
function checkAmount(value: unknown, at: string): Amount {
  const o = checkObject(value, at, ["currency", "amount"], ["currency", "amount"]);
  const currency = member(o, "currency");
  if (typeof currency !== "string" || !CURRENCIES.has(currency)) fail(`${at}.currency`, "is not an ISO 4217 currency code");
  const amount = member(o, "amount");
  if (typeof amount !== "string" || !AMOUNT.test(amount)) fail(`${at}.amount`, "must be a decimal string such as '12.50' (at most 15 integer digits)");
  const decimal = parseDecimal(amount)!;
  if (decimal.units === 0n) fail(`${at}.amount`, "must be greater than zero");
  const minor = minorUnits(currency);
  if (decimal.scale > minor) fail(`${at}.amount`, `has more than ${minor} fraction digits, the minor units of ${currency}`);
  return { currency, amount };
}

/** True for an amount {@link checkAmount} accepts in `currency`: the gateway refuses what the authorization server would (dynamic-linking.ts). */
export function isAmountOf(amount: string, currency: string): boolean {
  if (!CURRENCIES.has(currency) || !AMOUNT.test(amount)) return false;
  const decimal = parseDecimal(amount)!;
  return decimal.units !== 0n && decimal.scale <= minorUnits(currency);
}

/** True for a real calendar date written YYYY-MM-DD (no 2025-02-30). Shared with berlin-group.ts. */
export function isCalendarDate(value: string): boolean {
  if (!CALENDAR_DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The UTC date of `at`, YYYY-MM-DD. */
function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The last day account access may be valid: today (UTC) + 180 days (RTS Art. 10a), YYYY-MM-DD. */
export function latestValidUntil(now: Date): string {
  return utcDate(new Date(now.getTime() + MAX_VALIDITY_DAYS * DAY_MS));
}

/**
 * One payment_initiation entry, with its `type` member (design note: amount, currency, IBANs,
 * 1..70 characters of creditor name, 1..140 of remittance information). Shared with
 * berlin-group.ts. Returns a fresh object of the members given.
 * @param at - the path of the entry in error descriptions.
 * @throws InvalidAuthorizationDetails naming the path and the member at fault.
 */
export function checkPaymentInitiation(value: unknown, at: string): PaymentInitiation {
  const o = checkObject(value, at, PAYMENT_MEMBERS, ["type", "instructedAmount", "creditorName", "creditorAccount"]);
  if (member(o, "type") !== "payment_initiation") fail(`${at}.type`, "must be payment_initiation");
  const detail: PaymentInitiation = {
    type: "payment_initiation",
    instructedAmount: checkAmount(member(o, "instructedAmount"), `${at}.instructedAmount`),
    creditorName: text(member(o, "creditorName"), `${at}.creditorName`, CREDITOR_NAME_MAX_LENGTH),
    creditorAccount: checkAccountReference(member(o, "creditorAccount"), `${at}.creditorAccount`),
  };
  const remittance = member(o, "remittanceInformationUnstructured");
  if (remittance !== undefined) detail.remittanceInformationUnstructured = text(remittance, `${at}.remittanceInformationUnstructured`, REMITTANCE_MAX_LENGTH);
  const debtor = member(o, "debtorAccount");
  if (debtor !== undefined) detail.debtorAccount = checkAccountReference(debtor, `${at}.debtorAccount`);
  return detail;
}

/** `access.accounts`: 1..20 distinct account references. @throws InvalidAuthorizationDetails */
function checkAccounts(value: unknown, at: string): AccountReference[] {
  if (!Array.isArray(value)) fail(at, "must be an array");
  if (value.length < 1 || value.length > MAX_ACCOUNTS) fail(at, `must have 1 to ${MAX_ACCOUNTS} entries`);
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const account = checkAccountReference(entry, `${at}[${i}]`);
    if (seen.has(account.iban)) fail(`${at}[${i}].iban`, "repeats an account listed before");
    seen.add(account.iban);
    return account;
  });
}

/**
 * One account_information entry, with its `type` member: access (accounts 1..20 distinct or
 * allAccounts, balances, transactions), validUntil from today to today + 180 days UTC (RTS
 * Art. 10a), frequencyPerDay 1..4 (RTS Art. 36(5)(b)), recurringIndicator. Shared with
 * berlin-group.ts. Returns a fresh object of the members given.
 * @param at - the path of the entry in error descriptions.
 * @param now - the time that decides "today".
 * @throws InvalidAuthorizationDetails naming the path and the member at fault.
 */
export function checkAccountInformation(value: unknown, at: string, now: Date): AccountInformation {
  const o = checkObject(value, at, ACCOUNT_INFORMATION_MEMBERS, ACCOUNT_INFORMATION_MEMBERS);
  if (member(o, "type") !== "account_information") fail(`${at}.type`, "must be account_information");

  const access = checkObject(member(o, "access"), `${at}.access`, ACCESS_MEMBERS, []);
  const checked: AccountInformation["access"] = {};
  const accounts = member(access, "accounts");
  if (accounts !== undefined) checked.accounts = checkAccounts(accounts, `${at}.access.accounts`);
  const allAccounts = member(access, "allAccounts");
  if (allAccounts !== undefined) {
    if (allAccounts !== true) fail(`${at}.access.allAccounts`, "must be true when given");
    if (accounts !== undefined) fail(`${at}.access`, "cannot have both accounts and allAccounts");
    checked.allAccounts = true;
  }
  const balances = optionalBoolean(member(access, "balances"), `${at}.access.balances`);
  if (balances !== undefined) checked.balances = balances;
  const transactions = optionalBoolean(member(access, "transactions"), `${at}.access.transactions`);
  if (transactions !== undefined) checked.transactions = transactions;

  const validUntil = member(o, "validUntil");
  if (typeof validUntil !== "string" || !isCalendarDate(validUntil)) fail(`${at}.validUntil`, "must be a date YYYY-MM-DD");
  const today = utcDate(now);
  if (validUntil < today) fail(`${at}.validUntil`, `must not be before today, ${today} (UTC)`);
  const latest = latestValidUntil(now);
  if (validUntil > latest) fail(`${at}.validUntil`, `must not be after ${latest}, today + ${MAX_VALIDITY_DAYS} days (RTS Art. 10a)`);

  const frequencyPerDay = member(o, "frequencyPerDay");
  if (typeof frequencyPerDay !== "number" || !Number.isInteger(frequencyPerDay) || frequencyPerDay < 1 || frequencyPerDay > MAX_FREQUENCY_PER_DAY) {
    fail(`${at}.frequencyPerDay`, `must be an integer from 1 to ${MAX_FREQUENCY_PER_DAY} (RTS Art. 36(5)(b))`);
  }
  const recurringIndicator = member(o, "recurringIndicator");
  if (typeof recurringIndicator !== "boolean") fail(`${at}.recurringIndicator`, "must be true or false");

  return { type: "account_information", access: checked, validUntil, frequencyPerDay, recurringIndicator };
}

/** One entry: its type allowed for the client, then the type's rules. @throws InvalidAuthorizationDetails */
function checkEntry(value: unknown, at: string, supportedTypes: readonly string[], now: Date): AuthorizationDetail {
  if (!isJsonObject(value)) fail(at, "must be a JSON object");
  const type = member(value, "type");
  if (type === undefined) fail(`${at}.type`, "is missing");
  if (typeof type !== "string") fail(`${at}.type`, "must be a string");
  if (!supportedTypes.includes(type)) fail(`${at}.type`, `'${shown(type)}' is not a type this client may use`);
  if (type === "payment_initiation") return checkPaymentInitiation(value, at);
  if (type === "account_information") return checkAccountInformation(value, at, now);
  return fail(`${at}.type`, `'${shown(type)}' is not a type this server supports`);
}

/**
 * Parses the `authorization_details` request parameter (RFC 9396 §2, §5): a JSON array of
 * 1..100 entries, each a {@link PaymentInitiation} or an {@link AccountInformation} checked
 * strictly (unknown members and RFC 9396 §2.2 common fields refused); payment_initiation and
 * account_information are not mixed, and there is at most one account_information entry.
 * Cost linear in `text` (the form parser bounds it to 64 KB).
 * @param supportedTypes - the types the client may use (those of its API products).
 * @param now - the time that decides "today" for validUntil (UTC).
 * @returns fresh entries holding only the members given, in order.
 * @throws InvalidAuthorizationDetails (400 invalid_authorization_details, RFC 9396 §5) naming the entry index and member, e.g. "authorization_details[1].creditorAccount.iban is not a valid IBAN ...".
 */
export function parseAuthorizationDetails(text: string, supportedTypes: readonly string[], now: Date): AuthorizationDetail[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(ROOT, "is not valid JSON");
  }
  if (!Array.isArray(value)) fail(ROOT, "must be a JSON array");
  if (value.length < 1 || value.length > MAX_ENTRIES) fail(ROOT, `must have 1 to ${MAX_ENTRIES} entries`);
  const details = value.map((entry, i) => checkEntry(entry, `${ROOT}[${i}]`, supportedTypes, now));
  const types = detailTypes(details);
  if (types.length > 1) fail(ROOT, "cannot mix payment_initiation and account_information entries");
  if (details.filter((d) => d.type === "account_information").length > 1) fail(ROOT, "may have at most one account_information entry");
  return details;
}

/** The distinct types of `details`, in first-appearance order (e.g. to check them against the granted scopes). */
export function detailTypes(details: readonly AuthorizationDetail[]): AuthorizationDetail["type"][] {
  return [...new Set(details.map((d) => d.type))];
}

/** What the PSU chose at consent (design note: POST /interaction/:id/consent). */
export interface AccountSelection {
  /** For account_information without accounts: the accounts the PSU chose; for allAccounts, every account of the PSU. */
  accounts: readonly AccountReference[];
  /** For payment_initiation without debtorAccount: the account the PSU pays from. */
  debtorAccount?: AccountReference;
}

/**
 * The details as approved (RFC 9396 §7: the authorization server may enrich them): an
 * account_information entry without `access.accounts` (the PSU picks, or allAccounts, which
 * is kept) gets `selection.accounts`; a payment_initiation entry without `debtorAccount`
 * gets `selection.debtorAccount`. Entries that name their accounts are returned unchanged.
 * Assumes the caller validated the selection: `selection.accounts` and
 * `selection.debtorAccount` are distinct accounts of the PSU, and the accounts the request
 * names are the PSU's; they are not checked here. `requested` is not modified.
 * @throws InvalidRequest (400 invalid_request) when an entry needs a choice the selection lacks: no account, or no debtor account.
 */
export function approvedDetails(requested: readonly AuthorizationDetail[], selection: AccountSelection): AuthorizationDetail[] {
  return requested.map((detail) => {
    if (detail.type === "payment_initiation") {
      if (detail.debtorAccount) return detail;
      if (!selection.debtorAccount) throw new InvalidRequest("choose the account to pay from (debtorAccount)");
      return { ...detail, debtorAccount: { iban: selection.debtorAccount.iban } };
    }
    if (detail.access.accounts) return detail;
    if (selection.accounts.length === 0) throw new InvalidRequest("choose at least one account (accounts)");
    return { ...detail, access: { ...detail.access, accounts: selection.accounts.map((a) => ({ iban: a.iban })) } };
  });
}

/** The amount of `amount` as a Decimal. @throws RangeError for an amount that is not a decimal string (never one parsed here). */
function decimalOf(amount: Amount): Decimal {
  const value = parseDecimal(amount.amount);
  if (!value) throw new RangeError(`not a decimal amount: ${shown(amount.amount)}`);
  return value;
}

/** The same payment: equal amounts (numerically) and members; a requested entry without debtorAccount keeps the approved one. */
function samePayment(requested: AuthorizationDetail, approved: PaymentInitiation): boolean {
  return (
    requested.type === "payment_initiation" &&
    requested.instructedAmount.currency === approved.instructedAmount.currency &&
    decimalEquals(decimalOf(requested.instructedAmount), decimalOf(approved.instructedAmount)) &&
    requested.creditorName === approved.creditorName &&
    requested.creditorAccount.iban === approved.creditorAccount.iban &&
    requested.remittanceInformationUnstructured === approved.remittanceInformationUnstructured &&
    (requested.debtorAccount === undefined || requested.debtorAccount.iban === approved.debtorAccount?.iban)
  );
}

/** Whether `requested` asks for no more than `approved`; absent accounts mean the approved ones. */
function narrowsAccess(requested: AuthorizationDetail, approved: AccountInformation): boolean {
  if (requested.type !== "account_information") return false;
  const want = requested.access;
  const have = approved.access;
  const approvedIbans = new Set((have.accounts ?? []).map((a) => a.iban));
  return (
    (!want.allAccounts || have.allAccounts === true) &&
    (want.accounts ?? []).every((a) => approvedIbans.has(a.iban)) &&
    (!want.balances || have.balances === true) &&
    (!want.transactions || have.transactions === true) &&
    requested.validUntil <= approved.validUntil &&
    requested.frequencyPerDay <= approved.frequencyPerDay &&
    (!requested.recurringIndicator || approved.recurringIndicator)
  );
}

/**
 * Whether a refresh request's details only narrow the approved ones (RFC 9396 §6.2: a
 * refresh may ask for a subset, never more). Payments are bound to what the PSU authorized
 * (RTS Art. 5): `requested` must be the approved payments exactly, same entries in the same
 * order, amounts numerically equal ("1250.0" = "1250.00"); a requested payment without
 * debtorAccount stands for the approved one. An account_information entry narrows when its
 * accounts are among the approved accounts (absent: all of them; allAccounts only if
 * approved), balances and transactions only where approved, validUntil and frequencyPerDay
 * not above, recurringIndicator not turned on. Entries without `access.accounts` still need
 * the approved accounts filled in ({@link approvedDetails}) before they are issued.
 * @param requested - parsed by {@link parseAuthorizationDetails}; an empty list narrows nothing (false).
 * @param approved - as approved ({@link approvedDetails}).
 */
export function narrows(requested: readonly AuthorizationDetail[], approved: readonly AuthorizationDetail[]): boolean {
  if (requested.length === 0) return false;
  const payments = approved.filter((d): d is PaymentInitiation => d.type === "payment_initiation");
  if (payments.length > 0) return requested.length === approved.length && payments.length === approved.length && requested.every((r, i) => samePayment(r, payments[i]!));
  const access = approved.filter((d): d is AccountInformation => d.type === "account_information");
  return requested.every((r) => access.some((a) => narrowsAccess(r, a)));
}

/**
 * The total of the payment_initiation entries, one per currency in first-appearance order,
 * each a decimal string with the currency's minor units ("1250" EUR + "0.5" EUR = "1250.50"
 * EUR): RTS Art. 5(3)(b), a batch is bound to its total amount. Other entries are ignored;
 * no payment gives [].
 * @throws RangeError for an amount that is not a decimal string within its currency's minor units (never one parsed here).
 */
export function paymentTotals(details: readonly AuthorizationDetail[]): Amount[] {
  const byCurrency = new Map<string, Decimal[]>();
  for (const detail of details) {
    if (detail.type !== "payment_initiation") continue;
    const { currency } = detail.instructedAmount;
    const amounts = byCurrency.get(currency) ?? [];
    amounts.push(decimalOf(detail.instructedAmount));
    byCurrency.set(currency, amounts);
  }
  return [...byCurrency].map(([currency, amounts]) => ({ currency, amount: formatDecimal(sumDecimals(amounts), minorUnits(currency)) }));
}
