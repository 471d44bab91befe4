/**
 * The support engineer's journey through the console's operations views, in Chromium against
 * the built server: a client's token is found by its consumer key and by its id prefix, with
 * the console's search and on the tokens page; revoked there, it shows as REVOKED by the admin
 * with the time; the client's next call with it is refused at the gateway, and the refusal is
 * found from the dashboard's failures (over a range chosen in the URL) on the audit page, its
 * reason shown. Every page visited passes the accessibility checks.
 */
import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";
import {
  ADMIN,
  AISP_PRODUCT,
  appWithToken,
  callProducts,
  consoleNav,
  expectInvalidToken,
  expectSampleProducts,
  panel,
  readTable,
  refreshedClientTraffic,
  uniqueName,
  waitForAuditEvent,
} from "./support/console.js";
import { AUDIT_REFUSAL_FLUSH_SECONDS } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";

const GATEWAY_REFUSED = "gateway.refused";

/** An instant to the second with its time zone, as the console shows times ("24 Nov 2026, 23:41:07 CET"). */
const TIME_WITH_SECONDS = /\d{1,2}:\d{2}:\d{2}\s?\S+/;

/** Searches the console with the header's search box and waits for the results page to say what it found. */
async function searchConsole(page: Page, text: string): Promise<void> {
  const search = page.getByRole("search", { name: "Apps, users and tokens" });
  await search.getByRole("searchbox", { name: "Search apps, users and tokens" }).fill(text);
  await search.getByRole("button", { name: "Search apps, users and tokens" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin/search" && url.searchParams.get("q") === text);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Search for “${text}”`);
  await expect(page.getByRole("status").filter({ hasText: /^(Found|Nothing found)/ })).toBeVisible();
}

/** The tokens page's filter form. */
const tokenFilter = (page: Page) => page.getByRole("search", { name: "Tokens", exact: true });

/** The row of a table whose text contains `text`. */
const rowWith = (table: Locator, text: string) => table.getByRole("row").filter({ hasText: text });

test("a support engineer finds a client's token, revokes it, and finds why the client's next call was refused", async ({ page }) => {
  // A long journey: eight pages, each checked for accessibility in both color schemes.
  test.setTimeout(120_000);
  const name = uniqueName("E2E Operations App");
  // The client gets a token and calls the gateway with it.
  const { client, accessToken } = await appWithToken(page, name);
  const call = await callProducts(accessToken);
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  expectSampleProducts(call.body);

  // The console's search finds the app by its consumer key.
  await searchConsole(page, client.consumerKey);
  await expect(page.getByRole("status").filter({ hasText: `Found 1 app, no users, no tokens, no PSD2 consents and no audit events for “${client.consumerKey}”.` })).toBeVisible();
  const apps = await readTable(page.getByRole("table", { name: "Apps found" }));
  expect(apps).toHaveLength(1);
  expect(apps[0]!.App).toBe(name);
  expect(apps[0]!["Consumer keys"]).toBe(client.consumerKey);
  await expect(page.getByRole("table", { name: "Apps found" }).getByRole("link", { name, exact: true })).toHaveAttribute("href", /^\/admin\/apps\/[^/]+$/);
  await expectAccessible(page);

  // The tokens page, filtered by the client id (kept in the URL), lists the live token by the start of its id.
  await consoleNav(page).getByRole("link", { name: "Tokens", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tokens");
  await tokenFilter(page).getByLabel("Client id (consumer key)").fill(client.consumerKey);
  await tokenFilter(page).getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin/tokens" && url.searchParams.get("clientId") === client.consumerKey);
  const tokensTable = page.getByRole("table", { name: "Tokens", exact: true });
  // The filtered list replaces the list of every token once loaded.
  await expect(tokensTable.locator("tbody tr")).toHaveCount(1);
  const [token] = await readTable(tokensTable);
  const prefix = token!.Token!;
  expect(prefix).toMatch(/^c[0-9a-z]{12}$/);
  expect(token!.State).toBe("LIVE");
  expect(token!.App).toBe(name);
  expect(token!["Consumer key"]).toBe(client.consumerKey);
  expect(token!.Products).toBe(AISP_PRODUCT.name);
  expect(token!.Issued).toMatch(TIME_WITH_SECONDS);
  expect(token!.Expires).toMatch(TIME_WITH_SECONDS);
  await expectAccessible(page);

  // The console's search finds the token by that id prefix, shown in its row.
  await searchConsole(page, prefix);
  const found = await readTable(page.getByRole("table", { name: "Tokens found" }));
  expect(found.map((t) => [t.Token, t["Consumer key"], t.State])).toEqual([[prefix, client.consumerKey, "LIVE"]]);
  await expectAccessible(page);

  // Revoked on the tokens page (opened from its address), it shows as REVOKED by the admin, with the time.
  await page.goto(`/admin/tokens?clientId=${encodeURIComponent(client.consumerKey)}`);
  const row = rowWith(tokensTable, prefix);
  await row.getByRole("button", { name: `Revoke token ${prefix}` }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Token ${prefix} revoked.` })).toBeVisible();
  const state = row.getByRole("cell").first();
  await expect(state).toContainText("REVOKED");
  await expect(state).toContainText(`by admin ${ADMIN.username}`);
  await expect(state).toHaveText(TIME_WITH_SECONDS);
  await expect(row.getByRole("button", { name: `Revoke token ${prefix}` })).toHaveCount(0);

  // Filtered on the revoked tokens, the filter kept over a reload.
  await tokenFilter(page).getByLabel("State").selectOption("REVOKED");
  await tokenFilter(page).getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get("state") === "REVOKED" && url.searchParams.get("clientId") === client.consumerKey);
  await page.reload();
  await expect(tokenFilter(page).getByLabel("State")).toHaveValue("REVOKED");
  const revoked = await readTable(tokensTable);
  expect(revoked.map((t) => t.Token)).toEqual([prefix]);
  expect(revoked[0]!.State).toMatch(new RegExp(`^REVOKEDby admin ${ADMIN.username}, .*\\d{1,2}:\\d{2}:\\d{2}`));
  await expectAccessible(page);

  // The client's next call with the token is refused at the gateway.
  expectInvalidToken(await callProducts(accessToken));
  const refusal = await waitForAuditEvent(page, { clientId: client.consumerKey, type: GATEWAY_REFUSED, reason: "invalid_token" });
  expect(JSON.parse(refusal.details).token_id_prefix).toBe(prefix);

  // The dashboard over the last hour (the range in the URL) counts the client's calls and refusals.
  await consoleNav(page).getByRole("link", { name: "Dashboard", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
  const ranges = page.getByRole("navigation", { name: "Time range" });
  await ranges.getByRole("link", { name: "1 h (the last hour)" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin" && url.searchParams.get("range") === "1h");
  await expect(ranges.getByRole("link", { name: "1 h (the last hour)" })).toHaveAttribute("aria-current", "true");
  await expect(page.getByText("Gateway traffic, tokens issued and refused requests over the last hour.")).toBeVisible();
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(page.getByText(new RegExp(`Times in ${zone.replace("/", "\\/")} \\(UTC[+-]\\d{2}:\\d{2}\\)`))).toBeVisible();
  // Traffic is recorded on the flush too: Refresh until the refused call is counted.
  await expect
    .poll(() => refreshedClientTraffic(page, client.consumerKey), { timeout: (AUDIT_REFUSAL_FLUSH_SECONDS + 6) * 1000 })
    .toMatchObject({ Calls: "2", "4xx": "1", "5xx": "0", "Error rate": "50%" });

  // Its refusal among the failures, linking to the audit log filtered on it.
  const failures = page.getByRole("table", { name: "Refused requests by client, type, API and reason" });
  const failure = failures.getByRole("row").filter({ hasText: client.consumerKey }).filter({ hasText: "invalid_token" });
  await expect(failure).toHaveCount(1);
  const failureRow = (await readTable(failures)).find((r) => r.Client === client.consumerKey && r.Reason === "invalid_token");
  expect(failureRow).toMatchObject({ API: "products", Count: "1" });
  expect(failureRow!.Type).toContain(GATEWAY_REFUSED);
  await expectAccessible(page);
  await failure.getByRole("link", { name: `Audit events of ${GATEWAY_REFUSED} invalid_token by ${client.consumerKey} at products` }).click();

  // The audit page, filtered on the client, type, reason and the range, shows the refusal with its reason.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Audit log");
  await expect(page).toHaveURL((url) => {
    const p = url.searchParams;
    const [from, to] = [Date.parse(p.get("from") ?? ""), Date.parse(p.get("to") ?? "")];
    return (
      url.pathname === "/admin/audit" &&
      p.get("clientId") === client.consumerKey &&
      p.get("type") === GATEWAY_REFUSED &&
      p.get("reason") === "invalid_token" &&
      to - from > 55 * 60_000 &&
      to - from <= 65 * 60_000
    );
  });
  await expect(page.getByLabel("Reason")).toHaveValue("invalid_token");
  await expect(page.getByLabel("Client id (consumer key)")).toHaveValue(client.consumerKey);
  const events = await readTable(page.getByRole("table", { name: "Audit events" }));
  expect(events).toHaveLength(1);
  expect(events[0]!.Type).toContain(GATEWAY_REFUSED);
  // Who: the client's app by name, with the consumer key the log recorded second.
  expect(events[0]!.Who).toBe(`${name}${client.consumerKey}`);
  expect(events[0]!.Reason).toContain("invalid_token");
  expect(events[0]!.Details).toContain(`token_id_prefix: ${prefix}`);
  await expectAccessible(page);

  // The range selector changes the range: 30 days, in UTC days, the same refusal among them.
  await consoleNav(page).getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.getByRole("navigation", { name: "Time range" }).getByRole("link", { name: "30 d (the last 30 days)" }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get("range") === "30d");
  await expect(page.getByText("Gateway traffic, tokens issued and refused requests over the last 30 days.")).toBeVisible();
  await expect(page.getByText(/in buckets of 1 day\. Times in .+; the days are UTC days\./)).toBeVisible();
  const monthly = (await readTable(failures)).find((r) => r.Client === client.consumerKey && r.Reason === "invalid_token");
  expect(monthly).toMatchObject({ API: "products", Count: "1" });
  await expect(panel(page, "Tokens issued").getByRole("application", { name: "Tokens issued over time, per client" })).toBeVisible();
  await expectAccessible(page);
});
