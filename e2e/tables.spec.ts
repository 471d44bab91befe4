/**
 * The console's tables fit their frame, in Chromium against the built server, at a laptop's
 * width (1280 px) and a phone's (390 px):
 *
 * 1. on the tokens page a token is revoked with its "Revoke" button in view without
 *    scrolling sideways (the actions column stays at the table's right edge, and the page
 *    itself never scrolls sideways); the confirmation is wholly in view and closes on Escape,
 *    giving focus back to "Revoke"; a row's "Details" shows its other fields;
 * 2. the API products' "Delete" confirmation is wholly in view too, and closes on a click
 *    outside it;
 * 3. the Account page's table of sign-in methods fits a phone without scrolling sideways.
 *
 * Every state shown passes the accessibility checks, in the light and dark schemes.
 */
import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";
import { AISP_PRODUCT, appWithToken, openConsolePage, panel, readRowDetails, signInAt, signInToConsole, uniqueName } from "./support/console.js";
import { expect, test } from "./support/fixtures.js";
import { ALICE } from "./support/journey.js";

const WIDTHS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** The page does not scroll sideways: its content is no wider than the viewport. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, clientWidth } = await page.locator("html").evaluate((root) => ({ scrollWidth: root.scrollWidth, clientWidth: root.clientWidth }));
  expect(scrollWidth, "the page's width").toBeLessThanOrEqual(clientWidth);
}

/** The element is wholly inside the viewport, as it is now (nothing scrolled). */
async function expectInViewport(page: Page, element: Locator): Promise<void> {
  const box = await element.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, "the element is rendered").not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
}

/** Scrolls the page (only up or down) so that `element`'s top is a third of the way down the viewport. */
async function scrollVerticallyTo(element: Locator): Promise<void> {
  await element.evaluate((e) => {
    const root = e.ownerDocument.documentElement;
    root.scrollTop += e.getBoundingClientRect().top - root.clientHeight / 3;
  });
}

/** How far the page and the table's frame are scrolled sideways. */
const sidewaysScroll = (table: Locator) => table.evaluate((t) => ({ page: t.ownerDocument.documentElement.scrollLeft, table: t.closest(".table-wrap")!.scrollLeft }));

for (const size of WIDTHS) {
  test.describe(`at ${size.width} px`, () => {
    test(`a token is revoked on the tokens page without scrolling sideways (${size.name})`, async ({ page }) => {
      test.setTimeout(90_000);
      const { client } = await appWithToken(page, uniqueName("E2E Tables App"));

      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`/admin/tokens?clientId=${encodeURIComponent(client.consumerKey)}`);
      const table = page.getByRole("table", { name: "Tokens", exact: true });
      await expect(table.locator("tbody tr")).toHaveCount(1);
      await expectNoSidewaysScroll(page);
      const row = table.locator("tbody tr").first();
      const prefix = (await row.getByRole("rowheader").textContent())!.trim();
      const revoke = row.getByRole("button", { name: `Revoke token ${prefix}` });

      // "Revoke" is in view once the page is scrolled down to the row: nothing sideways.
      await scrollVerticallyTo(row);
      await expectInViewport(page, revoke);
      await expectAccessible(page);

      // "Details" shows the token's other fields under its row.
      const details = row.getByRole("button", { name: `Details ${prefix}` });
      await expect(details).toHaveAttribute("aria-expanded", "false");
      const fields = await readRowDetails(row);
      await expect(details).toHaveAttribute("aria-expanded", "true");
      expect(fields["Consumer key"]).toBe(client.consumerKey);
      expect(fields.Products).toBe(AISP_PRODUCT.name);
      expect(Object.keys(fields)).toEqual(["Consumer key", "Products", "Scopes", "Issued", "Expires", "Grant", "Binding", "Refresh token"]);
      await expectNoSidewaysScroll(page);
      await expectAccessible(page);

      // The confirmation is wholly in view; Escape closes it and gives focus back to "Revoke".
      await revoke.click();
      const question = row.getByRole("group", { name: /^Revoke token .* of E2E Tables App/ });
      await expect(question).toBeVisible();
      await expect(revoke).toHaveAttribute("aria-expanded", "true");
      await expect(question.getByRole("button", { name: "Yes, revoke" })).toBeFocused();
      await expectInViewport(page, question);
      await expectAccessible(page);
      await page.keyboard.press("Escape");
      await expect(question).toHaveCount(0);
      await expect(revoke).toBeFocused();
      await expect(revoke).toHaveAttribute("aria-expanded", "false");

      // Asked again, and confirmed: the token is revoked, and nothing was scrolled sideways.
      await revoke.click();
      await expectInViewport(page, question);
      await question.getByRole("button", { name: "Yes, revoke" }).click();
      await expect(page.getByRole("status").filter({ hasText: `Token ${prefix} revoked.` })).toBeVisible();
      await expect(row.getByRole("cell").first()).toContainText("REVOKED");
      expect(await sidewaysScroll(table)).toEqual({ page: 0, table: 0 });
      await expectNoSidewaysScroll(page);
    });

    test(`the API products' confirmation is wholly in view and closes on a click outside (${size.name})`, async ({ page }) => {
      await signInToConsole(page);
      await page.setViewportSize({ width: size.width, height: size.height });
      await openConsolePage(page, "API products", "API products and APIs");
      await expectNoSidewaysScroll(page);
      const products = panel(page, "API products");
      const row = products.getByRole("row").filter({ has: page.getByRole("rowheader", { name: AISP_PRODUCT.name, exact: true }) });
      const remove = row.getByRole("button", { name: `Delete API product ${AISP_PRODUCT.name}` });
      await scrollVerticallyTo(row);
      await expectInViewport(page, remove);

      const fields = await readRowDetails(row);
      expect(fields.Scopes).toContain("aisp");
      await expectNoSidewaysScroll(page);

      await remove.click();
      const question = row.getByRole("group", { name: /^Delete the API product PSD2-AISP-v1\?/ });
      await expectInViewport(page, question);
      await expectAccessible(page);
      await page.getByRole("heading", { level: 1 }).click();
      await expect(question).toHaveCount(0);
      await expect(row).toHaveCount(1);
    });
  });
}

test("the Account page's sign-in methods fit a phone without scrolling sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAt(page, "/account", ALICE);
  const section = page.getByRole("region", { name: "Sign-in methods" });
  const table = section.getByRole("table", { name: "Your sign-in methods" });
  await expect(table).toBeVisible();
  await expectNoSidewaysScroll(page);
  const frame = table.locator("xpath=..");
  const { scrollWidth, clientWidth } = await frame.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  expect(scrollWidth, "the table's width").toBeLessThanOrEqual(clientWidth);

  const row = table.locator("tbody tr").first();
  // Earlier journeys leave alice consents listed above: the row is brought up, never sideways.
  await scrollVerticallyTo(row);
  await expectInViewport(page, row.getByRole("button", { name: /^Remove / }));
  const fields = await readRowDetails(row);
  expect(Object.keys(fields)).toEqual(["Type", "Added", "Last used"]);
  expect((await frame.evaluate((e) => e.scrollWidth - e.clientWidth)) <= 0).toBe(true);
  await expectNoSidewaysScroll(page);
  await expectAccessible(page);
});
