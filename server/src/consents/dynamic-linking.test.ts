/**
 * PSD2 dynamic linking at the gateway (RTS Art. 5): a payment call's body must carry the
 * authorized amounts and payees; account calls reach only the authorized accounts and data.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AccountInformation, PaymentInitiation } from "./authorization-details.js";
import { accessLimits, accountAccess, completedPayment, paymentMismatch } from "./dynamic-linking.js";

const DE1 = "DE89370400440532013000";
const DE2 = "DE02120300000000202051";
const GB = "GB82WEST12345698765432";
const FR = "FR1420041010050500013M02606";

const approved: PaymentInitiation = {
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount: "1250.00" },
  creditorName: "Merchant GmbH",
  creditorAccount: { iban: DE1 },
  remittanceInformationUnstructured: "Invoice 42",
  debtorAccount: { iban: DE2 },
};
const second: PaymentInitiation = { ...approved, instructedAmount: { currency: "JPY", amount: "5000" }, creditorAccount: { iban: FR } };

/** The Berlin Group sepa-credit-transfers body of `payment`, with `change` merged in (undefined: left out), as JSON parses it. */
function body(payment: PaymentInitiation, change: Record<string, unknown> = {}): Record<string, unknown> {
  const { type: _type, ...members } = payment;
  return JSON.parse(JSON.stringify({ ...members, endToEndIdentification: "E2E-1", ...change }));
}

describe("paymentMismatch: one payment", () => {
  it("accepts the authorized payment, with the Berlin Group members it does not compare", () => {
    expect(paymentMismatch(body(approved), [approved])).toBeUndefined();
    expect(paymentMismatch(body(approved, { requestedExecutionDate: "2030-01-01", creditorAgent: "COBADEFFXXX", creditorAddress: { townName: "Berlin", country: "DE" } }), [approved])).toBeUndefined();
  });

  it("compares amounts numerically, never as floats or text, and only amounts the authorization server would accept", () => {
    for (const amount of ["1250", "1250.0", "1250.00"]) expect(paymentMismatch(body(approved, { instructedAmount: { currency: "EUR", amount } }), [approved])).toBeUndefined();
    for (const amount of ["1250.000", "01250.00", "3.000"]) {
      expect(paymentMismatch(body(approved, { instructedAmount: { currency: "EUR", amount } }), [approved])).toBe(`the amount ${amount} EUR is not a decimal string within the minor units of an ISO 4217 currency`);
    }
  });

  it("compares the creditor name as the PSU read it (NFC, white space folded), and lets the body leave it out", () => {
    expect(paymentMismatch(body(approved, { creditorName: "  Merchant \u00a0 GmbH\u3000" }), [approved])).toBeUndefined();
    const composed: PaymentInitiation = { ...approved, creditorName: "Café Müller" };
    expect(paymentMismatch(body(composed, { creditorName: "Cafe\u0301 Mu\u0308ller" }), [composed])).toBeUndefined();
    expect(paymentMismatch(body(approved, { creditorName: undefined }), [approved])).toBeUndefined();
    expect(paymentMismatch(body(approved, { creditorName: "Other name" }), [approved])).toBe("the creditor name Other name differs from the authorized Merchant GmbH");
    expect(paymentMismatch(body(approved, { creditorName: "merchant gmbh" }), [approved])).toBe("the creditor name merchant gmbh differs from the authorized Merchant GmbH");
  });

  it("refuses a single payment sent in a bulk-shaped body: only the approval decides the shape", () => {
    const attack = { ...body(approved, { instructedAmount: { currency: "EUR", amount: "9999.00" }, creditorAccount: { iban: GB } }), payments: [body(approved)] };
    expect(paymentMismatch(attack, [approved])).toBe("the body is a bulk of payments but one payment was authorized");
    expect(paymentMismatch({ payments: [body(approved)] }, [approved])).toBe("the body is a bulk of payments but one payment was authorized");
  });

  it.each([
    ["an unknown member", { instructedAmountOverride: "9999.00" }, "the payment has an unknown member 'instructedAmountOverride'"],
    ["a member of an ISO 20022 message the gateway does not read", { chargeBearer: "CRED" }, "the payment has an unknown member 'chargeBearer'"],
    ["an extra member in the amount", { instructedAmount: { currency: "EUR", amount: "1250.00", value: "9999" } }, "the payment has no instructedAmount of exactly a currency and an amount as strings"],
    ["an extra member in the creditor account", { creditorAccount: { iban: DE1, bban: "9999" } }, `the creditor account ${DE1} differs from the authorized ${DE1}`],
    ["remittance text with a right-to-left override", { remittanceInformationUnstructured: "Invoice \u202e42" }, "the payment remittanceInformationUnstructured must be text of 1 to 140 characters without control or invisible characters"],
    ["an address member it does not know", { creditorAddress: { townName: "Berlin", iban: GB } }, "the payment creditorAddress has an unknown member 'iban'"],
  ])("refuses a body with %s (a closed shape)", (_what, change, description) => {
    expect(paymentMismatch(body(approved, change), [approved])).toBe(description);
  });

  it("ignores spaces and letter case in the body's IBANs", () => {
    const loose = body(approved, { creditorAccount: { iban: "de89 3704 0044 0532 0130 00" }, debtorAccount: { iban: "De02 1203 0000 0000 2020 51" } });
    expect(paymentMismatch(loose, [approved])).toBeUndefined();
  });

  it.each([
    ["another amount", { instructedAmount: { currency: "EUR", amount: "1250.01" } }, "the amount 1250.01 EUR differs from the authorized 1250.00 EUR"],
    ["another currency", { instructedAmount: { currency: "USD", amount: "1250.00" } }, "the amount 1250.00 USD differs from the authorized 1250.00 EUR"],
    ["a currency in lower case", { instructedAmount: { currency: "eur", amount: "1250.00" } }, "the amount 1250.00 eur is not a decimal string within the minor units of an ISO 4217 currency"],
    ["an amount that is not a decimal string", { instructedAmount: { currency: "EUR", amount: "1,250.00" } }, "the amount 1,250.00 EUR is not a decimal string within the minor units of an ISO 4217 currency"],
    ["an amount with an exponent", { instructedAmount: { currency: "EUR", amount: "1.25e3" } }, "the amount 1.25e3 EUR is not a decimal string within the minor units of an ISO 4217 currency"],
    ["an amount as a JSON number", { instructedAmount: { currency: "EUR", amount: 1250 } }, "the payment has no instructedAmount of exactly a currency and an amount as strings"],
    ["no instructedAmount", { instructedAmount: undefined }, "the payment has no instructedAmount of exactly a currency and an amount as strings"],
    ["another creditor", { creditorAccount: { iban: GB } }, `the creditor account ${GB} differs from the authorized ${DE1}`],
    ["no creditor account", { creditorAccount: undefined }, `the creditor account given differs from the authorized ${DE1}`],
    ["a creditor IBAN with dashes", { creditorAccount: { iban: "DE89-3704-0044-0532-0130-00" } }, `the creditor account DE89-3704-0044-0532-0130-00 differs from the authorized ${DE1}`],
    ["a creditor IBAN with a ligature that upper-cases to ST", { creditorAccount: { iban: "GB82WE\ufb0612345698765432" } }, `the creditor account GB82WE\ufb0612345698765432 differs from the authorized ${DE1}`],
    ["another debtor", { debtorAccount: { iban: GB } }, `the debtor account ${GB} differs from the authorized ${DE2}`],
    ["a debtor account of null", { debtorAccount: null }, `the debtor account given differs from the authorized ${DE2}`],
  ])("names %s", (_what, change, description) => {
    expect(paymentMismatch(body(approved, change), [approved])).toBe(description);
  });

  it("cuts echoed values", () => {
    expect(paymentMismatch(body(approved, { instructedAmount: { currency: "EUR", amount: "9".repeat(1000) } }), [approved])).toBe(`the amount ${"9".repeat(40)}... EUR is not a decimal string within the minor units of an ISO 4217 currency`);
  });

  it("lets the body leave out the debtor account, and name any when none was authorized", () => {
    expect(paymentMismatch(body(approved, { debtorAccount: undefined }), [approved])).toBeUndefined();
    const { debtorAccount: _debtor, ...withoutDebtor } = approved;
    expect(paymentMismatch(body(approved, { debtorAccount: { iban: GB } }), [withoutDebtor])).toBeUndefined();
  });

  it.each([
    ["null", null, "the body is not a JSON object"],
    ["an array", [body(approved)], "the body is not a JSON object"],
    ["a string", JSON.stringify(body(approved)), "the body is not a JSON object"],
  ])("refuses a body that is %s", (_what, value, description) => {
    expect(paymentMismatch(value, [approved])).toBe(description);
  });

  it("refuses any body when no payment was authorized, and one payment for a batch", () => {
    expect(paymentMismatch(body(approved), [])).toBe("no payment was authorized");
    expect(paymentMismatch(body(approved), [approved, second])).toBe("the body is one payment but 2 were authorized");
  });
});

describe("paymentMismatch: the payee's name, the remittance information and the debtor account as the PSU approved them", () => {
  it.each([
    ["a creditor name with a tab for its space", { creditorName: "Merchant\tGmbH" }, "creditorName"],
    ["a creditor name with a byte order mark for its space", { creditorName: "Merchant\ufeffGmbH" }, "creditorName"],
    ["a creditor name with a line break", { creditorName: "Merchant\nGmbH" }, "creditorName"],
    ["a creditor name that is no string", { creditorName: ["Merchant GmbH"] }, "creditorName"],
  ])("refuses %s: it is text shown to the PSU, checked before it is compared", (_what, change, name) => {
    expect(paymentMismatch(body(approved, change), [approved])).toBe(`the payment ${name} must be text of 1 to 140 characters without control or invisible characters`);
  });

  it("compares the remittance information as the PSU read it, and refuses one the PSU never saw", () => {
    expect(paymentMismatch(body(approved, { remittanceInformationUnstructured: " Invoice  42 " }), [approved])).toBeUndefined();
    expect(paymentMismatch(body(approved, { remittanceInformationUnstructured: undefined }), [approved])).toBeUndefined();
    expect(paymentMismatch(body(approved, { remittanceInformationUnstructured: "Invoice 43" }), [approved])).toBe("the remittance information Invoice 43 differs from the authorized Invoice 42");
    const { remittanceInformationUnstructured: _r, ...unreferenced } = approved;
    expect(paymentMismatch(body(approved), [unreferenced])).toBe("the remittance information Invoice 42 was not authorized: the PSU approved none");
  });

  it.each([
    ["a second identifier", { iban: DE2, bban: "9999" }],
    ["a currency", { iban: DE2, currency: "USD" }],
    ["a masked PAN", { iban: DE2, maskedPan: "123456xxxxxx1234" }],
  ])("refuses a debtor account with %s beside the approved IBAN (a closed shape)", (_what, debtorAccount) => {
    expect(paymentMismatch(body(approved, { debtorAccount }), [approved])).toBe(`the debtor account ${DE2} differs from the authorized ${DE2}`);
    expect(paymentMismatch({ debtorAccount, payments: [body(approved, { debtorAccount: undefined }), body(second, { debtorAccount: undefined })] }, [approved, second])).toBe(`payment 1: the debtor account ${DE2} differs from the authorized ${DE2}`);
  });

  it("takes a requested execution date only as a calendar date", () => {
    for (const requestedExecutionDate of ["2030-02-30", "tomorrow", "2030-01-01T00:00:00Z", "20300101"]) {
      expect(paymentMismatch(body(approved, { requestedExecutionDate }), [approved])).toBe("the payment requestedExecutionDate must be a date YYYY-MM-DD");
    }
    expect(paymentMismatch({ requestedExecutionDate: "soon", payments: [body(approved), body(second)] }, [approved, second])).toBe("the bulk requestedExecutionDate must be a date YYYY-MM-DD");
  });
});

describe("completedPayment: the document forwarded", () => {
  const { debtorAccount: _d, remittanceInformationUnstructured: _r, creditorName: _n, ...bare } = body(approved);

  it("is the body itself (undefined) when it names everything the PSU approved", () => {
    expect(completedPayment(body(approved), [approved])).toBeUndefined();
    expect(completedPayment({ debtorAccount: { iban: DE2 }, payments: [body(approved, { debtorAccount: undefined }), body(second, { debtorAccount: undefined })] }, [approved, second])).toBeUndefined();
    expect(completedPayment({ payments: [body(approved), body(second)] }, [approved, second])).toBeUndefined();
  });

  it("fills in the approved creditor name, remittance information and debtor account a payment left out, and leaves the body unchanged", () => {
    const given = { ...bare };
    expect(completedPayment(given, [approved])).toEqual({ ...bare, creditorName: "Merchant GmbH", remittanceInformationUnstructured: "Invoice 42", debtorAccount: { iban: DE2 } });
    expect(given).toEqual(bare);
    const { remittanceInformationUnstructured: _none, debtorAccount: _noDebtor, ...plain } = approved;
    expect(completedPayment(bare, [plain])).toEqual({ ...bare, creditorName: "Merchant GmbH" });
  });

  it("puts a bulk's shared debtor account beside its payments (the Berlin Group bulk), and each payment's own into it when they differ", () => {
    expect(completedPayment({ payments: [bare, bare] }, [approved, { ...approved }])).toEqual({
      payments: [
        { ...bare, creditorName: "Merchant GmbH", remittanceInformationUnstructured: "Invoice 42" },
        { ...bare, creditorName: "Merchant GmbH", remittanceInformationUnstructured: "Invoice 42" },
      ],
      debtorAccount: { iban: DE2 },
    });
    const other: PaymentInitiation = { ...approved, debtorAccount: { iban: GB } };
    const completed = completedPayment({ payments: [bare, body(approved)] }, [other, approved]);
    expect(completed?.debtorAccount).toBeUndefined();
    expect((completed?.payments as Record<string, unknown>[]).map((p) => p.debtorAccount)).toEqual([{ iban: GB }, { iban: DE2 }]);
  });
});

describe("paymentMismatch: a batch { payments: [...] }", () => {
  it("accepts the authorized batch, entry by entry in order", () => {
    expect(paymentMismatch({ payments: [body(approved), body(second)] }, [approved, second])).toBeUndefined();
    expect(paymentMismatch({ batchBookingPreferred: true, debtorAccount: { iban: DE2 }, payments: [body(approved), body(second)] }, [approved, second])).toBeUndefined();
  });

  it.each([
    ["payments reordered", { payments: [body(second), body(approved)] }, "payment 1: the amount 5000 JPY differs from the authorized 1250.00 EUR"],
    ["one payment fewer", { payments: [body(approved)] }, "the body has 1 payments but 2 were authorized"],
    ["one payment more", { payments: [body(approved), body(second), body(second)] }, "the body has 3 payments but 2 were authorized"],
    ["a changed second payment", { payments: [body(approved), body(second, { creditorAccount: { iban: GB } })] }, `payment 2: the creditor account ${GB} differs from the authorized ${FR}`],
    ["another debtor for the whole batch", { debtorAccount: { iban: GB }, payments: [body(approved), body(second)] }, `payment 1: the debtor account ${GB} differs from the authorized ${DE2}`],
    ["payments that is not an array", { payments: body(approved) }, "payments is not an array"],
    ["an entry that is not an object", { payments: [body(approved), "x"] }, "payment 2: the payment is not a JSON object"],
    ["an unknown member beside the payments", { payments: [body(approved), body(second)], instructedAmount: { currency: "EUR", amount: "1.00" } }, "the bulk has an unknown member 'instructedAmount'"],
    ["an entry that is itself a bulk", { payments: [body(approved), { ...body(second), payments: [] }] }, "payment 2: the payment has an unknown member 'payments'"],
  ])("names %s", (_what, value, description) => {
    expect(paymentMismatch(value, [approved, second])).toBe(description);
  });
});

describe("paymentMismatch: properties", () => {
  // Up to 15 integer digits, the most the authorization server accepts.
  const amountArb = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 15n - 2n }), fc.constantFrom(["EUR", 2], ["JPY", 0], ["BHD", 3]));
  /** `units` minor units of a currency with `minor` fraction digits, as a decimal string. */
  const decimal = (units: bigint, minor: number) => (minor === 0 ? String(units) : `${units / 10n ** BigInt(minor)}.${String(units % 10n ** BigInt(minor)).padStart(minor, "0")}`);

  it("matches the authorized payment whatever the spaces and case of its IBANs, and not once the amount is one minor unit off", () => {
    fc.assert(
      fc.property(amountArb, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), fc.boolean(), ([units, [currency, minor]], spaces, up) => {
        const payment: PaymentInitiation = { ...approved, instructedAmount: { currency, amount: decimal(units, minor) } };
        const loose = [...GB].map((c, i) => `${spaces[i] ? " " : ""}${up ? c : c.toLowerCase()}`).join("");
        const authorized = { ...payment, creditorAccount: { iban: GB } };
        expect(paymentMismatch(body(payment, { creditorAccount: { iban: loose } }), [authorized])).toBeUndefined();
        expect(paymentMismatch(body(payment, { instructedAmount: { currency, amount: decimal(units + 1n, minor) } }), [authorized])).toMatch(/^the amount .* differs from the authorized /);
      }),
    );
  });

  it("answers any JSON value with a description, never a match or an exception", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(paymentMismatch(value, [approved])).toEqual(expect.any(String));
        expect(paymentMismatch({ payments: value }, [approved, second])).toEqual(expect.any(String));
      }),
    );
  });

  it("answers deep nesting and long values fast, without walking them", () => {
    const started = performance.now();
    const deep = JSON.parse(`${"[".repeat(30_000)}${"]".repeat(30_000)}`);
    expect(paymentMismatch({ ...body(approved), instructedAmount: deep }, [approved])).toBe("the payment has no instructedAmount of exactly a currency and an amount as strings");
    expect(paymentMismatch({ payments: Array.from({ length: 30_000 }, () => deep) }, [approved, second])).toBe("the body has 30000 payments but 2 were authorized");
    expect(paymentMismatch(body(approved, { creditorAccount: { iban: "D".repeat(65_000) } }), [approved])).toMatch(/^the creditor account D{40}\.\.\. differs/);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("accountAccess (RTS Art. 36(1))", () => {
  const details: AccountInformation[] = [
    { type: "account_information", access: { accounts: [{ iban: DE1 }, { iban: GB }], balances: true }, validUntil: "2030-01-01", frequencyPerDay: 4, recurringIndicator: true },
  ];

  it("allows the approved accounts, with the approved data", () => {
    expect(accountAccess(DE1, details)).toEqual({ balances: true, transactions: false });
    expect(accountAccess("gb82 west 1234 5698 7654 32", details)).toEqual({ balances: true, transactions: false });
    expect(accountAccess(GB, details)).toBeDefined();
  });

  it("refuses other accounts, malformed ones, and any without approved account information", () => {
    expect(accountAccess(DE2, details)).toBeUndefined();
    expect(accountAccess("DE89-3704-0044-0532-0130-00", details)).toBeUndefined();
    expect(accountAccess("", details)).toBeUndefined();
    expect(accountAccess(DE1, [])).toBeUndefined();
    // Without accounts (not yet enriched by approvedDetails), no account is allowed.
    expect(accountAccess(DE1, [{ ...details[0]!, access: { allAccounts: true, balances: true } }])).toBeUndefined();
  });

  it("joins the rights of several entries naming the account", () => {
    const more: AccountInformation = { ...details[0]!, access: { accounts: [{ iban: DE1 }], transactions: true } };
    expect(accountAccess(DE1, [...details, more])).toEqual({ balances: true, transactions: true });
    expect(accountAccess(GB, [...details, more])).toEqual({ balances: true, transactions: false });
  });
});

describe("accessLimits (RTS Art. 36(5)(b); Berlin Group frequencyPerDay, recurringIndicator)", () => {
  const entry = (frequencyPerDay: number, recurringIndicator: boolean): AccountInformation => ({
    type: "account_information",
    access: { accounts: [{ iban: DE1 }], balances: true },
    validUntil: "2030-01-01",
    frequencyPerDay,
    recurringIndicator,
  });

  it("takes one entry's frequencyPerDay, one-off when it is not recurring", () => {
    expect(accessLimits([entry(4, true)])).toEqual({ frequencyPerDay: 4, oneOff: false });
    expect(accessLimits([entry(1, false)])).toEqual({ frequencyPerDay: 1, oneOff: true });
  });

  it("holds several entries to the strictest: the lowest frequency, one-off if any is", () => {
    expect(accessLimits([entry(4, true), entry(2, true)])).toEqual({ frequencyPerDay: 2, oneOff: false });
    expect(accessLimits([entry(3, true), entry(4, false)])).toEqual({ frequencyPerDay: 3, oneOff: true });
  });
});
