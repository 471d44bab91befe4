/**
 * PSU sign-in at the bank's identity provider (federation/) in Chromium against the built
 * server: the test bank IdP (server/test/support/bank-idp.ts, a real oidc-provider) runs in
 * this process, Tollgate is its relying party (`private_key_jwt` with Tollgate's own keys,
 * which the IdP fetches from Tollgate's JWK Set), and the strict demo app is set to sign its
 * PSUs in there for this file only. The relying party's /authorize goes straight on to the
 * IdP's own sign-in page (a pushed request), whose answer comes back to Tollgate's
 * /federation/callback and on to the consent page, or to the TPP with an error.
 *
 * The IdP keeps its session in Chromium's cookies (single sign-on): each journey has a
 * browser context of its own (the default `page`), so each starts signed out at the IdP.
 */
import type { Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { BANK_ACR, BANK_CUSTOMERS, bankIdpClientFor, startBankIdp, type BankIdp } from "../server/test/support/bank-idp.js";
import { expectAccessible } from "./support/accessibility.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { AISP_DESCRIPTION, expectAtCallback, lastFlow, recordTollgatePages, shownStatus } from "./support/journey.js";

/** The identity provider's name in Tollgate: shown to PSUs, and the prefix of the usernames it makes. */
const PROVIDER = "Bank";
const alice = BANK_CUSTOMERS.alice;
/** The Tollgate user made for alice at her first sign-in at the bank: `<provider name>:<sub>`. */
const FEDERATED_USERNAME = `${PROVIDER}:${alice.sub}`;
const NOT_SCA = /strong customer authentication/;

/** The server's catalog cache keeps an app for up to a second: a changed app is seen after it. */
const catalogSettles = () => new Promise((resolve) => setTimeout(resolve, 1100));

let bank: BankIdp;
let identityProviderId: string;

test.beforeAll(async ({ db }) => {
  bank = await startBankIdp({ clients: [bankIdpClientFor(TOLLGATE_URL)] });
  const idp = await db.identityProvider.create({
    data: {
      name: PROVIDER,
      issuer: bank.issuer,
      clientId: "tollgate",
      clientAuthMethod: "private_key_jwt",
      scopes: "openid customer",
      customerNumberClaim: "customer_number",
      scaAcrValues: BANK_ACR.sca,
    },
    select: { id: true },
  });
  identityProviderId = idp.id;
  const { count } = await db.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { identityProviderId } });
  expect(count, `the demo app ${DEMO.strictApp.name}`).toBe(1);
  await catalogSettles();
});

test.afterAll(async ({ db }) => {
  await db.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { identityProviderId: null } });
  if (identityProviderId) {
    // The users made for the bank's customers go with the provider (their consents and tokens with them).
    const linked = await db.federatedIdentity.findMany({ where: { identityProviderId }, select: { userId: true } });
    await db.user.deleteMany({ where: { id: { in: linked.map((l) => l.userId) } } });
    await db.identityProvider.delete({ where: { id: identityProviderId } });
  }
  await bank?.close();
  // The next journeys see the strict app with Tollgate's own sign-in again.
  await catalogSettles();
});

/** Waits until the browser is on the bank IdP's own sign-in page (no axe here: it is the bank's page, not Tollgate's). */
async function expectBankSignInPage(page: Page): Promise<void> {
  await expect(page).toHaveURL((url) => url.origin === bank.issuer && /^\/interaction\/[A-Za-z0-9_-]+$/.test(url.pathname));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bank sign-in");
}

/** Fills the bank's sign-in form as `who` (the one-time code left empty when none) and submits it. */
async function signInAtBank(page: Page, who: { username: string; password: string; otp?: string }): Promise<void> {
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Password").fill(who.password);
  await page.getByLabel("One-time code (for strong customer authentication)").fill(who.otp ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("a PSU signs in at the bank's identity provider with the one-time code, consents, and the TPP's token works", async ({ page, rp, db }) => {
  const shown = recordTollgatePages(page);
  const toBank: URL[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.isNavigationRequest() && url.origin === bank.issuer) toBank.push(url);
  });
  await page.goto(`${rp.url}/start?app=strict&prompt=consent`);
  await expectBankSignInPage(page);
  // Tollgate sent the browser on with a pushed request (RFC 9126 §4): only client_id and request_uri in the front channel.
  expect([...toBank[0]!.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
  expect(toBank[0]!.searchParams.get("client_id")).toBe("tollgate");
  expect(shown, "no Tollgate page before the bank's").toEqual([]);
  await signInAtBank(page, alice);

  // Back at Tollgate's consent page, signed in as the user linked to alice's identity at the bank.
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/consent" && url.searchParams.has("interaction"));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${DEMO.strictApp.name} wants access to your accounts`);
  await expect(page.getByText(/Signed in as/)).toHaveText(`Signed in as ${FEDERATED_USERNAME} at Bank`);
  await expect(page.getByRole("checkbox", { name: AISP_DESCRIPTION })).toBeChecked();
  await expectAccessible(page);
  await page.getByRole("button", { name: "Allow" }).click();

  const query = await expectAtCallback(page, rp);
  expect(query.get("state")).toBe(lastFlow(rp).state);
  expect(query.get("iss")).toBe(TOLLGATE_URL);
  expect(query.has("error")).toBe(false);
  await expect(page.getByTestId("state-check")).toHaveText("matches");
  expect(await shownStatus(page, "token-status")).toBe(200);
  expect(await shownStatus(page, "api-status")).toBe(200);
  expect(shown, "Tollgate showed the consent page only").toEqual(["/consent"]);

  // The PSU is linked by (provider, sub), with the bank's customer number, and has no password.
  const link = await db.federatedIdentity.findUniqueOrThrow({
    where: { identityProviderId_subject: { identityProviderId, subject: alice.sub } },
    select: { customerNumber: true, user: { select: { username: true, passwordHash: true } } },
  });
  expect(link).toEqual({ customerNumber: alice.customerNumber, user: { username: FEDERATED_USERNAME, passwordHash: "" } });
});

test("the bank's sign-in without the one-time code is not strong customer authentication: access_denied, no consent page", async ({ page, rp }) => {
  const shown = recordTollgatePages(page);
  await page.goto(`${rp.url}/start?app=strict&prompt=consent`);
  await expectBankSignInPage(page);
  await signInAtBank(page, { username: alice.username, password: alice.password });

  const query = await expectAtCallback(page, rp);
  expect(query.get("error")).toBe("access_denied");
  expect(query.get("error_description")).toMatch(NOT_SCA);
  expect(query.get("state")).toBe(lastFlow(rp).state);
  expect(query.get("iss")).toBe(TOLLGATE_URL);
  expect(query.has("code")).toBe(false);
  await expect(page.getByRole("heading", { name: "Authorization failed" })).toBeVisible();
  await expect(page.getByTestId("error")).toHaveText("access_denied");
  await expect(page.getByTestId("error-description")).toHaveText(NOT_SCA);
  await expect(page.getByTestId("state-check")).toHaveText("matches");
  expect(shown, "no Tollgate page: no consent page").toEqual([]);
});

test("the PSU cancels at the bank: access_denied for the TPP", async ({ page, rp }) => {
  const shown = recordTollgatePages(page);
  await page.goto(`${rp.url}/start?app=strict&prompt=consent`);
  await expectBankSignInPage(page);
  await page.getByRole("button", { name: "Cancel" }).click();

  const query = await expectAtCallback(page, rp);
  expect(query.get("error")).toBe("access_denied");
  expect(query.get("state")).toBe(lastFlow(rp).state);
  expect(query.get("iss")).toBe(TOLLGATE_URL);
  expect(query.has("code")).toBe(false);
  await expect(page.getByTestId("error")).toHaveText("access_denied");
  await expect(page.getByTestId("error-description")).toHaveText("the bank's sign-in ended with access_denied");
  expect(shown, "no Tollgate page").toEqual([]);
});
