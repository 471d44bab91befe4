/**
 * A TPP's dynamic client registration (RFC 7591, issue 20), in Chromium against the built
 * server, which runs with REGISTRATION_REQUIRES_APPROVAL=true (playwright.config.ts):
 *
 * the TPP registers by POSTing a software statement signed by the demo directory (trusted
 * with the demo seed) to /oauth2/v1/register and gets its client id, but no token while the
 * app is pending; the admin finds the app with the apps list's "Pending approval" filter,
 * opens it, reads the registration (software id, PSD2 roles in words, the directory's
 * organization), approves it, and the client gets a token; the audit log filtered by the
 * client id holds the `registration.created` event;
 * an admin lets an app authenticate with a CA-issued certificate (tls_client_auth): the
 * certificate name is required and checked, the server's refusals shown by its field.
 *
 * The client side (client assertion with the demo FAPI key the statement carries, DPoP proof)
 * is that of the HTTP suites, server/test/support/fapi.ts. Every page shown passes the
 * accessibility checks.
 */
import type { Page } from "@playwright/test";
import { DEMO_SOFTWARE } from "../server/src/demo/directory.js";
import { DEMO } from "../server/src/demo/seed.js";
import { assertionFields, DpopKey, postForm } from "../server/test/support/fapi.js";
import type { Answer } from "../server/test/support/flow.js";
import { expectAccessible } from "./support/accessibility.js";
import { AISP_PRODUCT, createAppInConsole, openAppTab, openConsolePage, panel, readTable, signInToConsole, uniqueName } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { newSoftware, register } from "./support/registration.js";

const TOKEN_ENDPOINT = "/oauth2/v1/token";

/** A client credentials request of the registered client: private_key_jwt with the demo FAPI key, a DPoP proof. */
async function clientCredentialsToken(clientId: string): Promise<Answer> {
  const dpop = await DpopKey.generate();
  const assertion = await assertionFields(TOLLGATE_URL, {}, clientId);
  return postForm(TOLLGATE_URL, TOKEN_ENDPOINT, { grant_type: "client_credentials", scope: "aisp", ...assertion }, { DPoP: await dpop.proof("POST", `${TOLLGATE_URL}${TOKEN_ENDPOINT}`) });
}

/** The facts (<dt>/<dd>) of a console panel, by term. */
async function readFacts(page: Page, title: string): Promise<Record<string, string>> {
  const facts = panel(page, title).locator("dl.facts > div");
  const read: Record<string, string> = {};
  for (const fact of await facts.all()) read[(await fact.locator("dt").innerText()).trim().toLowerCase()] = (await fact.locator("dd").innerText()).trim();
  return read;
}

test("a TPP registers itself; the admin finds it pending, reads its registration, approves it; the audit log has the registration", async ({ page }) => {
  // A long journey (registration, four console pages, the audit log) with seven accessibility checks, each in both color schemes: about 24 s alone.
  test.setTimeout(60_000);
  const software = newSoftware();
  const registered = await register(software);
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const clientId: string = registered.body.client_id;
  expect(clientId).toEqual(expect.any(String));
  expect(registered.body.registration_access_token).toEqual(expect.any(String));
  expect(registered.body.software_id).toBe(software.softwareId);

  // Pending: the client cannot get tokens yet.
  const refused = await clientCredentialsToken(clientId);
  expect(refused.status, refused.text).toBe(401);
  expect(refused.body.error).toBe("invalid_client");
  expect(refused.body.access_token).toBeUndefined();

  // The admin lists the apps waiting for approval.
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  const apps = panel(page, "All apps");
  await apps.getByLabel("Status").selectOption({ label: "Pending approval" });
  await expect(page).toHaveURL((url) => url.pathname === "/admin/apps" && url.searchParams.get("status") === "pending");
  // The seeded apps are approved: the list is filtered once they are gone.
  await expect(apps.getByRole("link", { name: DEMO.app.name, exact: true })).toHaveCount(0);
  const listed = await readTable(apps.getByRole("table", { name: "Apps" }));
  expect(listed.every((r) => r.Status === "pending approval"), JSON.stringify(listed)).toBe(true);
  // The app is named after the statement's client name (the server may add to it to keep names unique).
  const app = listed.find((r) => r.Name!.startsWith(software.clientName));
  expect(app, JSON.stringify(listed)).toBeDefined();
  const appName = app!.Name!;
  await expectAccessible(page);

  // Its page: the notice, and the registration in words.
  await apps.getByRole("link", { name: appName, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(appName);
  const overview = panel(page, "Overview");
  await expect(overview.getByText("Waiting for the bank's approval: its client cannot get tokens yet.")).toBeVisible();
  expect((await readFacts(page, "Overview")).status).toBe("pending approval");
  const registration = await readFacts(page, "Registration (TPP)");
  expect(registration["software id"]).toBe(software.softwareId);
  expect(registration["software version"]).toBe(software.softwareVersion);
  expect(registration["directory organization"]).toBe(`${DEMO.organization} (id ${DEMO_SOFTWARE.organizationId})`);
  expect(registration["psd2 roles"].split("\n").sort()).toEqual(["Account information (PSP_AI)", "Payment initiation (PSP_PI)"]);
  for (const time of ["registered", "statement issued", "statement expires"]) expect(registration[time]).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  await expectAccessible(page);

  // Approved, after a confirmation: the notice goes, the client gets tokens.
  await overview.getByRole("button", { name: "Approve", exact: true }).click();
  await overview.getByRole("button", { name: "Yes, approve the app" }).click();
  await expect(overview.getByRole("status").filter({ hasText: "App approved." })).toBeVisible();
  await expect(overview.getByText("Waiting for the bank's approval")).toHaveCount(0);
  await expect(overview.getByRole("button", { name: "Revoke app" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(appName);
  expect((await readFacts(page, "Overview")).status).toBe("approved");
  const issued = await clientCredentialsToken(clientId);
  expect(issued.status, issued.text).toBe(200);
  expect(issued.body.token_type).toBe("DPoP");
  await expectAccessible(page);

  // The audit log, filtered by the client id, holds the registration.
  await overview.getByRole("link", { name: "Audit events of this app" }).click();
  await expect(page).toHaveURL((url) => url.pathname === "/admin/audit" && url.searchParams.get("clientId") === clientId);
  const events = page.getByRole("table", { name: "Audit events" });
  await expect(events.getByRole("row").filter({ hasText: "registration.created" }).first()).toBeVisible();
  await expectAccessible(page);
});

test("an admin lets an app authenticate with a CA-issued certificate: the certificate name is required and checked by its field", async ({ page }) => {
  const name = uniqueName("E2E mTLS App");
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  await createAppInConsole(page, { name, productLabels: [AISP_PRODUCT.label] });
  await panel(page, "All apps").getByRole("searchbox", { name: "Search by name" }).fill(name);
  await panel(page, "All apps").getByRole("button", { name: "Search", exact: true }).click();
  await panel(page, "All apps").getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  await expect(panel(page, "Registration (TPP)")).toHaveCount(0);
  await openAppTab(page, "Security");

  const settings = panel(page, "Client settings");
  const certificateName = settings.getByRole("group", { name: "Certificate name (tls_client_auth)" });
  await expect(certificateName).toHaveCount(0);
  await settings.getByRole("checkbox", { name: "CA-issued certificate (tls_client_auth)" }).check();
  await expect(certificateName).toBeVisible();
  const value = certificateName.getByLabel("Value");

  // Without a name, and with an IP address that is none, the server refuses; its reason sits by the field.
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(settings.getByRole("alert")).toHaveText("The client settings were not saved: correct the certificate name.");
  await expect(value).toHaveAttribute("aria-invalid", "true");
  await expect(value).toHaveAccessibleDescription(/^tls_client_auth needs the name the app's certificate carries/);
  await certificateName.getByLabel("Name type").selectOption({ label: "IP address" });
  await value.fill("not-an-ip");
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(value).toHaveAccessibleDescription(/^tls_client_auth_san_ip must be an IPv4 address/);
  await expectAccessible(page);

  // A subject DN is saved, with the method; a reload shows both.
  await certificateName.getByLabel("Name type").selectOption({ label: "Subject DN" });
  await value.fill("CN=tpp.example, O=Example TPP, C=DE");
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(settings.getByRole("status").filter({ hasText: "Client settings saved." })).toBeVisible();
  await expect(value).not.toHaveAttribute("aria-invalid");
  await page.reload();
  await expect(settings.getByRole("checkbox", { name: "CA-issued certificate (tls_client_auth)" })).toBeChecked();
  await expect(certificateName.getByLabel("Name type")).toHaveValue("tls_client_auth_subject_dn");
  await expect(value).toHaveValue("CN=tpp.example, O=Example TPP, C=DE");
  await expectAccessible(page);
});
