/**
 * RP-Initiated Logout 1.0 in Chromium: an app sends the PSU to the end_session_endpoint
 * without an ID token, so the bank asks first (§2) on /logout; "Sign out" ends the session
 * and the browser goes back to the URI the app registered, with its state.
 */
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { signInAt } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";

test("an app's logout request without an ID token: the PSU is asked, signs out and goes back to the app with its state", async ({ page, newUser }) => {
  const user = await newUser("logout");
  await signInAt(page, "/account", user);

  const params = new URLSearchParams({ client_id: DEMO.strictApp.consumerKey, post_logout_redirect_uri: DEMO.postLogoutRedirectUrl, state: "e2e-logout" });
  await page.goto(`/oauth2/v1/logout?${params}`);
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/logout");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Sign out of .+\?$/);
  await expectAccessible(page);

  // The app's page is not served in this test: the navigation to it is what counts.
  await page.route(`${DEMO.postLogoutRedirectUrl}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Signed out</title><p>Back at the app" }));
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${DEMO.postLogoutRedirectUrl}?state=e2e-logout`);

  // The session at the bank has ended.
  await page.goto("/account");
  await expect(page).toHaveURL((url) => url.pathname === "/login");
});

test("the sign-out page without a redirect says the PSU is signed out", async ({ page }) => {
  await page.goto("/logout?signed-out");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You have signed out");
  await expectAccessible(page);
});
