/**
 * RFC 9396 authorization_details for PSD2: the strict parser (every rule of the design
 * note, hostile input included), the enrichment at consent, the refresh grant's narrowing
 * rule (RFC 9396 §6.2) and batch totals (RTS Art. 5(3)(b)).
 */
import fc from "fast-check";
import { isValidIBAN } from "ibantools";
import { describe, expect, it } from "vitest";
import { OAuthError } from "../kernel/errors.js";
import {
  InvalidAuthorizationDetails,
  approvedDetails,
  detailTypes,
  narrows,
  parseAuthorizationDetails,
  paymentTotals,
  type AccountInformation,
  type AuthorizationDetail,
  type PaymentInitiation,
} from "./authorization-details.js";

const NOW = new Date("2025-06-15T23:30:00Z");
const TYPES = ["payment_initiation", "account_information"] as const;
const DAY_MS = 86_400_000;
/** The UTC date `offset` days from NOW. */
const day = (offset: number) => new Date(NOW.getTime() + offset * DAY_MS).toISOString().slice(0, 10);

const IBANS = ["DE89370400440532013000", "DE02120300000000202051", "GB82WEST12345698765432", "FR1420041010050500013M02606", "NL91ABNA0417164300"] as const;
const [DE1, DE2, GB, FR, NL] = IBANS;

const payment: PaymentInitiation = {
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount: "1250.00" },
  creditorName: "Merchant GmbH",
  creditorAccount: { iban: DE1 },
};

const accountInformation: AccountInformation = {
  type: "account_information",
  access: { accounts: [{ iban: DE2 }, { iban: GB }], balances: true, transactions: true },
  validUntil: day(90),
  frequencyPerDay: 4,
  recurringIndicator: true,
};

/** Parses `value` as the JSON text of the parameter. */
function parse(value: unknown, types: readonly string[] = TYPES): AuthorizationDetail[] {
  return parseAuthorizationDetails(JSON.stringify(value), types, NOW);
}

/** The description of the InvalidAuthorizationDetails `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
    return (error as InvalidAuthorizationDetails).message;
  }
  throw new Error("expected InvalidAuthorizationDetails");
}

/** A copy of `detail` with `change` applied to a deep clone. */
function changed<T>(detail: T, change: (copy: any) => void): T {
  const copy = structuredClone(detail);
  change(copy);
  return copy;
}

describe("InvalidAuthorizationDetails (RFC 9396 §5)", () => {
  it("is a 400 invalid_authorization_details OAuth error", () => {
    const error = new InvalidAuthorizationDetails("authorization_details[0].type is missing");
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.status).toBe(400);
    expect(error.toJSON()).toEqual({ error: "invalid_authorization_details", error_description: "authorization_details[0].type is missing" });
  });
});

describe("parseAuthorizationDetails: accepted requests", () => {
  it("accepts one payment, a batch, and one account_information entry, as fresh equal objects", () => {
    const batch = [payment, { ...payment, instructedAmount: { currency: "JPY", amount: "5000" }, creditorAccount: { iban: FR }, remittanceInformationUnstructured: "Invoice 42", debtorAccount: { iban: NL } }];
    expect(parse([payment])).toEqual([payment]);
    expect(parse(batch)).toEqual(batch);
    const parsed = parse([accountInformation]);
    expect(parsed).toEqual([accountInformation]);
    expect(parsed[0]).not.toBe(accountInformation);
  });

  it("accepts account_information without accounts (the PSU picks) and with allAccounts", () => {
    const picks = { ...accountInformation, access: { balances: true } };
    const all = { ...accountInformation, access: { allAccounts: true, transactions: false } };
    expect(parse([picks])).toEqual([picks]);
    expect(parse([all])).toEqual([all]);
  });

  it("accepts 100 entries and 20 accounts", () => {
    expect(parse(Array.from({ length: 100 }, () => payment))).toHaveLength(100);
    const accounts = Array.from({ length: 20 }, (_, i) => ({ iban: germanIban(`37040044${String(i).padStart(10, "0")}`) }));
    expect(parse([{ ...accountInformation, access: { accounts } }])).toEqual([{ ...accountInformation, access: { accounts } }]);
  });

  it("takes only the types the client may use", () => {
    expect(parse([payment], ["payment_initiation"])).toEqual([payment]);
    expect(refusal(() => parse([accountInformation], ["payment_initiation"]))).toBe("authorization_details[0].type 'account_information' is not a type this client may use");
  });
});

/** A German IBAN for an 18-digit BBAN, with its ISO 7064 MOD 97-10 check digits. */
function germanIban(bban: string): string {
  const check = 98n - (BigInt(`${bban}131400`) % 97n);
  return `DE${String(check).padStart(2, "0")}${bban}`;
}

describe("parseAuthorizationDetails: the array", () => {
  it.each([
    ["not JSON", "[{", "authorization_details is not valid JSON"],
    ["an object", '{"type":"payment_initiation"}', "authorization_details must be a JSON array"],
    ["a string", '"payment_initiation"', "authorization_details must be a JSON array"],
    ["null", "null", "authorization_details must be a JSON array"],
    ["empty", "[]", "authorization_details must have 1 to 100 entries"],
  ])("refuses %s", (_what, text, description) => {
    expect(refusal(() => parseAuthorizationDetails(text, TYPES, NOW))).toBe(description);
  });

  it("refuses 101 entries without reading them", () => {
    expect(refusal(() => parse(Array.from({ length: 101 }, () => "not an entry")))).toBe("authorization_details must have 1 to 100 entries");
  });

  it("refuses mixing payments and account information, and two account_information entries", () => {
    expect(refusal(() => parse([payment, accountInformation]))).toBe("authorization_details cannot mix payment_initiation and account_information entries");
    expect(refusal(() => parse([accountInformation, accountInformation]))).toBe("authorization_details may have at most one account_information entry");
  });
});

describe("parseAuthorizationDetails: entries and members", () => {
  it.each([
    ["an entry that is not an object", [payment, 7], "authorization_details[1] must be a JSON object"],
    ["an entry that is an array", [[payment]], "authorization_details[0] must be a JSON object"],
    ["a missing type", [{ ...payment, type: undefined }], "authorization_details[0].type is missing"],
    ["a type that is not a string", [{ ...payment, type: 1 }], "authorization_details[0].type must be a string"],
    ["an unknown type", [{ ...payment, type: "openid_credential" }], "authorization_details[0].type 'openid_credential' is not a type this client may use"],
    ["an unknown member", [{ ...payment, note: "x" }], "authorization_details[0] has an unknown member 'note'"],
    ["an unknown member of an amount", [changed(payment, (p) => (p.instructedAmount.exchangeRate = "1"))], "authorization_details[0].instructedAmount has an unknown member 'exchangeRate'"],
    ["an unknown member of an account", [changed(payment, (p) => (p.creditorAccount.currency = "EUR"))], "authorization_details[0].creditorAccount has an unknown member 'currency'"],
    ["an unknown member of access", [changed(accountInformation, (a) => (a.access.payments = true))], "authorization_details[0].access has an unknown member 'payments'"],
    ["a missing required member", [{ ...payment, creditorName: undefined }], "authorization_details[0].creditorName is missing"],
    ["a missing validUntil", [{ ...accountInformation, validUntil: undefined }], "authorization_details[0].validUntil is missing"],
    ["null for an optional member", [{ ...payment, debtorAccount: null }], "authorization_details[0].debtorAccount must be a JSON object"],
  ])("refuses %s", (_what, value, description) => {
    expect(refusal(() => parse(value))).toBe(description);
  });

  it("refuses a type the client may use but the server does not know", () => {
    expect(refusal(() => parse([{ type: "openid_credential" }], ["openid_credential"]))).toBe("authorization_details[0].type 'openid_credential' is not a type this server supports");
  });

  it.each(["locations", "actions", "datatypes", "identifier", "privileges"])("refuses the RFC 9396 §2.2 common field %s", (field) => {
    expect(refusal(() => parse([{ ...payment, [field]: ["x"] }]))).toBe(`authorization_details[0].${field} is an RFC 9396 common field, which this type does not use`);
  });

  it("refuses __proto__ and constructor as members, without reading Object.prototype", () => {
    const text = `[{"type":"payment_initiation","__proto__":{"creditorName":"x"},"instructedAmount":{"currency":"EUR","amount":"1"},"creditorName":"M","creditorAccount":{"iban":"${DE1}"}}]`;
    expect(refusal(() => parseAuthorizationDetails(text, TYPES, NOW))).toBe("authorization_details[0] has an unknown member '__proto__'");
    expect(refusal(() => parse([{ ...accountInformation, access: { constructor: true } }]))).toBe("authorization_details[0].access has an unknown member 'constructor'");
  });

  it("cuts an echoed member name in the description", () => {
    expect(refusal(() => parse([{ ...payment, ["k".repeat(1000)]: 1 }]))).toBe(`authorization_details[0] has an unknown member '${"k".repeat(40)}...'`);
  });
});

describe("parseAuthorizationDetails: amounts and currencies", () => {
  /** Parses a payment of `amount` in `currency`. */
  const pay = (amount: unknown, currency: unknown = "EUR") => parse([{ ...payment, instructedAmount: { currency, amount } }]);

  it.each([
    ["0.01", "EUR"],
    ["1", "EUR"],
    ["999999999999999.99", "EUR"],
    ["5000", "JPY"],
    ["1.005", "BHD"],
    ["0.1", "USD"],
  ])("accepts %s %s", (amount, currency) => {
    expect((pay(amount, currency)[0] as PaymentInitiation).instructedAmount).toEqual({ currency, amount });
  });

  const FORMAT = "authorization_details[0].instructedAmount.amount must be a decimal string such as '12.50' (at most 15 integer digits)";
  it.each([
    ["a JSON number", 12.5, FORMAT],
    ["a leading zero", "01", FORMAT],
    ["a bare point", "1.", FORMAT],
    ["no integer part", ".5", FORMAT],
    ["a sign", "-1", FORMAT],
    ["a plus sign", "+1", FORMAT],
    ["an exponent", "1e2", FORMAT],
    ["a decimal comma", "1,00", FORMAT],
    ["a space", " 1", FORMAT],
    ["16 integer digits", "1234567890123456", FORMAT],
    ["zero", "0", "authorization_details[0].instructedAmount.amount must be greater than zero"],
    ["zero with fraction digits", "0.00", "authorization_details[0].instructedAmount.amount must be greater than zero"],
    ["three fraction digits in EUR", "1.001", "authorization_details[0].instructedAmount.amount has more than 2 fraction digits, the minor units of EUR"],
    ["trailing zeros beyond EUR's minor units", "1.000", "authorization_details[0].instructedAmount.amount has more than 2 fraction digits, the minor units of EUR"],
  ])("refuses an amount with %s", (_what, amount, description) => {
    expect(refusal(() => pay(amount))).toBe(description);
  });

  it("refuses fraction digits in JPY (0 minor units) and a fourth one in BHD (3)", () => {
    expect(refusal(() => pay("1.5", "JPY"))).toBe("authorization_details[0].instructedAmount.amount has more than 0 fraction digits, the minor units of JPY");
    expect(refusal(() => pay("1.0005", "BHD"))).toBe("authorization_details[0].instructedAmount.amount has more than 3 fraction digits, the minor units of BHD");
  });

  it.each(["eur", "EURO", "ZZZ", "", 978, null])("refuses the currency %j", (currency) => {
    expect(refusal(() => pay("1", currency))).toBe("authorization_details[0].instructedAmount.currency is not an ISO 4217 currency code");
  });

  it("refuses any amount with more fraction digits than the currency's minor units (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(["EUR", 2], ["JPY", 0], ["BHD", 3], ["USD", 2], ["KWD", 3]), fc.integer({ min: 1, max: 10 }), fc.nat(), ([currency, minor], extra, seed) => {
        const fraction = String(seed).padStart(minor + extra, "0").slice(0, minor + extra);
        expect(refusal(() => pay(`1.${fraction}`, currency))).toMatch(/has more than \d fraction digits/);
      }),
    );
  });

  it("accepts a random string as an amount only when it is a well-formed positive amount (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 24 }), fc.stringMatching(/^[0-9.]{1,20}$/)), (amount) => {
        let accepted = true;
        try {
          pay(amount);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
          accepted = false;
        }
        expect(accepted).toBe(/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/.test(amount) && /[1-9]/.test(amount));
      }),
    );
  });

  it("accepts a random string as a currency only when Intl knows it as an ISO 4217 code (property)", () => {
    const known = new Set(Intl.supportedValuesOf("currency"));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 5 }), fc.stringMatching(/^[A-Z]{3}$/)), (currency) => {
        let accepted = true;
        try {
          pay("1", currency);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(known.has(currency));
      }),
    );
  });
});

describe("parseAuthorizationDetails: IBANs", () => {
  /** Parses a payment to `iban`. */
  const to = (iban: unknown) => parse([{ ...payment, creditorAccount: { iban } }]);
  const INVALID = "authorization_details[0].creditorAccount.iban is not a valid IBAN (electronic format: upper case, no spaces)";

  it.each(IBANS)("accepts %s", (iban) => {
    expect((to(iban)[0] as PaymentInitiation).creditorAccount.iban).toBe(iban);
  });

  it.each([
    ["lower case", DE1.toLowerCase()],
    ["spaces", "DE89 3704 0044 0532 0130 00"],
    ["a wrong checksum", "DE89370400440532013001"],
    ["a wrong length for the country", "DE8937040044053201300"],
    ["an unknown country", "XX89370400440532013000"],
    ["35 characters", `${DE1}${"0".repeat(13)}`],
    ["a number", 89370400440532013000],
    ["an empty string", ""],
  ])("refuses %s", (_what, iban) => {
    expect(refusal(() => to(iban))).toBe(INVALID);
  });

  it("names the entry and the member: the second entry's debtor account", () => {
    expect(refusal(() => parse([payment, { ...payment, debtorAccount: { iban: "NL91ABNA0417164301" } }]))).toBe(
      "authorization_details[1].debtorAccount.iban is not a valid IBAN (electronic format: upper case, no spaces)",
    );
  });

  it("refuses every known IBAN with one digit changed: the checksum fails (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...IBANS), fc.nat(), fc.integer({ min: 1, max: 9 }), (iban, at, delta) => {
        const digits = [...iban].flatMap((c, i) => (i >= 2 && /[0-9]/.test(c) ? [i] : []));
        const i = digits[at % digits.length]!;
        const wrong = `${iban.slice(0, i)}${(Number(iban[i]) + delta) % 10}${iban.slice(i + 1)}`;
        expect(refusal(() => to(wrong))).toBe(INVALID);
      }),
    );
  });

  it("accepts a random string as an IBAN only when ibantools does, upper case without spaces (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/)), (iban) => {
        let accepted = true;
        try {
          to(iban);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(isValidIBAN(iban) && /^[A-Z0-9]+$/.test(iban));
      }),
    );
  });
});

describe("parseAuthorizationDetails: texts", () => {
  const name = (creditorName: unknown) => parse([{ ...payment, creditorName }]);
  const remittance = (text: unknown) => parse([{ ...payment, remittanceInformationUnstructured: text }]);

  it("accepts 70 characters of name and 140 of remittance information, counted in code points", () => {
    expect(name("n".repeat(70))).toHaveLength(1);
    expect(name("\u{1F600}".repeat(70))).toHaveLength(1);
    expect(remittance("r".repeat(140))).toHaveLength(1);
    expect(name("Caf\u00e9 M\u00fcller & S\u00f6hne")).toHaveLength(1);
  });

  it.each([
    ["empty", "", "authorization_details[0].creditorName must have 1 to 70 characters"],
    ["71 characters", "n".repeat(71), "authorization_details[0].creditorName must have 1 to 70 characters"],
    ["a number", 7, "authorization_details[0].creditorName must be a string"],
    ["a line feed", "a\nb", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a BEL", "a\u0007b", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a C1 control", "a\u0085b", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a DEL", "a\u007fb", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a NUL", "a\u0000b", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a lone surrogate", "a\ud800b", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a right-to-left override", "ACME \u202eFR14 2004", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a first-strong isolate", "ACME \u2068GmbH\u2069", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a zero-width space", "AC\u200bME", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["an Arabic letter mark", "ACME\u061c", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a line separator", "ACME\u2028FR14 2004", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
    ["a paragraph separator", "ACME\u2029FR14 2004", "authorization_details[0].creditorName must be text without control or invisible characters (such as bidirectional overrides)"],
  ])("refuses a creditor name that is %s", (_what, value, description) => {
    expect(refusal(() => name(value))).toBe(description);
  });

  it("accepts a creditor name and remittance information in right-to-left letters: the pages isolate them (<bdi>)", () => {
    expect(name("\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de")).toHaveLength(1);
    expect(remittance("\u0641\u0627\u062a\u0648\u0631\u0629 42")).toHaveLength(1);
  });

  it.each([
    ["a right-to-left override", "Invoice \u202e42"],
    ["a left-to-right isolate", "\u2066Invoice 42\u2069"],
    ["a zero-width joiner", "Invoice\u200d42"],
    ["a soft hyphen", "In\u00advoice 42"],
    ["a line separator", "Invoice 42\u2028IBAN FR14 2004"],
  ])("refuses remittance information with %s", (_what, value) => {
    expect(refusal(() => remittance(value))).toBe("authorization_details[0].remittanceInformationUnstructured must be text without control or invisible characters (such as bidirectional overrides)");
  });

  it("refuses 141 characters of remittance information", () => {
    expect(refusal(() => remittance("r".repeat(141)))).toBe("authorization_details[0].remittanceInformationUnstructured must have 1 to 140 characters");
  });
});

describe("parseAuthorizationDetails: account_information", () => {
  const withAccess = (access: unknown) => parse([{ ...accountInformation, access }]);
  const withMember = (name: string, value: unknown) => parse([{ ...accountInformation, [name]: value }]);

  it.each([
    ["accounts that is not an array", { accounts: { iban: DE1 } }, "authorization_details[0].access.accounts must be an array"],
    ["no accounts", { accounts: [] }, "authorization_details[0].access.accounts must have 1 to 20 entries"],
    ["21 accounts", { accounts: Array.from({ length: 21 }, () => ({ iban: DE1 })) }, "authorization_details[0].access.accounts must have 1 to 20 entries"],
    ["an account twice", { accounts: [{ iban: DE1 }, { iban: DE2 }, { iban: DE1 }] }, "authorization_details[0].access.accounts[2].iban repeats an account listed before"],
    ["an account that is a bare IBAN", { accounts: [DE1] }, "authorization_details[0].access.accounts[0] must be a JSON object"],
    ["allAccounts false", { allAccounts: false }, "authorization_details[0].access.allAccounts must be true when given"],
    ["accounts and allAccounts", { accounts: [{ iban: DE1 }], allAccounts: true }, "authorization_details[0].access cannot have both accounts and allAccounts"],
    ["balances as a string", { balances: "yes" }, "authorization_details[0].access.balances must be true or false"],
    ["transactions as a list (Berlin Group style)", { transactions: [{ iban: DE1 }] }, "authorization_details[0].access.transactions must be true or false"],
    ["access that is not an object", [], "authorization_details[0].access must be a JSON object"],
  ])("refuses %s", (_what, access, description) => {
    expect(refusal(() => withAccess(access))).toBe(description);
  });

  it("takes validUntil from today to today + 180 days, in UTC", () => {
    expect(NOW.toISOString()).toBe("2025-06-15T23:30:00.000Z");
    for (const date of ["2025-06-15", "2025-12-12", day(0), day(180)]) expect(withMember("validUntil", date)).toHaveLength(1);
    expect(refusal(() => withMember("validUntil", "2025-06-14"))).toBe("authorization_details[0].validUntil must not be before today, 2025-06-15 (UTC)");
    expect(refusal(() => withMember("validUntil", "2025-12-13"))).toBe("authorization_details[0].validUntil must not be after 2025-12-12, today + 180 days (RTS Art. 10a)");
  });

  it.each(["2025-02-30", "2025-9-01", "2025-09-01T00:00:00Z", "01/09/2025", "", "+02025-09-01", 20250901])("refuses validUntil %j: not a date YYYY-MM-DD", (value) => {
    expect(refusal(() => withMember("validUntil", value))).toBe("authorization_details[0].validUntil must be a date YYYY-MM-DD");
  });

  it("refuses validUntil in the past or beyond 180 days, and accepts it in between (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -4000, max: 4000 }), (offset) => {
        const run = () => withMember("validUntil", day(offset));
        if (offset >= 0 && offset <= 180) expect(run()).toHaveLength(1);
        else expect(refusal(run)).toMatch(/^authorization_details\[0\]\.validUntil must not be (before|after) /);
      }),
    );
  });

  it.each([0, 5, 1.5, "4", null, -1])("refuses frequencyPerDay %j", (value) => {
    expect(refusal(() => withMember("frequencyPerDay", value))).toBe("authorization_details[0].frequencyPerDay must be an integer from 1 to 4 (RTS Art. 36(5)(b))");
  });

  it.each(["true", 1, null])("refuses recurringIndicator %j", (value) => {
    expect(refusal(() => withMember("recurringIndicator", value))).toBe("authorization_details[0].recurringIndicator must be true or false");
  });
});

// ---------------------------------------------------------------------------------------
// Hostile input: whatever the text, the parser answers InvalidAuthorizationDetails or
// valid details, in time linear in the text.
// ---------------------------------------------------------------------------------------

/** Runs the parser: the details, or the refusal's description; any other error fails the test. */
function outcome(text: string): AuthorizationDetail[] | string {
  try {
    return parseAuthorizationDetails(text, TYPES, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAuthorizationDetails);
    return (error as Error).message;
  }
}

describe("parseAuthorizationDetails: hostile input", () => {
  it("answers any JSON value, and any string, with details or InvalidAuthorizationDetails (property)", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => void outcome(JSON.stringify(value))));
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => void outcome(text)));
  });

  it("answers entries with any values in the right member names with details or InvalidAuthorizationDetails (property)", () => {
    const anyPayment = fc.record(
      { type: fc.constantFrom("payment_initiation", "account_information", 1, null), instructedAmount: fc.jsonValue(), creditorName: fc.jsonValue(), creditorAccount: fc.jsonValue(), debtorAccount: fc.jsonValue() },
      { requiredKeys: [] },
    );
    const anyAccess = fc.record({ type: fc.constant("account_information"), access: fc.jsonValue(), validUntil: fc.jsonValue(), frequencyPerDay: fc.jsonValue(), recurringIndicator: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(fc.property(fc.array(fc.oneof(anyPayment, anyAccess), { maxLength: 5 }), (entries) => void outcome(JSON.stringify(entries))));
  });

  it("refuses deep nesting fast, at the first level the shapes do not allow", () => {
    const started = performance.now();
    expect(outcome(`${"[".repeat(32_000)}${"]".repeat(32_000)}`)).toBe("authorization_details[0] must be a JSON object");
    const deepAmount = JSON.stringify([{ ...payment, instructedAmount: "NESTED" }]).replace('"NESTED"', `${"[".repeat(20_000)}${"]".repeat(20_000)}`);
    expect(outcome(deepAmount)).toBe("authorization_details[0].instructedAmount must be a JSON object");
    const deepUnknown = `[{"type":"payment_initiation","x":${"{\"a\":".repeat(10_000)}1${"}".repeat(10_000)}}]`;
    expect(outcome(deepUnknown)).toBe("authorization_details[0] has an unknown member 'x'");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("refuses 64 KB arrays and strings fast", () => {
    const started = performance.now();
    expect(outcome(JSON.stringify(Array.from({ length: 30_000 }, () => 1)))).toBe("authorization_details must have 1 to 100 entries");
    expect(outcome(JSON.stringify([{ ...accountInformation, access: { accounts: Array.from({ length: 5000 }, () => ({ iban: DE1 })) } }]))).toBe(
      "authorization_details[0].access.accounts must have 1 to 20 entries",
    );
    expect(outcome(JSON.stringify([{ ...payment, creditorName: "n".repeat(65_000) }]))).toBe("authorization_details[0].creditorName must have 1 to 70 characters");
    expect(outcome(JSON.stringify([{ ...payment, instructedAmount: { currency: "EUR", amount: "1".repeat(65_000) } }]))).toMatch(/amount must be a decimal string/);
    expect(outcome(JSON.stringify([{ ...payment, creditorAccount: { iban: "DE".repeat(30_000) } }]))).toMatch(/iban is not a valid IBAN/);
    expect(outcome(JSON.stringify([Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]))]))).toBe("authorization_details[0].type is missing");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

// ---------------------------------------------------------------------------------------
// Generated valid details.
// ---------------------------------------------------------------------------------------

const MINOR_UNITS = { EUR: 2, USD: 2, GBP: 2, JPY: 0, BHD: 3, CHF: 2 } as const;

/** A positive amount within its currency's minor units. */
const amountArb = fc.constantFrom(...(Object.keys(MINOR_UNITS) as (keyof typeof MINOR_UNITS)[])).chain((currency) =>
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: MINOR_UNITS[currency] }))
    .filter(([whole, fraction]) => whole > 0n || /[1-9]/.test(fraction))
    .map(([whole, fraction]) => ({ currency, amount: fraction ? `${whole}.${fraction}` : String(whole) })),
);

/** Clean text of 1..max code points. */
const textArb = (max: number) => fc.string({ unit: "binary", minLength: 1, maxLength: max }).filter((s) => s.isWellFormed() && !/[\p{Cc}\p{Cf}]/u.test(s));

const ibanArb = fc.constantFrom(...IBANS).map((iban) => ({ iban }));

const paymentArb: fc.Arbitrary<PaymentInitiation> = fc.record(
  {
    type: fc.constant("payment_initiation" as const),
    instructedAmount: amountArb,
    creditorName: textArb(70),
    creditorAccount: ibanArb,
    remittanceInformationUnstructured: textArb(140),
    debtorAccount: ibanArb,
  },
  { requiredKeys: ["type", "instructedAmount", "creditorName", "creditorAccount"] },
);

const accessArb: fc.Arbitrary<AccountInformation["access"]> = fc.oneof(
  fc.record(
    { accounts: fc.uniqueArray(ibanArb, { minLength: 1, maxLength: IBANS.length, selector: (a) => a.iban }), balances: fc.boolean(), transactions: fc.boolean() },
    { requiredKeys: [] },
  ),
  fc.record({ allAccounts: fc.constant(true as const), balances: fc.boolean(), transactions: fc.boolean() }, { requiredKeys: ["allAccounts"] }),
);

const accountInformationArb: fc.Arbitrary<AccountInformation> = fc.record({
  type: fc.constant("account_information" as const),
  access: accessArb,
  validUntil: fc.integer({ min: 0, max: 180 }).map(day),
  frequencyPerDay: fc.integer({ min: 1, max: 4 }),
  recurringIndicator: fc.boolean(),
});

const detailsArb: fc.Arbitrary<AuthorizationDetail[]> = fc.oneof(fc.array(paymentArb, { minLength: 1, maxLength: 8 }), accountInformationArb.map((a) => [a]));

describe("generated valid details (properties)", () => {
  it("parse(JSON.stringify(x)) deep-equals x", () => {
    fc.assert(
      fc.property(detailsArb, (details) => {
        // fast-check's records have no prototype: compare with plain JSON objects.
        expect(parse(details)).toStrictEqual(JSON.parse(JSON.stringify(details)));
      }),
    );
  });

  it("narrows(x, x) is true", () => {
    fc.assert(
      fc.property(detailsArb, (details) => {
        expect(narrows(details, details)).toBe(true);
      }),
    );
  });

  it("payment totals equal the BigInt sum per currency, in first-appearance order", () => {
    fc.assert(
      fc.property(fc.array(paymentArb, { minLength: 1, maxLength: 20 }), (payments) => {
        const totals = paymentTotals(payments);
        expect(totals.map((t) => t.currency)).toEqual([...new Set(payments.map((p) => p.instructedAmount.currency))]);
        for (const total of totals) {
          const minor = MINOR_UNITS[total.currency as keyof typeof MINOR_UNITS];
          const units = (amount: string) => {
            const [whole, fraction = ""] = amount.split(".");
            return BigInt(whole!) * 10n ** BigInt(minor) + BigInt(fraction.padEnd(minor, "0") || "0");
          };
          const expected = payments.filter((p) => p.instructedAmount.currency === total.currency).reduce((sum, p) => sum + units(p.instructedAmount.amount), 0n);
          expect(units(total.amount)).toBe(expected);
          expect(total.amount).toMatch(minor === 0 ? /^[0-9]+$/ : new RegExp(`^[0-9]+\\.[0-9]{${minor}}$`));
        }
      }),
    );
  });
});

describe("approvedDetails (the PSU's choices, RFC 9396 §7)", () => {
  const selection = { accounts: [{ iban: DE2 }, { iban: NL }], debtorAccount: { iban: GB } };

  it("fills account_information without accounts with the chosen accounts, and keeps allAccounts", () => {
    const picks: AccountInformation = { ...accountInformation, access: { balances: true } };
    const all: AccountInformation = { ...accountInformation, access: { allAccounts: true, transactions: true } };
    expect(approvedDetails([picks], selection)).toEqual([{ ...picks, access: { balances: true, accounts: selection.accounts } }]);
    expect(approvedDetails([all], selection)).toEqual([{ ...all, access: { allAccounts: true, transactions: true, accounts: selection.accounts } }]);
    expect(picks.access).toEqual({ balances: true });
  });

  it("keeps the accounts the request names", () => {
    expect(approvedDetails([accountInformation], selection)).toEqual([accountInformation]);
  });

  it("fills payments without debtorAccount with the chosen one, and keeps a given one", () => {
    const given = { ...payment, debtorAccount: { iban: FR } };
    expect(approvedDetails([payment, given], selection)).toEqual([{ ...payment, debtorAccount: { iban: GB } }, given]);
    expect(payment.debtorAccount).toBeUndefined();
  });

  it("throws invalid_request when a needed choice is missing", () => {
    expect(() => approvedDetails([payment], { accounts: [] })).toThrow(expect.objectContaining({ error: "invalid_request", status: 400 }));
    expect(() => approvedDetails([{ ...accountInformation, access: {} }], { accounts: [] })).toThrow(expect.objectContaining({ error: "invalid_request", status: 400 }));
    // Nothing to choose: no error.
    expect(approvedDetails([{ ...payment, debtorAccount: { iban: FR } }, { ...payment, debtorAccount: { iban: FR } }], { accounts: [] })).toHaveLength(2);
  });
});

describe("narrows (refresh, RFC 9396 §6.2)", () => {
  const approvedPayments: PaymentInitiation[] = [
    { ...payment, debtorAccount: { iban: GB } },
    { ...payment, instructedAmount: { currency: "EUR", amount: "10.5" }, creditorAccount: { iban: FR } },
  ];

  it("takes the approved payments exactly, amounts compared numerically", () => {
    expect(narrows(approvedPayments, approvedPayments)).toBe(true);
    expect(narrows([{ ...approvedPayments[0]!, instructedAmount: { currency: "EUR", amount: "1250" } }, { ...approvedPayments[1]!, instructedAmount: { currency: "EUR", amount: "10.50" } }], approvedPayments)).toBe(true);
    // Without debtorAccount, a payment stands for the approved one (the PSU chose it).
    expect(narrows([payment, approvedPayments[1]!], approvedPayments)).toBe(true);
  });

  it.each([
    ["a subset of the batch", () => [approvedPayments[0]!]],
    ["the batch reordered", () => [approvedPayments[1]!, approvedPayments[0]!]],
    ["one more payment", () => [...approvedPayments, payment]],
    ["another amount", () => [changed(approvedPayments[0]!, (p) => (p.instructedAmount.amount = "1250.01")), approvedPayments[1]!]],
    ["another currency", () => [changed(approvedPayments[0]!, (p) => (p.instructedAmount.currency = "USD")), approvedPayments[1]!]],
    ["another creditor", () => [changed(approvedPayments[0]!, (p) => (p.creditorAccount.iban = NL)), approvedPayments[1]!]],
    ["another creditor name", () => [{ ...approvedPayments[0]!, creditorName: "Other" }, approvedPayments[1]!]],
    ["a remittance text added", () => [{ ...approvedPayments[0]!, remittanceInformationUnstructured: "x" }, approvedPayments[1]!]],
    ["another debtor", () => [{ ...approvedPayments[0]!, debtorAccount: { iban: DE2 } }, approvedPayments[1]!]],
    ["account information instead", () => [accountInformation]],
    ["nothing", () => []],
  ] as const)("refuses %s", (_what, requested) => {
    expect(narrows(requested(), approvedPayments)).toBe(false);
  });

  it("lets account information narrow: fewer accounts and rights, earlier, less often, not recurring", () => {
    const narrower: AccountInformation = { type: "account_information", access: { accounts: [{ iban: GB }], balances: true }, validUntil: day(10), frequencyPerDay: 1, recurringIndicator: false };
    expect(narrows([narrower], [accountInformation])).toBe(true);
    expect(narrows([{ ...narrower, access: {} }], [accountInformation])).toBe(true);
  });

  it.each([
    ["an account not approved", { access: { accounts: [{ iban: DE2 }, { iban: NL }] } }],
    ["balances not approved", { access: { accounts: [{ iban: DE2 }], balances: true } }],
    ["transactions not approved", { access: { transactions: true } }],
    ["allAccounts not approved", { access: { allAccounts: true } }],
    ["a later validUntil", { validUntil: day(31) }],
    ["a higher frequency", { frequencyPerDay: 3 }],
    ["recurring turned on", { recurringIndicator: true }],
  ] as const)("refuses account information with %s", (_what, change) => {
    const approved: AccountInformation = { type: "account_information", access: { accounts: [{ iban: DE2 }] }, validUntil: day(30), frequencyPerDay: 2, recurringIndicator: false };
    const requested = { ...approved, ...change } as AccountInformation;
    expect(narrows([approved], [approved])).toBe(true);
    expect(narrows([requested], [approved])).toBe(false);
  });

  it("refuses payments where account information was approved", () => {
    expect(narrows([payment], [accountInformation])).toBe(false);
  });

  it("allAccounts approved: a request for some of the accounts, or all, narrows", () => {
    const approved: AccountInformation = { ...accountInformation, access: { allAccounts: true, accounts: [{ iban: DE2 }, { iban: GB }], balances: true } };
    expect(narrows([{ ...approved, access: { allAccounts: true } }], [approved])).toBe(true);
    expect(narrows([{ ...approved, access: { accounts: [{ iban: GB }] } }], [approved])).toBe(true);
    expect(narrows([{ ...approved, access: { accounts: [{ iban: NL }] } }], [approved])).toBe(false);
  });

  it("a narrowed copy of a generated approval narrows it, a widened one does not (property)", () => {
    fc.assert(
      fc.property(accountInformationArb, fc.boolean(), fc.nat(), (approved, keepOnlyFirst, widen) => {
        const have = approved.access;
        const narrower: AccountInformation = {
          ...approved,
          access: { ...(have.accounts && { accounts: keepOnlyFirst ? have.accounts.slice(0, 1) : have.accounts }), ...(have.balances && { balances: false }) },
          frequencyPerDay: 1,
          recurringIndicator: false,
        };
        expect(narrows([narrower], [approved])).toBe(true);
        const widenings: Partial<AccountInformation>[] = [{ validUntil: day(181) }];
        if (approved.frequencyPerDay < 4) widenings.push({ frequencyPerDay: approved.frequencyPerDay + 1 });
        if (!approved.recurringIndicator) widenings.push({ recurringIndicator: true });
        if (!have.balances) widenings.push({ access: { ...have, balances: true } });
        if (!have.transactions) widenings.push({ access: { ...have, transactions: true } });
        if (have.accounts && have.accounts.length < IBANS.length) {
          const other = IBANS.find((iban) => !have.accounts!.some((a) => a.iban === iban))!;
          widenings.push({ access: { ...have, accounts: [...have.accounts, { iban: other }] } });
        }
        expect(narrows([{ ...approved, ...widenings[widen % widenings.length] }], [approved])).toBe(false);
      }),
    );
  });
});

describe("paymentTotals (RTS Art. 5(3)(b)) and detailTypes", () => {
  it("sums each currency with its minor units, in first-appearance order", () => {
    const batch: PaymentInitiation[] = [
      payment,
      { ...payment, instructedAmount: { currency: "JPY", amount: "5000" } },
      { ...payment, instructedAmount: { currency: "EUR", amount: "0.5" } },
      { ...payment, instructedAmount: { currency: "BHD", amount: "0.001" } },
      { ...payment, instructedAmount: { currency: "EUR", amount: "999999999999999.99" } },
    ];
    expect(paymentTotals(batch)).toEqual([
      { currency: "EUR", amount: "1000000000001250.49" },
      { currency: "JPY", amount: "5000" },
      { currency: "BHD", amount: "0.001" },
    ]);
  });

  it("gives no total without payments", () => {
    expect(paymentTotals([accountInformation])).toEqual([]);
    expect(paymentTotals([])).toEqual([]);
  });

  it("lists the distinct types in first-appearance order", () => {
    expect(detailTypes([payment, payment])).toEqual(["payment_initiation"]);
    expect(detailTypes([accountInformation, payment])).toEqual(["account_information", "payment_initiation"]);
  });
});
