/**
 * Strong customer authentication (PSD2 RTS Arts. 4–8, issue 16) in Chromium against the
 * built server: the factor step of the sign-in (a TOTP code, RFC 6238, or a passkey through
 * Chromium's virtual authenticator, support/passkey.ts), the Account page's sign-in methods
 * (set up an authenticator app, add and remove a passkey, confirming who you are first), the
 * block after five failed attempts with one message whatever was wrong, the password that
 * never reaches consent alone for a PSD2 scope, and the inactivity limit between sign-in and
 * consent (SCA_IDLE_SECONDS, shortened for the e2e server in playwright.config.ts).
 *
 * Each journey that sets up or uses a TOTP key has a user of its own (the `newUser` fixture),
 * so that the replay guard (a code is accepted once per 30-s step) never involves another
 * journey; where one key is used twice, the second code is the next step's.
 */
import type { Locator, Page } from "@playwright/test";
import { generate, generateSecret } from "otplib";
import { expectAccessible } from "./support/accessibility.js";
import { readTable, signInAt } from "./support/console.js";
import { loadKeyEncryption } from "../server/src/kernel/key-encryption.js";
import { KEK_FILE, SCA_IDLE_SECONDS, TOLLGATE_URL } from "./support/env.js";
import { expect, RP_APPS, test, type TestUser } from "./support/fixtures.js";
import {
  ALICE,
  answerWithPasskey,
  askedForFactor,
  enterCode,
  expectAtCallback,
  expectConsentPage,
  expectLoginPage,
  factorStep,
  recordTollgatePages,
  shownStatus,
  signIn,
  submitPassword,
  usePasskey,
} from "./support/journey.js";
import { authenticatorCredentials, RP_ID, virtualAuthenticator } from "./support/passkey.js";

/** The server's one message for a failed sign-in, whichever element was wrong. */
const INCORRECT = "The sign-in details are incorrect.";

/** One TOTP time step (RFC 6238 §4: X = 30 s), in seconds. */
const STEP_SECONDS = 30;

/** The TOTP code of `secret` for the time step `steps` after the current one (0: now). */
function totp(secret: string, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * STEP_SECONDS });
}

/** A well-formed code that none of the steps the server accepts now (the current one ±1) gives. */
async function wrongCode(secret: string): Promise<string> {
  const valid = new Set(await Promise.all([-1, 0, 1, 2].map((steps) => totp(secret, steps))));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0");
    if (!valid.has(code)) return code;
  }
}

/** The Account page's "Sign-in methods" section. */
function methods(page: Page): Locator {
  return page.getByRole("region", { name: "Sign-in methods" });
}

/** The rows of the sign-in methods table. */
function methodRows(page: Page): Promise<Record<string, string>[]> {
  return readTable(methods(page).getByRole("table"));
}

/** The consent page of `appName` for a user who is not alice. */
async function expectConsentFor(page: Page, appName: string, user: TestUser): Promise<void> {
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/consent");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${appName} wants access to your accounts`);
  await expect(page.getByText(/Signed in as/)).toHaveText(`Signed in as ${user.username}`);
}

/** Allows on the consent page, then checks the relying party got a token and called the accounts API with it. */
async function allowAndExpectToken(page: Page, rp: { url: string }): Promise<void> {
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.origin === rp.url && url.pathname === "/callback");
  expect(await shownStatus(page, "token-status")).toBe(200);
  expect(await shownStatus(page, "api-status")).toBe(200);
}

test("an authenticator app set up on the Account page signs its user in to a PSD2 request", async ({ page, rp, newUser }) => {
  const user = await newUser("totp");
  const app = RP_APPS.legacy;

  // No second factor yet: the password alone signs in to the Account page.
  await signInAt(page, "/account", user);
  const section = methods(page);
  await expect(section.getByText("You have no authenticator app or passkey yet: you sign in with your password only.")).toBeVisible();

  await section.getByRole("button", { name: "Set up an authenticator app" }).click();
  const setup = section.getByRole("region", { name: "Set up an authenticator app" });
  await expect(setup.getByRole("heading", { name: "Set up an authenticator app" })).toBeFocused();
  // The key as a QR code (an SVG data: URL the browser renders) and as text in groups of four.
  const qr = setup.getByRole("img", { name: "QR code of the key for your authenticator app (the same key is written out below)" });
  await expect(qr).toHaveAttribute("src", /^data:image\/svg\+xml[;,]/);
  await expect
    .poll(() =>
      qr.evaluate((element) => {
        const img = element as unknown as { complete: boolean; naturalWidth: number };
        return img.complete && img.naturalWidth > 0;
      }),
    )
    .toBe(true);
  const shownKey = (await setup.getByTestId("totp-key").textContent()) ?? "";
  expect(shownKey).toMatch(/^[A-Z2-7]{4}(?: [A-Z2-7]{1,4})+$/);
  const secret = shownKey.replaceAll(" ", "");
  await expect(setup.getByRole("button", { name: "Copy key" })).toBeVisible();
  await expect(setup.getByRole("link", { name: "Open in an authenticator app on this device" })).toHaveAttribute(
    "href",
    new RegExp(`^otpauth://totp/.*[?&]secret=${secret}(?:&|$)`),
  );
  await expectAccessible(page);

  // A wrong code is refused: the form says so and nothing is added.
  const codeField = setup.getByLabel("Code from the app");
  await codeField.fill(await wrongCode(secret));
  await setup.getByLabel("Name").fill("Work phone");
  const refused = page.waitForResponse((r) => r.url() === `${TOLLGATE_URL}/session/factors/totp/confirm`);
  await setup.getByRole("button", { name: "Add authenticator app" }).click();
  expect((await refused).status()).toBe(400);
  await expect(setup.getByRole("alert")).not.toBeEmpty();
  await expect(codeField).toHaveValue("");
  await expect(codeField).toHaveAttribute("aria-invalid", "true");
  await expect(codeField).toBeFocused();
  await expect(section.getByRole("table")).toHaveCount(0);

  // The app's current code adds it.
  await codeField.fill(await totp(secret));
  await setup.getByRole("button", { name: "Add authenticator app" }).click();
  await expect(section.getByRole("status").filter({ hasText: "Authenticator app “Work phone” added. You will use it when you sign in." })).toBeVisible();
  await expect(setup).toHaveCount(0);
  await expect(section.getByRole("button", { name: "Set up an authenticator app" })).toBeFocused();
  const [added] = await methodRows(page);
  expect(added).toMatchObject({ Name: "Work phone", Type: "Authenticator app" });
  expect(added!.Added).not.toBe("—");
  await expectAccessible(page);

  // A PSD2 request: after the password, the factor step; the code is the next time step's
  // (the enrolment used this step's, and a code is accepted once).
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();
  await page.goto(`${rp.url}/start?app=legacy`);
  await expectLoginPage(page, app.name);
  expect(await askedForFactor(await submitPassword(page, user.username, user.password))).toBe(true);
  const code = factorStep(page).getByLabel("One-time code");
  await expect(code).toBeFocused();
  await expect(code).toHaveAttribute("inputmode", "numeric");
  await expect(code).toHaveAttribute("autocomplete", "one-time-code");
  await expect(factorStep(page).getByText("The 6-digit code your authenticator app shows now.")).toBeVisible();
  await expect(factorStep(page).getByRole("button", { name: "Use a passkey instead" })).toBeVisible();
  await expectAccessible(page);
  expect((await enterCode(page, await totp(secret, 1))).status()).toBe(200);
  await expectConsentFor(page, app.name, user);
  await allowAndExpectToken(page, rp);

  // The Account page shows when the app was last used.
  await page.goto(`${TOLLGATE_URL}/account`);
  const [used] = await methodRows(page);
  expect(used).toMatchObject({ Name: "Work phone", Type: "Authenticator app" });
  expect(used!["Last used"]).not.toBe("never");
});

test("a passkey added on the Account page after confirming it's you signs its user in; removing it needs a second factor", async ({ page, rp, newUser }) => {
  test.setTimeout(90_000);
  const user = await newUser("passkey");
  const app = RP_APPS.strict;
  await virtualAuthenticator(page);
  await signInAt(page, "/account", user);
  const section = methods(page);

  // Past the freshness of the sign-in, a change asks to confirm who you are, then goes on.
  await page.waitForTimeout((SCA_IDLE_SECONDS + 1) * 1000);
  await section.getByRole("button", { name: "Add a passkey" }).click();
  const add = section.getByRole("region", { name: "Add a passkey" });
  await expect(add.getByLabel("Name")).toBeFocused();
  await add.getByLabel("Name").fill("Laptop");
  await add.getByRole("button", { name: "Create the passkey" }).click();
  const confirm = section.getByRole("region", { name: "For your security, confirm it's you" });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByText("Sign in again to change your sign-in methods.")).toBeVisible();
  await expect(confirm.getByLabel("Username")).toHaveValue(user.username);
  await expect(confirm.getByLabel("Username")).not.toBeEditable();
  await expect(confirm.getByLabel("Password")).toBeFocused();
  expect(await authenticatorCredentials(page)).toEqual([]);
  await expectAccessible(page);
  await confirm.getByLabel("Password").fill(user.password);
  await confirm.getByRole("button", { name: "Confirm" }).click();

  // Confirmed: the passkey is created in the authenticator and registered.
  await expect(section.getByRole("status").filter({ hasText: "Passkey “Laptop” added. You can use it when you sign in." })).toBeVisible();
  await expect(confirm).toHaveCount(0);
  await expect(section.getByRole("button", { name: "Add a passkey" })).toBeFocused();
  expect(await methodRows(page)).toEqual([
    { Name: "Laptop", Type: "Passkey", Added: expect.any(String), "Last used": "never", Actions: "Remove passkey Laptop" },
  ]);
  const credentials = await authenticatorCredentials(page);
  expect(credentials).toHaveLength(1);
  expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: RP_ID });
  expect(Buffer.from(credentials[0]!.userHandle ?? "", "base64").toString("utf8")).toBe(user.id);

  // A PSD2 request: the password, then the passkey.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();
  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, app.name);
  expect(await askedForFactor(await submitPassword(page, user.username, user.password))).toBe(true);
  expect((await answerWithPasskey(page)).status()).toBe(200);
  await expectConsentFor(page, app.name, user);
  await allowAndExpectToken(page, rp);

  // Removing it asks for a second factor now: here the passkey itself.
  await page.goto(`${TOLLGATE_URL}/account`);
  const [used] = await methodRows(page);
  expect(used!["Last used"]).not.toBe("never");
  await section.getByRole("button", { name: "Remove passkey Laptop" }).click();
  const remove = section.getByRole("form", { name: "Remove passkey “Laptop”" });
  await expect(remove.getByLabel("One-time code")).toBeFocused();
  await expect(section.getByRole("button", { name: "Remove passkey Laptop" })).toHaveAttribute("aria-expanded", "true");
  await expectAccessible(page);
  // Cancel puts focus back on the row's button; the second time, the passkey removes it.
  await remove.getByRole("button", { name: "Cancel" }).click();
  await expect(remove).toHaveCount(0);
  await expect(section.getByRole("button", { name: "Remove passkey Laptop" })).toBeFocused();
  await section.getByRole("button", { name: "Remove passkey Laptop" }).click();
  const removed = page.waitForResponse((r) => /\/session\/factors\/[^/]+\/remove$/.test(r.url()));
  await remove.getByRole("button", { name: "Use a passkey instead" }).click();
  expect((await removed).status()).toBe(200);
  await expect(section.getByRole("status").filter({ hasText: "Passkey “Laptop” removed." })).toBeVisible();
  await expect(section.getByText("You have no authenticator app or passkey yet: you sign in with your password only.")).toBeVisible();
  await expect(section.getByRole("heading", { name: "Sign-in methods" })).toBeFocused();
});

test("five failed attempts give one message whichever element was wrong, and the sixth is blocked", async ({ page, rp, db, newUser }) => {
  const user = await newUser("blocked");
  const secret = generateSecret();
  // Stored as the server stores TOTP keys: sealed under its key-encryption key, for this user.
  const sealed = loadKeyEncryption(KEK_FILE, false).encryption.seal(Buffer.from(secret), `totp:${user.id}`);
  await db.userFactor.create({ data: { userId: user.id, type: "totp", name: "Phone", secret: sealed } });
  const right = await totp(secret);
  const wrong = await wrongCode(secret);
  const attempts = [
    { what: "right password, wrong code", username: user.username, password: user.password, code: wrong },
    { what: "wrong password, right code", username: user.username, password: `${user.password}-wrong`, code: right },
    { what: "username in capitals (counted for the same user), right password, wrong code", username: user.username.toUpperCase(), password: user.password, code: wrong },
    { what: "wrong password, wrong code", username: user.username, password: "not-the-password", code: wrong },
    { what: "right password, wrong code again", username: user.username, password: user.password, code: wrong },
  ];

  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, RP_APPS.strict.name);
  const loginUrl = page.url();
  const messages: string[] = [];
  for (const attempt of attempts) {
    // The factor step comes whatever the password was; the verdict only after the code.
    expect(await askedForFactor(await submitPassword(page, attempt.username, attempt.password)), attempt.what).toBe(true);
    const verdict = await enterCode(page, attempt.code);
    expect(verdict.status(), attempt.what).toBe(401);
    expect((await verdict.json()).error, attempt.what).toBe("invalid_credentials");
    // Back at the password, with the message.
    await expect(factorStep(page), attempt.what).toHaveCount(0);
    const alert = page.getByRole("alert");
    await expect(alert, attempt.what).toBeVisible();
    messages.push((await alert.textContent()) ?? "");
    const password = page.getByLabel("Password");
    await expect(password).toHaveValue("");
    await expect(password).toBeFocused();
    await expect(password).toHaveAttribute("aria-invalid", "true");
    expect(page.url()).toBe(loginUrl);
  }
  expect(messages).toEqual(attempts.map(() => INCORRECT));
  await expectAccessible(page);

  // The sixth attempt, with the right password, is refused at the password step.
  const sixth = await submitPassword(page, user.username, user.password);
  expect(sixth.status()).toBe(429);
  expect((await sixth.json()).error).toBe("too_many_attempts");
  expect(Number(sixth.headers()["retry-after"])).toBeGreaterThan(0);
  await expect(page.getByRole("alert")).toHaveText(/^Too many sign-in attempts\. Try again in \d+ minutes\.$/);
  await expect(factorStep(page)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  expect(page.url()).toBe(loginUrl);
});

test("for a PSD2 scope a password alone never reaches consent", async ({ page, rp, newUser }) => {
  const app = RP_APPS.legacy;
  const shown = recordTollgatePages(page);
  await page.goto(`${rp.url}/start?app=legacy`);
  const id = await expectLoginPage(page, app.name);
  await expect(page.getByText("After your password, you will confirm it's you with a code from your authenticator app or a passkey.")).toBeVisible();

  // alice's right password: the factor step, not consent.
  const answer = await submitPassword(page, ALICE.username, ALICE.password);
  expect(answer.status()).toBe(200);
  const body = await answer.json();
  expect(body.stage).toBe("factor");
  expect(body.redirectTo).toBeUndefined();
  await expect(factorStep(page)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${app.name}`);
  expect(shown).toEqual(["/login"]);

  // The consent page, opened directly, sends the browser back to the factor step ...
  await page.goto(`${TOLLGATE_URL}/consent?interaction=${id}`);
  await expect(page).toHaveURL((url) => url.pathname === "/login" && url.searchParams.get("interaction") === id);
  await expect(factorStep(page)).toBeVisible();
  await expect(page.getByRole("button", { name: "Allow" })).toHaveCount(0);
  // ... and the consent API refuses an answer at the factor stage.
  const direct = await page.evaluate(async (interactionId) => {
    const view = (await (await fetch(`/interaction/${interactionId}`)).json()) as { stage: string; csrfToken: string };
    const res = await fetch(`/interaction/${interactionId}/consent`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": view.csrfToken },
      body: JSON.stringify({ approve: true, scopes: ["aisp"] }),
    });
    return { stage: view.stage, status: res.status };
  }, id);
  expect(direct).toEqual({ stage: "factor", status: 409 });

  // With the second factor: consent.
  expect((await usePasskey(page)).status()).toBe(200);
  await expectConsentPage(page, app.name);

  // A user without a second factor: the right password sends the app access_denied, never consent.
  const user = await newUser("nofactor");
  await page.context().clearCookies();
  shown.length = 0;
  await page.goto(`${rp.url}/start?app=legacy`);
  await expectLoginPage(page, app.name);
  await submitPassword(page, user.username, user.password);
  const query = await expectAtCallback(page, rp);
  expect(query.get("error")).toBe("access_denied");
  expect(query.get("error_description")).toMatch(/strong customer authentication/);
  expect(query.has("code")).toBe(false);
  expect(shown).toEqual(["/login"]);
});

test("idling past the limit between sign-in and consent asks for a new sign-in", async ({ page, rp }) => {
  test.setTimeout(90_000);
  const app = RP_APPS.strict;
  await page.goto(`${rp.url}/start?app=strict`);
  const id = await expectLoginPage(page, app.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, app.name);

  await page.waitForTimeout((SCA_IDLE_SECONDS + 1) * 1000);
  const refused = page.waitForResponse((r) => r.url() === `${TOLLGATE_URL}/interaction/${id}/consent`);
  await page.getByRole("button", { name: "Allow" }).click();
  expect((await refused).status()).toBe(401);

  // Back at the sign-in of the same request, which says why.
  await expect(page).toHaveURL((url) => url.pathname === "/login" && url.searchParams.get("interaction") === id);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${app.name}`);
  await expect(page.getByRole("status").filter({ hasText: "You were inactive" })).toHaveText(
    `You were inactive for more than ${SCA_IDLE_SECONDS} seconds after signing in. Sign in again.`,
  );
  await expectAccessible(page);
  expect(rp.requests.map((r) => r.url.split("?")[0])).toEqual(["/start"]);

  // Signing in again (both factors) leads to consent, and allowing now works.
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, app.name);
  await page.getByRole("button", { name: "Allow" }).click();
  await expectAtCallback(page, rp);
  expect(await shownStatus(page, "token-status")).toBe(200);
});
