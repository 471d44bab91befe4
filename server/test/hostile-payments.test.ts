/**
 * The payment class of the hostile suite: what the gateway compares and what it forwards are
 * one and the same document, in a closed shape. Each case runs against a recording upstream
 * (support/echo-upstream.ts) behind the seeded `payments` API, and asserts both the answer and
 * what the bank's side received and executed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../src/demo/upstream.js";
import { startEchoUpstream, type EchoUpstream } from "./support/echo-upstream.js";
import { callApi, clientCredentialsToken, psd2ConsentTokens } from "./support/flow.js";
import { send } from "./support/hostile.js";
import { startTestServer, type TestServer } from "./support/server.js";

const CREDITOR = "FR1420041010050500013M02606";
const OTHER = "GB82WEST12345698765432";
/** The account the PSU pays from, chosen at consent. */
const DEBTOR = DEMO_ACCOUNTS[0]!.iban;
const payment = (amount = "10.00") => ({ type: "payment_initiation", instructedAmount: { currency: "EUR", amount }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } });
/** The gateway body of the approved payment. */
const approvedBody = (amount = "10.00") => ({ instructedAmount: { currency: "EUR", amount }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } });

let server: TestServer;
let upstream: EchoUpstream;

beforeAll(async () => {
  server = await startTestServer();
  upstream = await startEchoUpstream();
  await server.prisma.api.update({ where: { name: "payments" }, data: { upstreamUrl: upstream.url } });
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

/** A PSU's access token for the approved `details`. */
async function consentToken(details: unknown[] = [payment()]): Promise<string> {
  const flow = await psd2ConsentTokens(server.url, details);
  return flow.access_token as string;
}

/** POSTs `text` as the payment body to `path` of the payments API. */
function pay(token: string, text: string, o: { path?: string; type?: string; headers?: Record<string, string>; method?: string } = {}) {
  return callApi(server.url, token, `/payments${o.path ?? "/"}`, { method: o.method ?? "POST", body: text, headers: { "Content-Type": o.type ?? "application/json", ...o.headers } });
}

describe("payments: one document, a closed shape", () => {
  it("refuses a single payment sent in a bulk-shaped body: the upstream never sees it, nothing is paid, the consent stays usable", async () => {
    const token = await consentToken();
    const attack = { payments: [approvedBody()], instructedAmount: { currency: "EUR", amount: "9999.00" }, creditorName: "Mallory", creditorAccount: { iban: OTHER } };
    const refused = await pay(token, JSON.stringify(attack));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="authorization_details_mismatch"');
    expect(upstream.received).toEqual([]);
    expect(upstream.payments).toBe(0);
    const paid = await pay(token, JSON.stringify(approvedBody()));
    expect(paid.status, paid.text).toBe(201);
    expect(upstream.payments).toBe(1);
  });

  it("forwards exactly the document it compared: the approved payee's name and debtor account added where the body had none", async () => {
    const token = await consentToken();
    const { creditorName: _name, ...unnamed } = approvedBody();
    const paid = await pay(token, ` ${JSON.stringify(unnamed)}\n`);
    expect(paid.status, paid.text).toBe(201);
    expect(upstream.received).toHaveLength(1);
    const received = upstream.received[0]!;
    expect(JSON.parse(received.body.toString("utf8"))).toEqual({ ...approvedBody(), debtorAccount: { iban: DEBTOR } });
    expect(received.headers["content-length"]).toBe(String(received.body.length));
  });

  it("forwards the TPP's own bytes when they name everything the PSU approved (a signed body stays verifiable)", async () => {
    const token = await consentToken();
    const text = `{ "creditorAccount" : {"iban":"${CREDITOR}"},\n  "instructedAmount": {"amount":"10.0","currency":"EUR"}, "creditorName":"ACME\\u0020GmbH", "debtorAccount":{"iban":"${DEBTOR}"} }\n`;
    const paid = await pay(token, text);
    expect(paid.status, paid.text).toBe(201);
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.body.toString("utf8")).toBe(text);
  });

  it.each([
    ["two amounts (duplicate names)", `{"instructedAmount":{"currency":"EUR","amount":"10.00","amount":"9999.00"},"creditorName":"ACME GmbH","creditorAccount":{"iban":"${CREDITOR}"}}`, 400],
    ["two creditor accounts (duplicate names)", `{"instructedAmount":{"currency":"EUR","amount":"10.00"},"creditorName":"ACME GmbH","creditorAccount":{"iban":"${CREDITOR}"},"creditorAccount":{"iban":"${OTHER}"}}`, 400],
    ["a duplicate name spelt with an escape", `{"instructedAmount":{"currency":"EUR","amount":"10.00"},"creditorName":"ACME GmbH","creditorAccount":{"iban":"${CREDITOR}","\\u0069ban":"${OTHER}"}}`, 400],
    ["an unknown member", JSON.stringify({ ...approvedBody(), instructedAmountEUR: "9999.00" }), 403],
    ["another payee's name", JSON.stringify({ ...approvedBody(), creditorName: "Mallory Ltd" }), 403],
    ["a payee name hidden behind a right-to-left override", JSON.stringify({ ...approvedBody(), creditorName: "ACME GmbH\u202e" }), 403],
    ["an amount the authorization server would refuse", JSON.stringify({ ...approvedBody(), instructedAmount: { currency: "EUR", amount: "10.000" } }), 403],
    ["a payee name with a tab for its space", JSON.stringify({ ...approvedBody(), creditorName: "ACME\tGmbH" }), 403],
    ["a payee name with a byte order mark for its space", JSON.stringify({ ...approvedBody(), creditorName: "ACME\ufeffGmbH" }), 403],
    ["remittance information the PSU never saw", JSON.stringify({ ...approvedBody(), remittanceInformationUnstructured: "Invoice 4711 of customer 0815" }), 403],
    ["a debtor account with a second identifier", JSON.stringify({ ...approvedBody(), debtorAccount: { iban: DEBTOR, bban: "9999" } }), 403],
    ["a requested execution date that is no date", JSON.stringify({ ...approvedBody(), requestedExecutionDate: "2099-02-30" }), 403],
    ["a body after a byte order mark", `\ufeff${JSON.stringify(approvedBody())}`, 400],
    ["a body that is not UTF-8", Buffer.from([0x7b, 0xff, 0x7d]).toString("latin1"), 400],
  ])("refuses %s, and nothing reaches the upstream", async (_what, text, status) => {
    const token = await consentToken();
    const refused = await pay(token, text);
    expect(refused.status, refused.text).toBe(status);
    expect(upstream.received).toEqual([]);
    expect(upstream.payments).toBe(0);
  });

  it("requires application/json: a JSON body sent as a form or as text is 415", async () => {
    const token = await consentToken();
    for (const type of ["application/x-www-form-urlencoded", "text/plain", "application/json; charset=latin1", "application/jsonp"]) {
      const refused = await pay(token, JSON.stringify(approvedBody()), { type });
      expect(refused.status, `${type}: ${refused.text}`).toBe(415);
    }
    expect(upstream.received).toEqual([]);
    expect((await pay(token, JSON.stringify(approvedBody()), { type: "application/json; charset=UTF-8" })).status).toBe(201);
  });

  it("refuses a content-coded body: the upstream would decode what the gateway never read (415)", async () => {
    const token = await consentToken();
    for (const coding of ["gzip", "br", "identity"]) {
      const refused = await pay(token, JSON.stringify(approvedBody()), { headers: { "Content-Encoding": coding } });
      expect(refused.status, `${coding}: ${refused.text}`).toBe(415);
    }
    expect(upstream.received).toEqual([]);
    expect(upstream.payments).toBe(0);
  });

  it("binds the Berlin Group path to the approved shape: one payment never goes to bulk-payments, and no periodic payment at all", async () => {
    const token = await consentToken();
    for (const path of ["/bulk-payments/sepa-credit-transfers", "/Bulk-Payments/sepa-credit-transfers", "/%62ulk-payments/x", "/bulk-payments;v=1/x", "/periodic-payments/sepa-credit-transfers"]) {
      const refused = await pay(token, JSON.stringify(approvedBody()), { path });
      expect(refused.status, `${path}: ${refused.text}`).toBe(403);
    }
    expect(upstream.received).toEqual([]);
    const paid = await pay(token, JSON.stringify(approvedBody()), { path: "/payments/sepa-credit-transfers" });
    expect(paid.status, paid.text).toBe(201);
    const bulk = await consentToken([payment("1.00"), payment("2.00")]);
    expect((await pay(bulk, JSON.stringify({ payments: [approvedBody("1.00"), approvedBody("2.00")] }), { path: "/payments/sepa-credit-transfers" })).status).toBe(403);
    expect((await pay(bulk, JSON.stringify({ payments: [approvedBody("1.00"), approvedBody("2.00")] }), { path: "/bulk-payments/sepa-credit-transfers" })).status).toBe(201);
    expect(upstream.payments).toBe(2);
  });

  it("holds a bulk to the bulk the PSU approved: not one of its payments, nothing beside them, no duplicate names; the account chosen goes beside them", async () => {
    const token = await consentToken([payment("1.00"), payment("2.00")]);
    const path = "/bulk-payments/sepa-credit-transfers";
    for (const [text, status] of [
      [JSON.stringify(approvedBody("1.00")), 403],
      [JSON.stringify({ payments: [approvedBody("2.00"), approvedBody("1.00")] }), 403],
      [JSON.stringify({ payments: [approvedBody("1.00"), approvedBody("2.00")], instructedAmount: { currency: "EUR", amount: "9999.00" } }), 403],
      [JSON.stringify({ payments: [approvedBody("1.00"), { ...approvedBody("2.00"), payments: [] }] }), 403],
      [`{"payments":[${JSON.stringify(approvedBody("1.00"))},${JSON.stringify(approvedBody("2.00"))}],"payments":[]}`, 400],
    ] as const) {
      const refused = await pay(token, text, { path });
      expect(refused.status, `${text}: ${refused.text}`).toBe(status);
    }
    expect(upstream.received).toEqual([]);
    const paid = await pay(token, JSON.stringify({ payments: [approvedBody("1.00"), approvedBody("2.00")] }), { path });
    expect(paid.status, paid.text).toBe(201);
    expect(JSON.parse(upstream.received[0]!.body.toString("utf8"))).toEqual({ payments: [approvedBody("1.00"), approvedBody("2.00")], debtorAccount: { iban: DEBTOR } });
    expect(upstream.payments).toBe(1);
  });

  it("12 identical payments raced on one consent make exactly one payment", async () => {
    const token = await consentToken();
    const answers = await Promise.all(Array.from({ length: 12 }, () => pay(token, JSON.stringify(approvedBody()))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(11);
    expect(upstream.payments).toBe(1);
  });
});

describe("payments: method overrides and caller-sent certificate fields", () => {
  it("drops method-override and client-certificate fields before the upstream, on every API", async () => {
    const token = await consentToken();
    const spoofed = {
      "X-HTTP-Method-Override": "DELETE",
      "X-HTTP-Method": "PUT",
      "X-Method-Override": "PATCH",
      "X-SSL-Client-Cert": "-----BEGIN%20CERTIFICATE-----",
      "X-SSL-Client-Verify": "SUCCESS",
      "X-SSL-Client-S-DN": "CN=bank",
      "X-Client-Cert": "x",
      "SSL-Client-Cert": "x",
      "X-Forwarded-Client-Cert": "Hash=abc",
      "Client-Cert": ":YWJj:",
      "X-ARR-ClientCert": "MIIB",
      "X-Amzn-Mtls-Clientcert": "-----BEGIN%20CERTIFICATE-----",
      "X-Amzn-Mtls-Clientcert-Leaf": "-----BEGIN%20CERTIFICATE-----",
    };
    const paid = await pay(token, JSON.stringify(approvedBody()), { headers: spoofed });
    expect(paid.status, paid.text).toBe(201);
    const raw = await send(server.url, {
      method: "POST",
      target: "/payments/",
      headers: [["Authorization", `Bearer ${await consentToken()}`], ["Content-Type", "application/json"], ["x_ssl_client_cert", "x"], ["X_HTTP_METHOD_OVERRIDE", "DELETE"]],
      body: Buffer.from(JSON.stringify(approvedBody())),
    });
    expect(raw.status, raw.text).toBe(201);
    for (const received of upstream.received) {
      const names = Object.keys(received.headers);
      expect(names.filter((n) => /method|ssl|client-?cert|client_cert/i.test(n)), names.join(", ")).toEqual([]);
    }
  });

  it("names itself in Via after the intermediaries the caller lists (RFC 9110 §7.6.3)", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.paymentsApp, "pisp");
    expect((await callApi(server.url, token, "/payments/pay-1")).status).toBe(200);
    expect((await callApi(server.url, token, "/payments/pay-1", { headers: { Via: "1.1 edge-proxy" } })).status).toBe(200);
    expect(upstream.received.map((r) => r.headers.via)).toEqual(["1.1 tollgate", "1.1 edge-proxy, 1.1 tollgate"]);
  });

  it("refuses a _method query parameter, in any spelling", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.paymentsApp, "pisp");
    for (const query of ["?_method=DELETE", "?a=1&_METHOD=PUT", "?%5fmethod=PUT", "?_method"]) {
      const refused = await callApi(server.url, token, `/payments/pay-1${query}`);
      expect(refused.status, `${query}: ${refused.text}`).toBe(400);
    }
    expect(upstream.received).toEqual([]);
  });

  it("refuses a body on a call other than POST to a payments API, with a token without a consent", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.paymentsApp, "pisp");
    for (const method of ["PUT", "DELETE", "PATCH", "GET"]) {
      // Raw, as fetch sends no body with GET.
      const refused = await send(server.url, {
        method,
        target: "/payments/pay-1",
        headers: [["Authorization", `Bearer ${token}`], ["Content-Type", "application/json"]],
        body: Buffer.from(JSON.stringify(approvedBody("9999.00"))),
      });
      expect(refused.status, `${method}: ${refused.text}`).toBe(400);
    }
    expect(upstream.received).toEqual([]);
    // Reading or cancelling without a body stays the upstream's to allow.
    expect((await callApi(server.url, token, "/payments/pay-1", { method: "DELETE" })).status).toBe(200);
  });
});
