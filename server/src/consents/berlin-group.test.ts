/**
 * Berlin Group NextGenPSD2 consent and payment bodies as authorization details, checked by
 * the same rules as an RFC 9396 request.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidAuthorizationDetails, parseAuthorizationDetails, type PaymentInitiation } from "./authorization-details.js";
import { fromConsentRequest, fromPaymentRequest } from "./berlin-group.js";

const NOW = new Date("2025-06-15T08:00:00Z");
const LATEST = "2025-12-12";
const DE1 = "DE89370400440532013000";
const DE2 = "DE02120300000000202051";
const GB = "GB82WEST12345698765432";
const FR = "FR1420041010050500013M02606";

/** A consent body with `access` and the given members changed (undefined: left out), as JSON parses it. */
function consent(access: unknown, change: Record<string, unknown> = {}): unknown {
  return JSON.parse(JSON.stringify({ access, recurringIndicator: true, validUntil: "2025-09-30", frequencyPerDay: 4, combinedServiceIndicator: false, ...change }));
}

/** The description of the InvalidAuthorizationDetails `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
    return (error as Error).message;
  }
  throw new Error("expected InvalidAuthorizationDetails");
}

describe("fromConsentRequest (POST /v1/consents)", () => {
  it("maps the lists to one set of accounts, in order and distinct, with the rights they carry", () => {
    const access = { accounts: [{ iban: DE1 }], balances: [{ iban: DE1 }, { iban: DE2 }], transactions: [{ iban: GB }, { iban: DE2 }] };
    expect(fromConsentRequest(consent(access), NOW)).toEqual({
      type: "account_information",
      access: { accounts: [{ iban: DE1 }, { iban: DE2 }, { iban: GB }], balances: true, transactions: true },
      validUntil: "2025-09-30",
      frequencyPerDay: 4,
      recurringIndicator: true,
    });
  });

  it("grants no balances or transactions for the accounts list alone", () => {
    expect(fromConsentRequest(consent({ accounts: [{ iban: FR }] }, { recurringIndicator: false, frequencyPerDay: 1 }), NOW)).toEqual({
      type: "account_information",
      access: { accounts: [{ iban: FR }] },
      validUntil: "2025-09-30",
      frequencyPerDay: 1,
      recurringIndicator: false,
    });
  });

  it.each([
    ["availableAccounts: the account list of every account", { availableAccounts: "allAccounts" }, { allAccounts: true }],
    ["allPsd2: every account with balances and transactions", { allPsd2: "allAccounts" }, { allAccounts: true, balances: true, transactions: true }],
    ["an empty access: the PSU picks, account list only", {}, {}],
    ["bank-offered consent (empty lists): the PSU picks, with the rights asked", { accounts: [], balances: [], transactions: [] }, { balances: true, transactions: true }],
    ["an empty balances list alone", { balances: [] }, { balances: true }],
  ])("maps %s", (_what, access, mapped) => {
    expect(fromConsentRequest(consent(access), NOW).access).toEqual(mapped);
  });

  it("makes a validUntil beyond today + 180 days (9999-12-31: as long as allowed) the latest date allowed", () => {
    for (const validUntil of ["9999-12-31", "2025-12-13", "2026-06-15"]) expect(fromConsentRequest(consent({}, { validUntil }), NOW).validUntil).toBe(LATEST);
    expect(fromConsentRequest(consent({}, { validUntil: LATEST }), NOW).validUntil).toBe(LATEST);
    expect(fromConsentRequest(consent({}, { validUntil: "2025-06-15" }), NOW).validUntil).toBe("2025-06-15");
  });

  it.each([
    ["a body that is not an object", "x", "body must be a JSON object"],
    ["no access", consent(undefined), "body.access is missing"],
    ["no recurringIndicator", consent({}, { recurringIndicator: undefined }), "body.recurringIndicator is missing"],
    ["no validUntil", consent({}, { validUntil: undefined }), "body.validUntil is missing"],
    ["a past validUntil", consent({}, { validUntil: "2025-06-14" }), "body.validUntil must not be before today, 2025-06-15 (UTC)"],
    ["a validUntil that is no date", consent({}, { validUntil: "9999-13-31" }), "body.validUntil must be a date YYYY-MM-DD"],
    ["a frequencyPerDay of 5", consent({}, { frequencyPerDay: 5 }), "body.frequencyPerDay must be an integer from 1 to 4 (RTS Art. 36(5)(b))"],
    ["a recurringIndicator as text", consent({}, { recurringIndicator: "true" }), "body.recurringIndicator must be true or false"],
    ["combinedServiceIndicator true", consent({}, { combinedServiceIndicator: true }), "body.combinedServiceIndicator true is not supported: no combined AIS and PIS sessions"],
    ["combinedServiceIndicator as text", consent({}, { combinedServiceIndicator: "false" }), "body.combinedServiceIndicator must be true or false"],
    ["an unknown member", consent({}, { validFrom: "2025-06-15" }), "body has an unknown member 'validFrom'"],
    ["additionalInformation", consent({ additionalInformation: { ownerName: [] } }), "body.access has an unknown member 'additionalInformation'"],
    ["restrictedTo", consent({ restrictedTo: ["CACC"] }), "body.access has an unknown member 'restrictedTo'"],
    ["a list that is not an array", consent({ balances: { iban: DE1 } }), "body.access.balances must be an array"],
    ["a list of 21 entries", consent({ transactions: Array.from({ length: 21 }, () => ({ iban: DE1 })) }), "body.access.transactions must have at most 20 entries"],
    ["an invalid IBAN, named where it is", consent({ balances: [{ iban: DE1 }, { iban: "DE89370400440532013001" }] }), "body.access.balances[1].iban is not a valid IBAN (electronic format: upper case, no spaces)"],
    ["a sub-account currency", consent({ accounts: [{ iban: DE1, currency: "EUR" }] }), "body.access.accounts[0] has an unknown member 'currency'"],
    ["a BBAN reference", consent({ accounts: [{ bban: "370400440532013000" }] }), "body.access.accounts[0] has an unknown member 'bban'"],
    ["allAccountsWithOwnerName", consent({ allPsd2: "allAccountsWithOwnerName" }), "body.access.allPsd2 must be 'allAccounts'"],
    ["availableAccounts as true", consent({ availableAccounts: true }), "body.access.availableAccounts must be 'allAccounts'"],
    ["accounts with availableAccounts", consent({ accounts: [{ iban: DE1 }], availableAccounts: "allAccounts" }), "body.access cannot have both accounts and allAccounts"],
  ])("refuses %s", (_what, body, description) => {
    expect(refusal(() => fromConsentRequest(body, NOW))).toBe(description);
  });

  it("refuses more than 20 accounts across the lists", () => {
    const ibans = Array.from({ length: 21 }, (_, i) => {
      const bban = `37040044${String(i).padStart(10, "0")}`;
      return { iban: `DE${String(98n - (BigInt(`${bban}131400`) % 97n)).padStart(2, "0")}${bban}` };
    });
    expect(refusal(() => fromConsentRequest(consent({ balances: ibans.slice(0, 11), transactions: ibans.slice(11) }), NOW))).toBe("body.access.accounts must have 1 to 20 entries");
    expect(fromConsentRequest(consent({ balances: ibans.slice(0, 20), transactions: ibans.slice(0, 20) }), NOW).access.accounts).toHaveLength(20);
  });

  it("answers any JSON value, or any values under the right names, with an account_information entry or InvalidAuthorizationDetails (property)", () => {
    const listArb = fc.oneof(fc.jsonValue(), fc.array(fc.record({ iban: fc.constantFrom(DE1, DE2, GB, FR, "x") }), { maxLength: 4 }));
    const bodyArb = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          access: fc.oneof(fc.jsonValue(), fc.record({ accounts: listArb, balances: listArb, transactions: listArb, availableAccounts: fc.jsonValue(), allPsd2: fc.constant("allAccounts") }, { requiredKeys: [] })),
          recurringIndicator: fc.oneof(fc.boolean(), fc.jsonValue()),
          validUntil: fc.oneof(fc.constantFrom("2025-06-15", "9999-12-31", "2025-09-31"), fc.jsonValue()),
          frequencyPerDay: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.jsonValue()),
          combinedServiceIndicator: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(bodyArb, (body) => {
        let detail;
        try {
          detail = fromConsentRequest(body, NOW);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
          return;
        }
        // What the mapping accepts, the RFC 9396 parser accepts as it is: the same rules.
        expect(parseAuthorizationDetails(JSON.stringify([detail]), ["account_information"], NOW)).toEqual([detail]);
      }),
    );
  });

  it("refuses deep nesting and long lists fast, without walking them", () => {
    const started = performance.now();
    const deep = JSON.parse(`${"[".repeat(30_000)}${"]".repeat(30_000)}`);
    expect(refusal(() => fromConsentRequest({ access: deep, recurringIndicator: true, validUntil: LATEST, frequencyPerDay: 1 }, NOW))).toBe("body.access must be a JSON object");
    expect(refusal(() => fromConsentRequest({ access: { balances: [deep] }, recurringIndicator: true, validUntil: LATEST, frequencyPerDay: 1 }, NOW))).toBe("body.access.balances[0] must be a JSON object");
    expect(refusal(() => fromConsentRequest({ access: { balances: Array.from({ length: 30_000 }, () => deep) }, recurringIndicator: true, validUntil: LATEST, frequencyPerDay: 1 }, NOW))).toBe("body.access.balances must have at most 20 entries");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

/** The refusal of TPP text with a control or invisible character (kernel/text.ts isDisplayText). */
const NOT_DISPLAY_TEXT = "must be text without control or invisible characters (such as bidirectional overrides)";

describe("fromPaymentRequest (POST /v1/payments/sepa-credit-transfers)", () => {
  const body = {
    instructedAmount: { currency: "EUR", amount: "123.50" },
    debtorAccount: { iban: DE2 },
    creditorName: "Merchant123",
    creditorAccount: { iban: DE1 },
    remittanceInformationUnstructured: "Ref Number Merchant",
  };

  it("maps a sepa-credit-transfers body to a payment_initiation entry", () => {
    expect(fromPaymentRequest(body)).toEqual({ type: "payment_initiation", ...body });
    const { debtorAccount: _debtor, remittanceInformationUnstructured: _text, ...minimal } = body;
    expect(fromPaymentRequest(minimal)).toEqual({ type: "payment_initiation", ...minimal });
  });

  it.each([
    ["a body that is not an object", "payment", "body must be a JSON object"],
    ["an array", [body], "body must be a JSON object"],
    ["null", null, "body must be a JSON object"],
    ["a type member", { ...body, type: "payment_initiation" }, "body has an unknown member 'type'"],
    ["endToEndIdentification (not shown to the PSU)", { ...body, endToEndIdentification: "E2E" }, "body has an unknown member 'endToEndIdentification'"],
    ["requestedExecutionDate", { ...body, requestedExecutionDate: "2030-01-01" }, "body has an unknown member 'requestedExecutionDate'"],
    ["a zero amount", { ...body, instructedAmount: { currency: "EUR", amount: "0.00" } }, "body.instructedAmount.amount must be greater than zero"],
    ["an amount as a number", { ...body, instructedAmount: { currency: "EUR", amount: 123.5 } }, "body.instructedAmount.amount must be a decimal string such as '12.50' (at most 15 integer digits)"],
    ["an IBAN with spaces", { ...body, creditorAccount: { iban: "DE89 3704 0044 0532 0130 00" } }, "body.creditorAccount.iban is not a valid IBAN (electronic format: upper case, no spaces)"],
    ["no creditor name", { ...body, creditorName: undefined }, "body.creditorName is missing"],
    ["a creditor name with a right-to-left override (shown to the PSU)", { ...body, creditorName: "Merchant \u202e20 4002 41RF" }, `body.creditorName ${NOT_DISPLAY_TEXT}`],
    ["a creditor name with a right-to-left isolate", { ...body, creditorName: "\u2067Merchant123\u2069" }, `body.creditorName ${NOT_DISPLAY_TEXT}`],
    ["a creditor name with a zero-width space", { ...body, creditorName: "Merch\u200bant123" }, `body.creditorName ${NOT_DISPLAY_TEXT}`],
    ["remittance information with an Arabic letter mark", { ...body, remittanceInformationUnstructured: "Ref\u061c 42" }, `body.remittanceInformationUnstructured ${NOT_DISPLAY_TEXT}`],
    ["remittance information with a soft hyphen", { ...body, remittanceInformationUnstructured: "Ref\u00ad42" }, `body.remittanceInformationUnstructured ${NOT_DISPLAY_TEXT}`],
    ["remittance information with a line separator", { ...body, remittanceInformationUnstructured: "Ref\u2028IBAN DE00" }, `body.remittanceInformationUnstructured ${NOT_DISPLAY_TEXT}`],
  ])("refuses %s", (_what, value, description) => {
    expect(refusal(() => fromPaymentRequest(JSON.parse(JSON.stringify(value)) as unknown))).toBe(description);
  });

  it("refuses a __proto__ member instead of reading through it", () => {
    const parsed: unknown = JSON.parse(`{"__proto__":{"creditorName":"x"},${JSON.stringify(body).slice(1)}`);
    expect(refusal(() => fromPaymentRequest(parsed))).toBe("body has an unknown member '__proto__'");
  });

  it("answers any JSON value with a payment_initiation entry or InvalidAuthorizationDetails, and maps valid bodies exactly (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          fromPaymentRequest(value);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
        }
      }),
    );
    const amountArb = fc.tuple(fc.integer({ min: 1, max: 10 ** 9 }), fc.constantFrom("EUR", "USD")).map(([cents, currency]) => ({ currency, amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}` }));
    fc.assert(
      fc.property(amountArb, fc.constantFrom(DE1, GB, FR), fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .&-]{0,69}$/), (instructedAmount, iban, creditorName) => {
        const payment: Omit<PaymentInitiation, "type"> = { instructedAmount, creditorName, creditorAccount: { iban } };
        expect(fromPaymentRequest(payment)).toEqual({ type: "payment_initiation", ...payment });
      }),
    );
  });
});
