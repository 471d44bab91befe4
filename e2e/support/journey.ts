/**
 * Steps of the authorization code journeys, written against what a user sees: the
 * Tollgate pages (login, consent, error) and the relying party's pages.
 */
import { createHash } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { DEMO } from "../../server/src/demo/seed.js";
import { TOLLGATE_URL } from "./env.js";
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

/** Fills the login form and submits it. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
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
  await expect(page.getByText("aisp", { exact: true })).toBeVisible();
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
