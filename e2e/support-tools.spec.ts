/**
 * The console's support tools, in Chromium against the built server: a `support` user (with a
 * passkey of their own, made here and removed afterwards) finds carol blocked after failed
 * sign-ins ("Blocked until hh:mm"), unblocks her with a confirmation, and sets her a temporary
 * password, with which she signs in and chooses her own; then a refused token request is found
 * from its x-fapi-interaction-id in two clicks: the console's search, then the event.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { hash } from "@node-rs/argon2";
import type { APIRequestContext } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { basicAuth, openConsolePage, panel, signInToConsole, waitForAuditEvent } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { VirtualPasskey } from "./support/passkey.js";

/** `n` failed sign-ins of `username` at the console's sign-in (POST /session/login), as someone guessing her password. */
async function failSignIns(request: APIRequestContext, username: string, n: number): Promise<void> {
  const { csrfToken } = await (await request.get("/session")).json();
  for (let i = 0; i < n; i++) {
    const res = await request.post("/session/login", { data: { username, password: `guess-${i}` }, headers: { "X-CSRF-Token": csrfToken } });
    expect([401, 429]).toContain(res.status());
  }
}

test.describe("support tools", () => {
  // Two browsers, three pages checked with axe in two color schemes each.
  test.setTimeout(120_000);
  const made: string[] = [];

  test.afterAll(async ({ db }) => {
    await db.user.deleteMany({ where: { id: { in: made } } });
  });

  test("support unblocks carol and sets her a temporary password; a refusal is found from its interaction id in two clicks @phone", async ({ page, db, newUser, browser }) => {
    // A support user with a passkey, and carol, a PSU blocked by failed sign-ins.
    const username = `e2e-support-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const support = await db.user.create({ data: { username, passwordHash: await hash(password), role: "support", status: "active" }, select: { id: true } });
    made.push(support.id);
    const passkey = new VirtualPasskey();
    await passkey.insertFactor(db, support.id, "E2E support passkey");
    const carol = await newUser("carol");
    made.push(carol.id);
    await failSignIns(page.request, carol.username, 5);

    await signInToConsole(page, { username, password }, passkey, "support");
    await openConsolePage(page, "Users");
    await page.getByRole("searchbox", { name: "Search by username" }).fill(carol.username);
    await page.getByRole("search", { name: "Users", exact: true }).getByRole("button", { name: "Search", exact: true }).click();
    const users = page.getByRole("table", { name: "Users" });
    const row = users.getByRole("row").filter({ hasText: carol.username });
    await expect(row.getByText(/^Blocked until \d{2}:\d{2}/)).toBeVisible();
    await row.getByRole("button", { name: `Factors, tokens and consents of ${carol.username}` }).click();

    // Unblock, confirmed.
    const signInPanel = panel(page, "Sign-in");
    await expect(signInPanel.getByText(/Blocked until .*too many failed sign-in attempts/)).toBeVisible();
    await expect(panel(page, "PSD2 consents")).toBeVisible();
    await expectAccessible(page);
    await signInPanel.getByRole("button", { name: `Unblock ${carol.username}` }).click();
    await signInPanel.getByRole("button", { name: "Yes, unblock" }).click();
    await expect(page.getByRole("status").filter({ hasText: `${carol.username} is unblocked: they can sign in again.` })).toBeVisible();
    await expect(row.getByText("active", { exact: true })).toBeVisible();
    const event = await db.auditEvent.findFirst({ where: { type: "admin.unblockUser", subject: carol.id } });
    expect(event?.actor).toBe(`admin:${username}`);

    // A temporary password, shown once.
    await signInPanel.getByRole("button", { name: `Set a temporary password for ${carol.username}` }).click();
    await signInPanel.getByRole("button", { name: "Yes, set it" }).click();
    const temporary = (await page.getByTestId("temporary-password").textContent()) ?? "";
    expect(temporary).toMatch(/^[A-Za-z0-9_-]{24}$/);
    await expectAccessible(page);
    await page.getByRole("button", { name: "I have given the password" }).click();
    await expect(page.getByTestId("temporary-password")).toHaveCount(0);

    // Carol signs in with it (her Account page) and chooses her own password first.
    const carolContext = await browser.newContext({ baseURL: TOLLGATE_URL });
    const carolPage = await carolContext.newPage();
    await carolPage.goto("/account");
    await carolPage.getByLabel("Username").fill(carol.username);
    await carolPage.getByLabel("Password").fill(temporary);
    await carolPage.getByRole("button", { name: "Sign in" }).click();
    await expect(carolPage.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
    await expectAccessible(carolPage);
    await carolPage.getByLabel("New password", { exact: true }).fill("carols-own-password");
    await carolPage.getByLabel("Repeat the new password").fill("carols-own-password");
    await carolPage.getByRole("button", { name: "Save and continue" }).click();
    await expect(carolPage).toHaveURL((url) => url.pathname === "/account");
    await carolContext.close();
    expect((await db.user.findUniqueOrThrow({ where: { id: carol.id } })).temporaryPasswordUntil).toBeNull();

    // A refused token request (a wrong secret), with the caller's x-fapi-interaction-id.
    const interactionId = randomUUID();
    const refused = await fetch(`${TOLLGATE_URL}/oauth2/v1/token`, {
      method: "POST",
      headers: { Authorization: basicAuth(DEMO.app.consumerKey, "not-the-secret"), "Content-Type": "application/x-www-form-urlencoded", "x-fapi-interaction-id": interactionId },
      body: "grant_type=client_credentials",
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-fapi-interaction-id")).toBe(interactionId);
    await waitForAuditEvent(page, { clientId: DEMO.app.consumerKey, type: "client.authentication_failed" }, (e) => e.details.includes(interactionId));

    // Click 1: the console's search box with the interaction id.
    const search = page.getByRole("search", { name: "Apps, users and tokens" });
    await search.getByRole("searchbox", { name: "Search apps, users and tokens" }).fill(interactionId);
    await search.getByRole("button", { name: "Search apps, users and tokens" }).click();
    const found = page.getByRole("table", { name: "Audit events found" });
    await expect(found.getByRole("row")).toHaveCount(2);
    await expectAccessible(page);
    // Click 2: the event, on the audit log filtered by its interaction id.
    await found.getByRole("link", { name: `Client authentication failed of request ${interactionId}` }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/admin/audit" && url.searchParams.get("interactionId") === interactionId);
    const events = page.getByRole("table", { name: "Audit events" });
    const entry = events.getByRole("row").filter({ hasText: "client.authentication_failed" });
    await expect(entry).toHaveCount(1);
    await expect(entry.getByRole("link", { name: "Acme Budgeting" })).toBeVisible();
    await expect(entry.getByText(interactionId).first()).toBeAttached();
    await expectAccessible(page);
  });
});
