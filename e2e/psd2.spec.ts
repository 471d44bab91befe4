/**
 * PSD2 consents (issue 17) in Chromium against the built server: RFC 9396 authorization
 * details put into words on the consent page, the PSU's choice of accounts, and what the
 * gateway then lets the tokens do (dynamic linking, RTS Art. 5; account access to the chosen
 * accounts only, RTS Art. 10 and 36):
 *
 * 1. a single payment pushed (PAR, RFC 9126) by the TPP: the consent page says it in words,
 *    alice picks the account to pay from; the payment must match to the cent, and is made once;
 * 2. a batch of two payments through PAR: both payees and the total; the bulk call;
 * 3. account access without accounts at /authorize: alice shares only "Savings";
 * 4. alice revokes a consent on the Account page (PSD2 consents): its tokens stop at once;
 * 5. the Berlin Group route: the TPP creates a consent (POST /psd2/v1/consents), alice
 *    authorizes it with scope=AIS:<consentId> on the same consent page.
 *
 * And the payee line: a payee's name in right-to-left letters stays in its own `<bdi>`, with
 * the payee's IBAN on a line of its own.
 *
 * The TPP is the demo app "Acme Budgeting (RFC 6749)" (PKCE, client_secret_basic), played by
 * the test's Node side; the browser's visit to the demo callback URL (where no server
 * listens) is answered by the test, which reads the code from it. The browser's language is
 * en-GB and its time zone UTC, so that amounts and dates read as the test writes them.
 */
import { randomBytes } from "node:crypto";
import type { Locator, Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../server/src/demo/upstream.js";
import { expectAccessible } from "./support/accessibility.js";
import { basicAuth, clientCredentialsToken, expectInvalidToken, result, tokenRequest, type HttpResult } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { ALICE, expectLoginPage, s256, signIn, type Json } from "./support/journey.js";

test.use({ locale: "en-GB", timezoneId: "UTC" });

const APP = DEMO.strictApp;
const CLIENT = { consumerKey: APP.consumerKey, consumerSecret: APP.consumerSecret };
const [MAIN, SAVINGS] = DEMO_ACCOUNTS as [(typeof DEMO_ACCOUNTS)[number], (typeof DEMO_ACCOUNTS)[number]];
const PAR_ENDPOINT = "/oauth2/v1/par";
/** A pushed request's request_uri (RFC 9126 §2.2). */
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]+$/;

const ACME = { name: "ACME GmbH", iban: "FR1420041010050500013M02606", printed: "FR14 2004 1010 0505 0001 3M02 606" };
const BETA = { name: "Beta SA", iban: "NL91ABNA0417164300", printed: "NL91 ABNA 0417 1643 00" };

/** A payment_initiation detail (RFC 9396 §2) of `amount` euros to `creditor`. */
function payment(amount: string, creditor: { name: string; iban: string } = ACME, reference = "Invoice 4711"): Json {
  return {
    type: "payment_initiation",
    instructedAmount: { currency: "EUR", amount },
    creditorName: creditor.name,
    creditorAccount: { iban: creditor.iban },
    remittanceInformationUnstructured: reference,
  };
}

/** The Berlin Group payment body the TPP sends through the gateway for a payment. */
function paymentBody(amount: string, creditor: { name: string; iban: string } = ACME): Json {
  return { instructedAmount: { currency: "EUR", amount }, creditorName: creditor.name, creditorAccount: { iban: creditor.iban } };
}

/** The calendar date (YYYY-MM-DD, UTC) `days` days from today. */
function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD date as the consent page writes it in en-GB ("24 May 2027"). */
function longDate(date: string): string {
  return new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));
}

/** An account_information detail with no accounts (the PSU picks them), valid for `days` more days. */
function accountAccess(days: number, access: Json = { balances: true }): Json {
  return { type: "account_information", access, validUntil: inDays(days), frequencyPerDay: 4, recurringIndicator: true };
}

/** A PKCE S256 pair (RFC 7636). */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256(verifier) };
}

const randomState = () => randomBytes(16).toString("base64url");

// --- The TPP's calls, over real HTTP --------------------------------------------------------

/** Pushes an authorization request (RFC 9126) with the app's HTTP Basic authentication; fails unless 201. @returns its request_uri. */
async function push(params: Record<string, string>): Promise<string> {
  const pushed = await result(
    await fetch(`${TOLLGATE_URL}${PAR_ENDPOINT}`, {
      method: "POST",
      headers: { Authorization: basicAuth(CLIENT.consumerKey, CLIENT.consumerSecret), "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ client_id: CLIENT.consumerKey, ...params }).toString(),
    }),
  );
  expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
  expect(pushed.body.request_uri).toMatch(REQUEST_URI);
  return pushed.body.request_uri;
}

/** The authorization parameters of the app's code flow (PKCE S256, the demo callback). */
function codeFlowParams(challenge: string, state: string, extra: Record<string, string>): Record<string, string> {
  return { response_type: "code", redirect_uri: DEMO.callbackUrl, state, code_challenge: challenge, code_challenge_method: "S256", ...extra };
}

/** Exchanges a code at the token endpoint; fails unless 200. @returns the token response (RFC 6749 profile). */
async function exchange(code: string, verifier: string): Promise<Json> {
  const answer = await tokenRequest(CLIENT, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.token_type).toBe("Bearer");
  return answer.body;
}

/** A payment through the gateway's `payments` API (POST /payments/, JSON body). */
async function pay(accessToken: string, body: Json): Promise<HttpResult> {
  return result(
    await fetch(`${TOLLGATE_URL}/payments/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      redirect: "manual",
    }),
  );
}

/** A GET through the gateway (e.g. the `accounts` API) with a bearer token. */
async function get(accessToken: string, path: string): Promise<HttpResult> {
  return result(await fetch(`${TOLLGATE_URL}${path}`, { headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" }, redirect: "manual" }));
}

/** A call to the Berlin Group consent API (/psd2/v1) with the TPP's client credentials token. */
async function berlinGroup(accessToken: string, method: string, path: string, body?: Json): Promise<HttpResult> {
  return result(
    await fetch(`${TOLLGATE_URL}/psd2/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    }),
  );
}

/** The gateway's refusal with `error` in WWW-Authenticate (RFC 6750 §3). */
function expectRefused(res: HttpResult, error: "authorization_details_mismatch" | "consent_invalid"): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.headers.get("www-authenticate") ?? "").toContain(`error="${error}"`);
}

// --- The browser's part ------------------------------------------------------------------

/**
 * Answers the browser's visit to the demo apps' callback (where no server listens) with a
 * small page, as the TPP's callback would.
 */
async function catchCallback(page: Page): Promise<void> {
  await page.route(`${DEMO.callbackUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: '<!doctype html><html lang="en"><title>TPP callback</title><h1>Back at the TPP</h1></html>' }),
  );
}

/** Opens /authorize with `query` and signs alice in (password, then her passkey: the PSD2 products require SCA). */
async function authorizeAsAlice(page: Page, query: Record<string, string>): Promise<void> {
  await catchCallback(page);
  await page.goto(`/authorize?${new URLSearchParams({ client_id: CLIENT.consumerKey, ...query })}`);
  await expectLoginPage(page, APP.name);
  await signIn(page, ALICE.username, ALICE.password);
}

/** Checks the consent page's frame (heading, app, PSU) and returns its authorization details part. */
async function expectDetailsConsentPage(page: Page, heading: string): Promise<Locator> {
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/consent" && url.searchParams.has("interaction"));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
  await expect(page.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  await expect(page.getByText(/Signed in as/)).toHaveText(`Signed in as ${ALICE.username}`);
  const details = page.getByRole("region", { name: `${APP.name} asks to:` });
  await expect(details).toBeVisible();
  await expect(details.getByText("You can withdraw this consent at any time on your Account page.")).toBeVisible();
  // Details only: no scope to tick.
  await expect(page.getByRole("group", { name: `${APP.name} will be able to:` })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Deny" })).toBeEnabled();
  return details;
}

/** The "Pay from" radio buttons, one per account of alice's, none chosen yet; Allow waits for a choice. */
async function expectPayFrom(page: Page, details: Locator): Promise<Locator> {
  const payFrom = details.getByRole("group", { name: "Pay from" });
  await expect(payFrom.getByRole("radio")).toHaveCount(DEMO_ACCOUNTS.length);
  for (const account of DEMO_ACCOUNTS) await expect(payFrom.getByRole("radio", { name: account.name, exact: true })).not.toBeChecked();
  await expect(page.getByRole("button", { name: "Allow" })).toBeDisabled();
  return payFrom;
}

/** Clicks Allow and waits for the redirect to the app's callback; checks state and issuer (RFC 9207). @returns the code. */
async function allowAndReadCode(page: Page, state: string): Promise<string> {
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${DEMO.callbackUrl}?`));
  const callback = new URL(page.url()).searchParams;
  expect(callback.get("error"), callback.get("error_description") ?? "").toBeNull();
  expect(callback.get("state")).toBe(state);
  expect(callback.get("iss")).toBe(TOLLGATE_URL);
  const code = callback.get("code");
  expect(code).toEqual(expect.any(String));
  return code!;
}

/** An IBAN in groups of four, as the pages print it. */
const printed = (iban: string) => iban.replace(/(.{4})(?=.)/g, "$1 ");

test("a single payment through PAR: the consent page says it in words, alice picks the account to pay from, and the gateway makes exactly that payment once", { tag: "@postgresql" }, async ({ page }) => {
  const { verifier, challenge } = pkce();
  const state = randomState();
  const requestUri = await push(codeFlowParams(challenge, state, { authorization_details: JSON.stringify([payment("1250.00")]) }));

  // With request_uri, the front channel carries client_id and request_uri only (RFC 9126 §4).
  await authorizeAsAlice(page, { request_uri: requestUri });
  const details = await expectDetailsConsentPage(page, `${APP.name} asks you to approve a payment`);
  const item = details.getByRole("listitem");
  await expect(item).toHaveCount(1);
  await expect(item).toContainText(`Pay €1,250.00 to ${ACME.name}`);
  await expect(item.getByText(`IBAN ${ACME.printed}`, { exact: true })).toBeVisible();
  await expect(item).toContainText("Reference: Invoice 4711");
  const payFrom = await expectPayFrom(page, details);
  // Each account is told apart by its IBAN and currency.
  await expect(payFrom.getByRole("radio", { name: MAIN.name, exact: true })).toHaveAccessibleDescription(`${printed(MAIN.iban)} · EUR`);
  await expect(details.getByRole("group", { name: "Accounts to share" })).toHaveCount(0);
  await expectAccessible(page);

  await payFrom.getByRole("radio", { name: MAIN.name, exact: true }).check();
  await expect(page.getByRole("button", { name: "Allow" })).toBeEnabled();
  const code = await allowAndReadCode(page, state);

  // The tokens carry exactly the approved payment, with the account alice chose.
  const tokens = await exchange(code, verifier);
  expect(tokens.authorization_details).toEqual([{ ...payment("1250.00"), debtorAccount: { iban: MAIN.iban } }]);
  const accessToken: string = tokens.access_token;

  // One cent more: refused (dynamic linking), and the consent is not used up.
  expectRefused(await pay(accessToken, paymentBody("1250.01")), "authorization_details_mismatch");
  // The exact payment is made ...
  const made = await pay(accessToken, paymentBody("1250.00"));
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // The upstream executes the approved payment: the reference and the account the body left out are the approved ones.
  expect(made.body.payment).toEqual({ ...paymentBody("1250.00"), remittanceInformationUnstructured: "Invoice 4711", debtorAccount: { iban: MAIN.iban } });
  // ... once.
  expectRefused(await pay(accessToken, paymentBody("1250.00")), "consent_invalid");
});

test("a payee's name is the TPP's text: isolated in its own <bdi>, the IBAN on a line of its own, so right-to-left letters cannot make the name read as an IBAN", async ({ page }) => {
  // Hebrew "company ltd.", then digits: a right-to-left name that could pose as an account.
  const payee = { name: "\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de 1420 0410", iban: ACME.iban };
  const requestUri = await push(codeFlowParams(pkce().challenge, randomState(), { authorization_details: JSON.stringify([payment("10.00", payee, "\u0641\u0627\u062a\u0648\u0631\u0629 42")]) }));
  await authorizeAsAlice(page, { request_uri: requestUri });
  const details = await expectDetailsConsentPage(page, `${APP.name} asks you to approve a payment`);
  const item = details.getByRole("listitem");
  const names = item.locator("bdi");
  await expect(names).toHaveText([payee.name, "\u0641\u0627\u062a\u0648\u0631\u0629 42"]);
  const iban = item.getByText(`IBAN ${ACME.printed}`, { exact: true });
  await expect(iban).toBeVisible();
  // The IBAN's line is below the payee's, never beside the name.
  const nameBox = (await names.first().boundingBox())!;
  const ibanBox = (await iban.boundingBox())!;
  expect(ibanBox.y).toBeGreaterThanOrEqual(nameBox.y + nameBox.height);
  await expect(item.locator('[dir="ltr"]')).toHaveText(ACME.printed);
  await expectAccessible(page);
  // alice declines: the TPP is told so.
  await page.getByRole("button", { name: "Deny" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${DEMO.callbackUrl}?`));
  expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
});

test("a batch of two payments through PAR: the consent page shows both payees and the total, and the bulk payment is made", async ({ page }) => {
  const batch = [payment("1000.00", ACME, "Invoice 4711"), payment("500.00", BETA, "Order 815")];
  const { verifier, challenge } = pkce();
  const state = randomState();
  const requestUri = await push(codeFlowParams(challenge, state, { authorization_details: JSON.stringify(batch) }));

  await authorizeAsAlice(page, { request_uri: requestUri });
  const details = await expectDetailsConsentPage(page, `${APP.name} asks you to approve 2 payments`);
  const summary = details.getByRole("list").first().getByRole("listitem").first();
  await expect(summary).toContainText("2 payments, €1,500.00 in total");
  const each = summary.getByRole("list").getByRole("listitem");
  await expect(each).toHaveCount(2);
  await expect(each.nth(0)).toContainText(`Pay €1,000.00 to ${ACME.name}`);
  await expect(each.nth(0).getByText(`IBAN ${ACME.printed}`, { exact: true })).toBeVisible();
  await expect(each.nth(0)).toContainText("Reference: Invoice 4711");
  await expect(each.nth(1)).toContainText(`Pay €500.00 to ${BETA.name}`);
  await expect(each.nth(1).getByText(`IBAN ${BETA.printed}`, { exact: true })).toBeVisible();
  await expect(each.nth(1)).toContainText("Reference: Order 815");
  const payFrom = await expectPayFrom(page, details);
  await expect(payFrom.getByText("Choose the account the payments are made from.")).toBeVisible();

  await payFrom.getByRole("radio", { name: SAVINGS.name, exact: true }).check();
  const code = await allowAndReadCode(page, state);
  const tokens = await exchange(code, verifier);
  expect(tokens.authorization_details).toEqual(batch.map((p) => ({ ...p, debtorAccount: { iban: SAVINGS.iban } })));

  // The batch is bound to each payee in order: one of them alone does not match; the bulk call does.
  expectRefused(await pay(tokens.access_token, paymentBody("1000.00", ACME)), "authorization_details_mismatch");
  const bulk = { payments: [paymentBody("1000.00", ACME), paymentBody("500.00", BETA)] };
  const made = await pay(tokens.access_token, bulk);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // The approved references go into each payment, the account the PSU chose beside them (the Berlin Group bulk).
  expect(made.body.payment).toEqual({
    payments: [
      { ...bulk.payments[0], remittanceInformationUnstructured: "Invoice 4711" },
      { ...bulk.payments[1], remittanceInformationUnstructured: "Order 815" },
    ],
    debtorAccount: { iban: SAVINGS.iban },
  });
});

test("account access without accounts: alice shares only Savings, and the token reads Savings' balances and nothing of the other account", { tag: "@postgresql" }, async ({ page }) => {
  const access = accountAccess(90);
  const { verifier, challenge } = pkce();
  const state = randomState();

  // The front channel, without PAR: authorization_details on /authorize.
  await authorizeAsAlice(page, codeFlowParams(challenge, state, { authorization_details: JSON.stringify([access]) }));
  const details = await expectDetailsConsentPage(page, `${APP.name} wants access to your accounts`);
  await expect(details.getByRole("listitem")).toHaveText([`Read balances of the accounts you choose until ${longDate(access.validUntil)} (91 days), up to 4 times a day`]);
  const share = details.getByRole("group", { name: "Accounts to share" });
  await expect(share.getByText(`Choose at least one account ${APP.name} may read.`)).toBeVisible();
  await expect(share.getByRole("checkbox")).toHaveCount(DEMO_ACCOUNTS.length);
  for (const account of DEMO_ACCOUNTS) {
    const box = share.getByRole("checkbox", { name: account.name, exact: true });
    await expect(box).not.toBeChecked();
    await expect(box).toHaveAccessibleDescription(`${printed(account.iban)} · ${account.currency}`);
  }
  await expect(details.getByRole("group", { name: "Pay from" })).toHaveCount(0);
  // Nothing chosen yet: Allow waits for at least one account.
  await expect(page.getByRole("button", { name: "Allow" })).toBeDisabled();
  await expectAccessible(page);

  await share.getByRole("checkbox", { name: SAVINGS.name, exact: true }).check();
  await expect(page.getByRole("button", { name: "Allow" })).toBeEnabled();
  const code = await allowAndReadCode(page, state);
  const tokens = await exchange(code, verifier);
  expect(tokens.authorization_details).toEqual([{ ...access, access: { balances: true, accounts: [{ iban: SAVINGS.iban }] } }]);

  const savings = await get(tokens.access_token, `/accounts/${SAVINGS.iban}/balances`);
  expect(savings.status, JSON.stringify(savings.body)).toBe(200);
  expect(savings.body.account.iban).toBe(SAVINGS.iban);
  expectRefused(await get(tokens.access_token, `/accounts/${MAIN.iban}/balances`), "authorization_details_mismatch");
  // Only the approved data: balances, not transactions.
  expectRefused(await get(tokens.access_token, `/accounts/${SAVINGS.iban}/transactions`), "authorization_details_mismatch");
});

test("after alice revokes a consent on the Account page, its access token no longer works at the gateway", async ({ page }) => {
  // A consent of its own, told apart from the other journeys' by its data, accounts and date.
  const access = accountAccess(120, { balances: true, transactions: true });
  const { verifier, challenge } = pkce();
  const state = randomState();
  const requestUri = await push(codeFlowParams(challenge, state, { authorization_details: JSON.stringify([access]) }));
  await authorizeAsAlice(page, { request_uri: requestUri });
  const details = await expectDetailsConsentPage(page, `${APP.name} wants access to your accounts`);
  await expect(details.getByRole("listitem")).toHaveText([
    `Read balances and transactions of the accounts you choose until ${longDate(access.validUntil)} (121 days), up to 4 times a day`,
  ]);
  const share = details.getByRole("group", { name: "Accounts to share" });
  await share.getByRole("checkbox", { name: MAIN.name, exact: true }).check();
  await share.getByRole("checkbox", { name: SAVINGS.name, exact: true }).check();
  const tokens = await exchange(await allowAndReadCode(page, state), verifier);
  expect(tokens.authorization_details[0].access.accounts).toEqual([{ iban: MAIN.iban }, { iban: SAVINGS.iban }]);
  const before = await get(tokens.access_token, `/accounts/${MAIN.iban}/transactions`);
  expect(before.status, JSON.stringify(before.body)).toBe(200);

  // Same browser: alice is signed in, the Account page opens without a sign-in.
  await page.goto(`${TOLLGATE_URL}/account`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your account");
  const section = page.getByRole("region", { name: "PSD2 consents" });
  await expect(section.getByRole("heading", { name: "PSD2 consents" })).toBeVisible();
  // The consent in words: alice's accounts by IBAN, the period and frequency.
  const said = `Read balances and transactions of ${printed(MAIN.iban)} and ${printed(SAVINGS.iban)} until ${longDate(access.validUntil)}, up to 4 times a day`;
  const consents = section.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3, name: APP.name, exact: true }) });
  const mine = consents.filter({ has: page.getByRole("list", { name: "Details" }).getByRole("listitem").filter({ hasText: said }) });
  const active = mine.filter({ hasText: "Active since" });
  const withdrawn = mine.filter({ hasText: "Withdrawn by you since" });
  await expect(active).toHaveCount(1);
  // Earlier runs on the same server may have left withdrawn ones of the same words.
  const withdrawnBefore = await withdrawn.count();
  await expect(active.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  await expect(active.getByText(`valid until ${longDate(access.validUntil)}`)).toBeVisible();
  await expect(active.getByRole("list", { name: "Details" }).getByRole("listitem")).toHaveText([said]);
  await expectAccessible(page);

  // Revoke, with the inline confirmation.
  await active.getByRole("button", { name: /^Revoke consent for / }).click();
  const confirm = active.getByRole("group", { name: `Revoke this consent? ${APP.name} can no longer use it.` });
  await expect(confirm.getByRole("button", { name: "Yes, revoke consent" })).toBeFocused();
  await expectAccessible(page);
  await confirm.getByRole("button", { name: "Yes, revoke consent" }).click();
  await expect(section.getByRole("status").filter({ hasText: `You withdrew your consent: ${APP.name} can no longer use it.` })).toBeVisible();
  await expect(active).toHaveCount(0);
  await expect(withdrawn).toHaveCount(withdrawnBefore + 1);
  await expect(withdrawn.getByRole("button", { name: /^Revoke/ })).toHaveCount(0);
  await expectAccessible(page);

  // The gateway refuses its access token at once, and its refresh token is dead.
  expectInvalidToken(await get(tokens.access_token, `/accounts/${MAIN.iban}/transactions`));
  const refreshed = await tokenRequest(CLIENT, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(400);
  expect(refreshed.body.error).toBe("invalid_grant");

  // Stored: still withdrawn after a reload.
  await page.reload();
  await expect(withdrawn).toHaveCount(withdrawnBefore + 1);
  await expect(active).toHaveCount(0);
});

test("the Berlin Group route: the TPP creates a consent, alice authorizes it with scope=AIS:<consentId> on the consent page, and the token reads the chosen account", { tag: "@postgresql" }, async ({ page }) => {
  // The TPP, with a client credentials token, creates the consent: the PSU picks the accounts.
  const tpp = await clientCredentialsToken(CLIENT);
  expect(tpp.status, JSON.stringify(tpp.body)).toBe(200);
  const tppToken: string = tpp.body.access_token;
  const validUntil = inDays(60);
  const created = await berlinGroup(tppToken, "POST", "/consents", { access: { balances: [] }, recurringIndicator: true, validUntil, frequencyPerDay: 4 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ consentStatus: "received", _links: { scaOAuth: { href: `${TOLLGATE_URL}/.well-known/oauth-authorization-server` } } });
  const consentId: string = created.body.consentId;
  expect(consentId).toEqual(expect.any(String));

  // alice authorizes it: the consent page shows what the consent asks for.
  const { verifier, challenge } = pkce();
  const state = randomState();
  await authorizeAsAlice(page, codeFlowParams(challenge, state, { scope: `AIS:${consentId}` }));
  const details = await expectDetailsConsentPage(page, `${APP.name} wants access to your accounts`);
  await expect(details.getByRole("listitem")).toHaveText([`Read balances of the accounts you choose until ${longDate(validUntil)} (61 days), up to 4 times a day`]);
  const share = details.getByRole("group", { name: "Accounts to share" });
  await expect(share.getByRole("checkbox")).toHaveCount(DEMO_ACCOUNTS.length);
  await expect(page.getByRole("button", { name: "Allow" })).toBeDisabled();
  await expectAccessible(page);
  await share.getByRole("checkbox", { name: MAIN.name, exact: true }).check();
  const tokens = await exchange(await allowAndReadCode(page, state), verifier);
  expect(tokens.authorization_details).toEqual([
    { type: "account_information", access: { balances: true, accounts: [{ iban: MAIN.iban }] }, validUntil, frequencyPerDay: 4, recurringIndicator: true },
  ]);

  // The token reads the chosen account, and only it.
  const balances = await get(tokens.access_token, `/accounts/${MAIN.iban}/balances`);
  expect(balances.status, JSON.stringify(balances.body)).toBe(200);
  expect(balances.body.account.iban).toBe(MAIN.iban);
  expectRefused(await get(tokens.access_token, `/accounts/${SAVINGS.iban}/balances`), "authorization_details_mismatch");

  // The TPP sees the consent valid, with the account alice chose.
  const read = await berlinGroup(tppToken, "GET", `/consents/${consentId}`);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.body).toMatchObject({ consentStatus: "valid", access: { balances: [{ iban: MAIN.iban }] }, validUntil });
});
