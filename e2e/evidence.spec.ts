/**
 * The evidence of signed authorization requests and responses (FAPI 2.0 Message Signing) in
 * the console, in Chromium against the built server:
 *
 * 1. the demo FAPI 2.0 app, as a TPP runs it, pushes (PAR) a request object it signed
 *    (RFC 9101) asking for a payment (RFC 9396) with response_mode=jwt; alice signs in and
 *    approves; the callback gets the signed response (JARM). Then an admin follows the PSD2
 *    consents list to the consent's page: its facts, the Evidence panel with both messages
 *    decoded, and "Export evidence (JSON)", whose file holds the request object as pushed and
 *    the response as received; the page passes the accessibility checks and never scrolls
 *    sideways; "Revoke" ends the consent there;
 * 2. an unsigned pushed request for a scope: the consent page reached from the Users page says
 *    there is no evidence; an unknown consent id says so.
 *
 * The browser's language is en-GB and its time zone UTC, so that amounts read as the test writes them.
 */
import { randomInt, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { decodeJwt, SignJWT } from "jose";
import type { Locator, Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { DEMO_FAPI_PRIVATE_JWK } from "../server/src/demo/fapi-key.js";
import { DEMO_ACCOUNTS } from "../server/src/demo/upstream.js";
import { demoClientKey, pushedParams, pushRequest } from "../server/test/support/fapi.js";
import { expectAccessible } from "./support/accessibility.js";
import { consoleNav, openConsolePage, panel, signInToConsole } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { ALICE, expectConsentPage, expectLoginPage, s256, signIn, type Json } from "./support/journey.js";

test.use({ locale: "en-GB", timezoneId: "UTC" });

const APP = DEMO.fapiApp;
const ACME = { name: "ACME GmbH", iban: "FR1420041010050500013M02606" };
/** A pushed request's request_uri (RFC 9126 §2.2). */
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]+$/;
const EMPTY_EVIDENCE = "No signed request or response: this consent was authorized without FAPI message signing.";

/** A payment to ACME from alice's main account (no choice to make on the consent page). */
function payment(amount: string): Json {
  return {
    type: "payment_initiation",
    instructedAmount: { currency: "EUR", amount },
    creditorName: ACME.name,
    creditorAccount: { iban: ACME.iban },
    debtorAccount: { iban: DEMO_ACCOUNTS[0]!.iban },
  };
}

/** A request object (RFC 9101) of the FAPI demo app holding `parameters`, signed with its key, valid five minutes. */
async function signedRequestObject(parameters: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: APP.consumerKey, aud: TOLLGATE_URL, nbf: now, exp: now + 300, jti: randomUUID(), client_id: APP.consumerKey, ...parameters })
    .setProtectedHeader({ alg: "ES256", kid: DEMO_FAPI_PRIVATE_JWK.kid, typ: "oauth-authz-req+jwt" })
    .sign(await demoClientKey());
}

/** Pushes a request of the FAPI demo app (private_key_jwt); fails unless 201. @returns its request_uri. */
async function push(form: Record<string, string | undefined>): Promise<string> {
  const pushed = await pushRequest(TOLLGATE_URL, form);
  expect(pushed.status, pushed.text).toBe(201);
  expect(pushed.body.request_uri).toMatch(REQUEST_URI);
  return pushed.body.request_uri;
}

/**
 * Opens /authorize with a pushed request's request_uri, catching the browser's visit to the
 * demo callback (where no server listens), and signs alice in (password, then her passkey).
 */
async function authorizeAsAlice(page: Page, requestUri: string): Promise<void> {
  await page.route(`${DEMO.callbackUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: '<!doctype html><html lang="en"><title>TPP callback</title><h1>Back at the TPP</h1></html>' }),
  );
  await page.goto(`/authorize?${new URLSearchParams({ client_id: APP.consumerKey, request_uri: requestUri })}`);
  await expectLoginPage(page, APP.name);
  await signIn(page, ALICE.username, ALICE.password);
}

/** Clicks Allow and waits for the demo callback. @returns its query. */
async function allow(page: Page): Promise<URLSearchParams> {
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${DEMO.callbackUrl}?`));
  return new URL(page.url()).searchParams;
}

/** Fails unless `element` is no wider than its box (nothing in it overflows sideways). */
async function expectNoSidewaysScroll(element: Locator): Promise<void> {
  const { scrollWidth, clientWidth } = await element.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  expect(scrollWidth, "no sideways scroll").toBeLessThanOrEqual(clientWidth);
}

test("a payment authorized with a signed request object and a signed response: the console shows the evidence decoded and exports it as sent", async ({ page, db }) => {
  // The TPP signs its request object (a payment of an amount of this run's own) and pushes it.
  const amount = `${randomInt(100, 1000)}.${String(randomInt(0, 100)).padStart(2, "0")}`;
  const state = randomUUID();
  const signed = await signedRequestObject({
    response_type: "code",
    response_mode: "jwt",
    redirect_uri: DEMO.callbackUrl,
    state,
    code_challenge: s256(`e2e-evidence-verifier-${randomUUID()}-0123456789abcdef`),
    code_challenge_method: "S256",
    authorization_details: [payment(amount)],
  });
  const requestUri = await push({ request: signed });

  // alice approves the payment; the TPP's callback gets the signed response alone (JARM).
  await authorizeAsAlice(page, requestUri);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${APP.name} asks you to approve a payment`);
  const callback = await allow(page);
  expect([...callback.keys()]).toEqual(["response"]);
  const response = callback.get("response")!;
  const answer = decodeJwt(response);
  expect(answer).toMatchObject({ iss: TOLLGATE_URL, aud: APP.consumerKey, state, code: expect.any(String) });

  // The consent the evidence was kept with.
  const kept = await db.authorizationEvidence.findFirstOrThrow({ where: { requestObject: signed } });
  const consentId = kept.psd2ConsentId!;
  expect(consentId).toEqual(expect.any(String));

  // The admin (alice signed out first) follows the PSD2 consents list to the consent's page.
  await page.context().clearCookies();
  await signInToConsole(page);
  await consoleNav(page).getByRole("link", { name: "PSD2 consents", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("PSD2 consents");
  const row = panel(page, "All PSD2 consents").getByRole("row").filter({ hasText: `Pay €${amount} to ${ACME.name}` });
  await expect(row).toHaveCount(1);
  await row.getByRole("link", { name: new RegExp(`^View PSD2 consent of ${ALICE.username} for ${escape(APP.name)} asked `) }).click();
  await expect(page).toHaveURL((url) => url.pathname === `/admin/psd2-consents/${consentId}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`PSD2 consent of ${ALICE.username} for ${APP.name}`);
  await expect(page.getByRole("link", { name: "← All PSD2 consents" })).toBeVisible();

  // Its facts.
  const facts = panel(page, "Consent");
  for (const [term, value] of [
    ["App", APP.name],
    ["Organization", DEMO.organization],
    ["Client id", APP.consumerKey],
    ["User", ALICE.username],
    ["Consent id", consentId],
  ] as const) {
    await expect(facts.getByRole("term").filter({ hasText: new RegExp(`^${term}$`) }).locator("xpath=following-sibling::dd")).toHaveText(value);
  }
  await expect(facts.getByText("through OAuth (RFC 9396)", { exact: true })).toBeVisible();
  await expect(facts.getByText("Active", { exact: true })).toBeVisible();
  await expect(facts.getByRole("listitem").filter({ hasText: `Pay €${amount} to ${ACME.name}` })).toContainText(`IBAN FR14 2004 1010 0505 0001 3M02 606`);
  await expect(facts.getByRole("button", { name: /^Revoke/ })).toBeVisible();

  // The Evidence panel: what it is and how long it is kept, then the one authorization.
  const evidence = panel(page, "Evidence");
  await expect(evidence).toContainText("kept for the consent's lifetime and the bank's evidence retention after it");
  const records = evidence.getByRole("region", { name: /^Answered / });
  await expect(records).toHaveCount(1);
  const record = records.first();
  await expect(record.getByRole("definition").filter({ hasText: "Code issued" })).toHaveText("Code issued");
  await expect(record.getByRole("definition").filter({ hasText: APP.consumerKey })).toHaveText(APP.consumerKey);

  // The request object, decoded: header and payload as the TPP signed them.
  const request = record.getByRole("region", { name: "Signed request object (RFC 9101)" });
  await expect(request.getByRole("figure", { name: "JOSE header" })).toContainText('"typ": "oauth-authz-req+jwt"');
  await expect(request.getByRole("figure", { name: "JOSE header" })).toContainText(`"kid": "${DEMO_FAPI_PRIVATE_JWK.kid}"`);
  const requestPayload = request.getByRole("figure", { name: "Payload" });
  await expect(requestPayload).toContainText(`"creditorName": "${ACME.name}"`);
  await expect(requestPayload).toContainText(`"amount": "${amount}"`);
  await expect(requestPayload).toContainText(`"aud": "${TOLLGATE_URL}"`);
  await expect(requestPayload).toContainText(`"state": "${state}"`);

  // The response, decoded: the code it carried, Tollgate as its issuer.
  const signedResponse = record.getByRole("region", { name: "Signed authorization response (JARM)" });
  const responsePayload = signedResponse.getByRole("figure", { name: "Payload" });
  await expect(responsePayload).toContainText(`"code": "${answer.code}"`);
  await expect(responsePayload).toContainText(`"iss": "${TOLLGATE_URL}"`);
  await expect(signedResponse.getByRole("figure", { name: "JOSE header" })).toContainText('"alg": "PS256"');

  // Each compact JWS, opened, exactly as sent, wrapped inside the panel.
  for (const [message, jws] of [
    [request, signed],
    [signedResponse, response],
  ] as const) {
    await message.getByText("Compact JWS as received").click();
    await expect(message.locator("details pre")).toBeVisible();
    await expect(message.locator("details pre")).toHaveText(jws);
  }
  await expectNoSidewaysScroll(evidence);
  await expectNoSidewaysScroll(page.locator("html"));
  await expectAccessible(page);

  // Export: the consent's facts, and the record with both compact JWS strings as they were sent.
  const download = page.waitForEvent("download");
  await evidence.getByRole("button", { name: "Export evidence (JSON)" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`consent-${consentId}-evidence.json`);
  const exported = JSON.parse(await readFile(await file.path(), "utf8"));
  expect(Math.abs(Date.parse(exported.exportedAt) - Date.now())).toBeLessThan(60_000);
  expect(exported.consent).toMatchObject({ id: consentId, clientId: APP.consumerKey, username: ALICE.username, kind: "payment_initiation", status: "valid" });
  expect(exported.consent.authorizationDetails).toEqual([payment(amount)]);
  expect(exported.evidence).toHaveLength(1);
  expect(exported.evidence[0]).toEqual({ id: kept.id, answeredAt: kept.createdAt.toISOString(), clientId: APP.consumerKey, outcome: "code", requestObject: signed, authorizationResponse: response });
  expect(exported.evidence[0].requestObject).toBe(signed);
  await expect(evidence.getByRole("status").filter({ hasText: `Downloaded consent-${consentId}-evidence.json with 1 record.` })).toBeVisible();

  // Revoke, as the list offers it: the consent ends, its evidence stays.
  await facts.getByRole("button", { name: /^Revoke/ }).click();
  await facts.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(facts.getByRole("status").filter({ hasText: `PSD2 consent of ${ALICE.username} for ${APP.name} revoked.` })).toBeVisible();
  await expect(facts.getByText("Withdrawn by the user", { exact: true })).toBeVisible();
  await expect(facts.getByRole("button", { name: /^Revoke/ })).toHaveCount(0);
  await expect(records).toHaveCount(1);
  await expectAccessible(page);
});

test("a scope consent without signed messages: its page, from the Users page, says there is no evidence; an unknown id says there is no such consent", async ({ page, db }) => {
  // An unsigned pushed request for the aisp scope, answered in the query: nothing to keep.
  const requestUri = await push(pushedParams(s256(`e2e-evidence-verifier-${randomUUID()}-0123456789abcdef`)));
  await authorizeAsAlice(page, requestUri);
  await expectConsentPage(page, APP.name);
  expect((await allow(page)).get("code")).toEqual(expect.any(String));
  const consent = await db.consent.findFirstOrThrow({ where: { user: { username: ALICE.username }, app: { name: APP.name } } });

  // The admin opens alice's consents on the Users page, then this one.
  await page.context().clearCookies();
  await signInToConsole(page);
  await openConsolePage(page, "Users");
  await page.getByRole("searchbox", { name: "Search by username" }).fill(ALICE.username);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await panel(page, "All users").getByRole("button", { name: `Factors, tokens and consents of ${ALICE.username}`, exact: true }).click();
  await panel(page, "Consents").getByRole("link", { name: `View consent for ${APP.name}`, exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === `/admin/consents/${consent.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Consent of ${ALICE.username} for ${APP.name}`);
  const facts = panel(page, "Consent");
  await expect(facts.getByRole("link", { name: APP.name, exact: true })).toBeVisible();
  await expect(facts.getByRole("listitem")).toHaveText(["aisp"]);
  await expect(facts.getByText("active", { exact: true })).toBeVisible();
  await expect(facts.getByRole("term").filter({ hasText: /^Revoked$/ })).toHaveCount(0);
  await expect(panel(page, "Evidence").getByText(EMPTY_EVIDENCE, { exact: true })).toBeVisible();
  await expectAccessible(page);

  // Its export says so too.
  const download = page.waitForEvent("download");
  await panel(page, "Evidence").getByRole("button", { name: "Export evidence (JSON)" }).click();
  const exported = JSON.parse(await readFile(await (await download).path(), "utf8"));
  expect(exported.consent).toMatchObject({ id: consent.id, user: { username: ALICE.username }, app: { name: APP.name }, scopes: ["aisp"], revokedAt: null });
  expect(exported.evidence).toEqual([]);

  // Back to alice's consents.
  await page.getByRole("link", { name: `← Factors, tokens and consents of ${ALICE.username}` }).click();
  await expect(page.getByRole("region", { name: `Sign-in factors, tokens and consents of ${ALICE.username}` })).toBeVisible();

  // An unknown id, of either kind: no such consent, not a crash.
  for (const path of ["/admin/consents/no-such-consent", "/admin/psd2-consents/no-such-consent"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Consent not found");
    await expect(page.getByText("No consent with this id.", { exact: true })).toBeVisible();
  }
  await expectAccessible(page);
});

/** `text` as a literal inside a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
