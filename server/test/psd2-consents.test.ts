/**
 * PSD2 consents (issue 17), against the running server: RFC 9396 authorization details at
 * /authorize, PAR and the token endpoint; the consent page's view and the PSU's choice of
 * accounts; the approved details in the token response and, byte for byte, in
 * introspection; dynamic linking at the gateway (a payment must match, once; account access
 * only to the chosen accounts and data); revocation by the bank and termination by the TPP;
 * the Berlin Group consent API with scope AIS:<id> / PIS:<id>; refresh narrowing.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../src/demo/upstream.js";
import {
  authorizeParams,
  authorizePath,
  Browser,
  callbackParams,
  callApi,
  clientCredentialsToken,
  expectOAuthError,
  INTROSPECTION_ENDPOINT,
  interactionIdFrom,
  json,
  pkcePair,
  request,
  send,
  signInInteraction,
  tokenRequest,
  TOKEN_ENDPOINT,
  userTokens,
  type Json,
} from "./support/flow.js";
import { adminBearer, firstError, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { createUser, startTestServer, type TestServer } from "./support/server.js";
import { assertionFields, DpopKey, postForm } from "./support/fapi.js";

const [MAIN, SAVINGS] = DEMO_ACCOUNTS.map((a) => a.iban) as [string, string];
const CREDITOR = "FR1420041010050500013M02606";
const client = DEMO.strictApp;

const payment = (amount = "1250.00") => ({
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount },
  creditorName: "ACME GmbH",
  creditorAccount: { iban: CREDITOR },
  remittanceInformationUnstructured: "Invoice 4711",
});

/** Account access to be chosen by the PSU, valid for `days` days. */
const accountAccess = (days = 90, access: Json = { balances: true }) => ({
  type: "account_information",
  access,
  validUntil: new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10),
  frequencyPerDay: 4,
  recurringIndicator: true,
});

/** The Berlin Group / gateway payment body of an authorized payment. */
const paymentBody = (amount = "1250.00") => ({ instructedAmount: { currency: "EUR", amount }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } });

let server: TestServer;
let admin: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
});
afterAll(() => server?.close());

/** A PSU's tokens for `details` (and `scope`), through SCA and the consent page, with the PSU's `choice`. */
async function consentTokens(details: unknown[] | undefined, choice: { accounts?: string[]; debtorAccount?: string }, o: { scope?: string; extra?: Record<string, string> } = {}) {
  const pkce = pkcePair();
  return userTokens(server.url, {
    client,
    scope: o.scope ?? "",
    // The consent page approves the details; a consent scope (AIS:<id>) is not a scope to tick.
    approve: [],
    pkce,
    choice,
    extra: { ...(details ? { authorization_details: JSON.stringify(details) } : {}), ...o.extra },
  });
}

function introspect(token: string) {
  return tokenRequest(server.url, INTROSPECTION_ENDPOINT, client, { token });
}

function pay(token: string, body: unknown) {
  return callApi(server.url, token, "/payments/", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
}

/** The PSD2 consents of the strict app, newest first, as the admin API lists them. */
async function consentsOfApp(): Promise<Json[]> {
  const answer = await admin.data(`query { psd2Consents(clientId: "${client.consumerKey}") { id status kind origin authorizationDetails validUntil username } }`);
  return answer.psd2Consents as Json[];
}

describe("authorization_details (RFC 9396)", () => {
  it("the metadata advertises the types the API products offer", async () => {
    const meta = await json(await request(`${server.url}/.well-known/oauth-authorization-server`));
    expect(meta.authorization_details_types_supported).toEqual(["account_information", "payment_initiation"]);
  });

  it("malformed details are refused with invalid_authorization_details before any user interaction", async () => {
    const bad = [
      [{ ...payment(), type: "loan_application" }],
      [{ ...payment(), creditorAccount: { iban: "DE89370400440532013001" } }],
      [payment("-5.00")],
      [payment("12.345")],
      [{ ...payment(), instructedAmount: { currency: "EUX", amount: "1.00" } }],
      [accountAccess(-1)],
      [accountAccess(181)],
      "not json",
    ];
    for (const details of bad) {
      const browser = new Browser(server.url);
      const text = typeof details === "string" ? details : JSON.stringify(details);
      const res = await browser.fetch(authorizePath(authorizeParams(client, { scope: undefined, authorization_details: text, ...pkceParams() })));
      expect(res.status, text).toBe(302);
      expect(callbackParams(res.headers.get("location")).error, text).toBe("invalid_authorization_details");
      const par = await tokenRequest(server.url, "/oauth2/v1/par", client, {
        ...authorizeParams(client, { scope: undefined, ...pkceParams() }),
        authorization_details: text,
      } as Record<string, string>);
      await expectOAuthError(par, 400, "invalid_authorization_details");
    }
    expect((await consentsOfApp()).filter((c) => c.status === "received" && c.origin === "rar")).toEqual([]);
  });

  it("an app whose products offer no type gets invalid_authorization_details", async () => {
    const browser = new Browser(server.url);
    const res = await browser.fetch(authorizePath(authorizeParams(DEMO.paymentsApp, { scope: undefined, authorization_details: JSON.stringify([accountAccess()]), ...pkceParams() })));
    expect(callbackParams(res.headers.get("location")).error).toBe("invalid_authorization_details");
  });
});

function pkceParams(): Record<string, string> {
  return { code_challenge: pkcePair().challenge, code_challenge_method: "S256" };
}

describe("hostile authorization_details (property-based)", () => {
  /** Details shaped like a payment or an account access, with any member replaced by hostile values. */
  const hostile = fc.oneof(
    fc.json({ maxDepth: 6 }),
    fc.record({
      type: fc.constantFrom("payment_initiation", "account_information", "PAYMENT_INITIATION", "", "x".repeat(300)),
      instructedAmount: fc.record({
        currency: fc.oneof(fc.constantFrom("EUR", "JPY", "eur", "XXX", "EUX", ""), fc.string()),
        amount: fc.oneof(fc.constantFrom("1.00", "-1", "1e3", "0", "0.001", "١٢٣", "9".repeat(40), " 1", "NaN"), fc.string(), fc.double().map(String)),
      }),
      creditorName: fc.oneof(fc.string(), fc.string({ minLength: 71, maxLength: 200 }), fc.constant("\u0000")),
      creditorAccount: fc.record({ iban: fc.oneof(fc.constantFrom(CREDITOR, MAIN.replace("89", "88"), "DE89 3704 0044 0532 0130 00", "de89370400440532013000"), fc.string()) }),
      access: fc.anything({ maxDepth: 4 }),
      validUntil: fc.oneof(fc.constantFrom("2026-02-30", "9999-12-31", "2000-01-01"), fc.string()),
    }, { requiredKeys: ["type"] }),
  );
  const requestArb = fc.oneof(fc.array(hostile, { maxLength: 120 }), hostile).map((v) => JSON.stringify(v));

  it("PAR answers 201 or 400 invalid_authorization_details (or invalid_request), never anything else, and stores nothing it refused", async () => {
    const before = (await consentsOfApp()).length;
    await fc.assert(
      fc.asyncProperty(requestArb, async (text) => {
        const par = await tokenRequest(server.url, "/oauth2/v1/par", client, {
          ...authorizeParams(client, { scope: undefined, ...pkceParams() }),
          authorization_details: text,
        } as Record<string, string>);
        expect([201, 400], par.text).toContain(par.status);
        if (par.status === 400) expect(["invalid_authorization_details", "invalid_request"]).toContain(par.body.error);
      }),
      { numRuns: 150 },
    );
    // PAR only keeps the request: a consent is created when the PSU's browser arrives at /authorize.
    expect((await consentsOfApp()).length).toBe(before);
  });
});

describe("a payment: consent page, token, introspection, dynamic linking at the gateway", () => {
  it("the consent page shows the payment and the PSU's accounts; the PSU picks the account to pay from", async () => {
    const browser = new Browser(server.url);
    const start = await browser.fetch(authorizePath(authorizeParams(client, { scope: undefined, authorization_details: JSON.stringify([payment()]), ...pkceParams() })));
    const id = interactionIdFrom(start.headers.get("location"));
    const before = await json(await browser.fetch(`/interaction/${id}`));
    expect(before.stage).toBe("login");
    expect(before.scaRequired).toBe(true);
    expect(before.authorizationDetails).toEqual([payment()]);
    expect(before.accounts).toEqual([]);
    // A payment is made once: no period of access.
    expect(before.accessUntil).toBeNull();
    expect((await signInInteraction(browser, id, before.csrfToken)).status).toBe(200);
    const view = await json(await browser.fetch(`/interaction/${id}`));
    expect(view.stage).toBe("consent");
    expect(view.accounts.map((a: Json) => a.iban)).toEqual([MAIN, SAVINGS]);
    // Not the PSU's account, or no account at all: 400, and the page can be answered again.
    for (const debtorAccount of [CREDITOR, undefined]) {
      const wrong = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: [], debtorAccount }, headers: { "X-CSRF-Token": view.csrfToken } });
      expect(wrong.status).toBe(400);
    }
    const ok = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: [], debtorAccount: MAIN }, headers: { "X-CSRF-Token": view.csrfToken } });
    expect(ok.status).toBe(200);
    expect(callbackParams((await json(ok)).redirectTo).code).toMatch(/.+/);
  });

  it("tokens carry exactly the approved details; introspection returns them byte for byte; the payment must match, once", async () => {
    const { tokens } = await consentTokens([payment()], { debtorAccount: MAIN });
    const approved = [{ ...payment(), debtorAccount: { iban: MAIN } }];
    expect(tokens.authorization_details).toEqual(approved);
    // No scope was granted: the rfc6749 profile leaves scope out (RFC 6749 §3.3 has no empty scope).
    expect(tokens).not.toHaveProperty("scope");
    const raw = await introspect(tokens.access_token);
    expect(raw.body.active).toBe(true);
    expect(JSON.stringify(raw.body.authorization_details)).toBe(JSON.stringify(tokens.authorization_details));
    expect(raw.body.acr).toBe("urn:tollgate:sca");

    // One cent more: refused, and the consent is not used up.
    const changed = await pay(tokens.access_token, paymentBody("1250.01"));
    expect(changed.status).toBe(403);
    expect(changed.headers.get("www-authenticate")).toContain('error="authorization_details_mismatch"');
    expect((await pay(tokens.access_token, { ...paymentBody(), creditorAccount: { iban: "NL91ABNA0417164300" } })).status).toBe(403);

    // Nor may it be changed with PUT or PATCH.
    for (const method of ["PUT", "PATCH"]) {
      const changedLater = await callApi(server.url, tokens.access_token, "/payments/pay-1", { method, body: JSON.stringify(paymentBody("1.00")), headers: { "Content-Type": "application/json" } });
      expect(changedLater.status, method).toBe(403);
    }

    const made = await pay(tokens.access_token, paymentBody("1250.0"));
    expect(made.status, made.text).toBe(201);
    // The upstream executes the approved payment: the reference and the account the body left out are the approved ones.
    expect(made.body.payment).toEqual({ ...paymentBody("1250.0"), remittanceInformationUnstructured: "Invoice 4711", debtorAccount: { iban: MAIN } });
    const again = await pay(tokens.access_token, paymentBody());
    expect(again.status).toBe(403);
    expect(again.headers.get("www-authenticate")).toContain('error="consent_invalid"');
    expect((await consentsOfApp())[0]).toMatchObject({ status: "consumed", kind: "payment_initiation", origin: "rar", username: DEMO.user.username });
  });

  it("a batch payment through PAR is bound to each payee and its total", async () => {
    const batch = [payment("1000.00"), { ...payment("500.00"), creditorName: "Beta SA", creditorAccount: { iban: "NL91ABNA0417164300" } }];
    const pkce = pkcePair();
    const pushed = await tokenRequest(server.url, "/oauth2/v1/par", client, {
      client_id: client.consumerKey,
      response_type: "code",
      redirect_uri: DEMO.callbackUrl,
      code_challenge: pkce.challenge,
      code_challenge_method: "S256",
      authorization_details: JSON.stringify(batch),
    });
    expect(pushed.status, pushed.text).toBe(201);
    const { tokens } = await userTokens(server.url, {
      client,
      scope: "",
      pkce,
      choice: { debtorAccount: SAVINGS },
      // With request_uri the front channel carries client_id and request_uri only (RFC 9126 §4).
      extra: {
        request_uri: pushed.body.request_uri,
        ...{ scope: undefined, response_type: undefined, redirect_uri: undefined, state: undefined, code_challenge: undefined, code_challenge_method: undefined },
      },
    });
    expect(tokens.authorization_details).toHaveLength(2);
    const bulk = (amounts: string[]) => ({ payments: batch.map((p, i) => ({ instructedAmount: { currency: "EUR", amount: amounts[i] }, creditorAccount: p.creditorAccount, creditorName: p.creditorName })) });
    expect((await pay(tokens.access_token, paymentBody("1000.00"))).status).toBe(403);
    expect((await pay(tokens.access_token, bulk(["500.00", "1000.00"]))).status).toBe(403);
    expect((await pay(tokens.access_token, bulk(["1000.00", "500.00"]))).status).toBe(201);
  });
});

describe("account access", () => {
  it("only the chosen accounts and the approved data; the account list is filtered upstream", async () => {
    const { tokens } = await consentTokens([accountAccess()], { accounts: [SAVINGS] });
    expect(tokens.authorization_details[0].access).toEqual({ balances: true, accounts: [{ iban: SAVINGS }] });
    const token = tokens.access_token;
    expect((await callApi(server.url, token, `/accounts/${SAVINGS}/balances`)).status).toBe(200);
    const other = await callApi(server.url, token, `/accounts/${MAIN}/balances`);
    expect(other.status).toBe(403);
    expect(other.headers.get("www-authenticate")).toContain('error="authorization_details_mismatch"');
    expect((await callApi(server.url, token, `/accounts/${SAVINGS}/transactions`)).status).toBe(403);
    const list = await callApi(server.url, token, "/accounts/");
    expect(list.body.accounts.map((a: Json) => a.iban)).toEqual([SAVINGS]);
    // The access ends with the consent: no token outlives its validUntil.
    const validUntil = new Date(`${tokens.authorization_details[0].validUntil}T23:59:59.999Z`).getTime() / 1000;
    expect((await introspect(token)).body.exp).toBeLessThanOrEqual(Math.ceil(validUntil));
  });

  it("a refresh may narrow the details, never widen them", async () => {
    const { tokens } = await consentTokens([accountAccess(90, { balances: true, transactions: true })], { accounts: [MAIN, SAVINGS] });
    const wider = await tokenRequest(server.url, TOKEN_ENDPOINT, client, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      authorization_details: JSON.stringify([accountAccess(120, { balances: true, transactions: true, accounts: [{ iban: MAIN }] })]),
    });
    await expectOAuthError(wider, 400, "invalid_authorization_details");
    const narrower = await tokenRequest(server.url, TOKEN_ENDPOINT, client, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      authorization_details: JSON.stringify([accountAccess(30, { balances: true, accounts: [{ iban: MAIN }] })]),
    });
    expect(narrower.status, narrower.text).toBe(200);
    expect(narrower.body.authorization_details[0].access).toEqual({ balances: true, accounts: [{ iban: MAIN }] });
    expect((await callApi(server.url, narrower.body.access_token, `/accounts/${SAVINGS}/balances`)).status).toBe(403);
    expect((await callApi(server.url, narrower.body.access_token, `/accounts/${MAIN}/balances`)).status).toBe(200);
  });

  it("after the bank revokes the consent, its tokens no longer work", async () => {
    const { tokens } = await consentTokens([accountAccess()], { accounts: [MAIN] });
    expect((await callApi(server.url, tokens.access_token, `/accounts/${MAIN}/balances`)).status).toBe(200);
    const [consent] = await consentsOfApp();
    expect(consent).toMatchObject({ status: "valid", kind: "account_information" });
    const revoked = await admin.data(`mutation { revokePsd2Consent(id: "${consent.id}") { status } }`);
    expect(revoked.revokePsd2Consent.status).toBe("revokedByPsu");
    expect((await callApi(server.url, tokens.access_token, `/accounts/${MAIN}/balances`)).status).toBe(401);
    expect((await introspect(tokens.access_token)).body).toEqual({ active: false });
    const refresh = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    await expectOAuthError(refresh, 400, "invalid_grant");
  });

  it("the PSU sees and revokes their own consents (Account page), and no one else's", async () => {
    const { tokens } = await consentTokens([accountAccess()], { accounts: [SAVINGS] });
    const [consent] = await consentsOfApp();
    const alice = withSession(await signIn(server.url, DEMO.user));
    const mine = (await alice.data("{ myPsd2Consents { id status username kind authorizationDetails } }")).myPsd2Consents as Json[];
    expect(mine[0]).toMatchObject({ id: consent.id, status: "valid", username: DEMO.user.username, kind: "account_information" });
    expect(JSON.parse(mine[0].authorizationDetails)).toEqual(tokens.authorization_details);
    const bob = await createUser(server, { passkey: true });
    const other = withSession(await signIn(server.url, bob));
    expect((await other.data("{ myPsd2Consents { id } }")).myPsd2Consents).toEqual([]);
    expect(firstError(await other.post(`mutation { revokeMyPsd2Consent(id: "${consent.id}") { status } }`)).message).toMatch(/no valid PSD2 consent of yours/);
    expect((await callApi(server.url, tokens.access_token, `/accounts/${SAVINGS}/balances`)).status).toBe(200);
    expect((await alice.data(`mutation { revokeMyPsd2Consent(id: "${consent.id}") { status } }`)).revokeMyPsd2Consent.status).toBe("revokedByPsu");
    expect((await callApi(server.url, tokens.access_token, `/accounts/${SAVINGS}/balances`)).status).toBe(401);
  });

  it("client credentials carry the details asked for (RFC 9396 §6.1)", async () => {
    const answer = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "client_credentials", authorization_details: JSON.stringify([payment()]) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.authorization_details).toEqual([payment()]);
    // No PSU approved it: no payment with it.
    expect((await pay(answer.body.access_token, paymentBody())).status).toBe(403);
  });
});

describe("the admin API", () => {
  it("sets an API product's authorization details types and an API's consent check", async () => {
    const product = await admin.data(`mutation { createApiProduct(input: { name: "RAR-Test", authorizationDetailsTypes: [payment_initiation, payment_initiation] }) { id authorizationDetailsTypes } }`);
    expect(product.createApiProduct.authorizationDetailsTypes).toEqual(["payment_initiation"]);
    const api = await admin.data(`mutation { createApi(input: { name: "rar-test", upstreamUrl: "${server.demoUpstreamUrl}", consentCheck: accounts }) { id consentCheck } }`);
    expect(api.createApi.consentCheck).toBe("accounts");
    const changed = await admin.data(`mutation { updateApi(id: "${api.createApi.id}", input: { consentCheck: payments }) { consentCheck } }`);
    expect(changed.updateApi.consentCheck).toBe("payments");
    expect(firstError(await admin.post(`mutation { updateApi(id: "${api.createApi.id}", input: { consentCheck: everything }) { consentCheck } }`)).message).toMatch(/everything/);
    await admin.data(`mutation { deleteApi(id: "${api.createApi.id}") deleteApiProduct(id: "${product.createApiProduct.id}") }`);
  });
});

describe("the Berlin Group consent API (OAuth2 SCA approach)", () => {
  const bg = async (token: string, method: string, path: string, body?: unknown) =>
    send(`${server.url}/psd2/v1${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });

  it("a TPP creates a consent, the PSU authorizes it with scope=AIS:<id>, and the TPP ends it", async () => {
    const tpp = await clientCredentialsToken(server.url, client);
    const validUntil = accountAccess().validUntil;
    const created = await bg(tpp, "POST", "/consents", { access: { balances: [] }, recurringIndicator: true, validUntil, frequencyPerDay: 4 });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ consentStatus: "received", _links: { scaOAuth: { href: `${server.authUrl}/.well-known/oauth-authorization-server` } } });
    const id = created.body.consentId as string;
    expect((await bg(tpp, "GET", `/consents/${id}/status`)).body).toEqual({ consentStatus: "received" });

    // Another TPP does not see it, and cannot authorize it.
    const other = await clientCredentialsToken(server.url, DEMO.app);
    expect((await bg(other, "GET", `/consents/${id}`)).status).toBe(404);

    const browser = new Browser(server.url);
    const start = await browser.fetch(authorizePath(authorizeParams(client, { scope: `AIS:${id}`, ...pkceParams() })));
    const view = await json(await browser.fetch(`/interaction/${interactionIdFrom(start.headers.get("location"))}`));
    expect(view.authorizationDetails).toEqual([{ type: "account_information", access: { balances: true }, validUntil, frequencyPerDay: 4, recurringIndicator: true }]);
    expect(view.accessUntil).toBe(`${validUntil}T23:59:59.999Z`);

    const { tokens } = await consentTokens(undefined, { accounts: [MAIN] }, { scope: `AIS:${id}` });
    expect(tokens.authorization_details[0].access.accounts).toEqual([{ iban: MAIN }]);
    expect((await callApi(server.url, tokens.access_token, `/accounts/${MAIN}/balances`)).status).toBe(200);
    const read = await bg(tpp, "GET", `/consents/${id}`);
    expect(read.body).toMatchObject({ consentStatus: "valid", access: { accounts: [{ iban: MAIN }], balances: [{ iban: MAIN }] }, validUntil });

    // Used once: the scope no longer names a consent awaiting authorization.
    const reuse = await browser.fetch(authorizePath(authorizeParams(client, { scope: `AIS:${id}`, ...pkceParams() })));
    expect(callbackParams(reuse.headers.get("location")).error).toBe("invalid_scope");

    expect((await bg(tpp, "DELETE", `/consents/${id}`)).status).toBe(204);
    expect((await bg(tpp, "GET", `/consents/${id}/status`)).body).toEqual({ consentStatus: "terminatedByTpp" });
    expect((await callApi(server.url, tokens.access_token, `/accounts/${MAIN}/balances`)).status).toBe(401);
  });

  it("a payment resource authorized with scope=PIS:<id> pays once", async () => {
    const tpp = await clientCredentialsToken(server.url, client);
    const created = await bg(tpp, "POST", "/payments/sepa-credit-transfers", paymentBody("99.99"));
    expect(created.status, created.text).toBe(201);
    expect(created.body.transactionStatus).toBe("RCVD");
    const { tokens } = await consentTokens(undefined, { debtorAccount: SAVINGS }, { scope: `PIS:${created.body.paymentId}` });
    expect((await bg(tpp, "GET", `/payments/sepa-credit-transfers/${created.body.paymentId}/status`)).body).toEqual({ transactionStatus: "ACTC" });
    expect((await pay(tokens.access_token, paymentBody("99.99"))).status).toBe(201);
    expect((await bg(tpp, "GET", `/payments/sepa-credit-transfers/${created.body.paymentId}/status`)).body).toEqual({ transactionStatus: "ACSC" });
  });

  it("a FAPI TPP's DPoP-bound token is used with a proof of the resource's whole URL", async () => {
    // The URLs a proof names are the public base URL's (BASE_URL), whatever port the test server listens on.
    const publicBase = ((await json(await request(`${server.url}/.well-known/oauth-authorization-server`))).token_endpoint as string).replace(TOKEN_ENDPOINT, "");
    const key = await DpopKey.generate();
    const issued = await postForm(server.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(server.authUrl)) }, { DPoP: await key.proof("POST", `${publicBase}${TOKEN_ENDPOINT}`) });
    expect(issued.status, issued.text).toBe(200);
    const token = issued.body.access_token as string;
    const body = JSON.stringify({ access: {}, recurringIndicator: false, validUntil: accountAccess().validUntil, frequencyPerDay: 1 });
    const create = async (authorization: string, htu: string) =>
      send(`${server.url}/psd2/v1/consents`, { method: "POST", headers: { Authorization: authorization, DPoP: await key.proof("POST", htu, token), "Content-Type": "application/json" }, body });
    const htu = `${publicBase}/psd2/v1/consents`;
    expect((await create(`Bearer ${token}`, htu)).body.tppMessages[0].code).toBe("TOKEN_INVALID");
    expect((await create(`DPoP ${token}`, `${publicBase}/consents`)).status).toBe(401);
    const created = await create(`DPoP ${token}`, htu);
    expect(created.status, created.text).toBe(201);
  });

  it("answers malformed bodies, bad tokens and unknown resources in Berlin Group's format", async () => {
    const tpp = await clientCredentialsToken(server.url, client);
    const bad = await bg(tpp, "POST", "/payments/sepa-credit-transfers", { ...paymentBody(), creditorAccount: { iban: "DE00" } });
    expect(bad.status).toBe(400);
    expect(bad.body.tppMessages[0]).toMatchObject({ category: "ERROR", code: "FORMAT_ERROR" });
    const notJson = await send(`${server.url}/psd2/v1/consents`, { method: "POST", headers: { Authorization: `Bearer ${tpp}`, "Content-Type": "application/json" }, body: "{" });
    expect(notJson.body.tppMessages[0].code).toBe("FORMAT_ERROR");
    const noToken = await send(`${server.url}/psd2/v1/consents/abc/status`);
    expect(noToken.status).toBe(401);
    expect(noToken.body.tppMessages[0].code).toBe("TOKEN_INVALID");
    expect(noToken.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect((await bg(tpp, "GET", "/consents/nosuchconsent/status")).body.tppMessages[0].code).toBe("RESOURCE_UNKNOWN");
    const blocked = await bg(await clientCredentialsToken(server.url, DEMO.paymentsApp), "POST", "/consents", { access: {}, recurringIndicator: false, validUntil: accountAccess().validUntil, frequencyPerDay: 1 });
    expect(blocked.status).toBe(403);
    expect(blocked.body.tppMessages[0].code).toBe("SERVICE_BLOCKED");
  });
});

