/**
 * Delegated login and consent (DELEGATED_LOGIN_URL, DELEGATED_CONSENT_URL;
 * server/src/interaction/delegation.ts) in Chromium with the reference application a bank
 * adapts (examples/delegated-login/): the shared e2e server has no delegation, so this file
 * starts a Tollgate of its own, the built server as `npm start` runs it, on a free port with a
 * fresh SQLite database in a temp dir and the demo seeded, whose DELEGATED_* URLs point at the
 * example application, which this file also starts (`node --import tsx`, as its README runs
 * it) pointed at that Tollgate with the demo admin client.
 *
 * The strict demo app asks for `aisp`, for a payment whose account alice chooses, and is
 * cancelled at sign-in; the browser's final visit to the demo callback (where no server
 * listens) is answered by the test, which exchanges the code at this Tollgate's token endpoint.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../server/src/demo/upstream.js";
import { ACR_SCA } from "../server/src/kernel/acr.js";
import { freePort } from "../server/test/support/free-port.js";
import { SERVER_ENTRY, serverEnv, serverNodeFlags } from "../server/test/support/start-command.js";
import { expectAccessible } from "./support/accessibility.js";
import { s256 } from "./support/journey.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const EXAMPLE = "examples/delegated-login/server.ts";
const APP = DEMO.strictApp;
const ALICE = DEMO.user;
/** The example's demo one-time code (examples/delegated-login/customers.ts). */
const OTP = "123456";
const AISP_DESCRIPTION = "Read your account details, balances and transactions";
const ACME = { name: "ACME GmbH", iban: "FR1420041010050500013M02606", printed: "FR14 2004 1010 0505 0001 3M02 606" };
/** A challenge as Tollgate makes them: 32 random bytes, base64url. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** A child process started by this file, with what it printed (the last 20 000 characters) for failure messages. */
interface Started {
  child: ChildProcess;
  /** The address it printed after "listening on". */
  url: string;
  output(): string;
}

let workDir: string;
let tollgate: Started | undefined;
let example: Started | undefined;
/** This file's Tollgate: its BASE_URL and AUTH_URL (the issuer). */
let tollgateUrl: string;

/** Starts `node <args>` in the repository and resolves once it prints "listening on <url>". @throws with its output if it exits first or takes longer than `timeoutMs`. */
function startNode(name: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const record = (chunk: Buffer) => void (output = (output + chunk.toString("utf8")).slice(-20_000));
  child.stdout!.on("data", record);
  child.stderr!.on("data", record);
  return new Promise((resolve, reject) => {
    const early = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited (${code ?? signal}) before listening`);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stdout!.off("data", listening);
      child.kill("SIGKILL");
      reject(new Error(`${name} ${why}:\n${output}`));
    };
    const listening = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", listening);
      child.off("exit", early);
      // A crash during the journeys: what it printed, since the journeys only see refused connections.
      child.once("exit", (code, signal) => {
        if (signal !== "SIGTERM" && signal !== "SIGKILL" && code !== 0) console.error(`${name} exited (${code ?? signal}):\n${output}`);
      });
      resolve({ child, url: match[1]!, output: () => output });
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    child.once("exit", early);
    child.stdout!.on("data", listening);
  });
}

/** SIGTERM, then SIGKILL if it has not exited after 5 s. */
async function stop(started: Started | undefined): Promise<void> {
  const child = started?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  if ((await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(resolve, 5000, false))])) === false) {
    child.kill("SIGKILL");
    await exited;
  }
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  workDir = mkdtempSync(path.join(tmpdir(), "tollgate-e2e-delegation-"));
  const port = await freePort();
  tollgateUrl = `http://127.0.0.1:${port}`;
  // The example first, on a free port of its own: Tollgate needs its address before it starts, it only needs Tollgate's at a request.
  example = await startNode(
    "the example application",
    ["--import", "tsx", EXAMPLE],
    { ...process.env, PORT: "0", HOST: "127.0.0.1", TOLLGATE_URL: tollgateUrl, CLIENT_ID: DEMO.adminApp.consumerKey, CLIENT_SECRET: DEMO.adminApp.consumerSecret },
    30_000,
  );
  tollgate = await startNode(
    "Tollgate",
    [...serverNodeFlags(), SERVER_ENTRY],
    {
      ...process.env,
      ...serverEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: tollgateUrl,
      AUTH_URL: tollgateUrl,
      DATABASE_URL: `file:${path.join(workDir, "tollgate.db")}`,
      DEMO_UPSTREAM_PORT: "0",
      SEED_DEMO: "true",
      LOG_LEVEL: "warn",
      DELEGATED_LOGIN_URL: `${example.url}/login`,
      DELEGATED_CONSENT_URL: `${example.url}/consent`,
    },
    90_000,
  );
  const health = await fetch(`${tollgateUrl}/healthz`);
  expect(health.status, tollgate.output()).toBe(200);
});

test.afterAll(async () => {
  await Promise.all([stop(tollgate), stop(example)]);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The request of the strict demo app: PKCE S256, a state, `prompt=consent`, and `extra` (which may replace `scope`). */
interface Authorization {
  state: string;
  verifier: string;
}

/**
 * Answers the browser's visit to the demo callback (where no server listens), then opens
 * Tollgate's /authorize for the strict demo app with `params`, and waits for the example's
 * sign-in page. @returns its state and PKCE verifier.
 */
async function authorize(page: Page, params: Record<string, string>): Promise<Authorization> {
  await page.route(`${DEMO.callbackUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: '<!doctype html><html lang="en"><title>TPP callback</title><h1>Back at the TPP</h1></html>' }),
  );
  const state = randomUUID();
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: APP.consumerKey,
    response_type: "code",
    redirect_uri: DEMO.callbackUrl,
    state,
    code_challenge: s256(verifier),
    code_challenge_method: "S256",
    prompt: "consent",
    ...params,
  });
  await page.goto(`${tollgateUrl}/authorize?${query}`);
  await expect(page).toHaveURL((url) => url.origin === example!.url && url.pathname === "/login" && CHALLENGE.test(url.searchParams.get("login_challenge") ?? ""));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${APP.name}`);
  await expect(page.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  // The strict app's PSD2 products need SCA: the one-time code is required.
  await expect(page.getByLabel("One-time code")).toHaveAttribute("required", "");
  return { state, verifier };
}

/** Fills the sign-in form and presses Sign in. */
async function signIn(page: Page, who: { username: string; password: string; otp: string }): Promise<void> {
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Password").fill(who.password);
  await page.getByLabel("One-time code").fill(who.otp);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Waits for the example's consent page of the strict app, alice signed in. */
async function expectConsentPage(page: Page, heading: string): Promise<void> {
  await expect(page).toHaveURL((url) => url.origin === example!.url && url.pathname === "/consent" && CHALLENGE.test(url.searchParams.get("consent_challenge") ?? ""));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${APP.name} ${heading}`);
  await expect(page.getByText("Signed in as")).toHaveText(`Signed in as ${ALICE.username}`);
}

/** Waits until the browser is at the demo callback. @returns its query. */
async function atCallback(page: Page): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(`${DEMO.callbackUrl}?`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Back at the TPP");
  return new URL(page.url()).searchParams;
}

/** A POST of the strict app to this Tollgate (client_secret_basic). @returns the status and the JSON body. */
async function asStrictApp(endpoint: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${tollgateUrl}${endpoint}`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${APP.consumerKey}:${APP.consumerSecret}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Exchanges a code at the token endpoint; fails unless 200. @returns the token response. */
async function exchange(code: string, verifier: string): Promise<Record<string, unknown>> {
  const tokens = await asStrictApp("/oauth2/v1/token", { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  expect(tokens.body.access_token).toEqual(expect.any(String));
  return tokens.body;
}

test("the reference delegated app signs in and consents", async ({ page }) => {
  const { state, verifier } = await authorize(page, { scope: "aisp" });
  await expect(page.getByRole("listitem")).toHaveText([AISP_DESCRIPTION]);
  await expectAccessible(page);
  await signIn(page, { ...ALICE, otp: OTP });

  await expectConsentPage(page, "asks for access to your accounts");
  await expect(page.getByRole("checkbox")).toHaveCount(1);
  await expect(page.getByRole("checkbox", { name: AISP_DESCRIPTION })).toBeChecked();
  await expectAccessible(page);
  await page.getByRole("button", { name: "Allow" }).click();

  const callback = await atCallback(page);
  expect(callback.get("error")).toBeNull();
  expect(callback.get("state")).toBe(state);
  expect(callback.get("iss")).toBe(tollgateUrl);
  const code = callback.get("code");
  expect(code).toEqual(expect.any(String));
  const tokens = await exchange(code!, verifier);
  expect(tokens.scope).toBe("aisp");
  // alice as the example signed her in: password and one-time code, strong customer authentication.
  const introspected = await asStrictApp("/oauth2/v1/introspect", { token: tokens.access_token as string });
  expect(introspected.status).toBe(200);
  expect(introspected.body).toMatchObject({ active: true, username: ALICE.username, scope: "aisp", acr: ACR_SCA });
});

test("a payment: the consent page shows the amount and the creditor, alice chooses the account to pay from", async ({ page }) => {
  const payment = { type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "99.00" }, creditorName: ACME.name, creditorAccount: { iban: ACME.iban } };
  const { state, verifier } = await authorize(page, { authorization_details: JSON.stringify([payment]) });
  await expect(page.getByRole("listitem")).toHaveText([`Pay €99.00 to ${ACME.name}`]);
  await signIn(page, { ...ALICE, otp: OTP });

  await expectConsentPage(page, "asks you to approve a payment");
  await expect(page.getByText(`Pay €99.00 to ${ACME.name}`)).toBeVisible();
  await expect(page.getByText(`IBAN ${ACME.printed}`)).toBeVisible();
  const payFrom = page.getByRole("group", { name: "Pay from" });
  const choices = payFrom.getByRole("radio");
  await expect(choices).toHaveCount(DEMO_ACCOUNTS.length);
  for (const account of DEMO_ACCOUNTS) {
    await expect(payFrom.getByRole("radio", { name: `${account.name}, ${account.iban.replace(/(.{4})(?=.)/g, "$1 ")}` })).not.toBeChecked();
  }
  // No scope asked for: the payment is what is approved.
  await expect(page.getByRole("checkbox")).toHaveCount(0);
  await expectAccessible(page);

  const savings = DEMO_ACCOUNTS[1]!;
  await payFrom.getByRole("radio", { name: new RegExp(`^${savings.name}, `) }).check();
  await page.getByRole("button", { name: "Allow" }).click();

  const callback = await atCallback(page);
  expect(callback.get("error")).toBeNull();
  expect(callback.get("state")).toBe(state);
  const tokens = await exchange(callback.get("code")!, verifier);
  expect(tokens.authorization_details).toEqual([{ ...payment, debtorAccount: { iban: savings.iban } }]);
});

test("alice cancels at sign-in: the TPP gets access_denied; a wrong password and a forged form change nothing before", async ({ page }) => {
  const { state } = await authorize(page, { scope: "aisp" });
  const loginUrl = page.url();

  // A wrong password: the page again, with the error, the username kept.
  await signIn(page, { username: ALICE.username, password: "not-her-password", otp: OTP });
  await expect(page.getByRole("alert")).toHaveText("The username or password is not right.");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${APP.name}`);
  await expect(page.getByLabel("Username")).toHaveValue(ALICE.username);
  await expectAccessible(page);

  // The form posted from elsewhere (the page's own token, without this browser's cookie): refused, the request stays open.
  const forged = await fetch(`${example!.url}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      login_challenge: new URL(loginUrl).searchParams.get("login_challenge")!,
      csrf: await page.locator('input[name="csrf"]').inputValue(),
      action: "cancel",
    }).toString(),
    redirect: "manual",
  });
  expect(forged.status).toBe(403);
  expect(await forged.text()).toContain("This form has expired");

  await page.getByRole("button", { name: "Cancel" }).click();
  const callback = await atCallback(page);
  expect(callback.get("error")).toBe("access_denied");
  expect(callback.get("error_description")).toBe("the customer cancelled the sign-in at the bank");
  expect(callback.get("state")).toBe(state);
  expect(callback.get("iss")).toBe(tollgateUrl);
  expect(callback.get("code")).toBeNull();

  // The challenge was answered: its sign-in page has ended.
  const again = await page.goto(loginUrl);
  expect(again?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This request has ended");
});
