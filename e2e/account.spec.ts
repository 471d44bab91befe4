/**
 * The end user's Account page (/account), in Chromium against the built server: alice
 * connects an app with the authorization code flow (the relying party of
 * support/relying-party.ts), then revokes its access under "Connected apps", which ends
 * the app's tokens.
 */
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { callAccounts, expectInvalidToken, expectSampleAccounts, signInAt, tokenRequest } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, RP_APPS, test } from "./support/fixtures.js";
import { AISP_DESCRIPTION, ALICE, expectAtCallback, expectConsentPage, expectLoginPage, shownJson, shownStatus, signIn } from "./support/journey.js";

const app = RP_APPS.legacy;
const client = { consumerKey: app.consumerKey, consumerSecret: app.consumerSecret };

test("revoking a connected app on the Account page ends its refresh and access tokens", { tag: "@postgresql" }, async ({ page, rp }) => {
  // alice connects the app: sign in, consent, code exchanged by the relying party.
  await page.goto(`${rp.url}/start?app=legacy`);
  await expectLoginPage(page, app.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, app.name);
  await page.getByRole("button", { name: "Allow" }).click();
  await expectAtCallback(page, rp);
  expect(await shownStatus(page, "token-status")).toBe(200);
  const issued = await shownJson(page, "token-response");
  expect(issued.refresh_token).toEqual(expect.any(String));
  expect(await shownStatus(page, "api-status")).toBe(200);

  // The refresh token works (rotation: a new pair), and so does the new access token.
  const refreshed = await tokenRequest(client, { grant_type: "refresh_token", refresh_token: issued.refresh_token });
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  const refreshToken: string = refreshed.body.refresh_token;
  const accessToken: string = refreshed.body.access_token;
  expect(refreshToken).toEqual(expect.any(String));
  const before = await callAccounts(accessToken);
  expect(before.status, JSON.stringify(before.body)).toBe(200);
  expectSampleAccounts(before.body);

  // Same browser: alice is already signed in, the Account page opens without a sign-in.
  await page.goto(`${TOLLGATE_URL}/account`);
  await expect(page).toHaveURL(`${TOLLGATE_URL}/account`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your account");
  await expect(page.getByText(`Signed in as ${ALICE.username}`)).toBeVisible();
  // alice is no admin: no link to the console.
  await expect(page.getByRole("link", { name: "Go to the Tollgate console" })).toHaveCount(0);

  const connected = page.getByRole("region", { name: "Connected apps" });
  const items = connected.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3 }) });
  await expect(items).toHaveCount(1);
  const item = items.filter({ has: page.getByRole("heading", { name: app.name, exact: true }) });
  await expect(item).toHaveCount(1);
  await expect(item.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  // The permission in words only, never the scope's code (issue 19), and when the app last
  // got a token (the refresh above).
  await expect(item.getByRole("list", { name: "Permissions" }).getByRole("listitem")).toHaveText([AISP_DESCRIPTION]);
  await expect(item.getByText("aisp", { exact: true })).toHaveCount(0);
  expect(await item.textContent()).not.toMatch(/\baisp\b/);
  await expect(item.getByText(/· last used /)).toBeVisible();
  await expect(item.getByText("last used never")).toHaveCount(0);
  await expectAccessible(page);

  // Revoke, with the inline confirmation.
  await item.getByRole("button", { name: `Revoke access for ${app.name}` }).click();
  const confirm = item.getByRole("group", { name: `Revoke ${app.name}'s access? This also revokes the app's tokens.` });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Yes, revoke access" }).click();
  await expect(connected.getByRole("status").filter({ hasText: `${app.name} can no longer access your accounts.` })).toBeVisible();
  await expect(connected.getByText("No apps are connected to your account.")).toBeVisible();
  await expect(connected.getByRole("heading", { name: app.name })).toHaveCount(0);

  // The app's refresh token stops working, and its access tokens are refused at the gateway.
  const afterRefresh = await tokenRequest(client, { grant_type: "refresh_token", refresh_token: refreshToken });
  expect(afterRefresh.status, JSON.stringify(afterRefresh.body)).toBe(400);
  expect(afterRefresh.body.error).toBe("invalid_grant");
  expect(afterRefresh.body.access_token).toBeUndefined();
  expectInvalidToken(await callAccounts(accessToken));
  expectInvalidToken(await callAccounts(issued.access_token));

  // The revocation is stored: still nothing connected after a reload ...
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your account");
  await expect(connected.getByText("No apps are connected to your account.")).toBeVisible();
  // ... and the app has to ask for alice's permission again (after her sign-in: a PSD2
  // request needs strong customer authentication every time).
  await page.goto(`${rp.url}/start?app=legacy`);
  await expectLoginPage(page, app.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, app.name);
});

test("the Account page asks for a sign-in first and lists nothing for a user without consents", async ({ page }) => {
  await signInAt(page, "/account", ALICE);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your account");
  await expect(page.getByText(`Signed in as ${ALICE.username}`)).toBeVisible();
  // alice's consents are deleted before every test (fixtures.ts).
  await expect(page.getByRole("region", { name: "Connected apps" }).getByText("No apps are connected to your account.")).toBeVisible();
  await expectAccessible(page);
});
