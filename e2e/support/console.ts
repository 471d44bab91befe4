/**
 * Steps of the management console (/admin) and Account page (/account) journeys, written
 * against what a user sees, plus the calls a client makes with what the console gave it
 * (token endpoint, gateway) over real HTTP with fetch.
 */
import { randomBytes } from "node:crypto";
import { expect, type Locator, type Page } from "@playwright/test";
import { DEMO } from "../../server/src/demo/seed.js";
import { expectAccessible } from "./accessibility.js";
import { AUDIT_REFUSAL_FLUSH_SECONDS, TOLLGATE_URL } from "./env.js";
import { signIn, type Json } from "./journey.js";
import { ADMIN_PASSKEY, ALICE_PASSKEY, type VirtualPasskey } from "./passkey.js";

export const ADMIN = DEMO.admin;

/** The demo developer as the "Create an app" form lists it. */
export const DEMO_DEVELOPER_OPTION = `${DEMO.developerEmail} (Dana Developer) · ${DEMO.organization}`;

/** The seeded API product behind the `accounts` API, as its checkbox is labelled on the form. */
export const AISP_PRODUCT = { name: "PSD2-AISP-v1", label: "PSD2 Account Information (PSD2-AISP-v1)" } as const;

/** The seeded admin API product (scope `admin`), as its checkbox is labelled on the form. */
export const ADMIN_PRODUCT = { name: "Tollgate-Admin", label: "Tollgate admin API (Tollgate-Admin)" } as const;

/** A suffix no other journey (or earlier run on the same database) uses: lowercase letters, digits and a "-". */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
}

/** A name no other journey (or earlier run on the same database) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix} ${uniqueSuffix()}`;
}

/**
 * Opens `path` (an /admin or /account page) without a session, checks the redirect to
 * `/login?next=<path>` and its accessibility, and signs in with the form, answering a factor
 * step with `passkey` (the demo admin's for the demo admin, else alice's). Ends on `path`.
 */
export async function signInAt(
  page: Page,
  path: string,
  user: { username: string; password: string },
  passkey: VirtualPasskey = user.username === ADMIN.username ? ADMIN_PASSKEY : ALICE_PASSKEY,
): Promise<void> {
  await page.goto(path);
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/login" && url.searchParams.get("next") === path);
  const forConsole = path.startsWith("/admin");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(forConsole ? "Sign in to the Tollgate console" : "Sign in to your Tollgate account");
  await expectAccessible(page);
  await signIn(page, user.username, user.password, passkey);
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === path);
}

/**
 * Signs a staff user (the demo admin by default, with their passkey) in at /admin, answering
 * the factor step with `passkey`, and waits for the console (its navigation and dashboard).
 */
export async function signInToConsole(
  page: Page,
  user: { username: string; password: string } = ADMIN,
  passkey: VirtualPasskey = ADMIN_PASSKEY,
  role = "admin",
): Promise<void> {
  await signInAt(page, "/admin", user, passkey);
  await expect(consoleNav(page)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
  await expect(page.getByText(`Signed in as ${user.username} (${role})`)).toBeVisible();
}

/** The console's navigation. */
export function consoleNav(page: Page): Locator {
  return page.getByRole("navigation", { name: "Console" });
}

/** Goes to a console page with its navigation link and waits for its heading. */
export async function openConsolePage(page: Page, link: "Dashboard" | "Organizations" | "Apps" | "API products" | "Users", heading: string = link): Promise<void> {
  await consoleNav(page).getByRole("link", { name: link, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
}

/** A titled panel (`<section aria-labelledby=h2>`) of a console page. */
export function panel(page: Page, title: string): Locator {
  return page.getByRole("region", { name: title, exact: true });
}

export interface NewApp {
  name: string;
  /** The owner: found by `email` in the form's developer search, chosen by its `option` label; the demo developer by default. */
  developer?: { email: string; option: string };
  callbackUrls?: string[];
  /** Labels of the API product checkboxes to tick. */
  productLabels?: string[];
}

export interface IssuedCredential {
  consumerKey: string;
  consumerSecret: string;
}

/**
 * Fills "Create an app" on /admin/apps (the developer found with the form's search) without
 * submitting it. @returns the form's panel.
 */
export async function fillCreateAppForm(page: Page, app: NewApp): Promise<Locator> {
  await expect(page).toHaveURL((url) => url.pathname === "/admin/apps");
  const form = panel(page, "Create an app");
  const developer = app.developer ?? { email: DEMO.developerEmail, option: DEMO_DEVELOPER_OPTION };
  await form.getByRole("searchbox", { name: "Search developers" }).fill(developer.email);
  await form.getByRole("group", { name: "Developer", exact: true }).getByRole("radio", { name: developer.option, exact: true }).check();
  await form.getByLabel("Name", { exact: true }).fill(app.name);
  await form.getByLabel("Callback URLs").fill((app.callbackUrls ?? []).join("\n"));
  for (const label of app.productLabels ?? []) await form.getByRole("checkbox", { name: label, exact: true }).check();
  return form;
}

/** Reads the consumer key and secret of the one-time panel `title` ("App … created", "Credential rotated: …"), which it leaves open. */
export async function readIssuedCredential(page: Page, title: string): Promise<IssuedCredential> {
  const secretPanel = page.getByRole("region", { name: title });
  await expect(secretPanel).toBeVisible();
  await expect(secretPanel.getByText("Copy the consumer secret now: it won't be shown again.")).toBeVisible();
  const consumerKey = (await secretPanel.getByTestId("consumer-key").textContent()) ?? "";
  const consumerSecret = (await secretPanel.getByTestId("consumer-secret").textContent()) ?? "";
  expect(consumerKey, "a consumer key is shown").not.toBe("");
  expect(consumerSecret, "a consumer secret is shown").not.toBe("");
  expect(consumerSecret).not.toBe(consumerKey);
  return { consumerKey, consumerSecret };
}

/**
 * Fills and submits "Create an app" on /admin/apps (see {@link fillCreateAppForm}), and reads
 * the consumer key and secret from the one-time panel, which it leaves open.
 */
export async function createAppInConsole(page: Page, app: NewApp): Promise<IssuedCredential> {
  const form = await fillCreateAppForm(page, app);
  await form.getByRole("button", { name: "Create app" }).click();
  return readIssuedCredential(page, `App ${app.name} created`);
}

/** Reads a table into one record per body row, keyed by the column headers' text, with the fields of the row's details (opened) too. */
export async function readTable(table: Locator): Promise<Record<string, string>[]> {
  await expect(table).toBeVisible();
  const headers = (await table.locator("thead th").allTextContents()).map((h) => h.trim());
  const rows: Record<string, string>[] = [];
  for (const tr of await table.locator("tbody tr:not(.row-details)").all()) {
    // Each cell's text but the "Details" button's.
    const cells = await tr.locator(":scope > th, :scope > td").evaluateAll((tds) =>
      tds.map((td) => {
        const copy = td.cloneNode(true) as typeof td;
        copy.querySelectorAll(".disclosure").forEach((button: { remove(): void }) => button.remove());
        return copy.textContent!.trim();
      }),
    );
    rows.push({ ...Object.fromEntries(cells.map((cell, i) => [headers[i] ?? String(i), cell])), ...(await readRowDetails(tr)) });
  }
  return rows;
}

/**
 * The dashboard's "Gateway calls per client" row of `clientId` after a Refresh, by column;
 * undefined while the client's calls are not counted yet (they are written on the flush, every
 * AUDIT_REFUSAL_FLUSH_SECONDS): for `expect.poll`.
 */
export async function refreshedClientTraffic(page: Page, clientId: string): Promise<Record<string, string> | undefined> {
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(page.getByRole("button", { name: "Refresh" })).toBeEnabled();
  return (await readTable(page.getByRole("table", { name: "Gateway calls per client" }))).find((r) => r.Client === clientId);
}

/** A row's details (the fields its disclosure button shows), opened if closed, by field name; none for a row without. */
export async function readRowDetails(row: Locator): Promise<Record<string, string>> {
  const toggle = row.locator("button.disclosure");
  if ((await toggle.count()) === 0) return {};
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  const details = row.page().locator(`[id="${await toggle.getAttribute("aria-controls")}"] dl`);
  await expect(details).toBeVisible();
  const fields = await details.locator(":scope > div").evaluateAll((divs) => divs.map((div) => [...div.children].map((term) => term.textContent!.trim())));
  return Object.fromEntries(fields);
}

/** The sum of a numeric column over a table's rows (0 when the column is absent). */
export function columnSum(rows: Record<string, string>[], column: string): number {
  return rows.reduce((sum, row) => sum + (row[column] === undefined ? 0 : Number(row[column])), 0);
}

// --- Calls a client makes with the values the console gave it -----------------------------

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Json;
}

/** A fetch answer read once: status, headers and the JSON body (`{non_json_body}` when it is not JSON). */
export async function result(res: Response): Promise<HttpResult> {
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = { non_json_body: text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** HTTP Basic credentials, each part form-urlencoded first (RFC 6749 §2.3.1). */
export function basicAuth(clientId: string, clientSecret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString("base64")}`;
}

/** POST /oauth2/v1/token with HTTP Basic client authentication. */
export async function tokenRequest(client: IssuedCredential, form: Record<string, string>): Promise<HttpResult> {
  return result(
    await fetch(`${TOLLGATE_URL}/oauth2/v1/token`, {
      method: "POST",
      headers: {
        Authorization: basicAuth(client.consumerKey, client.consumerSecret),
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    }),
  );
}

/** A client credentials token request. */
export function clientCredentialsToken(client: IssuedCredential): Promise<HttpResult> {
  return tokenRequest(client, { grant_type: "client_credentials" });
}

/**
 * Signs the demo admin in to the console, creates an app named `name` with the AISP product
 * on the Apps page, and has its client take a token (client credentials, checked to be
 * issued): the app's credential and the access token.
 */
export async function appWithToken(page: Page, name: string): Promise<{ client: IssuedCredential; accessToken: string }> {
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  const client = await createAppInConsole(page, { name, productLabels: [AISP_PRODUCT.label] });
  const issued = await clientCredentialsToken(client);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return { client, accessToken: issued.body.access_token };
}

/** GET `path` through the gateway with a bearer access token. */
async function callGateway(path: string, accessToken: string): Promise<HttpResult> {
  return result(
    await fetch(`${TOLLGATE_URL}${path}`, {
      headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" },
      redirect: "manual",
    }),
  );
}

/** GET /accounts/ through the gateway with a bearer access token: account data, which needs the PSU. */
export function callAccounts(accessToken: string): Promise<HttpResult> {
  return callGateway("/accounts/", accessToken);
}

/** GET /products/ through the gateway with a bearer access token: the demo's open data, which a client credentials token may read. */
export function callProducts(accessToken: string): Promise<HttpResult> {
  return callGateway("/products/", accessToken);
}

/** The demo bank's products, as the gateway returns them. */
export function expectSampleProducts(body: Json): void {
  expect(body.products.map((p: Json) => p.productId)).toEqual(["girokonto", "tagesgeld"]);
}

/** The demo upstream's sample accounts, as the gateway returns them. */
export function expectSampleAccounts(body: Json): void {
  expect(body.accounts.map((a: Json) => a.resourceId)).toEqual(["acc-001", "acc-002"]);
  expect(body.accounts[0].iban).toBe("DE89370400440532013000");
}

/** The gateway's refusal of a token that is no longer valid (RFC 6750 §3.1). */
export function expectInvalidToken(res: HttpResult): void {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe("invalid_token");
  expect(res.headers.get("www-authenticate") ?? "").toContain('error="invalid_token"');
}

/**
 * Waits for the refusal audit's flush (docs/behaviour.md "Audit of refusals": every
 * AUDIT_REFUSAL_FLUSH_SECONDS) to write an event of `type` by or about `clientId` (and with
 * `reason`, when given) that `match` accepts, reading the admin API with the page's admin
 * session. @returns the event (id at type actor subject details count).
 */
export async function waitForAuditEvent(
  page: Page,
  filter: { clientId: string; type: string; reason?: string },
  match: (event: Json) => boolean = () => true,
): Promise<Json> {
  let found: Json;
  await expect
    .poll(
      async () => {
        const res = await page.request.post("/graphql", {
          data: {
            query:
              "query($clientId: String, $type: String, $reason: String) { auditEvents(clientId: $clientId, type: $type, reason: $reason, first: 50) { nodes { id at type actor subject details count } } }",
            variables: filter,
          },
        });
        const body = await res.json();
        expect(res.status(), JSON.stringify(body)).toBe(200);
        found = body.data.auditEvents.nodes.find(match);
        return found !== undefined;
      },
      { timeout: (AUDIT_REFUSAL_FLUSH_SECONDS + 4) * 1000 },
    )
    .toBe(true);
  return found;
}

/** The tabs of an app's page (web/src/pages/admin/AppDetailPage.tsx). */
export type AppTab = "Overview" | "Credentials" | "Security" | "Callback URLs" | "Tokens" | "Traffic";

/** Opens a tab of the app's page (the page is open) and waits until it is selected. */
export async function openAppTab(page: Page, tab: AppTab): Promise<void> {
  const button = page.getByRole("tablist").getByRole("tab", { name: tab, exact: true });
  await button.click();
  await expect(button).toHaveAttribute("aria-selected", "true");
}
