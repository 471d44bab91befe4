/**
 * What a user's grants become when the user takes them back or loses them (issue 13: M1,
 * L3, L4): revoking a consent or disabling a user voids every unredeemed code and every
 * token in one transaction; a disabled user's open session signs in no one; the `admin`
 * scope is never grantable through an ordinary user's consent, and when an administrator
 * grants it the audit log names them. Real server, real database, real HTTP.
 *
 * The users made here have a software passkey: the demo's PSD2 products require strong
 * customer authentication (issue 16), so their sign-ins for scope aisp are the password and
 * the passkey, and never reuse a session; what is about an open session is checked on an app
 * whose product does not require SCA.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import {
  Browser,
  authorizeParams,
  authorizePath,
  callbackParams,
  expectOAuthError,
  interactionIdFrom,
  json,
  INTROSPECTION_ENDPOINT,
  signInInteraction,
  obtainCode,
  pkcePair,
  TOKEN_ENDPOINT,
  tokenRequest,
  userTokens,
  type DemoClient,
} from "./support/flow.js";
import { adminBearer, withSession, type GraphQLClient } from "./support/graphql.js";
import { createPasswordOnlyApp, enrolPasskey, startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
});
afterAll(() => server?.close());

/** Redeems a code of DEMO.app (no PKCE) at the token endpoint. */
function redeem(code: string, client: DemoClient = DEMO.app, verifier?: string) {
  return tokenRequest(server.url, TOKEN_ENDPOINT, client, {
    grant_type: "authorization_code",
    code,
    redirect_uri: DEMO.callbackUrl,
    code_verifier: verifier,
  });
}

/** `active` of a token at the introspection endpoint (the strict demo app may introspect). */
async function active(token: string): Promise<boolean> {
  return (await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token })).body.active as boolean;
}

/**
 * A new end user, created by the admin API, with a software passkey (a second factor: PSD2
 * scopes need SCA) unless `passkey` is false.
 */
async function newUser(role: "user" | "admin" = "user", passkey = true): Promise<{ id: string; username: string; password: string }> {
  const credentials = { username: `u${Date.now()}${Math.floor(Math.random() * 1e6)}`, password: "a-long-enough-password-1" };
  const { createUser } = await admin.data("mutation($input: CreateUserInput!) { createUser(input: $input) { id } }", {
    input: { ...credentials, role },
  });
  if (passkey) await enrolPasskey(server, credentials.username);
  return { id: createUser.id, ...credentials };
}

/**
 * A new user's consent to DEMO.app (first flow, redeemed), then a second code issued from the
 * remembered consent without a consent page (after a fresh sign-in: scope aisp needs SCA).
 */
async function consentedUserWithUnredeemedCode() {
  const user = await newUser();
  const { browser, tokens } = await userTokens(server.url, { user });
  const second = await obtainCode(server.url, { user, browser });
  return { user, browser, tokens, unredeemed: second.code };
}

describe("revoking a consent voids what was granted under it (M1)", () => {
  it("the user revokes on the Account page: the unredeemed code is refused, the issued tokens are revoked", async () => {
    const { browser, tokens, unredeemed } = await consentedUserWithUnredeemedCode();
    const me = withSession(browser);
    const { myConsents } = await me.data("{ myConsents { id } }");
    expect(myConsents).toHaveLength(1);
    await me.data("mutation($id: ID!) { revokeMyConsent(id: $id) }", { id: myConsents[0].id });

    await expectOAuthError(await redeem(unredeemed), 400, "invalid_grant");
    expect(await active(tokens.access_token)).toBe(false);
    await expectOAuthError(await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: tokens.refresh_token }), 400, "invalid_grant");
  });

  it("an administrator revokes it (revokeConsent): the unredeemed code is refused too", async () => {
    const { user, unredeemed } = await consentedUserWithUnredeemedCode();
    const { consents } = await admin.data("query($u: ID!) { consents(userId: $u) { id } }", { u: user.id });
    await admin.data("mutation($id: ID!) { revokeConsent(id: $id) }", { id: consents[0].id });
    await expectOAuthError(await redeem(unredeemed), 400, "invalid_grant");
  });

  it("codes of the user at other apps stay redeemable", async () => {
    const { user, browser } = await consentedUserWithUnredeemedCode();
    const pkce = pkcePair();
    const other = await obtainCode(server.url, { user, browser, client: DEMO.strictApp, pkce });
    const { consents } = await admin.data("query($u: ID!, $a: ID!) { consents(userId: $u, appId: $a) { id } }", {
      u: user.id,
      a: (await admin.data("{ apps(first: 50) { nodes { id name } } }")).apps.nodes.find((a: { name: string }) => a.name === DEMO.app.name).id,
    });
    await admin.data("mutation($id: ID!) { revokeConsent(id: $id) }", { id: consents[0].id });
    expect((await redeem(other.code, DEMO.strictApp, pkce.verifier)).status).toBe(200);
  });
});

describe("disabling a user (L4)", () => {
  it("voids the user's unredeemed codes with their tokens", async () => {
    const { user, tokens, unredeemed } = await consentedUserWithUnredeemedCode();
    await admin.data("mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id } }", { id: user.id });
    await expectOAuthError(await redeem(unredeemed), 400, "invalid_grant");
    expect(await active(tokens.access_token)).toBe(false);
  });

  it("the disabled user's open session gets neither a code nor a consent screen from /authorize", async () => {
    // An open session is reused only by a request that does not need SCA: an app without a PSD2 product.
    const openApp = await createPasswordOnlyApp(server);
    const user = await newUser();
    const { browser } = await obtainCode(server.url, { user, client: openApp });
    // While the user is active the session is reused: a code without any page.
    const active = await browser.fetch(authorizePath(authorizeParams(openApp, { prompt: "none" })));
    expect(active.status).toBe(302);
    expect(callbackParams(active.headers.get("location")).code).toBeTruthy();
    await admin.data("mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id } }", { id: user.id });

    const silent = await browser.fetch(authorizePath(authorizeParams(openApp, { prompt: "none" })));
    expect(silent.status).toBe(302);
    expect(callbackParams(silent.headers.get("location")).error).toBe("login_required");

    const again = await browser.fetch(authorizePath(authorizeParams(openApp, { scope: "aisp pisp", prompt: "consent" })));
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toMatch(/^\/login\?interaction=/);
  });

  it("a user disabled between sign-in and consent gets access_denied, not a code", async () => {
    const user = await newUser();
    const browser = new Browser(server.url);
    const start = await browser.fetch(authorizePath(authorizeParams(DEMO.app)));
    const id = interactionIdFrom(start.headers.get("location"));
    const view = await json(await browser.fetch(`/interaction/${id}`));
    // The password, then the user's passkey (scope aisp needs SCA).
    const login = await json(await signInInteraction(browser, id, view.csrfToken, user));
    expect(login.stage).toBe("consent");
    await admin.data("mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id } }", { id: user.id });
    const consent = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: ["aisp"] }, headers: { "X-CSRF-Token": login.csrfToken } });
    const params = callbackParams((await json(consent)).redirectTo);
    expect(params.error).toBe("access_denied");
    expect(params.code).toBeUndefined();
  });
});

describe("the admin scope is never granted through an ordinary user's consent (L3)", () => {
  const adminScope = { client: DEMO.adminApp, scope: "admin" };

  it("an ordinary user signing in for it is sent back with access_denied, before any consent screen", async () => {
    const pkce = pkcePair();
    await expect(obtainCode(server.url, { ...adminScope, pkce })).rejects.toThrow(/no code in callback redirect .*error=access_denied/);
  });

  it("an ordinary user already signed in is sent back with access_denied at once", async () => {
    const user = await newUser();
    const { browser } = await obtainCode(server.url, { user });
    const res = await browser.fetch(authorizePath(authorizeParams(DEMO.adminApp, { scope: "admin", code_challenge: pkcePair().challenge, code_challenge_method: "S256" })));
    const params = callbackParams(res.headers.get("location"));
    expect(params.error).toBe("access_denied");
    expect(params.error_description).toMatch(/administrator/);
  });

  it("an administrator may grant it, and the audit event names them", async () => {
    // The admin scope needs no SCA: an administrator without a second factor signs in with the password alone.
    const boss = await newUser("admin", false);
    const { tokens } = await userTokens(server.url, { ...adminScope, pkce: pkcePair(), user: boss });
    expect(tokens.scope).toBe("admin");
    const { auditEvents } = await admin.data('{ auditEvents(type: "consent.granted", first: 20) { nodes { actor details } } }');
    const event = auditEvents.nodes.find((e: { actor: string }) => e.actor === `user:${boss.id}`);
    expect(JSON.parse(event.details)).toMatchObject({ username: boss.username, role: "admin", scopes: ["admin"] });
  });
});
