/**
 * The queue of dynamic registrations (RFC 7591) and the dashboard's latency, in Chromium against
 * the built server, which holds registrations for approval (REGISTRATION_REQUIRES_APPROVAL) and
 * serves metrics (METRICS_PORT, playwright.config.ts):
 *
 * a TPP registers and its 201 answer says it is pending; the admin sees the count of pending
 * registrations beside "Registrations" in the navigation, finds the registration in the queue
 * with its software id and roles, approves it with the primary "Approve" (whose confirmation is
 * primary too, never a danger button), and the count drops; a second registration of the same
 * software is refused, pointing at RFC 7592;
 * the dashboard shows p50, p95 and p99 of the upstream latency per API after gateway calls, and
 * the app beside each client.
 *
 * Every page shown passes the accessibility checks, in both colour schemes.
 */
import type { Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { callProducts, clientCredentialsToken, consoleNav, panel, readTable, refreshedClientTraffic, signInToConsole } from "./support/console.js";
import { AUDIT_REFUSAL_FLUSH_SECONDS } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { newSoftware, register } from "./support/registration.js";

/** The navigation's link to the queue; its name ends with the count ("Registrations (2 pending)") while some wait. */
const queueLink = (page: Page) => consoleNav(page).getByRole("link", { name: /^Registrations\b/ });

/** The count the navigation shows beside "Registrations": 0 when it shows none. */
async function shownCount(page: Page): Promise<number> {
  const badge = queueLink(page).locator(".nav-count");
  return (await badge.count()) === 0 ? 0 : Number(await badge.innerText());
}

test("a dynamic registration waits in the queue with the navigation's count; the admin approves it with the primary button and the count drops", async ({ page }) => {
  test.setTimeout(60_000);
  const software = newSoftware();
  const registered = await register(software);
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  expect(registered.body).toMatchObject({ software_id: software.softwareId, status: "pending", status_description: expect.stringMatching(/awaits the bank's approval/) });

  // The same software again is refused: the TPP updates its registration instead (RFC 7592).
  const again = await register({ ...software });
  expect(again.status).toBe(400);
  expect(again.body).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringMatching(/registration_client_uri .*RFC 7592/) });

  await signInToConsole(page);
  await expect(queueLink(page).locator(".nav-count")).toBeVisible();
  const before = await shownCount(page);
  expect(before).toBeGreaterThanOrEqual(1);
  await expect(queueLink(page)).toHaveAccessibleName(`Registrations (${before} pending)`);

  await queueLink(page).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pending registrations");
  const queue = panel(page, "Waiting for approval");
  const table = queue.getByRole("table", { name: "Registrations waiting for approval, oldest first" });
  const rows = await readTable(table);
  expect(rows).toHaveLength(before);
  const mine = rows.find((r) => r["Software id"] === software.softwareId);
  expect(mine, JSON.stringify(rows)).toBeDefined();
  expect(mine!.App.startsWith(software.clientName)).toBe(true);
  expect(mine!["PSD2 roles"]).toContain("Account information (PSP_AI)");
  await expectAccessible(page);

  // Approve is the primary action, and so is its confirmation; Reject stays a danger action.
  const row = table.getByRole("row").filter({ hasText: software.softwareId });
  const appPage = await row.getByRole("link", { name: mine!.App, exact: true }).getAttribute("href");
  const approve = row.getByRole("button", { name: `Approve ${mine!.App}` });
  await expect(approve).toHaveClass(/\bprimary\b/);
  await expect(approve).not.toHaveClass(/\bdanger\b/);
  await expect(row.getByRole("button", { name: `Reject ${mine!.App}` })).toHaveClass(/\bdanger\b/);
  await approve.click();
  const confirm = row.getByRole("button", { name: "Yes, approve" });
  await expect(confirm).toBeFocused();
  await expect(confirm).toHaveClass(/\bprimary\b/);
  await expect(confirm).not.toHaveClass(/\bdanger\b/);
  await expectAccessible(page);
  await confirm.click();

  await expect(queue.getByRole("status").filter({ hasText: `${mine!.App} approved: its client can get tokens.` })).toBeVisible();
  await expect(table.getByRole("row").filter({ hasText: software.softwareId })).toHaveCount(0);
  await expect.poll(() => shownCount(page)).toBe(before - 1);
  await expectAccessible(page);

  // The app is approved: its page says so.
  await page.goto(appPage!);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(mine!.App);
  await expect(panel(page, "Overview").getByText("Waiting for the bank's approval")).toHaveCount(0);
});

test("the dashboard shows p50, p95 and p99 of each API's upstream latency, and each client's app beside its consumer key", async ({ page }) => {
  test.setTimeout(60_000);
  const token = await clientCredentialsToken(DEMO.app);
  expect(token.status).toBe(200);
  for (let i = 0; i < 5; i++) expect((await callProducts(token.body.access_token)).status).toBe(200);

  await signInToConsole(page);
  const latency = panel(page, "Latency per API");
  const latencyTable = latency.getByRole("table", { name: "Upstream latency per API, p50, p95 and p99" });
  const products = (await readTable(latencyTable)).find((r) => r.API === "products");
  expect(products, "the products API's latency").toBeDefined();
  expect(Number(products!.Calls)).toBeGreaterThanOrEqual(5);
  for (const quantile of ["p50", "p95", "p99"]) expect(products![quantile], quantile).toMatch(/^\d+(\.\d+)? (ms|s)$|^10 s or more$/);
  await expect(latency.getByText(/this instance's calls since it started at/)).toBeVisible();

  // Traffic per client: the app's name beside its consumer key (the calls are counted on the flush: Refresh until they are in).
  await expect
    .poll(async () => (await refreshedClientTraffic(page, DEMO.app.consumerKey))?.App, { timeout: (AUDIT_REFUSAL_FLUSH_SECONDS + 6) * 1000 })
    .toBe(DEMO.app.name);
  const perClient = page.getByRole("table", { name: "Gateway calls per client" });
  await expect(perClient.getByRole("link", { name: DEMO.app.name, exact: true })).toHaveAttribute("href", /^\/admin\/apps\//);
  await expectAccessible(page);
});
