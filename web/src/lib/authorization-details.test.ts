import { describe, expect, it } from "vitest";
import {
  accessDays,
  accountsToChoose,
  choiceDecision,
  describeAccessPeriod,
  describeAccessUntil,
  describeAccountAccess,
  describeBatch,
  describePayment,
  describeStatus,
  formatAmount,
  formatDate,
  formatIban,
  localToday,
  needsDebtorAccount,
  parseAuthorizationDetails,
  parsePsuAccounts,
  readAuthorizationDetails,
  statusTone,
  sumAmounts,
  type AccountInformation,
  type PaymentInitiation,
  type PsuAccount,
} from "./authorization-details";

/** Intl separates the amount and a trailing currency symbol with a no-break space. */
const NBSP = "\u00a0";

const MAIN = "DE89370400440532013000";
const SAVINGS = "DE02120300000000202051";
const ACME = "DE75512108001245126199";

const ACCOUNTS: PsuAccount[] = [
  { iban: MAIN, name: "Main current account", currency: "EUR" },
  { iban: SAVINGS, name: "Savings", currency: "EUR" },
];

const payment = (amount: string, more: Partial<PaymentInitiation> = {}): PaymentInitiation => ({
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount },
  creditorName: "ACME GmbH",
  creditorAccount: { iban: ACME },
  ...more,
});

const access = (more: Partial<AccountInformation> = {}, accessMore: Partial<AccountInformation["access"]> = {}): AccountInformation => ({
  type: "account_information",
  access: { accounts: [{ iban: MAIN }, { iban: SAVINGS }], balances: true, transactions: true, ...accessMore },
  validUntil: "2027-05-24",
  frequencyPerDay: 4,
  recurringIndicator: true,
  ...more,
});

describe("formatIban", () => {
  it("groups an electronic IBAN in fours", () => {
    expect(formatIban(MAIN)).toBe("DE89 3704 0044 0532 0130 00");
  });

  it("normalises spaces and case first", () => {
    expect(formatIban("de89 3704 0044 0532013000")).toBe("DE89 3704 0044 0532 0130 00");
  });
});

describe("formatAmount", () => {
  it("formats in the locale's currency format", () => {
    expect(formatAmount({ currency: "EUR", amount: "1250" }, "en-GB")).toBe("€1,250.00");
    expect(formatAmount({ currency: "EUR", amount: "1250" }, "de-DE")).toBe(`1.250,00${NBSP}€`);
    expect(formatAmount({ currency: "EUR", amount: "1250.5" }, "de-DE")).toBe(`1.250,50${NBSP}€`);
  });

  it("uses the currency's minor units", () => {
    expect(formatAmount({ currency: "JPY", amount: "1250" }, "en-GB")).toBe("JP¥1,250");
    expect(formatAmount({ currency: "USD", amount: "0.07" }, "en-US")).toBe("$0.07");
  });

  it("is exact beyond the 15 significant digits of a float", () => {
    expect(formatAmount({ currency: "EUR", amount: "999999999999999.99" }, "en-GB")).toBe("€999,999,999,999,999.99");
    expect(formatAmount({ currency: "EUR", amount: "123456789012345.67" }, "de-DE")).toBe(`123.456.789.012.345,67${NBSP}€`);
  });

  it("keeps every fraction digit the amount has", () => {
    expect(formatAmount({ currency: "EUR", amount: "1.005" }, "en-GB")).toBe("€1.005");
  });

  it("refuses what is not a decimal amount", () => {
    expect(() => formatAmount({ currency: "EUR", amount: "1e3" }, "en-GB")).toThrow(RangeError);
    expect(() => formatAmount({ currency: "EUR", amount: "-1" }, "en-GB")).toThrow(RangeError);
  });
});

describe("sumAmounts", () => {
  it("adds decimal strings exactly, with the most fraction digits", () => {
    expect(sumAmounts(["1000.5", "499.50"])).toBe("1500.00");
    expect(sumAmounts(["0.1", "0.2"])).toBe("0.3");
    expect(sumAmounts(["999999999999999.99", "0.01"])).toBe("1000000000000000.00");
    expect(sumAmounts(["0.01"])).toBe("0.01");
    expect(sumAmounts(["3", "4"])).toBe("7");
  });
});

describe("formatDate", () => {
  it("formats a calendar date in the locale without moving it through a time zone", () => {
    expect(formatDate("2027-05-24", "en-GB")).toBe("24 May 2027");
    expect(formatDate("2027-05-24", "de-DE")).toBe("24. Mai 2027");
    expect(formatDate("2027-01-01", "en-US")).toBe("January 1, 2027");
  });

  it("returns a text that is not a real date as it is", () => {
    expect(formatDate("2027-02-30", "en-GB")).toBe("2027-02-30");
  });
});

describe("accessDays and describeAccessPeriod", () => {
  it("counts the days of access, today and the last day included", () => {
    expect(accessDays("2027-05-24", "2026-11-24")).toBe(182);
    expect(accessDays("2027-05-23", "2026-11-24")).toBe(181);
    expect(accessDays("2026-11-24", "2026-11-24")).toBe(1);
    expect(accessDays("2026-11-23", "2026-11-24")).toBe(0);
  });

  it("says until when, and for how many days", () => {
    expect(describeAccessPeriod("2027-05-24", "en-GB", "2026-11-25")).toBe("until 24 May 2027 (181 days)");
    expect(describeAccessPeriod("2027-05-24", "en-GB", "2027-05-24")).toBe("until 24 May 2027 (1 day)");
    expect(describeAccessPeriod("2027-05-24", "en-GB")).toBe("until 24 May 2027");
  });

  it("takes today in the browser's time zone", () => {
    expect(localToday(new Date(2026, 10, 5, 23, 59))).toBe("2026-11-05");
  });
});

describe("describePayment", () => {
  it("says what is paid to whom, the payee's name and IBAN apart", () => {
    expect(describePayment(payment("1250"), ACCOUNTS, "en-GB")).toEqual({
      amount: "€1,250.00",
      creditorName: "ACME GmbH",
      creditorIban: "DE75 5121 0800 1245 1261 99",
      debtorAccount: null,
      reference: null,
    });
  });

  it("adds the reference and the debtor account, named when it is the PSU's", () => {
    const described = describePayment(payment("1250", { remittanceInformationUnstructured: "Invoice 42", debtorAccount: { iban: MAIN } }), ACCOUNTS, "de-DE");
    expect(described).toEqual({
      amount: `1.250,00${NBSP}€`,
      creditorName: "ACME GmbH",
      creditorIban: "DE75 5121 0800 1245 1261 99",
      debtorAccount: "Main current account (DE89 3704 0044 0532 0130 00)",
      reference: "Invoice 42",
    });
  });

  it("names an unknown debtor account by its IBAN", () => {
    expect(describePayment(payment("10", { debtorAccount: { iban: MAIN } }), [], "en-GB").debtorAccount).toBe("DE89 3704 0044 0532 0130 00");
  });

  it("keeps a payee's name in right-to-left letters as it is, apart from the IBAN, which no name can pass for", () => {
    const hebrew = "\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de";
    const described = describePayment(payment("10", { creditorName: hebrew }), [], "en-GB");
    expect(described.creditorName).toBe(hebrew);
    expect(described.creditorIban).toBe("DE75 5121 0800 1245 1261 99");
  });
});

describe("describeBatch", () => {
  it("counts the payments and totals them", () => {
    const batch = describeBatch([payment("1000"), payment("250.5"), payment("249.50")], ACCOUNTS, "en-GB");
    expect(batch.text).toBe("3 payments, €1,500.00 in total");
    expect(batch.payments.map((p) => `${p.amount} to ${p.creditorName}, ${p.creditorIban}`)).toEqual([
      "€1,000.00 to ACME GmbH, DE75 5121 0800 1245 1261 99",
      "€250.50 to ACME GmbH, DE75 5121 0800 1245 1261 99",
      "€249.50 to ACME GmbH, DE75 5121 0800 1245 1261 99",
    ]);
  });

  it("gives one total per currency", () => {
    const usd = payment("20", { instructedAmount: { currency: "USD", amount: "20" } });
    expect(describeBatch([payment("1000"), usd, payment("500")], [], "en-GB").text).toBe("3 payments, €1,500.00 and US$20.00 in total");
    expect(describeBatch([payment("1000"), usd], [], "de-DE").text).toBe(`2 payments, 1.000,00${NBSP}€ and 20,00${NBSP}$ in total`);
  });
});

describe("describeAccountAccess", () => {
  it("names the accounts, the data, until when and how often", () => {
    expect(describeAccountAccess(access(), ACCOUNTS, "en-GB")).toBe(
      "Read balances and transactions of Main current account and Savings until 24 May 2027, up to 4 times a day",
    );
  });

  it("gives the number of days when told today", () => {
    expect(describeAccountAccess(access({ frequencyPerDay: 1 }), ACCOUNTS, "de-DE", "2026-11-25")).toBe(
      "Read balances and transactions of Main current account and Savings until 24. Mai 2027 (181 days), once a day",
    );
  });

  it("names accounts it does not know by their IBANs", () => {
    expect(describeAccountAccess(access({ frequencyPerDay: 2 }, { transactions: false }), [], "en-GB")).toBe(
      "Read balances of DE89 3704 0044 0532 0130 00 and DE02 1203 0000 0000 2020 51 until 24 May 2027, twice a day",
    );
  });

  it("says all your accounts, or the accounts you choose", () => {
    expect(describeAccountAccess(access({}, { accounts: undefined, allAccounts: true, balances: false }), ACCOUNTS, "en-GB")).toBe(
      "Read transactions of all your accounts until 24 May 2027, up to 4 times a day",
    );
    expect(describeAccountAccess(access({ frequencyPerDay: 3 }, { accounts: undefined }), ACCOUNTS, "en-GB")).toBe(
      "Read balances and transactions of the accounts you choose until 24 May 2027, up to 3 times a day",
    );
  });

  it("says the list of accounts when neither balances nor transactions", () => {
    const listOnly = { balances: undefined, transactions: undefined };
    expect(describeAccountAccess(access({}, { ...listOnly, accounts: undefined, allAccounts: true }), [], "en-GB")).toBe(
      "Read the list of all your accounts until 24 May 2027, up to 4 times a day",
    );
    expect(describeAccountAccess(access({}, listOnly), ACCOUNTS, "en-GB")).toBe(
      "Read the list of your accounts: Main current account and Savings until 24 May 2027, up to 4 times a day",
    );
  });

  it("says one-off access when not recurring", () => {
    expect(describeAccountAccess(access({ recurringIndicator: false, frequencyPerDay: 1 }), ACCOUNTS, "en-GB")).toBe(
      "Read balances and transactions of Main current account and Savings until 24 May 2027, one-off access",
    );
  });
});

describe("parseAuthorizationDetails", () => {
  it("takes payments and account access of the wire shape", () => {
    const details = [payment("1250.00", { remittanceInformationUnstructured: "Invoice 42" }), access()];
    expect(parseAuthorizationDetails(details)).toEqual(details);
    expect(readAuthorizationDetails(JSON.stringify(details))).toEqual(details);
  });

  it("refuses what it could not put into words", () => {
    expect(parseAuthorizationDetails([])).toBeUndefined();
    expect(parseAuthorizationDetails(null)).toBeUndefined();
    expect(parseAuthorizationDetails([{ type: "other" }])).toBeUndefined();
    expect(parseAuthorizationDetails([payment("12.5e3")])).toBeUndefined();
    expect(parseAuthorizationDetails([payment("1", { instructedAmount: { currency: "XYZW", amount: "1" } })])).toBeUndefined();
    expect(parseAuthorizationDetails([access({ validUntil: "2027-02-30" })])).toBeUndefined();
    expect(parseAuthorizationDetails([access({ frequencyPerDay: 1.5 })])).toBeUndefined();
    expect(readAuthorizationDetails("not json")).toBeUndefined();
  });

  it("reads the PSU's accounts", () => {
    expect(parsePsuAccounts(ACCOUNTS)).toEqual(ACCOUNTS);
    expect(parsePsuAccounts([{ iban: MAIN }])).toBeUndefined();
  });
});

describe("what the PSU chooses at consent", () => {
  it("finds account access without accounts, and payments without a debtor account", () => {
    expect(accountsToChoose([access()])).toBeUndefined();
    expect(accountsToChoose([access({}, { accounts: undefined, allAccounts: true })])).toBeUndefined();
    expect(accountsToChoose([access({}, { accounts: undefined })])).toBeDefined();
    expect(needsDebtorAccount([payment("1", { debtorAccount: { iban: MAIN } })])).toBe(false);
    expect(needsDebtorAccount([payment("1", { debtorAccount: { iban: MAIN } }), payment("2")])).toBe(true);
  });

  it("puts the choices into the decision once every needed one is made", () => {
    const none = { accounts: new Set<string>(), debtorAccount: "" };
    expect(choiceDecision([access()], none)).toEqual({});
    expect(choiceDecision([access({}, { accounts: undefined })], none)).toBeUndefined();
    expect(choiceDecision([access({}, { accounts: undefined })], { ...none, accounts: new Set([SAVINGS]) })).toEqual({ accounts: [SAVINGS] });
    expect(choiceDecision([payment("1"), payment("2")], none)).toBeUndefined();
    expect(choiceDecision([payment("1")], { ...none, debtorAccount: MAIN })).toEqual({ debtorAccount: MAIN });
  });
});

describe("describeStatus", () => {
  it("says the status in words for the PSU and for an administrator", () => {
    expect(describeStatus("valid", "psu")).toBe("Active");
    expect(describeStatus("revokedByPsu", "psu")).toBe("Withdrawn by you");
    expect(describeStatus("revokedByPsu", "admin")).toBe("Withdrawn by the user");
    expect(describeStatus("terminatedByTpp", "psu")).toBe("Ended by the provider");
    expect(describeStatus("consumed", "psu")).toBe("Used");
    expect(describeStatus("received", "psu")).toBe("Awaiting your approval");
    expect(describeStatus("somethingNew", "psu")).toBe("somethingNew");
  });

  it("says what became of a payment: used only when made, else rejected by the bank, pending or not yet known", () => {
    expect(describeStatus("paymentRejected", "psu")).toBe("Rejected by the bank");
    expect(describeStatus("paymentPending", "psu")).toBe("Payment in progress");
    expect(describeStatus("outcomeUnknown", "psu")).toBe("Outcome pending: the bank has not confirmed the payment yet");
    expect(describeStatus("outcomeUnknown", "admin")).toBe("Outcome unknown");
    expect([statusTone("paymentRejected"), statusTone("paymentPending"), statusTone("outcomeUnknown"), statusTone("consumed")]).toEqual(["bad", "warn", "warn", "neutral"]);
  });
});

describe("describeAccessUntil", () => {
  it("names the day in the locale and the days from now, rounded", () => {
    const now = new Date(2026, 10, 24, 12, 0, 0);
    const in90 = new Date(2027, 1, 22, 12, 0, 0).toISOString();
    expect(describeAccessUntil(in90, "en-GB", now)).toBe("until 22 February 2027 (90 days)");
    expect(describeAccessUntil(new Date(2026, 10, 25, 11, 0, 0).toISOString(), "en-GB", now)).toBe("until 25 November 2026 (1 day)");
    expect(describeAccessUntil(new Date(2026, 10, 24, 13, 0, 0).toISOString(), "de-DE", now)).toBe("until 24. November 2026");
  });
});
