/**
 * Browser journeys of the authorization code flow (decisions.md "Authorization code flow",
 * "Refresh tokens"): a real relying party on its own port sends Chromium to Tollgate's
 * /authorize, alice signs in and answers the consent page of the built SPA, and the relying
 * party exchanges the code, calls the gateway and refreshes, all over real HTTP.
 */
import { DEMO } from "../server/src/demo/seed.js";
import { AUTH_CODE_KEYS } from "../server/test/support/token-response.js";
import { expectAccessible } from "./support/accessibility.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, RP_APPS, test, type RpApp } from "./support/fixtures.js";
import {
  ALICE,
  expectAtCallback,
  expectConsentPage,
  expectLoginPage,
  lastFlow,
  recordTollgatePages,
  s256,
  shownJson,
  shownStatus,
  signIn,
  submitPassword,
  usePasskey,
  type Json,
} from "./support/journey.js";

/** 90 days, the default refresh token lifetime (decisions.md "Token response"). */
const REFRESH_LIFETIME_SECONDS = 7_776_000;
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43,}$/;
const EPOCH_MS = /^\d{13}$/;

/**
 * Checks a token response of the authorization code flow for `app`, granted `aisp`.
 * `strict` (rfc6749 profile): `token_type` "Bearer", a numeric `expires_in` and times in epoch
 * seconds; `legacy` (the spec's format): "BearerToken" and every number a string.
 */
function expectCodeFlowTokenResponse(body: Json, app: RpApp, startedAt: number, refreshCount: string): void {
  const demo = RP_APPS[app];
  expect(Object.keys(body).sort()).toEqual(AUTH_CODE_KEYS);
  expect(body.access_token).toMatch(OPAQUE_TOKEN);
  expect(body.refresh_token).toMatch(OPAQUE_TOKEN);
  expect(body.refresh_token).not.toBe(body.access_token);
  if (app === "strict") {
    expect(body.token_type).toBe("Bearer");
    expect(typeof body.expires_in).toBe("number");
  } else {
    expect(body.token_type).toBe("BearerToken");
    expect(body.expires_in).toMatch(/^\d+$/);
  }
  expect(Number(body.expires_in)).toBeGreaterThanOrEqual(3590);
  expect(Number(body.expires_in)).toBeLessThanOrEqual(3600);
  for (const key of ["issued_at", "refresh_token_issued_at"]) {
    // The spec's format: epoch milliseconds as a string; rfc6749: epoch seconds as a number (AppAuth reads seconds).
    const ms = app === "strict" ? body[key] * 1000 : Number(body[key]);
    if (app === "strict") expect(Number.isInteger(body[key]), key).toBe(true);
    else expect(body[key], key).toMatch(EPOCH_MS);
    expect(ms, key).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
    expect(ms, key).toBeLessThanOrEqual(Date.now() + 1000);
  }
  expect(body.refresh_token_status).toBe("approved");
  expect(body.refresh_token_expires_in).toMatch(/^\d+$/);
  expect(Number(body.refresh_token_expires_in)).toBeGreaterThan(0);
  expect(Number(body.refresh_token_expires_in)).toBeLessThanOrEqual(REFRESH_LIFETIME_SECONDS);
  expect(Number(body.refresh_token_expires_in)).toBeGreaterThan(REFRESH_LIFETIME_SECONDS - 120);
  expect(body.refresh_count).toBe(refreshCount);
  expect(body.status).toBe("approved");
  expect(body.scope).toBe("aisp");
  // Only the approved products covering a granted scope.
  expect(body.api_product_list).toBe("[PSD2-AISP-v1]");
  expect(body.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
  expect(body.client_id).toBe(demo.consumerKey);
  expect(body.application_name).toBe(demo.name);
  expect(body.organization_name).toBe(DEMO.organization);
  expect(body["developer.email"]).toBe(DEMO.developerEmail);
}

/** The demo upstream's account list, as the gateway returns it to alice's token of `app`. */
function expectSampleAccounts(body: Json, app: RpApp): void {
  expect(body.accounts.map((a: Json) => a.resourceId)).toEqual(["acc-001", "acc-002"]);
  expect(body.accounts[0].iban).toBe("DE89370400440532013000");
  // The identity the gateway forwarded upstream: the app, the granted scope and the user.
  expect(body.caller.clientId).toBe(RP_APPS[app].consumerKey);
  expect(body.caller.appName).toBe(RP_APPS[app].name);
  expect(body.caller.scopes).toBe("aisp");
  expect(body.caller.userId).toEqual(expect.any(String));
  expect(body.caller.userId).not.toBe("");
}

test.describe("full flow: sign in, consent, code exchange, protected API, refresh rotation", { tag: "@postgresql" }, () => {
  for (const app of ["strict", "legacy"] as const) {
    const withPkce = RP_APPS[app].pkce;
    test(`${app} app (${RP_APPS[app].name}), ${withPkce ? "PKCE S256" : "no PKCE"}`, async ({ page, rp }) => {
      const startedAt = Date.now();
      const authorizeRequests: URL[] = [];
      page.on("request", (request) => {
        const url = new URL(request.url());
        if (url.origin === TOLLGATE_URL && url.pathname === "/authorize") authorizeRequests.push(url);
      });

      // The relying party sends the browser to Tollgate, which asks alice to sign in.
      await page.goto(`${rp.url}/start?app=${app}`);
      await expectLoginPage(page, RP_APPS[app].name);
      await expectAccessible(page);
      const flow = lastFlow(rp);
      expect(authorizeRequests).toHaveLength(1);
      const authorize = authorizeRequests[0]!.searchParams;
      expect(authorize.get("client_id")).toBe(RP_APPS[app].consumerKey);
      expect(authorize.get("redirect_uri")).toBe(rp.callbackUrl);
      expect(authorize.get("scope")).toBe("aisp");
      expect(authorize.get("state")).toBe(flow.state);
      if (withPkce) {
        expect(authorize.get("code_challenge_method")).toBe("S256");
        expect(authorize.get("code_challenge")).toBe(s256(flow.codeVerifier!));
      } else {
        expect(authorize.has("code_challenge")).toBe(false);
      }

      await signIn(page, ALICE.username, ALICE.password);
      await expectConsentPage(page, RP_APPS[app].name);
      await expectAccessible(page);
      await page.getByRole("button", { name: "Allow" }).click();

      // Back at the relying party with a code, the original state and Tollgate as issuer.
      const query = await expectAtCallback(page, rp);
      expect(query.get("code")).toMatch(OPAQUE_TOKEN);
      expect(query.get("state")).toBe(flow.state);
      expect(query.get("iss")).toBe(TOLLGATE_URL);
      expect(query.has("error")).toBe(false);
      await expect(page.getByTestId("state-check")).toHaveText("matches");

      // The code exchange (HTTP Basic, with the verifier for PKCE) and the API call.
      expect(await shownStatus(page, "token-status")).toBe(200);
      const token = await shownJson(page, "token-response");
      expectCodeFlowTokenResponse(token, app, startedAt, "0");
      expect(await shownStatus(page, "api-status")).toBe(200);
      expectSampleAccounts(await shownJson(page, "api-response"), app);

      // Refresh: a new refresh token, refresh_count 1; the old one is then refused and,
      // being a replay of a rotated token, revokes the family (the new tokens stop working).
      await page.getByRole("button", { name: "Refresh tokens" }).click();
      await expect(page.getByRole("heading", { name: "Refreshed" })).toBeVisible();
      expect(await page.getByTestId("old-refresh-token").textContent()).toBe(token.refresh_token);
      expect(await shownStatus(page, "refresh-status")).toBe(200);
      const refreshed = await shownJson(page, "refresh-response");
      expectCodeFlowTokenResponse(refreshed, app, startedAt, "1");
      expect(refreshed.refresh_token).not.toBe(token.refresh_token);
      expect(refreshed.access_token).not.toBe(token.access_token);
      expect(await page.getByTestId("new-refresh-token").textContent()).toBe(refreshed.refresh_token);
      expect(Number(refreshed.refresh_token_issued_at)).toBeGreaterThanOrEqual(Number(token.refresh_token_issued_at));
      // Rotation keeps the family's original refresh expiry (never extends the 90 days).
      expect(Number(refreshed.refresh_token_expires_in)).toBeLessThanOrEqual(Number(token.refresh_token_expires_in));
      expect(await shownStatus(page, "refreshed-api-status")).toBe(200);
      expectSampleAccounts(await shownJson(page, "refreshed-api-response"), app);

      expect(await shownStatus(page, "reuse-status")).toBe(400);
      expect((await shownJson(page, "reuse-response")).error).toBe("invalid_grant");
      expect(await shownStatus(page, "after-reuse-refresh-status")).toBe(400);
      expect((await shownJson(page, "after-reuse-refresh-response")).error).toBe("invalid_grant");
      expect(await shownStatus(page, "after-reuse-api-status")).toBe(401);
      expect((await shownJson(page, "after-reuse-api-response")).error).toBe("invalid_token");
    });
  }
});

test("denying consent sends access_denied with the original state back to the app", async ({ page, rp }) => {
  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, DEMO.strictApp.name);
  const flow = lastFlow(rp);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
  await page.getByRole("button", { name: "Deny" }).click();

  const query = await expectAtCallback(page, rp);
  expect(query.get("error")).toBe("access_denied");
  expect(query.get("state")).toBe(flow.state);
  expect(query.get("iss")).toBe(TOLLGATE_URL);
  expect(query.has("code")).toBe(false);
  await expect(page.getByRole("heading", { name: "Authorization failed" })).toBeVisible();
  await expect(page.getByTestId("error")).toHaveText("access_denied");
  await expect(page.getByTestId("error-description")).not.toBeEmpty();
  await expect(page.getByTestId("returned-state")).toHaveText(flow.state);
  await expect(page.getByTestId("state-check")).toHaveText("matches");
  await expect(page.getByTestId("token-response")).toHaveCount(0);
  // The relying party's state is single use: replaying the callback is refused.
  const replay = await page.goto(page.url());
  expect(replay?.status()).toBe(400);
  await expect(page.getByTestId("state-check")).toHaveText("mismatch");

  // A denial is not remembered: the next request asks again (after the sign-in: a PSD2
  // request needs strong customer authentication every time).
  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
});

test("response_mode=form_post.jwt (JARM): Chromium posts the signed response from Tollgate's page to the app, so no code is in any URL", async ({ page, rp }) => {
  await page.goto(`${rp.url}/start?app=strict&response_mode=form_post.jwt`);
  await expectLoginPage(page, DEMO.strictApp.name);
  const flow = lastFlow(rp);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
  const posted = page.waitForRequest((r) => r.url() === rp.callbackUrl && r.method() === "POST");
  await page.getByRole("button", { name: "Allow" }).click();

  // Tollgate's page ran its one script under its Content Security Policy and posted only `response`.
  const post = await posted;
  expect([...new URLSearchParams(post.postData() ?? "").keys()]).toEqual(["response"]);
  await expect(page.getByRole("heading", { name: "Signed in" })).toBeVisible();
  expect(page.url()).toBe(rp.callbackUrl);
  await expect(page.getByTestId("returned-state")).toHaveText(flow.state);
  expect(await shownStatus(page, "token-status")).toBe(200);
  expect(await shownStatus(page, "api-status")).toBe(200);
});

test("'Not you? Sign out' on the consent page goes back to the sign-in of the same request, signed out", async ({ page, rp }) => {
  await page.goto(`${rp.url}/start?app=strict`);
  const interaction = await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
  await page.getByRole("button", { name: "Not you? Sign out" }).click();
  // The same request, at its sign-in step again: whoever signs in now answers it.
  expect(await expectLoginPage(page, DEMO.strictApp.name)).toBe(interaction);
  const session = await page.request.get(`${TOLLGATE_URL}/session`);
  expect((await session.json()).user).toBeNull();
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
});

test("a wrong password shows a generic error and stays on the login page", async ({ page, rp }) => {
  await page.goto(`${rp.url}/start?app=strict`);
  const interaction = await expectLoginPage(page, DEMO.strictApp.name);
  const loginUrl = page.url();
  const navigations: string[] = [];
  page.on("request", (request) => {
    if (request.isNavigationRequest()) navigations.push(request.url());
  });

  const attempts = [
    { username: ALICE.username, password: "not-alice-password" },
    { username: "nobody-by-this-name", password: ALICE.password },
  ];
  for (const attempt of attempts) {
    // The request needs strong customer authentication: the factor step follows whatever the
    // password was, and the verdict comes after it (PSD2 RTS Art. 4), here alice's passkey.
    const answer = await submitPassword(page, attempt.username, attempt.password);
    expect(answer.url()).toBe(`${TOLLGATE_URL}/interaction/${interaction}/login`);
    expect(answer.status()).toBe(200);
    expect((await answer.json()).stage).toBe("factor");
    const verdict = await usePasskey(page);
    expect(verdict.url()).toBe(`${TOLLGATE_URL}/interaction/${interaction}/factor`);
    expect(verdict.status()).toBe(401);
    // One message for a wrong password and an unknown user: nothing tells which it was.
    await expect(page.getByRole("alert")).toHaveText("The sign-in details are incorrect.");
    await expect(page.getByLabel("Password")).toHaveValue("");
    expect(page.url()).toBe(loginUrl);
    await expectAccessible(page);
  }
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sign in to continue to ${DEMO.strictApp.name}`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  expect(navigations, "no navigation happened").toEqual([]);
  expect(rp.requests.map((r) => r.url.split("?")[0])).toEqual(["/start"]);

  // The same login page still works with the right password.
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
});

test("consent is remembered per user and app; prompt=consent asks again", async ({ page, browser, rp }) => {
  const shown = recordTollgatePages(page);
  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
  await page.getByRole("button", { name: "Allow" }).click();
  expect((await expectAtCallback(page, rp)).get("state")).toBe(lastFlow(rp).state);
  expect(await shownStatus(page, "token-status")).toBe(200);
  expect(shown).toEqual(["/login", "/consent"]);

  // Same browser, same scope: a PSD2 request asks for strong customer authentication every
  // time (the sign-in page), but not for consent again: straight back to the app with a
  // working code.
  shown.length = 0;
  await page.goto(`${rp.url}/start?app=strict`);
  await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  let query = await expectAtCallback(page, rp);
  expect(query.get("code")).toMatch(OPAQUE_TOKEN);
  expect(query.get("state")).toBe(lastFlow(rp).state);
  expect(shown, "only the sign-in, no consent page").toEqual(["/login"]);
  expect(await shownStatus(page, "token-status")).toBe(200);
  expect(await shownStatus(page, "api-status")).toBe(200);

  // prompt=consent shows the consent page again after the sign-in.
  shown.length = 0;
  await page.goto(`${rp.url}/start?app=strict&prompt=consent`);
  await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.strictApp.name);
  expect(shown).toEqual(["/login", "/consent"]);
  await page.getByRole("button", { name: "Allow" }).click();
  query = await expectAtCallback(page, rp);
  expect(query.get("state")).toBe(lastFlow(rp).state);
  expect(await shownStatus(page, "token-status")).toBe(200);

  // The consent belongs to alice and this app: another app still asks ...
  shown.length = 0;
  await page.goto(`${rp.url}/start?app=legacy`);
  await expectLoginPage(page, DEMO.app.name);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.app.name);
  expect(shown).toEqual(["/login", "/consent"]);

  // ... and in another browser alice signs in again, but is not asked to consent again.
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    const otherShown = recordTollgatePages(otherPage);
    await otherPage.goto(`${rp.url}/start?app=strict`);
    await expectLoginPage(otherPage, DEMO.strictApp.name);
    await signIn(otherPage, ALICE.username, ALICE.password);
    expect((await expectAtCallback(otherPage, rp)).get("state")).toBe(lastFlow(rp).state);
    expect(await shownStatus(otherPage, "token-status")).toBe(200);
    expect(otherShown).toEqual(["/login"]);
  } finally {
    await other.close();
  }
});

test("an unregistered redirect_uri gets Tollgate's error page and the browser never goes to it", async ({ page, context, rp }) => {
  // Alice has signed in and consented in this browser, so a valid request goes back to the
  // app as soon as she has signed in (a PSD2 request needs strong customer authentication
  // every time), without a consent page: the error must come before any of that.
  await page.goto(`${rp.url}/start?app=strict`);
  await signIn(page, ALICE.username, ALICE.password);
  await page.getByRole("button", { name: "Allow" }).click();
  await expectAtCallback(page, rp);
  rp.clearLog();

  const toRp: string[] = [];
  context.on("request", (request) => {
    if (new URL(request.url()).port === String(rp.port)) toRp.push(request.url());
  });
  const visited: string[] = [];
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) visited.push(frame.url());
  });

  const verifier = "e2e-tampered-redirect-verifier-0123456789abcdefghijklmnop";
  const authorizeUrl = (redirectUri: string, clientId: string = DEMO.strictApp.consumerKey) =>
    `${TOLLGATE_URL}/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      scope: "aisp",
      state: "tampered-state",
      code_challenge: s256(verifier),
      code_challenge_method: "S256",
      redirect_uri: redirectUri,
    })}`;
  const tampered = [
    `${rp.url}/callback/../evil`,
    `${rp.url}/evil`,
    `${rp.url}/callback/`,
    `${rp.url}/callback?next=/evil`,
    `http://localhost:${rp.port}/callback`,
    `https://127.0.0.1:${rp.port}/callback`,
    `http://evil.example/callback`,
  ];
  for (const redirectUri of tampered) {
    const response = await page.goto(authorizeUrl(redirectUri));
    expect(response?.status(), redirectUri).toBe(400);
    expect(response?.url(), redirectUri).toBe(authorizeUrl(redirectUri));
    expect(response?.headers()["content-type"]).toContain("text/html");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Authorization error");
    await expect(page.getByText("redirect_uri does not match a callback URL registered for this client")).toBeVisible();
    expect(new URL(page.url()).origin).toBe(TOLLGATE_URL);
  }
  await expectAccessible(page);
  // A registered callback URL of another app is not one of this app's.
  const otherApp = await page.goto(authorizeUrl(rp.callbackUrl, DEMO.paymentsApp.consumerKey));
  expect(otherApp?.status()).toBe(400);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Authorization error");

  expect(toRp, "no request reached the relying party's port").toEqual([]);
  expect(rp.requests).toEqual([]);
  expect(visited.length).toBe(tampered.length + 1);
  for (const url of visited) expect(new URL(url).origin).toBe(TOLLGATE_URL);

  // Control: the same request with the registered redirect_uri does leave for the app once
  // alice has signed in (so the recording above would have seen a redirect).
  await page.goto(authorizeUrl(rp.callbackUrl));
  await expectLoginPage(page, DEMO.strictApp.name);
  await signIn(page, ALICE.username, ALICE.password);
  await page.waitForURL((url) => url.origin === rp.url && url.pathname === "/callback");
  expect(toRp.length).toBeGreaterThan(0);
  expect(new URL(page.url()).searchParams.get("state")).toBe("tampered-state");
  // The relying party never started this request, so it refuses the unknown state.
  await expect(page.getByTestId("state-check")).toHaveText("mismatch");
});

