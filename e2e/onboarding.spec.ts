/**
 * Onboarding a partner in the console (/admin, issue 19), in Chromium against the built
 * server: the operator creates an organization and its developer, an API and an API product
 * with a new scope (which needs a description for end users first), then edits both; creates
 * the developer's app (PKCE on by default, the admin API product only after a second
 * confirmation), adds the new product to its credential, rotates the credential and revokes
 * it. Deleting the organization, which still has its developer, is refused and says why.
 * Every page passes the accessibility checks (support/accessibility.ts).
 *
 * The journey makes its own organization, developer, API, product and app (unique names), so
 * the seeded catalog the other journeys use stays as it is.
 */
import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";
import {
  ADMIN_PRODUCT,
  clientCredentialsToken,
  fillCreateAppForm,
  openAppTab,
  openConsolePage,
  panel,
  readIssuedCredential,
  readRowDetails,
  readTable,
  signInToConsole,
  uniqueName,
  uniqueSuffix,
} from "./support/console.js";
import { expect, test } from "./support/fixtures.js";

/** A form of a panel, named by its heading ("Create an API"). */
const form = (within: Locator, name: string) => within.getByRole("form", { name, exact: true });

/** The body row of `table` whose row header is `name`. */
const row = (table: Locator, name: string) => table.getByRole("row").filter({ has: table.page().getByRole("rowheader", { name, exact: true }) });

/** Answers an inline confirmation ("Save the changes to …?") with its confirm button. */
async function confirm(within: Locator, question: string | RegExp, answer: string): Promise<void> {
  const group = within.getByRole("group", { name: question });
  await expect(group).toBeVisible();
  await group.getByRole("button", { name: answer }).click();
}

/** The status message of a form or panel, once it says `text`. */
const status = (within: Locator, text: string) => within.getByRole("status").filter({ hasText: text });

test("an operator onboards a partner: organization, developer, API and product with a new scope, app, credential changes", async ({ page }) => {
  test.setTimeout(120_000);
  const suffix = uniqueSuffix();
  const org = { name: uniqueName("E2E Onboarding Org"), displayName: "Onboarding Bank Partner" };
  const developer = { email: `onboarding-${suffix}@e2e.example`, firstName: "Olga", lastName: "Onboard" };
  const developerOption = `${developer.email} (Olga Onboard) · ${org.name}`;
  const apiName = `e2e-onboarding-${suffix}`;
  const scope = `e2e_onboarding_${suffix.replace("-", "_")}`;
  const product = { name: `E2E-Onboarding-${suffix}`, displayName: "E2E Onboarding" };
  const appName = uniqueName("E2E Onboarding App");

  await signInToConsole(page);
  await expectAccessible(page);

  await test.step("an organization and its developer", async () => {
    await openConsolePage(page, "Organizations");
    const create = panel(page, "Create an organization");
    await create.getByLabel("Name", { exact: true }).fill(org.name);
    await create.getByLabel("Display name").fill(org.displayName);
    await create.getByRole("button", { name: "Create organization" }).click();
    await expect(status(create, `Organization ${org.name} created.`)).toBeVisible();

    // The new organization is selected: its (empty) developers, and "Add a developer".
    const developers = panel(page, `Developers of ${org.name}`);
    await expect(developers.getByText("This organization has no developers yet.")).toBeVisible();
    const add = form(developers, "Add a developer");
    await add.getByLabel("Email").fill(developer.email);
    await add.getByLabel("First name").fill(developer.firstName);
    await add.getByLabel("Last name").fill(developer.lastName);
    await add.getByRole("button", { name: "Add developer" }).click();
    await expect(status(add, `Developer ${developer.email} added.`)).toBeVisible();
    expect((await readTable(developers.getByRole("table"))).map((d) => [d.Email, d.Name])).toEqual([[developer.email, "Olga Onboard"]]);
    await expectAccessible(page);
  });

  await test.step("an API, and an API product with a new scope, which needs a description", async () => {
    await openConsolePage(page, "API products", "API products and APIs");
    const apis = panel(page, "APIs");
    const createApi = form(apis, "Create an API");
    await createApi.getByLabel("Name", { exact: true }).fill(apiName);
    await createApi.getByLabel("Upstream URL").fill("https://onboarding.e2e.example/v1");
    await createApi.getByLabel("Required scopes").fill(scope);
    await createApi.getByRole("button", { name: "Create API" }).click();
    await expect(status(createApi, `API ${apiName} created.`)).toBeVisible();

    const products = panel(page, "API products");
    const create = form(products, "Create an API product");
    await create.getByLabel("Name", { exact: true }).fill(product.name);
    await create.getByLabel("Display name").fill(product.displayName);
    await create.getByLabel("Scopes", { exact: true }).fill(scope);
    await create.getByRole("checkbox", { name: apiName, exact: true }).check();
    // The new scope's description field appears, empty: the form refuses to send it so.
    const description = create.getByLabel(`Description of ${scope}`);
    await expect(description).toHaveValue("");
    await create.getByRole("button", { name: "Create API product" }).click();
    await expect(create.getByRole("alert")).toHaveText(
      `Describe the scope “${scope}” for end users: they see the description on the consent and Account pages, never the scope's code.`,
    );
    await expect(row(products.getByRole("table"), product.name)).toHaveCount(0);
    await expectAccessible(page);

    await description.fill("See your onboarding test data");
    await create.getByRole("button", { name: "Create API product" }).click();
    await expect(status(create, `API product ${product.name} created.`)).toBeVisible();
    const created = row(products.getByRole("table"), product.name);
    const fields = await readRowDetails(created);
    expect(fields.Scopes).toBe(`${scope} See your onboarding test data`);
    expect(fields.APIs).toBe(apiName);
  });

  await test.step("the operator edits the product and the API, each after a confirmation", async () => {
    const products = panel(page, "API products");
    await products.getByRole("button", { name: `Edit API product ${product.name}` }).click();
    const edit = form(products, `Edit API product ${product.name}`);
    await expect(edit.getByRole("heading", { name: `Edit API product ${product.name}` })).toBeFocused();
    await expect(edit.getByLabel("Display name")).toHaveValue(product.displayName);
    await edit.getByLabel("Display name").fill(`${product.displayName} (edited)`);
    await edit.getByLabel(`Description of ${scope}`).fill("See your onboarding data");
    await edit.getByRole("checkbox", { name: "Requires strong customer authentication (PSD2)" }).check();
    await edit.getByRole("button", { name: "Save API product" }).click();
    await expectAccessible(page);
    await confirm(edit, `Save the changes to ${product.name}? They apply at once, to every app with this product.`, "Yes, save");
    await expect(status(edit, `API product ${product.name} saved.`)).toBeVisible();
    const [edited] = (await readTable(products.getByRole("table"))).filter((p) => p.Name === product.name);
    expect(edited).toMatchObject({
      "Display name": `${product.displayName} (edited)`,
      Scopes: `${scope} See your onboarding data`,
      "Requires strong customer authentication (PSD2)": "Yes",
    });
    await edit.getByRole("button", { name: "Close" }).click();
    await expect(edit).toHaveCount(0);

    const apis = panel(page, "APIs");
    await apis.getByRole("button", { name: `Edit API /${apiName}/` }).click();
    const editApi = form(apis, `Edit API /${apiName}/`);
    await expect(editApi.getByLabel("Upstream URL")).toHaveValue("https://onboarding.e2e.example/v1");
    await editApi.getByLabel("Upstream URL").fill("https://onboarding.e2e.example/v2");
    await editApi.getByLabel("Required sign-in").selectOption({ label: "Password" });
    await editApi.getByLabel("Maximum sign-in age (seconds)").fill("300");
    await editApi.getByLabel("Consent check (PSD2 dynamic linking)").selectOption("accounts");
    await editApi.getByRole("button", { name: "Save API" }).click();
    await confirm(editApi, `Save the changes to /${apiName}/? The gateway applies them to its next calls.`, "Yes, save");
    await expect(status(editApi, `API /${apiName}/ saved.`)).toBeVisible();
    const [api] = (await readTable(apis.getByRole("table"))).filter((a) => a.Name === `/${apiName}/`);
    expect(api).toMatchObject({
      "Upstream URL": "https://onboarding.e2e.example/v2",
      "Required sign-in": "Password",
      "Maximum sign-in age": "5 minutes",
      "Consent check (PSD2)": "Accounts: only the authorized accounts and data",
      "In API products": product.name,
    });
    await expectAccessible(page);
  });

  let credential = { consumerKey: "", consumerSecret: "" };
  await test.step("the developer's app: PKCE on by default, the admin API product only after a second confirmation", async () => {
    await openConsolePage(page, "Apps");
    const create = await fillCreateAppForm(page, { name: appName, developer: { email: developer.email, option: developerOption }, productLabels: [ADMIN_PRODUCT.label] });
    await expect(create.getByRole("checkbox", { name: "Require PKCE" })).toBeChecked();
    // The admin API product sits apart, with its warning.
    const admin = create.getByRole("group", { name: "Admin API" });
    await expect(admin.getByRole("checkbox", { name: ADMIN_PRODUCT.label })).toBeChecked();
    await expect(admin.getByText(/Its tokens administer Tollgate/)).toBeVisible();
    await create.getByRole("button", { name: "Create app" }).click();
    await expect(create.getByRole("alert")).toHaveText(
      "Tick “I understand this app can administer Tollgate” to approve the admin API product, or leave the product out.",
    );
    await expect(page.getByRole("region", { name: `App ${appName} created` })).toHaveCount(0);
    await expectAccessible(page);

    await admin.getByRole("checkbox", { name: "I understand this app can administer Tollgate" }).check();
    await create.getByRole("button", { name: "Create app" }).click();
    credential = await readIssuedCredential(page, `App ${appName} created`);
    await expectAccessible(page);
  });

  await test.step("the app's page: its settings stay editable, and the new product is added to its credential", async () => {
    await page.getByRole("link", { name: `Open ${appName}` }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(appName);
    await openAppTab(page, "Security");
    await expect(panel(page, "Client settings").getByRole("checkbox", { name: "Require PKCE" })).toBeChecked();
    await openAppTab(page, "Credentials");

    const card = cardOf(page, credential.consumerKey);
    const table = card.getByRole("table", { name: `API products of consumer key ${credential.consumerKey}` });
    expect((await readTable(table)).map((p) => [p["API product"], p.Status])).toEqual([[`${ADMIN_PRODUCT.name} Tollgate admin API`, "approved"]]);
    const add = card.getByRole("form", { name: `Add an API product to consumer key ${credential.consumerKey}` });
    await add.getByLabel("API product to add").selectOption({ label: `${product.displayName} (edited) (${product.name})` });
    await add.getByRole("button", { name: "Add API product" }).click();
    await expect(status(card, `${product.name} added to this credential and approved`)).toBeVisible();
    const approved = (await readTable(table)).map((p) => [p["API product"]?.split(" ")[0], p.Status]);
    expect(approved).toHaveLength(2);
    expect(approved).toEqual(expect.arrayContaining([[ADMIN_PRODUCT.name, "approved"], [product.name, "approved"]]));
    await expectAccessible(page);

    const token = await clientCredentialsToken(credential);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.scope.split(" ").sort()).toEqual(["admin", scope].sort());
  });

  let rotated = { consumerKey: "", consumerSecret: "" };
  await test.step("the credential is rotated (the old one stops at once), then the new one is revoked", async () => {
    const card = cardOf(page, credential.consumerKey);
    await card.getByRole("button", { name: `Rotate consumer key ${credential.consumerKey}` }).click();
    await confirm(card, "Issue a new key and secret? The old ones stop working now.", "Yes, rotate");
    rotated = await readIssuedCredential(page, "Credential rotated: the new consumer key and secret");
    expect(rotated.consumerKey).not.toBe(credential.consumerKey);
    await expectAccessible(page);
    await expect(cardOf(page, credential.consumerKey).getByRole("definition").first()).toHaveText("revoked");
    const next = cardOf(page, rotated.consumerKey);
    await expect(next.getByRole("definition").first()).toHaveText("approved");
    // The new credential has the same products.
    const products = await readTable(next.getByRole("table", { name: `API products of consumer key ${rotated.consumerKey}` }));
    expect(products.map((p) => p["API product"]?.split(" ")[0]).sort()).toEqual([ADMIN_PRODUCT.name, product.name].sort());
    expect((await clientCredentialsToken(credential)).status).toBe(401);
    expect((await clientCredentialsToken(rotated)).status).toBe(200);

    await next.getByRole("button", { name: `Revoke credential ${rotated.consumerKey}` }).click();
    await confirm(next, "Revoke this credential? Its key and secret stop working now.", "Yes, revoke the credential");
    await expect(status(next, "Credential revoked.")).toBeVisible();
    await expect(next.getByRole("definition").first()).toHaveText("revoked");
    expect((await clientCredentialsToken(rotated)).status).toBe(401);
    await expectAccessible(page);
  });

  await test.step("deleting the organization, which still has its developer, is refused and says why", async () => {
    await openConsolePage(page, "Organizations");
    const organizations = panel(page, "All organizations");
    await organizations.getByRole("button", { name: `Delete organization ${org.name}` }).click();
    await confirm(organizations, `Delete the organization ${org.name}? Only an organization without developers can be deleted.`, "Yes, delete the organization");
    const refusal = organizations.getByRole("alert");
    await expect(refusal).toContainText(/still has developers/i);
    await expect(refusal).toContainText("Delete its developers first.");
    await expect(row(organizations.getByRole("table"), org.name)).toHaveCount(1);

    // Its developer cannot go either: the app stays.
    await organizations.getByRole("button", { name: `Developers of ${org.name}` }).click();
    const developers = panel(page, `Developers of ${org.name}`);
    await developers.getByRole("button", { name: `Delete developer ${developer.email}` }).click();
    await confirm(developers, `Delete the developer ${developer.email}? Only a developer without apps can be deleted.`, "Yes, delete the developer");
    await expect(developers.getByRole("alert")).toContainText(/still has apps/i);
    await expect(row(developers.getByRole("table"), developer.email)).toHaveCount(1);
    await expectAccessible(page);
  });
});

/** The card of a credential on the app's page. */
function cardOf(page: Page, consumerKey: string): Locator {
  return panel(page, "Credentials").getByRole("article", { name: `Consumer key ${consumerKey}` });
}
