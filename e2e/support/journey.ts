/**
 * Steps of the authorization code journeys, written against what a user sees: the
 * Tollgate pages (login, consent, error) and the relying party's pages.
 */
import { createHash } from "node:crypto";
import { expect, type Locator, type Page, type Response } from "@playwright/test";
import { DEMO } from "../../server/src/demo/seed.js";
import { TOLLGATE_URL } from "./env.js";
import { ALICE_PASSKEY, type VirtualPasskey } from "./passkey.js";
import type { RelyingParty, StartedFlow } from "./relying-party.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const ALICE = DEMO.user;

/** What the consent page shows for the `aisp` scope (seed description). */
export const AISP_DESCRIPTION = "Read your account details, balances and transactions";

/** The login page's interaction id, once the browser is on `/login?interaction=…`. */
export async function expectLoginPage(page: Page, appName: string): Promise<string> {
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/login" && url.searchParams.has("interaction"));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${appName}`);
  await expect(page.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  await expect(page.getByLabel("Username")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  return new URL(page.url()).searchParams.get("interaction")!;
}

/** A response to a POST to Tollgate whose path matches `path`. */
function tollgatePost(path: RegExp): (response: Response) => boolean {
  return (response) => {
    const url = new URL(response.url());
    return response.request().method() === "POST" && url.origin === TOLLGATE_URL && path.test(url.pathname);
  };
}

/** The server's answer to the password step: an authorization request's, or the console's and Account page's. */
const isPasswordAnswer = tollgatePost(/^\/(?:interaction\/[^/]+\/login|session\/login)$/);

/** The server's answer to the second factor. */
const isFactorAnswer = tollgatePost(/^\/(?:interaction\/[^/]+\/factor|session\/factor)$/);

/**
 * Fills the login form's username and password and submits them.
 * @returns the server's answer: the factor stage (whether or not the password was right,
 *   when the account has a factor or the request needs SCA), signed in, a redirect, or an error.
 */
export async function submitPassword(page: Page, username: string, password: string): Promise<Response> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  const answer = page.waitForResponse(isPasswordAnswer);
  await page.getByRole("button", { name: "Sign in" }).click();
  return answer;
}

/** Whether the server answered the password with the factor stage. */
export async function askedForFactor(answer: Response): Promise<boolean> {
  return answer.status() === 200 && (await answer.json()).stage === "factor";
}

/** The sign-in's factor step (after the password): a one-time code field and "Use a passkey instead". */
export function factorStep(page: Page): Locator {
  return page.getByRole("form", { name: "Confirm it's you" });
}

/**
 * Answers the factor step with "Use a passkey instead": the page's virtual authenticator
 * (passkey.ts) signs with the passkey it holds. @returns the server's verdict.
 */
export async function answerWithPasskey(page: Page): Promise<Response> {
  await expect(factorStep(page)).toBeVisible();
  const answer = page.waitForResponse(isFactorAnswer);
  await factorStep(page).getByRole("button", { name: "Use a passkey instead" }).click();
  return answer;
}

/** Answers the factor step with `passkey` (alice's by default), put into the page's virtual authenticator first. @returns the server's verdict. */
export async function usePasskey(page: Page, passkey: VirtualPasskey = ALICE_PASSKEY): Promise<Response> {
  await passkey.installOn(page);
  const response = await answerWithPasskey(page);
  await passkey.syncFrom(page);
  return response;
}

/** Answers the factor step with a one-time code. @returns the server's verdict. */
export async function enterCode(page: Page, code: string): Promise<Response> {
  const step = factorStep(page);
  await expect(step).toBeVisible();
  await step.getByLabel("One-time code").fill(code);
  const answer = page.waitForResponse(isFactorAnswer);
  await step.getByRole("button", { name: "Continue" }).click();
  return answer;
}

/**
 * Signs in with the login form: the username and password, then, when the server asks for
 * a second factor, `passkey` (alice's by default: the PSD2 products require strong customer
 * authentication; for another username pass theirs, else the verdict fails).
 */
export async function signIn(page: Page, username: string, password: string, passkey: VirtualPasskey = ALICE_PASSKEY): Promise<void> {
  if (await askedForFactor(await submitPassword(page, username, password))) await usePasskey(page, passkey);
}

/** Checks the consent page of `appName` asking alice for `aisp` only. */
export async function expectConsentPage(page: Page, appName: string): Promise<void> {
  await expect(page).toHaveURL((url) => url.origin === TOLLGATE_URL && url.pathname === "/consent" && url.searchParams.has("interaction"));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${appName} wants access to your accounts`);
  await expect(page.getByText(`Operated by ${DEMO.organization}`)).toBeVisible();
  await expect(page.getByText(/Signed in as/)).toHaveText(`Signed in as ${ALICE.username}`);
  // One checkbox per requested scope: only aisp was requested, and it starts checked.
  await expect(page.getByRole("checkbox")).toHaveCount(1);
  await expect(page.getByRole("checkbox", { name: AISP_DESCRIPTION })).toBeChecked();
  // The scope in words only, never its code (issue 19); how long access lasts, and where to withdraw it.
  await expect(page.getByText("aisp", { exact: true })).toHaveCount(0);
  await expect(page.getByText(/^Access lasts until .+ \(\d+ days\)\. You can withdraw it at any time on your Account page\.$/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Not you? Sign out" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Allow" })).toBeEnabled();
  await expect(page.getByRole("button", { name: "Deny" })).toBeEnabled();
}

/** Waits until the browser is on the relying party's callback page. @returns its query. */
export async function expectAtCallback(page: Page, rp: RelyingParty): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.origin === rp.url && url.pathname === "/callback");
  return new URL(page.url()).searchParams;
}

/** The relying party's last started authorization request. */
export function lastFlow(rp: RelyingParty): StartedFlow {
  const flow = rp.flows.at(-1);
  expect(flow, "the relying party started an authorization request").toBeDefined();
  return flow!;
}

/** Reads a JSON block the relying party printed (`<pre data-testid=…>`). */
export async function shownJson(page: Page, testId: string): Promise<Json> {
  const text = await page.getByTestId(testId).textContent();
  expect(text, `relying party shows ${testId}`).toBeTruthy();
  return JSON.parse(text!);
}

/** A status the relying party printed, as a number. */
export async function shownStatus(page: Page, testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).textContent());
}

/** base64url(SHA-256(verifier)) (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/**
 * Records the Tollgate pages the browser's main frame showed (full navigations and SPA
 * route changes), by path; consecutive events for the same path count once.
 */
export function recordTollgatePages(page: Page): string[] {
  const paths: string[] = [];
  let last = "";
  page.on("framenavigated", (frame) => {
    if (frame !== page.mainFrame()) return;
    const url = new URL(frame.url());
    const key = url.origin === TOLLGATE_URL ? url.pathname : url.href;
    if (key !== last && url.origin === TOLLGATE_URL) paths.push(url.pathname);
    last = key;
  });
  return paths;
}
