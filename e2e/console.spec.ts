/**
 * Management console journeys (/admin), in Chromium against the built server:
 *
 * 1. an admin creates an app, copies its one-time key and secret, a client uses them
 *    (token, gateway), and revoking the credential in the console stops both the token
 *    already issued and the credential;
 * 3. a signed-in end user who is not an admin gets no console and no admin data;
 * 4. the dashboard (its charts and their table alternatives) reflects tokens issued per client
 *    and a failed client authentication with its reason;
 * 5. the console pages the other journeys do not open list the demo data.
 *
 * Journey 2 (end user's Account page) is in account.spec.ts. Every page the journeys show
 * passes the accessibility checks (support/accessibility.ts).
 */
import type { Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import {
  AISP_PRODUCT,
  callProducts,
  clientCredentialsToken,
  columnSum,
  consoleNav,
  createAppInConsole,
  expectInvalidToken,
  expectSampleProducts,
  openAppTab,
  openConsolePage,
  panel,
  readTable,
  signInAt,
  signInToConsole,
  uniqueName,
  type HttpResult,
} from "./support/console.js";
import { expectAccessible } from "./support/accessibility.js";
import { AUDIT_REFUSAL_FLUSH_SECONDS, TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { ALICE, type Json } from "./support/journey.js";

test.describe("an admin creates an app and revokes its credential", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("create app, copy the one-time secret, use it, revoke the credential", { tag: "@postgresql" }, async ({ page }) => {
    const name = uniqueName("E2E Console App");
    const callbackUrl = "https://e2e-console.example/callback";

    await signInToConsole(page);
    await openConsolePage(page, "Apps");
    const credential = await createAppInConsole(page, { name, callbackUrls: [callbackUrl], productLabels: [AISP_PRODUCT.label] });
    await expectAccessible(page);

    // "Copy" puts each value on the clipboard and says so.
    const secretPanel = page.getByRole("region", { name: `App ${name} created` });
    await secretPanel.getByRole("button", { name: "Copy consumer key" }).click();
    await expect(secretPanel.getByRole("status").filter({ hasText: "Consumer key copied" })).toBeVisible();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(credential.consumerKey);
    await secretPanel.getByRole("button", { name: "Copy consumer secret" }).click();
    await expect(secretPanel.getByRole("status").filter({ hasText: "Consumer secret copied" })).toBeVisible();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(credential.consumerSecret);

    // The client uses the key and secret: a client credentials token, then the products API (open data).
    const token = await clientCredentialsToken(credential);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
    expect(token.body.client_id).toBe(credential.consumerKey);
    expect(token.body.application_name).toBe(name);
    expect(token.body.api_product_list_json).toEqual([AISP_PRODUCT.name]);
    const accessToken: string = token.body.access_token;
    const before = await callProducts(accessToken);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expectSampleProducts(before.body);
    expect(before.body.caller.clientId).toBe(credential.consumerKey);
    expect(before.body.caller.appName).toBe(name);

    // The new app is listed (found by name), and its page shows what was chosen on the form.
    await page.getByRole("searchbox", { name: "Search by name" }).fill(name);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const row = panel(page, "All apps").getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("cell").nth(0)).toHaveText(DEMO.developerEmail);
    await expect(row.getByRole("cell").nth(1)).toHaveText(DEMO.organization);
    await expect(row.getByRole("cell").nth(2)).toHaveText("approved");
    await row.getByRole("link", { name, exact: true }).click();
    await expect(page).toHaveURL((url) => /^\/admin\/apps\/[^/]+$/.test(url.pathname));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
    await expect(page.getByTestId("consumer-secret")).toHaveCount(0);
    await openAppTab(page, "Callback URLs");
    await expect(panel(page, "Callback URLs").getByText(callbackUrl, { exact: true })).toBeVisible();
    // The token just issued is listed as the app's own (client credentials) token.
    await openAppTab(page, "Tokens");
    const tokens = await readTable(panel(page, "Live tokens of this app").getByRole("table"));
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.User).toBe("app (client credentials)");
    expect(tokens[0]!.Grant).toBe("client_credentials");

    await openAppTab(page, "Credentials");
    const detailUrl = page.url();
    const credentials = panel(page, "Credentials");
    const card = credentials.getByRole("article", { name: `Consumer key ${credential.consumerKey}` });
    await expect(card).toBeVisible();
    await expect(card.getByRole("definition").first()).toHaveText("approved");
    const products = await readTable(card.getByRole("table", { name: `API products of consumer key ${credential.consumerKey}` }));
    expect(products.map((p) => [p["API product"]?.startsWith(AISP_PRODUCT.name), p.Status])).toEqual([[true, "approved"]]);
    await expectAccessible(page);

    // The inline confirmation: "Cancel" changes nothing ...
    const revokeButton = card.getByRole("button", { name: `Revoke credential ${credential.consumerKey}` });
    await revokeButton.click();
    const confirm = card.getByRole("group", { name: "Revoke this credential? Its key and secret stop working now." });
    await expect(confirm).toBeVisible();
    await expectAccessible(page);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(revokeButton).toBeFocused();
    expect((await callProducts(accessToken)).status, "still valid after Cancel").toBe(200);

    // ... "Yes, revoke the credential" revokes it.
    await revokeButton.click();
    await confirm.getByRole("button", { name: "Yes, revoke the credential" }).click();
    await expect(card.getByRole("status").filter({ hasText: "Credential revoked." })).toBeVisible();
    await expect(card.getByRole("definition").first()).toHaveText("revoked");
    await expect(revokeButton).toHaveCount(0);

    // The very same access token is refused by the gateway on the next call ...
    expectInvalidToken(await callProducts(accessToken));
    // ... and the token endpoint refuses the credential.
    const refused = await clientCredentialsToken(credential);
    expect(refused.status, JSON.stringify(refused.body)).toBe(401);
    expect(refused.body.error).toBe("invalid_client");
    expect(refused.body.access_token).toBeUndefined();

    // The secret was shown once: not on a reload of the app's page, nor back on the list.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
    expect(page.url()).toBe(detailUrl);
    await expect(card.getByRole("definition").first()).toHaveText("revoked");
    await expect(page.getByTestId("consumer-secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(credential.consumerSecret);
    await page.getByRole("link", { name: "← All apps" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Apps");
    await expect(panel(page, "All apps").getByRole("link", { name, exact: true })).toBeVisible();
    await expect(page.getByTestId("consumer-secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(credential.consumerSecret);
  });
});

test("an admin changes an existing app's client settings, and the token endpoint follows", async ({ page }) => {
  const name = uniqueName("E2E Settings App");
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  const credential = await createAppInConsole(page, { name, productLabels: [AISP_PRODUCT.label] });
  await page.getByRole("searchbox", { name: "Search by name" }).fill(name);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await panel(page, "All apps").getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  await openAppTab(page, "Security");

  const settings = panel(page, "Client settings");
  await expect(settings.getByLabel("Token response")).toHaveValue("apigee");
  await expect(settings.getByRole("checkbox", { name: "HTTP Basic (client_secret_basic)" })).toBeChecked();
  await settings.getByLabel("Token response").selectOption("rfc6749");
  await settings.getByRole("checkbox", { name: "Form body (client_secret_post)" }).check();
  // The ID token algorithm: PS256 by default, its hint describing the choice.
  const idTokenAlg = settings.getByRole("combobox", { name: "ID token algorithm" });
  await expect(idTokenAlg).toHaveValue("PS256");
  await expect(idTokenAlg).toHaveAccessibleDescription(/PS256 is the usual choice of open-banking ecosystems; ES256 is cheaper to sign/);
  await idTokenAlg.selectOption("ES256");
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(settings.getByRole("status").filter({ hasText: "Client settings saved." })).toBeVisible();

  // The next token answer has the RFC 6749 shape, and the secret may now come in the body.
  const body = new URLSearchParams({ grant_type: "client_credentials", client_id: credential.consumerKey, client_secret: credential.consumerSecret });
  const res = await fetch(`${TOLLGATE_URL}/oauth2/v1/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
  const token = (await res.json()) as Json;
  expect(res.status, JSON.stringify(token)).toBe(200);
  expect(token.token_type).toBe("Bearer");
  expect(typeof token.expires_in).toBe("number");

  // Saved: a reload shows the same settings.
  await page.reload();
  await expect(settings.getByLabel("Token response")).toHaveValue("rfc6749");
  await expect(settings.getByRole("checkbox", { name: "Form body (client_secret_post)" })).toBeChecked();
  await expect(idTokenAlg).toHaveValue("ES256");

  // With no method left, the form says why and sends nothing.
  for (const method of ["HTTP Basic (client_secret_basic)", "Form body (client_secret_post)"]) await settings.getByRole("checkbox", { name: method }).uncheck();
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(settings.getByRole("alert")).toHaveText("Choose at least one client authentication method.");
});

test("an end user who is not an admin gets no console and no admin data", async ({ page }) => {
  const graphqlAnswers: { status: number; body: Json }[] = [];
  page.on("response", async (response) => {
    if (new URL(response.url()).pathname !== "/graphql") return;
    graphqlAnswers.push({ status: response.status(), body: await response.json().catch(() => null) });
  });

  await signInAt(page, "/admin", ALICE);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You need an administrator account");
  await expect(page.getByText(`You are signed in as ${ALICE.username}, who cannot use the Tollgate console.`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your account" })).toHaveAttribute("href", "/account");
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  // None of the console: no navigation, no dashboard, no admin data.
  await expect(consoleNav(page)).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toHaveCount(0);
  await expect(page.getByText("Tokens issued")).toHaveCount(0);
  await expect(page.getByText(DEMO.app.name)).toHaveCount(0);
  await expectAccessible(page);

  // A deeper console page is refused the same way.
  await page.goto("/admin/apps");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You need an administrator account");
  await expect(page.getByText(DEMO.app.name)).toHaveCount(0);
  await expect(page.getByRole("table")).toHaveCount(0);

  // Whatever the SPA asked for, no admin data came back.
  for (const answer of graphqlAnswers) {
    expect(JSON.stringify(answer.body)).not.toContain(DEMO.app.name);
    expect(JSON.stringify(answer.body)).not.toContain(DEMO.developerEmail);
  }

  // alice's session cannot read admin data from the API directly either.
  const direct = await page.request.post("/graphql", {
    data: { query: "{ apps(first: 10) { nodes { name } } dashboard { range } }" },
  });
  const body = await direct.json();
  expect(body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  expect(body.data?.apps ?? null).toBeNull();
  expect(body.data?.dashboard ?? null).toBeNull();
  expect(JSON.stringify(body)).not.toContain(DEMO.app.name);
});

/**
 * The dashboard's figures over the last 24 hours as the admin session reads them from the admin
 * API: every token issued, and one client's tokens, gateway calls and refusals.
 */
async function dashboardFigures(page: Page, clientId: string): Promise<{ tokens: number; clientTokens: number; calls: number; failures: number }> {
  const res = await page.request.post("/graphql", {
    data: {
      query: "{ dashboard(range: DAY) { tokensIssued { clientId count } traffic { clientId ok clientErrors serverErrors } failures { clientId count } } }",
    },
  });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body)).toBe(200);
  const { tokensIssued, traffic, failures } = body.data.dashboard;
  const sum = <T,>(items: T[], count: (item: T) => number) => items.reduce((s, item) => s + count(item), 0);
  const ofClient = <T extends { clientId: string }>(items: T[]) => items.filter((item) => item.clientId === clientId);
  return {
    tokens: sum(tokensIssued, (b: Json) => b.count),
    clientTokens: sum(ofClient<Json>(tokensIssued), (b) => b.count),
    calls: sum(ofClient<Json>(traffic), (b) => b.ok + b.clientErrors + b.serverErrors),
    failures: sum(ofClient<Json>(failures), (f) => f.count),
  };
}

test("the dashboard charts traffic, tokens issued per client and refusals, over the range in its URL", async ({ page }) => {
  const name = uniqueName("E2E Dashboard App");
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  const credential = await createAppInConsole(page, { name, productLabels: [AISP_PRODUCT.label] });

  // Three tokens for the new app, two gateway calls with one of them, and one failed client authentication (its key, a wrong secret).
  const issued: HttpResult[] = [];
  for (let i = 0; i < 3; i++) issued.push(await clientCredentialsToken(credential));
  expect(issued.map((r) => r.status)).toEqual([200, 200, 200]);
  for (let i = 0; i < 2; i++) expect((await callProducts(issued[0]!.body.access_token)).status).toBe(200);
  const failed = await clientCredentialsToken({ ...credential, consumerSecret: `${credential.consumerSecret}-wrong` });
  expect(failed.status).toBe(401);
  expect(failed.body.error).toBe("invalid_client");
  // Refusals and gateway traffic are recorded on the next flush (docs/behaviour.md "Audit of refusals").
  await expect
    .poll(async () => {
      const { clientTokens, calls, failures } = await dashboardFigures(page, credential.consumerKey);
      return { clientTokens, calls, failures };
    }, { timeout: (AUDIT_REFUSAL_FLUSH_SECONDS + 4) * 1000 })
    .toEqual({ clientTokens: 3, calls: 2, failures: 1 });
  const expectedTokens = (await dashboardFigures(page, credential.consumerKey)).tokens;

  // The last 24 hours by default, in hourly buckets, the time zone named.
  await openConsolePage(page, "Dashboard");
  await expect(page.getByText("Gateway traffic, tokens issued and refused requests over the last 24 hours.")).toBeVisible();
  const ranges = page.getByRole("navigation", { name: "Time range" });
  await expect(ranges.getByRole("link", { name: "24 h (the last 24 hours)" })).toHaveAttribute("aria-current", "true");
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(page.getByText(new RegExp(`in buckets of 1 hour\\. Times in ${zone.replace("/", "\\/")} \\(UTC[+-]\\d{2}:\\d{2}\\)\\.`))).toBeVisible();
  // Refresh (the figures are loaded once per visit) shows the latest numbers.
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(page.getByRole("button", { name: "Refresh" })).toBeEnabled();

  // Two charts, each a figure with a drawn bar chart and titled axes.
  const trafficPanel = panel(page, "Gateway traffic");
  const tokensPanel = panel(page, "Tokens issued");
  const charts = [
    { panel: trafficPanel, label: "Gateway calls over time, by outcome", yTitle: "Calls" },
    { panel: tokensPanel, label: "Tokens issued over time, per client", yTitle: "Tokens" },
  ];
  for (const chart of charts) {
    await expect(chart.panel.getByRole("figure")).toHaveCount(1);
    await expect(chart.panel.getByRole("application", { name: chart.label })).toBeVisible();
    await expect(chart.panel.locator(".recharts-bar-rectangle").first()).toBeVisible();
    expect((await chart.panel.locator(".recharts-label").allTextContents()).sort()).toEqual(["Time", chart.yTitle].sort());
  }

  // The headline: every token of the last 24 hours, ours included.
  await expect(tokensPanel.locator(".stat")).toHaveText(new RegExp(`^${expectedTokens} tokens issued to \\d+ clients?$`));

  // The accessible alternative: the same data as a table, a column per client.
  await tokensPanel.getByText("Show the data as a table").click();
  const tokenRows = await readTable(tokensPanel.getByRole("table", { name: "Tokens issued over time, per client" }));
  expect(columnSum(tokenRows, name), `tokens of ${name}`).toBe(3);
  const clientColumns = Object.keys(tokenRows[0]!).filter((h) => !["Time", "Total", "Audit log"].includes(h));
  expect(clientColumns.reduce((s, client) => s + columnSum(tokenRows, client), 0)).toBe(expectedTokens);
  if (clientColumns.length > 1) expect(columnSum(tokenRows, "Total")).toBe(expectedTokens);

  // Traffic per client and per API: the new app's two calls, no errors.
  const perClientTable = page.getByRole("table", { name: "Gateway calls per client" });
  const perClient = await readTable(perClientTable);
  expect(perClient.find((r) => r.Client === credential.consumerKey)).toMatchObject({ Calls: "2", "4xx": "0", "5xx": "0", "Error rate": "0%" });
  await expect(perClientTable.getByRole("link", { name: `Tokens of ${credential.consumerKey}` })).toHaveAttribute(
    "href",
    `/admin/tokens?clientId=${encodeURIComponent(credential.consumerKey)}`,
  );
  const perApi = await readTable(page.getByRole("table", { name: "Gateway calls per API" }));
  expect(Number(perApi.find((r) => r.API === "products")?.Calls)).toBeGreaterThanOrEqual(2);

  // The failed client authentication among the refusals, by client and reason.
  const failures = await readTable(page.getByRole("table", { name: "Refused requests by client, type, API and reason" }));
  const failure = failures.find((r) => r.Client === credential.consumerKey);
  expect(failure).toMatchObject({ API: "—", Reason: "invalid_client", Count: "1" });
  expect(failure!.Type).toContain("client.authentication_failed");
  await expectAccessible(page);

  // Over the last hour (the range in the URL): 5-minute buckets, the new app's tokens all in them.
  await ranges.getByRole("link", { name: "1 h (the last hour)" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin" && url.searchParams.get("range") === "1h");
  await expect(page.getByText(/in buckets of 5 minutes\./)).toBeVisible();
  await tokensPanel.getByText("Show the data as a table").click();
  const lastHour = await readTable(tokensPanel.getByRole("table", { name: "Tokens issued over time, per client" }));
  expect(columnSum(lastHour, name)).toBe(3);
  await expectAccessible(page);

  // A click on a bar opens the audit log of the tokens issued in its 5 minutes, to its client.
  await tokensPanel.locator(".recharts-bar-rectangle path").filter({ visible: true }).last().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Audit log");
  await expect(page).toHaveURL((url) => {
    const p = url.searchParams;
    const span = Date.parse(p.get("to") ?? "") - Date.parse(p.get("from") ?? "");
    return url.pathname === "/admin/audit" && p.get("type") === "token.issued" && (p.get("clientId") ?? "") !== "" && span === 5 * 60_000;
  });
  const events = await readTable(page.getByRole("table", { name: "Audit events" }));
  expect(events.length).toBeGreaterThan(0);
  expect(events.every((e) => e.Type?.startsWith("token.issued"))).toBe(true);
  await expectAccessible(page);
});

test("the organizations, API products and users pages pass the accessibility checks", async ({ page }) => {
  // Many pages, each checked in both color schemes.
  test.setTimeout(60_000);
  await signInToConsole(page);
  await expectAccessible(page);

  await openConsolePage(page, "Organizations");
  await panel(page, "All organizations").getByRole("button", { name: `Developers of ${DEMO.organization}` }).click();
  const developers = await readTable(panel(page, `Developers of ${DEMO.organization}`).getByRole("table"));
  expect(developers.map((d) => d.Email)).toContain(DEMO.developerEmail);
  await expectAccessible(page);

  await openConsolePage(page, "API products", "API products and APIs");
  const products = await readTable(panel(page, "API products").getByRole("table"));
  expect(products.map((p) => p.Name)).toContain(AISP_PRODUCT.name);
  const apis = await readTable(panel(page, "APIs").getByRole("table"));
  expect(apis.map((a) => a.Name)).toContain("/accounts/");
  await expectAccessible(page);

  await openConsolePage(page, "Users");
  await panel(page, "All users").getByRole("button", { name: `Tokens and consents of ${ALICE.username}` }).click();
  await expect(page.getByRole("region", { name: `Tokens and consents of ${ALICE.username}` })).toBeVisible();
  await expect(panel(page, "Consents").getByText("No consents.")).toBeVisible();
  await expectAccessible(page);
});
