/**
 * The console's staff roles, in Chromium against the built server (ADMIN_REQUIRE_SCA on):
 * the demo admin signs in with their password and authenticator code; a `support` user and an
 * `auditor` user (each with a passkey of their own, made here and removed afterwards) sign in
 * with their passkey and see only what their role may do, the admin API refusing the rest
 * (FORBIDDEN) in their own session.
 */
import { randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import type { Page } from "@playwright/test";
import { generate } from "otplib";
import { DEMO } from "../server/src/demo/seed.js";
import type { PrismaClient } from "../server/src/generated/prisma/client.js";
import { expectAccessible } from "./support/accessibility.js";
import { ADMIN, clientCredentialsToken, consoleNav, openConsolePage, panel, signInToConsole } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { askedForFactor, enterCode, submitPassword, type Json } from "./support/journey.js";
import { VirtualPasskey } from "./support/passkey.js";

type StaffRole = "support" | "auditor";

interface StaffUser {
  id: string;
  username: string;
  password: string;
  passkey: VirtualPasskey;
}

/** A GraphQL call of the admin API with the page's session (its cookies). */
async function graphqlInPage(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  const res = await page.request.post("/graphql", { data: { query, variables } });
  return res.json();
}

/** The `extensions.code` of the first error of a GraphQL answer. */
function errorCode(body: Json): string | undefined {
  return body.errors?.[0]?.extensions?.code;
}

/** A live client credentials token of the demo admin app (Tollgate Automation), and its id as the admin API names it. */
async function liveToken(page: Page): Promise<{ id: string; accessToken: string }> {
  const issued = await clientCredentialsToken(DEMO.adminApp);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  const body = await graphqlInPage(page, "query($clientId: String) { tokens(clientId: $clientId, first: 200) { nodes { id issuedAt } } }", {
    clientId: DEMO.adminApp.consumerKey,
  });
  expect(body.errors, JSON.stringify(body)).toBeUndefined();
  const nodes: { id: string; issuedAt: string }[] = body.data.tokens.nodes;
  expect(nodes.length).toBeGreaterThan(0);
  const newest = nodes.reduce((a, b) => (Date.parse(b.issuedAt) > Date.parse(a.issuedAt) ? b : a));
  return { id: newest.id, accessToken: issued.body.access_token };
}

const REVOKE_TOKEN = "mutation($id: ID!) { revokeToken(id: $id) { id state } }";

test.describe("staff roles", () => {
  const made: string[] = [];

  /** A user of `role` with a password and a passkey of their own (removed after the tests). */
  async function staffUser(db: PrismaClient, role: StaffRole): Promise<StaffUser> {
    const username = `e2e-${role}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const user = await db.user.create({ data: { username, passwordHash: await hash(password), role, status: "active" }, select: { id: true } });
    made.push(user.id);
    const passkey = new VirtualPasskey();
    await passkey.insertFactor(db, user.id, `E2E ${role} passkey`);
    return { id: user.id, username, password, passkey };
  }

  test.afterAll(async ({ db }) => {
    await db.user.deleteMany({ where: { id: { in: made } } });
  });

  test("the admin signs in to the console with their password and authenticator code @phone", async ({ page }) => {
    await page.goto("/admin");
    await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/login");
    expect(await askedForFactor(await submitPassword(page, ADMIN.username, ADMIN.password))).toBe(true);
    // Accepted once per 30-s step: the journeys' other admin sign-ins use the admin's passkey.
    const verdict = await enterCode(page, await generate({ secret: DEMO.admin.totpSecret }));
    expect(verdict.status()).toBe(200);
    await expect(page).toHaveURL((url) => url.pathname === "/admin");
    await expect(consoleNav(page)).toBeVisible();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
    await expect(page.getByText(`Signed in as ${ADMIN.username} (admin)`)).toBeVisible();
  });

  test("a support user reads the console, may not create an app, and revokes a token @phone", async ({ page, db }) => {
    const support = await staffUser(db, "support");
    await signInToConsole(page, support, support.passkey, "support");

    await openConsolePage(page, "Apps");
    await expect(page.getByRole("table", { name: "Apps" })).toBeVisible();
    await expect(page.getByRole("button", { name: "New app" })).toHaveCount(0);
    await expect(panel(page, "Create an app")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Create app" })).toHaveCount(0);
    await expectAccessible(page);

    // The admin API refuses createApp in the support user's own session.
    const created = await graphqlInPage(page, "mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey } }", {
      input: { developerId: "unknown-developer", name: "E2E support app" },
    });
    expect(errorCode(created), JSON.stringify(created)).toBe("FORBIDDEN");
    expect(created.data?.createApp ?? null).toBeNull();

    // Revoking a token is theirs: on the tokens page, filtered by the client.
    const token = await liveToken(page);
    await page.goto(`/admin/tokens?clientId=${encodeURIComponent(DEMO.adminApp.consumerKey)}`);
    const table = page.getByRole("table", { name: "Tokens", exact: true });
    const revoke = table.getByRole("button", { name: new RegExp(`^Revoke token ${token.id.slice(0, 10)}`) });
    await revoke.click();
    await table.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(page.getByRole("status").filter({ hasText: /^Token \S+ revoked\.$/ })).toBeVisible();
    const after = await graphqlInPage(page, "query($clientId: String) { tokens(clientId: $clientId, liveOnly: false, first: 200) { nodes { id state } } }", {
      clientId: DEMO.adminApp.consumerKey,
    });
    expect(after.data.tokens.nodes.find((t: Json) => t.id === token.id)?.state).toBe("REVOKED");
  });

  test("an auditor sees no action buttons, and the admin API refuses them a revocation @phone", async ({ page, db }) => {
    const auditor = await staffUser(db, "auditor");
    await signInToConsole(page, auditor, auditor.passkey, "auditor");

    const token = await liveToken(page);
    await page.goto(`/admin/tokens?clientId=${encodeURIComponent(DEMO.adminApp.consumerKey)}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tokens");
    const table = page.getByRole("table", { name: "Tokens", exact: true });
    await expect(table.locator("tbody tr").first()).toBeVisible();
    await expect(page.getByRole("main").getByRole("button", { name: /Revoke|Delete|Edit|Create|Rotate|Disable|Enable|Reset|Approve/ })).toHaveCount(0);
    await expectAccessible(page);

    const refused = await graphqlInPage(page, REVOKE_TOKEN, { id: token.id });
    expect(errorCode(refused), JSON.stringify(refused)).toBe("FORBIDDEN");
    const still = await graphqlInPage(page, "query($clientId: String) { tokens(clientId: $clientId, first: 200) { nodes { id state } } }", {
      clientId: DEMO.adminApp.consumerKey,
    });
    expect(still.data.tokens.nodes.find((t: Json) => t.id === token.id)?.state).toBe("LIVE");

    // The Users page offers them no forms either.
    await openConsolePage(page, "Users");
    await expect(page.getByRole("main").getByRole("button", { name: /Create user|Disable|Enable|Save role/ })).toHaveCount(0);
  });
});
