/**
 * How the consent page prints the TPP's text, rendered to HTML by React's server renderer:
 * a payment (components/AuthorizationDetailsList.tsx) with the payee's name and the reference
 * isolated in `<bdi>` and the payee's IBAN on a line of its own, never in the sentence that
 * names the payee, so right-to-left text cannot make a name read as an IBAN; and the app's
 * name isolated wherever the consent section names it (AuthorizationDetailsSection.tsx).
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { AuthorizationDetailsList } from "../components/AuthorizationDetailsList";
import { AuthorizationDetailsSection } from "../components/AuthorizationDetailsSection";
import type { PaymentInitiation, PsuAccount } from "./authorization-details";

const ACME = "DE75512108001245126199";
const MAIN = "DE89370400440532013000";
const ACCOUNTS: PsuAccount[] = [{ iban: MAIN, name: "Main current account", currency: "EUR" }];
/** Hebrew "company ltd.": right-to-left letters. */
const HEBREW = "\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de";

const payment = (more: Partial<PaymentInitiation> = {}): PaymentInitiation => ({
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount: "1250" },
  creditorName: "ACME GmbH",
  creditorAccount: { iban: ACME },
  ...more,
});

/** The list's HTML for `details`. */
function render(details: PaymentInitiation[]): string {
  return renderToStaticMarkup(createElement(AuthorizationDetailsList, { details, accounts: ACCOUNTS }));
}

beforeAll(() => {
  // The list formats in the browser's language: a fixed one here (Node 24's navigator says the machine's).
  vi.stubGlobal("navigator", { language: "en-GB" });
});

describe("a payment as the pages print it", () => {
  it("isolates the payee's name and the reference, and prints the IBAN on a line of its own", () => {
    const html = render([payment({ remittanceInformationUnstructured: "Invoice 42", debtorAccount: { iban: MAIN } })]);
    expect(html).toBe(
      "<ul class=\"details\"><li>" +
        "Pay €1,250.00 to <bdi>ACME GmbH</bdi>" +
        '<span class="block">IBAN <span dir="ltr">DE75 5121 0800 1245 1261 99</span></span>' +
        '<span class="block">From Main current account (DE89 3704 0044 0532 0130 00)</span>' +
        '<span class="block muted">Reference: <bdi>Invoice 42</bdi></span>' +
        "</li></ul>",
    );
  });

  it("keeps a right-to-left payee name inside its <bdi>, apart from the IBAN line", () => {
    const html = render([payment({ creditorName: HEBREW })]);
    expect(html).toContain(`to <bdi>${HEBREW}</bdi><span class="block">IBAN <span dir="ltr">DE75 5121 0800 1245 1261 99</span></span>`);
  });

  it("prints each payment of a batch the same way", () => {
    const html = render([payment({ creditorName: HEBREW }), payment({ remittanceInformationUnstructured: "Order 815" })]);
    expect(html.match(/<bdi>/g)).toHaveLength(3);
    expect(html.match(/<span class="block">IBAN /g)).toHaveLength(2);
    expect(html).not.toMatch(/\(DE75/);
  });
});

describe("the app's name in the consent section", () => {
  it("is isolated in the heading and in the hint that names it", () => {
    const access = { type: "account_information", access: { balances: true }, validUntil: "2027-05-24", frequencyPerDay: 4, recurringIndicator: true } as const;
    const html = renderToStaticMarkup(
      createElement(AuthorizationDetailsSection, {
        clientName: HEBREW,
        details: [access],
        accounts: ACCOUNTS,
        choice: { accounts: new Set<string>(), debtorAccount: "" },
        onChange: () => {},
        busy: false,
        locale: "en",
      }),
    );
    expect(html).toContain(`<bdi>${HEBREW}</bdi> asks to:`);
    expect(html).toContain(`Choose at least one account <bdi>${HEBREW}</bdi> may read.`);
    expect(html.split(HEBREW)).toHaveLength(3);
  });
});
