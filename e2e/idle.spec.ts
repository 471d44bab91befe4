/**
 * The console's idle sign-out (ADMIN_IDLE_SECONDS, default 15 minutes), in Chromium against
 * the built server: two minutes before the limit a dialog warns with the time left; "Stay
 * signed in" (or Escape) keeps the session, and at the limit the console signs out and the
 * sign-in page says why. The page's clock is moved forward (Playwright's clock); the server's
 * own enforcement of the limit is tested in server/test/admin-idle.test.ts.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";
import { signInToConsole } from "./support/console.js";
import { expect, test } from "./support/fixtures.js";

const MINUTE = 60_000;

function idleDialog(page: Page) {
  return page.getByRole("dialog", { name: "You will be signed out soon" });
}

test("the console warns before an idle sign-out, keeps the session on request, and signs out at the limit", async ({ page }) => {
  await page.clock.install();
  await signInToConsole(page);
  // The dashboard's data is in: an answer after the jump would count as activity then.
  await expect(page.getByRole("heading", { name: "Gateway traffic" })).toBeVisible();
  await expect(idleDialog(page)).toBeHidden();

  await page.clock.fastForward(12 * MINUTE);
  await expect(idleDialog(page)).toBeHidden();
  await page.clock.fastForward(1.5 * MINUTE);
  const dialog = idleDialog(page);
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("signs you out after 15 minutes without activity");
  await expect(dialog.getByRole("button", { name: "Stay signed in" })).toBeFocused();
  await expectAccessible(page);

  await dialog.getByRole("button", { name: "Stay signed in" }).click();
  await expect(dialog).toBeHidden();

  await page.clock.fastForward(14 * MINUTE);
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");

  await page.clock.fastForward(14 * MINUTE);
  await expect(dialog).toBeVisible();
  await page.clock.fastForward(1.5 * MINUTE);
  await expect(page).toHaveURL((url) => url.pathname === "/login" && url.searchParams.get("next") === "/admin");
  await expect(page.getByRole("status").filter({ hasText: "signed out" })).toHaveText("You were signed out because the console was not used for 15 minutes. Sign in again to continue.");
  const session = await (await page.request.get("/session")).json();
  expect(session.user).toBeNull();
});
