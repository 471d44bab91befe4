/**
 * Berlin Group NextGenPSD2 (XS2A framework 1.3) request bodies as our authorization details:
 * a consent (POST /v1/consents) becomes an account_information entry, a SEPA credit
 * transfer (POST /v1/payments/sepa-credit-transfers) a payment_initiation entry. Both are
 * then checked by the same rules as an RFC 9396 request (authorization-details.ts), with
 * error paths rooted at "body".
 */
import { isJsonObject } from "../kernel/strict-json.js";
import {
  InvalidAuthorizationDetails,
  checkAccountInformation,
  checkAccountReference,
  checkObject,
  checkPaymentInitiation,
  isCalendarDate,
  latestValidUntil,
  member,
  type AccountInformation,
  type AccountReference,
  type PaymentInitiation,
} from "./authorization-details.js";

/** The root of every error path: the request body. */
const ROOT = "body";
/** Most entries in one list of a consent's access (the same bound as access.accounts). */
const MAX_LIST_ENTRIES = 20;
const BG_LIST_MEMBERS = ["accounts", "balances", "transactions"] as const;
const BG_ACCESS_MEMBERS = [...BG_LIST_MEMBERS, "availableAccounts", "allPsd2"];
const BG_CONSENT_MEMBERS = ["access", "recurringIndicator", "validUntil", "frequencyPerDay", "combinedServiceIndicator"];

/**
 * Reads one account list of a consent's access, adding its IBANs to `accounts` (in order,
 * distinct). @returns whether the list was given (even empty: the PSU picks the accounts).
 */
function readList(access: Record<string, unknown>, name: (typeof BG_LIST_MEMBERS)[number], accounts: Map<string, AccountReference>): boolean {
  const list = member(access, name);
  if (list === undefined) return false;
  const at = `${ROOT}.access.${name}`;
  if (!Array.isArray(list)) throw new InvalidAuthorizationDetails(`${at} must be an array`);
  if (list.length > MAX_LIST_ENTRIES) throw new InvalidAuthorizationDetails(`${at} must have at most ${MAX_LIST_ENTRIES} entries`);
  list.forEach((entry, i) => {
    const account = checkAccountReference(entry, `${at}[${i}]`);
    if (!accounts.has(account.iban)) accounts.set(account.iban, account);
  });
  return true;
}

/** Whether `availableAccounts` or `allPsd2` is given; only "allAccounts" is offered (not "allAccountsWithOwnerName"). */
function readAll(access: Record<string, unknown>, name: "availableAccounts" | "allPsd2"): boolean {
  const value = member(access, name);
  if (value === undefined) return false;
  if (value !== "allAccounts") throw new InvalidAuthorizationDetails(`${ROOT}.access.${name} must be 'allAccounts'`);
  return true;
}

/**
 * A Berlin Group consent request body (POST /v1/consents; NextGenPSD2 implementation
 * guidelines, establish account information consent) as an account_information entry:
 * `{access: {accounts?, balances?, transactions?: [{iban}], availableAccounts?: "allAccounts",
 * allPsd2?: "allAccounts"}, recurringIndicator, validUntil: "YYYY-MM-DD", frequencyPerDay,
 * combinedServiceIndicator?: false}`.
 * Mapping: `access.accounts` = the IBANs of the three lists, in order, distinct (absent when
 * none: the PSU picks); `balances` when the balances list is given, even empty (Berlin
 * Group's bank-offered consent: the PSU picks the accounts), or allPsd2; `transactions`
 * likewise; availableAccounts or allPsd2 = `allAccounts`; an empty access object = the PSU
 * picks, for the account list only. Our model has one balances and one transactions flag
 * for all accounts, so lists that name different accounts grant each right on all of them
 * (the PSU sees and approves that). A validUntil after today + 180 days (e.g. Berlin Group's
 * "9999-12-31", as long as allowed) becomes today + 180 days, as Berlin Group lets the ASPSP
 * adjust it. Strict: other members (additionalInformation, restrictedTo, account references
 * other than `{iban}`) are refused, and combinedServiceIndicator true (no combined sessions).
 * The result is then checked by the rules of an RFC 9396 request (checkAccountInformation).
 * @param now - the time that decides "today" (UTC).
 * @throws InvalidAuthorizationDetails (400) naming the member at fault, e.g. "body.access.balances[0].iban is not a valid IBAN ...".
 */
export function fromConsentRequest(body: unknown, now: Date): AccountInformation {
  const consent = checkObject(body, ROOT, BG_CONSENT_MEMBERS, ["access", "recurringIndicator", "validUntil", "frequencyPerDay"]);
  const combined = member(consent, "combinedServiceIndicator");
  if (combined !== undefined && typeof combined !== "boolean") throw new InvalidAuthorizationDetails(`${ROOT}.combinedServiceIndicator must be true or false`);
  if (combined) throw new InvalidAuthorizationDetails(`${ROOT}.combinedServiceIndicator true is not supported: no combined AIS and PIS sessions`);

  const access = checkObject(member(consent, "access"), `${ROOT}.access`, BG_ACCESS_MEMBERS, []);
  const accounts = new Map<string, AccountReference>();
  readList(access, "accounts", accounts);
  const balances = readList(access, "balances", accounts);
  const transactions = readList(access, "transactions", accounts);
  const allPsd2 = readAll(access, "allPsd2");
  const allAccounts = readAll(access, "availableAccounts") || allPsd2;

  const validUntil = member(consent, "validUntil");
  const latest = latestValidUntil(now);
  return checkAccountInformation(
    {
      type: "account_information",
      access: {
        ...(accounts.size > 0 && { accounts: [...accounts.values()] }),
        ...(allAccounts && { allAccounts: true }),
        ...((balances || allPsd2) && { balances: true }),
        ...((transactions || allPsd2) && { transactions: true }),
      },
      validUntil: typeof validUntil === "string" && isCalendarDate(validUntil) && validUntil > latest ? latest : validUntil,
      frequencyPerDay: member(consent, "frequencyPerDay"),
      recurringIndicator: member(consent, "recurringIndicator"),
    },
    ROOT,
    now,
  );
}

/**
 * A Berlin Group SEPA credit transfer body (POST /v1/payments/sepa-credit-transfers;
 * NextGenPSD2 implementation guidelines, payment initiation) as a payment_initiation entry:
 * `{instructedAmount: {currency, amount}, creditorAccount: {iban}, creditorName,
 * debtorAccount?: {iban}, remittanceInformationUnstructured?}`, checked by the rules of an
 * RFC 9396 request (checkPaymentInitiation). Strict: any other member (endToEndIdentification,
 * requestedExecutionDate, creditorAgent, ...) is refused, so nothing the PSU does not see
 * reaches the bank; the text the PSU is shown (creditorName, remittanceInformationUnstructured)
 * has no control, format (`\p{Cf}`: bidirectional overrides, zero-width characters) or
 * line-separator character (kernel/text.ts `isDisplayText`). A consent body has no free text.
 * @throws InvalidAuthorizationDetails (400) naming the member at fault, e.g. "body.instructedAmount.amount must be greater than zero".
 */
export function fromPaymentRequest(body: unknown): PaymentInitiation {
  if (!isJsonObject(body)) throw new InvalidAuthorizationDetails(`${ROOT} must be a JSON object`);
  if (Object.hasOwn(body, "type")) throw new InvalidAuthorizationDetails(`${ROOT} has an unknown member 'type'`);
  return checkPaymentInitiation({ ...body, type: "payment_initiation" }, ROOT);
}
