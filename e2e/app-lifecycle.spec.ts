/**
 * An app's page in tabs, and an app's end of life, in Chromium against the built server, on a
 * desktop (1280 px) and a phone (390 px) viewport: the tabs follow the WAI-ARIA tabs pattern
 * (arrow keys, Home, End) and the URL (a link opens a tab, the back button returns to the one
 * before); an admin renames an app, then deletes it: the confirmation names what happens (its
 * live token revoked, its credentials removed, no undo) and wants the app's name typed; the
 * token is refused at the gateway at once and the consumer key at the token endpoint. Every
 * state shown passes the accessibility checks in the light and the dark scheme.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";
import {
  AISP_PRODUCT,
  callProducts,
  clientCredentialsToken,
  createAppInConsole,
  expectInvalidToken,
  openAppTab,
  openConsolePage,
  panel,
  signInToConsole,
  uniqueName,
} from "./support/console.js";
import { expect, test } from "./support/fixtures.js";

const TABS = ["Overview", "Credentials", "Security", "Callback URLs", "Tokens", "Traffic"];

/** Finds the app `name` on the Apps page and opens its page. */
async function openApp(page: Page, name: string): Promise<void> {
  await page.getByRole("searchbox", { name: "Search by name" }).fill(name);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await panel(page, "All apps").getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
}

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("an admin finds their way through the app's tabs, renames the app, then deletes it", async ({ page }) => {
      // Sign-in, an app, and the accessibility checks of seven states in two color schemes.
      test.setTimeout(120_000);
      const name = uniqueName("E2E Lifecycle App");
      await signInToConsole(page);
      await openConsolePage(page, "Apps");
      const credential = await createAppInConsole(page, { name, callbackUrls: ["https://e2e-lifecycle.example/callback"], productLabels: [AISP_PRODUCT.label] });
      const token = await clientCredentialsToken(credential);
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      const accessToken: string = token.body.access_token;
      expect((await callProducts(accessToken)).status).toBe(200);
      await openApp(page, name);

      // The tabs: Overview first and selected; the keyboard moves between them, the URL follows.
      const tablist = page.getByRole("tablist", { name: `App ${name}` });
      await expect(tablist.getByRole("tab")).toHaveText(TABS);
      const tab = (label: string) => tablist.getByRole("tab", { name: label, exact: true });
      await expect(tab("Overview")).toHaveAttribute("aria-selected", "true");
      await expect(page.getByRole("tabpanel", { name: "Overview" })).toBeVisible();
      await expectAccessible(page);
      await tab("Overview").focus();
      await page.keyboard.press("ArrowRight");
      await expect(tab("Credentials")).toBeFocused();
      await expect(tab("Credentials")).toHaveAttribute("aria-selected", "true");
      await expect(page).toHaveURL((url) => url.searchParams.get("tab") === "credentials");
      await expect(page.getByRole("tabpanel", { name: "Credentials" }).getByRole("article", { name: `Consumer key ${credential.consumerKey}` })).toBeVisible();
      await page.keyboard.press("End");
      await expect(tab("Traffic")).toBeFocused();
      await expect(panel(page, "Gateway traffic, last 24 hours")).toBeVisible();
      await expectAccessible(page);
      await page.keyboard.press("ArrowRight");
      await expect(tab("Overview")).toBeFocused();
      await page.keyboard.press("ArrowLeft");
      await expect(tab("Traffic")).toHaveAttribute("aria-selected", "true");
      // Only the selected tab is in the tab order.
      await expect(tab("Overview")).toHaveAttribute("tabindex", "-1");
      // The back button returns to the tab before; a link opens a tab.
      await page.goBack();
      await expect(tab("Overview")).toHaveAttribute("aria-selected", "true");
      await page.goBack();
      await expect(tab("Traffic")).toHaveAttribute("aria-selected", "true");
      await page.goto(`${new URL(page.url()).pathname}?tab=tokens`);
      await expect(tab("Tokens")).toHaveAttribute("aria-selected", "true");
      await expect(panel(page, "Live tokens of this app").getByRole("table")).toBeVisible();
      await expectAccessible(page);

      // Rename: the heading and the list follow.
      await openAppTab(page, "Overview");
      const renamed = `${name} renamed`;
      const naming = panel(page, "Name");
      await naming.getByLabel("App name").fill(renamed);
      await naming.getByRole("button", { name: "Rename app" }).click();
      await expect(naming.getByRole("status").filter({ hasText: `App renamed to ${renamed}.` })).toBeVisible();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(renamed);
      await expectAccessible(page);

      // Delete: what it does, named; the app's name typed; a last confirmation with the live token.
      const deletion = panel(page, "Delete app");
      await deletion.getByRole("button", { name: "Delete app…" }).click();
      const form = deletion.getByRole("form", { name: `Delete ${renamed}` });
      await expect(form.getByRole("heading", { name: `Delete ${renamed}` })).toBeFocused();
      await expect(form.getByRole("listitem").first()).toHaveText("Revokes 1 live access token: they stop working at once, at the gateway and at introspection.");
      await expect(form.getByRole("listitem").last()).toHaveText("Cannot be undone.");
      await form.getByLabel(`Type the app's name (${renamed}) to confirm`).fill(name);
      await form.getByRole("button", { name: "Delete app", exact: true }).click();
      await expect(form.getByRole("alert")).toHaveText(`Type the app's name, ${renamed}, to confirm.`);
      await form.getByLabel(`Type the app's name (${renamed}) to confirm`).fill(renamed);
      await form.getByRole("button", { name: "Delete app", exact: true }).click();
      const confirm = form.getByRole("group", { name: `Delete ${renamed}? This revokes 1 live access token and removes its credentials; it cannot be undone.` });
      await expect(confirm.getByRole("button", { name: "Yes, delete the app" })).toBeFocused();
      await expectAccessible(page);
      expect((await callProducts(accessToken)).status, "nothing happens before the last confirmation").toBe(200);
      await confirm.getByRole("button", { name: "Yes, delete the app" }).click();

      // Back on the list, which says what was done; the app is gone, its token and key refused.
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Apps");
      await expect(page.getByRole("status").filter({ hasText: `${renamed} deleted: 1 live access token revoked, its credentials removed.` })).toBeVisible();
      await page.getByRole("searchbox", { name: "Search by name" }).fill(renamed);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await expect(panel(page, "All apps").getByText("No app matches these filters.")).toBeVisible();
      await expectAccessible(page);
      expectInvalidToken(await callProducts(accessToken));
      const refused = await clientCredentialsToken(credential);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe("invalid_client");
    });
  });
}
