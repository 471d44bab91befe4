/**
 * The audit log journeys (/admin/audit), in Chromium against the built server:
 *
 * 1. a support engineer finds why a client's call was refused in three clicks from the
 *    console's home (Apps, the app, "Audit events of this app"), sees the refusal's reason
 *    and description, and exports the filtered events as CSV and JSON;
 * 2. the dashboard's failures link each client's refusals to the audit log filtered on
 *    their client, type, reason and the dashboard's range, and the filter form narrows the
 *    list through the URL.
 *
 * Each journey makes its own refused call under a request id of its own (X-Request-Id), for a
 * demo client no other journey refuses, so the refusal's aggregated audit row (one per
 * client, reason and minute) is its own. The audit page passes the accessibility checks.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { basicAuth, consoleNav, panel, readTable, signInToConsole, waitForAuditEvent } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import type { Json } from "./support/journey.js";

const FAILED_AUTHENTICATION = "client.authentication_failed";
const CSV_HEADER = "at,type,actor,subject,count,reason,description,request_id,interaction_id,details";

/** The refused call: a client credentials request with the client's key and a wrong secret, under `requestId`. */
async function refuseClient(consumerKey: string, requestId: string): Promise<{ error: string; description: string }> {
  const res = await fetch(`${TOLLGATE_URL}/oauth2/v1/token`, {
    method: "POST",
    headers: {
      Authorization: basicAuth(consumerKey, "not-the-secret"),
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
      "X-Request-Id": requestId,
    },
    body: new URLSearchParams({ grant_type: "client_credentials" }).toString(),
  });
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(401);
  expect(res.headers.get("x-request-id")).toBe(requestId);
  expect(body.error).toBe("invalid_client");
  expect(body.error_description).toEqual(expect.any(String));
  return { error: body.error, description: body.error_description };
}

/** A request id no other request has. */
const newRequestId = () => `e2e-audit-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;

/** The audit page's table of events. */
function eventsTable(page: Page): Locator {
  return page.getByRole("table", { name: "Audit events" });
}

test("a support engineer finds why a client's call was refused in three clicks, and exports it", async ({ page }) => {
  const client = DEMO.app;
  const requestId = newRequestId();
  const refusal = await refuseClient(client.consumerKey, requestId);

  await signInToConsole(page);
  const event = await waitForAuditEvent(page, { clientId: client.consumerKey, type: FAILED_AUTHENTICATION }, (e) => JSON.parse(e.details).request_id === requestId);
  expect(event.actor).toBe(client.consumerKey);

  // From the console's home: Apps, the app, its audit events.
  let clicks = 0;
  const click = async (target: Locator) => {
    await target.click();
    clicks++;
  };
  await click(consoleNav(page).getByRole("link", { name: "Apps", exact: true }));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Apps");
  await click(panel(page, "All apps").getByRole("link", { name: client.name, exact: true }));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(client.name);
  await click(page.getByRole("link", { name: "Audit events of this app" }));
  expect(clicks).toBeLessThanOrEqual(3);

  // The audit log, filtered by the app's consumer key (in the URL and on the form).
  await expect(page).toHaveURL((url) => url.pathname === "/admin/audit" && url.searchParams.get("clientId") === client.consumerKey);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Audit log");
  await expect(page.getByRole("link", { name: "Audit log", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByLabel("Client id (consumer key)")).toHaveValue(client.consumerKey);
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(page.getByText(`Times are in your browser's time zone, ${zone}.`)).toBeVisible();

  // The refusal's row: when (to the second), what, who, and why.
  const row = eventsTable(page).getByRole("row").filter({ hasText: requestId });
  await expect(row).toHaveCount(1);
  const rows = await readTable(eventsTable(page));
  const ours = rows.find((r) => r["Request id"]?.includes(requestId));
  expect(ours, JSON.stringify(rows)).toBeDefined();
  expect(ours!.Type).toContain(FAILED_AUTHENTICATION);
  // Who: the client's app by name, linked to its page, with the consumer key the log recorded second.
  expect(ours!.Who).toBe(`${client.name}${client.consumerKey}`);
  await expect(row.getByRole("link", { name: client.name, exact: true })).toHaveAttribute("href", /^\/admin\/apps\/[^/]+$/);
  expect(ours!.Time).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  const reason = row.getByRole("cell").nth(3);
  await expect(reason.locator("code")).toHaveText(refusal.error);
  await expect(reason).toContainText(refusal.description);
  await expect(row.getByRole("rowheader").locator("time")).toHaveAttribute("datetime", new Date(event.at).toISOString());
  await expectAccessible(page);

  // The filtered events as a CSV file, holding the refusal.
  const csvDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csvFile = await csvDownload;
  expect(csvFile.suggestedFilename()).toMatch(/^tollgate-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.csv$/);
  const csv = (await readFile(await csvFile.path(), "utf8")).replace(/^\uFEFF/, "");
  const lines = csv.split("\r\n");
  expect(lines[0]).toBe(CSV_HEADER);
  const line = lines.find((l) => l.includes(requestId));
  expect(line, csv).toBeDefined();
  expect(line!.startsWith(`${event.at},${FAILED_AUTHENTICATION},${client.consumerKey},,${event.count},${refusal.error},`)).toBe(true);
  expect(line).toContain(`,${requestId},`);
  await expect(page.getByRole("status").filter({ hasText: `Downloaded ${csvFile.suggestedFilename()} with` })).toBeVisible();

  // And as JSON, with the filter it was made with.
  const jsonDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export JSON" }).click();
  const jsonFile = await jsonDownload;
  expect(jsonFile.suggestedFilename()).toMatch(/^tollgate-audit-.+\.json$/);
  const exported = JSON.parse(await readFile(await jsonFile.path(), "utf8"));
  expect(exported.filter).toEqual({ clientId: client.consumerKey });
  expect(exported.capped).toBe(false);
  expect(exported.count).toBe(exported.events.length);
  const exportedEvent = exported.events.find((e: Json) => e.details.request_id === requestId);
  expect(exportedEvent).toMatchObject({ id: event.id, type: FAILED_AUTHENTICATION, actor: client.consumerKey, details: { reason: refusal.error, description: refusal.description } });
});

test("the dashboard links each client's refusals to the audit log, filtered on them, which the filters narrow", async ({ page }) => {
  const client = DEMO.strictApp;
  const requestId = newRequestId();
  await refuseClient(client.consumerKey, requestId);
  await signInToConsole(page);
  const event = await waitForAuditEvent(page, { clientId: client.consumerKey, type: FAILED_AUTHENTICATION }, (e) => JSON.parse(e.details).request_id === requestId);

  // The dashboard (loaded again: the refusal was written after it first loaded): the client's failed authentications.
  await page.reload();
  const failures = panel(page, "Failures by client and reason").getByRole("table", { name: "Refused requests by client, type, API and reason" });
  const row = failures.getByRole("row").filter({ hasText: client.consumerKey }).filter({ hasText: FAILED_AUTHENTICATION });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(3)).toHaveText("invalid_client");
  const link = row.getByRole("link", { name: `Audit events of ${FAILED_AUTHENTICATION} invalid_client by ${client.consumerKey}`, exact: true });
  await expectAccessible(page);
  await link.click();

  // The audit log of the client's failed authentications for that reason over the dashboard's range (the last 24 hours), the refusal among them.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Audit log");
  const url = new URL(page.url());
  const [from, to] = [url.searchParams.get("from") ?? "", url.searchParams.get("to") ?? ""];
  expect([url.searchParams.get("type"), url.searchParams.get("clientId"), url.searchParams.get("reason")]).toEqual([FAILED_AUTHENTICATION, client.consumerKey, "invalid_client"]);
  expect(Date.parse(from)).toBeLessThanOrEqual(Date.parse(event.at));
  expect(Date.parse(to)).toBeGreaterThan(Date.parse(event.at));
  expect(Date.parse(to) - Date.parse(from)).toBeGreaterThan(23 * 3_600_000);
  await expect(page.getByLabel("Event type")).toHaveValue(FAILED_AUTHENTICATION);
  await expect(page.getByLabel("Client id (consumer key)")).toHaveValue(client.consumerKey);
  await expect(page.getByLabel("Reason")).toHaveValue("invalid_client");
  const localFrom = await page.evaluate((iso) => {
    const d = new Date(iso);
    const pad = (n: number) => String(n).padStart(2, "0");
    const seconds = d.getSeconds() ? `:${pad(d.getSeconds())}` : "";
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}${seconds}`;
  }, from);
  await expect(page.getByLabel("From", { exact: true })).toHaveValue(localFrom);
  await expect(eventsTable(page).getByRole("row").filter({ hasText: requestId })).toHaveCount(1);
  const rows = await readTable(eventsTable(page));
  expect(rows.every((r) => r.Type?.startsWith(FAILED_AUTHENTICATION) && r.Who === `${client.name}${client.consumerKey}` && r.Reason?.startsWith("invalid_client"))).toBe(true);

  // Another reason: none of the client's failed authentications has it.
  await page.getByLabel("Reason").fill("invalid_grant");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL((u) => u.searchParams.get("reason") === "invalid_grant");
  await expect(page.getByText("No event matches these filters.")).toBeVisible();
  await page.getByLabel("Reason").fill("invalid_client");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(eventsTable(page).getByRole("row").filter({ hasText: requestId })).toHaveCount(1);

  // Narrowed to successes (a refusal is a failure): the URL keeps the filter, the refusal is gone.
  await page.getByLabel("Outcome").selectOption("success");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get("outcome") === "success" && url.searchParams.get("type") === FAILED_AUTHENTICATION);
  await expect(page.getByText("No event matches these filters.")).toBeVisible();

  // A reload keeps the filters; "Clear filters" lists every event again, the refusal among them.
  await page.reload();
  await expect(page.getByLabel("Outcome")).toHaveValue("success");
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin/audit" && url.search === "");
  await expect(page.getByLabel("Event type")).toHaveValue("");
  await expect(eventsTable(page).getByRole("row").filter({ hasText: requestId })).toHaveCount(1);
  await expectAccessible(page);
});
