/**
 * The console's identity providers page (/admin/identity-providers) and an app's sign-in, in
 * Chromium against the built server: an admin adds one of the bank's identity providers with a
 * client secret (nothing is fetched from its issuer on create), sees what to register at it
 * for Tollgate (the redirect URI and the JWK Set URL), edits it (a blank secret keeps the
 * stored one), chooses it as an app's sign-in and finds it saved after a reload, goes back to
 * Tollgate's own sign-in, and deletes the provider. The secret is never shown and is stored
 * sealed. The pages pass the accessibility checks. The journey's app and provider are removed
 * afterwards, whatever happens.
 */
import type { Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { consoleNav, openAppTab, panel, readTable, signInToConsole, uniqueName, uniqueSuffix } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";

/** Opens the identity providers page with the console's navigation. */
async function openIdentityProviders(page: Page): Promise<void> {
  await consoleNav(page).getByRole("link", { name: "Identity providers", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Identity providers");
}

test("an admin adds an identity provider, chooses it for an app's sign-in, removes it again and deletes the provider", async ({ page, db }) => {
  // Four accessibility checks, each in both color schemes.
  test.setTimeout(120_000);
  const name = uniqueName("E2E Bank IdP");
  const secret = `e2e-bank-secret-${uniqueSuffix()}`;
  const developer = await db.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
  const app = await db.app.create({ data: { name: uniqueName("E2E Federated App"), developerId: developer.id }, select: { id: true, name: true } });
  try {
    await signInToConsole(page);
    await openIdentityProviders(page);

    // Add the provider: the client secret field is there for client_secret_basic only.
    const form = page.getByRole("form", { name: "Add an identity provider" });
    await form.getByLabel("Name", { exact: true }).fill(name);
    await form.getByLabel("Issuer", { exact: true }).fill("http://127.0.0.1:9/");
    await form.getByLabel("Client id", { exact: true }).fill("tollgate-e2e");
    await expect(form.getByLabel("Client secret")).toHaveCount(0);
    await form.getByLabel("Client authentication", { exact: true }).selectOption("client_secret_basic");
    await form.getByLabel("Client secret").fill(secret);
    await form.getByLabel("Scopes", { exact: true }).fill("openid profile");
    await form.getByLabel("Customer number claim", { exact: true }).fill("customer_number");
    await form.getByLabel("SCA acr values", { exact: true }).fill("urn:e2e:sca");
    await form.getByRole("button", { name: "Add identity provider" }).click();
    await expect(form.getByRole("status").filter({ hasText: `Identity provider ${name} added.` })).toBeVisible();

    const providers = panel(page, "Identity providers");
    const table = providers.getByRole("table", { name: "Identity providers" });
    await expect(table.getByRole("rowheader", { name, exact: true })).toBeVisible();
    const row = (await readTable(table)).find((r) => r.Name === name);
    expect(row).toMatchObject({ Issuer: "http://127.0.0.1:9/", "SCA acr values": "urn:e2e:sca", "Used by": "Not used" });
    expect(row?.["Client authentication"]).toMatch(/^client_secret_basic \(a client secret\)\s*Client id tollgate-e2e$/);
    /** The cells of the provider's row (its name is the row header): issuer, client authentication, SCA acr values, used by, actions. */
    const cells = () => table.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) }).getByRole("cell");

    // What to register at the provider for Tollgate, each copyable.
    const registration = panel(page, "Tollgate at the identity provider");
    await expect(registration.getByTestId("redirect-uri")).toHaveText(`${TOLLGATE_URL}/federation/callback`);
    await expect(registration.getByTestId("jwks-uri")).toHaveText(`${TOLLGATE_URL}/oauth2/v1/jwks`);
    await expect(registration.getByRole("button", { name: "Copy redirect URI" })).toBeVisible();
    await expect(registration.getByRole("button", { name: "Copy JWK Set URL" })).toBeVisible();

    // The secret is stored sealed, and never shown.
    const stored = await db.identityProvider.findUniqueOrThrow({ where: { name } });
    expect(stored.clientSecret?.startsWith("kek1.")).toBe(true);
    expect(stored.clientSecret).not.toContain(secret);
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(page);

    // Edit: the form is filled in, the secret blank (kept).
    await providers.getByRole("button", { name: `Edit identity provider ${name}` }).click();
    const edit = page.getByRole("form", { name: `Edit identity provider ${name}` });
    await expect(edit.getByLabel("Name", { exact: true })).toHaveValue(name);
    await expect(edit.getByLabel("Client authentication", { exact: true })).toHaveValue("client_secret_basic");
    await expect(edit.getByLabel("Client secret")).toHaveValue("");
    await expect(edit.getByText("Leave blank to keep the stored secret.", { exact: false })).toBeVisible();
    await edit.getByLabel("SCA acr values", { exact: true }).fill("urn:e2e:sca urn:e2e:sca2");
    await edit.getByRole("button", { name: "Save identity provider" }).click();
    await edit.getByRole("button", { name: "Yes, save" }).click();
    await expect(edit.getByRole("status").filter({ hasText: `Identity provider ${name} saved.` })).toBeVisible();
    await expect(cells().nth(2).getByRole("listitem")).toHaveText(["urn:e2e:sca", "urn:e2e:sca2"]);
    expect((await db.identityProvider.findUniqueOrThrow({ where: { name } })).clientSecret).toBe(stored.clientSecret);
    await expectAccessible(page);

    // The app's sign-in: the provider, saved, and still there after a reload.
    await page.goto(`/admin/apps/${app.id}?tab=security`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(app.name);
    const signIn = panel(page, "Sign-in");
    const select = signIn.getByLabel("Sign-in", { exact: true });
    await expect(select).toHaveValue("");
    await select.selectOption({ label: name });
    await signIn.getByRole("button", { name: "Save sign-in" }).click();
    await expect(signIn.getByRole("status").filter({ hasText: `the app's PSUs sign in with ${name} from now on` })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(app.name);
    await expect(panel(page, "Sign-in").getByLabel("Sign-in", { exact: true })).toHaveValue(stored.id);
    await openAppTab(page, "Overview");
    await expect(panel(page, "Overview").getByRole("definition").filter({ hasText: name })).toBeVisible();
    expect((await db.app.findUniqueOrThrow({ where: { id: app.id } })).identityProviderId).toBe(stored.id);
    await expectAccessible(page);

    // The page counts it.
    await openIdentityProviders(page);
    await expect(cells().nth(3)).toHaveText("1 app");

    // Back to Tollgate's own sign-in.
    await page.goto(`/admin/apps/${app.id}?tab=security`);
    await panel(page, "Sign-in").getByLabel("Sign-in", { exact: true }).selectOption({ label: "Tollgate's own sign-in" });
    await panel(page, "Sign-in").getByRole("button", { name: "Save sign-in" }).click();
    await expect(panel(page, "Sign-in").getByRole("status").filter({ hasText: "sign in with Tollgate's own sign-in from now on" })).toBeVisible();
    await page.reload();
    await expect(panel(page, "Sign-in").getByLabel("Sign-in", { exact: true })).toHaveValue("");
    expect((await db.app.findUniqueOrThrow({ where: { id: app.id } })).identityProviderId).toBeNull();

    // Delete the provider, after the confirmation.
    await openIdentityProviders(page);
    await providers.getByRole("button", { name: `Delete identity provider ${name}` }).click();
    const confirm = providers.getByRole("group", { name: `Delete the identity provider ${name}? Its apps and API products fall back to Tollgate's own sign-in.` });
    await expect(confirm).toBeVisible();
    await confirm.getByRole("button", { name: "Yes, delete the identity provider" }).click();
    await expect(providers.getByRole("status").filter({ hasText: `Identity provider ${name} deleted` })).toBeVisible();
    await expect(table.getByRole("rowheader", { name, exact: true })).toHaveCount(0);
    expect(await db.identityProvider.findUnique({ where: { name } })).toBeNull();
    const deleted = await db.auditEvent.findFirst({ where: { type: "admin.deleteIdentityProvider", subject: stored.id } });
    expect(deleted?.actor).toBe(`admin:${DEMO.admin.username}`);
    await expectAccessible(page);
  } finally {
    await db.app.deleteMany({ where: { id: app.id } });
    await db.identityProvider.deleteMany({ where: { name } });
  }
});
