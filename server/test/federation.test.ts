/**
 * PSU sign-in at the bank's identity provider (federation/), against a real second OpenID
 * Provider (support/bank-idp.ts, oidc-provider) and a real Tollgate: the demo strict app is
 * set to sign its PSUs in there. /authorize sends the PSU to the provider with a pushed
 * request (RFC 9126), PKCE, a nonce, and `acr_values` when the request needs SCA; the answer
 * comes back to /federation/callback, is checked (RFC 9207 `iss`, the ID token), and the PSU
 * goes on to the consent page as the Tollgate user linked to their `sub` there. Each refusal
 * reaches the TPP as an RFC 6749 §4.1.2.1 error, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { loadKeyEncryption } from "../src/kernel/key-encryption.js";
import { ACR_SCA } from "../src/kernel/acr.js";
import { BANK_ACR, BANK_CUSTOMERS, bankIdpClientFor, registerBankIdp, signInAtBankIdp, startBankIdp, type BankIdp } from "./support/bank-idp.js";
import {
  authorizeParams,
  authorizePath,
  Browser,
  callApi,
  callbackParams,
  INTROSPECTION_ENDPOINT,
  interactionIdFrom,
  json,
  pkcePair,
  tokenRequest,
  TOKEN_ENDPOINT,
} from "./support/flow.js";
import { adminBearer } from "./support/graphql.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let bank: BankIdp;
let idpId: string;
const alice = BANK_CUSTOMERS.alice;
const client = DEMO.strictApp;

/** The catalog cache keeps a client for up to a second: a changed app is seen after it. */
const catalogSettles = () => new Promise((resolve) => setTimeout(resolve, 1100));

beforeAll(async () => {
  // AUTH_URL is the server's own address: the provider sends the PSU back there and fetches its JWK Set.
  ({ server } = await startIssuerServer());
  bank = await startBankIdp({ clients: [bankIdpClientFor(server.authUrl), { ...bankIdpClientFor(server.authUrl, "tollgate-secret"), token_endpoint_auth_method: "client_secret_basic", client_secret: "bank-secret-0123456789" }] });
  const idp = await registerBankIdp(server, bank.issuer, { scopes: ["openid", "customer"], customerNumberClaim: "customer_number" });
  idpId = idp.id;
  await server.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: idpId } });
});
afterAll(async () => {
  await server?.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: null } });
  await bank?.close();
  await server?.close();
});

/** Starts an authorization request of the strict app in `browser`. @returns the Location it answers. */
async function authorize(browser: Browser, extra: Record<string, string> = {}): Promise<{ location: string; state: string; verifier: string }> {
  const pkce = pkcePair();
  const params = authorizeParams(client, { code_challenge: pkce.challenge, code_challenge_method: "S256", ...extra });
  const res = await browser.fetch(authorizePath(params));
  expect(res.status).toBe(302);
  return { location: res.headers.get("location")!, state: params.state as string, verifier: pkce.verifier };
}

/** Follows the provider's answer back into Tollgate. @returns Tollgate's answer to it. */
async function answer(browser: Browser, callback: URL): Promise<Response> {
  expect(`${callback.origin}${callback.pathname}`).toBe(`${server.authUrl}/federation/callback`);
  return browser.fetch(callback.href);
}

describe("a PSU signed in at the bank's identity provider", () => {
  it("is sent there with a pushed request, signs in with SCA, consents, and the TPP's token works at the gateway", async () => {
    const browser = new Browser(server.url);
    const { location, state, verifier } = await authorize(browser);
    const upstream = new URL(location);
    expect(upstream.origin).toBe(bank.issuer);
    // RFC 9126 §4: only client_id and request_uri in the front channel.
    expect([...upstream.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);

    const back = await answer(browser, await signInAtBankIdp(location, alice));
    expect(back.status).toBe(302);
    const id = interactionIdFrom(back.headers.get("location"));
    expect(back.headers.get("location")).toMatch(/^\/consent\?interaction=/);

    const view = await json(await browser.fetch(`/interaction/${id}`));
    expect(view).toMatchObject({ stage: "consent", identityProvider: "bank", user: { username: `bank:${alice.sub}` } });
    const consent = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: ["aisp"] }, headers: { "X-CSRF-Token": view.csrfToken } });
    const { code, state: returned } = callbackParams((await json(consent)).redirectTo);
    expect(returned).toBe(state);

    const tokens = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
    expect(tokens.status, tokens.text).toBe(200);
    expect((await callApi(server.url, tokens.body.access_token)).status).toBe(200);
    const introspected = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, client, { token: tokens.body.access_token });
    expect(introspected.body).toMatchObject({ active: true, acr: ACR_SCA, username: `bank:${alice.sub}` });
    // The token records where the PSU authenticated, and a refresh keeps it.
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { user: { username: `bank:${alice.sub}` } }, orderBy: { issuedAt: "desc" } });
    expect(row.authenticatedBy).toBe("bank");
    const admin = await adminBearer(server.url);
    const { tokens: listed } = await admin.data(`query($u: ID) { tokens(userId: $u) { nodes { id authenticatedBy } } }`, { u: row.userId });
    expect(listed.nodes).toContainEqual({ id: row.id, authenticatedBy: "bank" });

    // The PSU is linked by (provider, sub), with the bank's customer number; the audit names the provider.
    const link = await server.prisma.federatedIdentity.findUniqueOrThrow({ where: { identityProviderId_subject: { identityProviderId: idpId, subject: alice.sub } }, include: { user: true } });
    expect(link).toMatchObject({ customerNumber: alice.customerNumber, user: { username: `bank:${alice.sub}`, passwordHash: "" } });
    const signIn = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "signin.succeeded", actor: `user:${link.userId}` }, orderBy: { at: "desc" } });
    expect(JSON.parse(signIn.details)).toMatchObject({ identity_provider: "bank", acr: BANK_ACR.sca });
  });

  it("a second sign-in of the same PSU is the same Tollgate user, whose consent is remembered: the code comes at once", async () => {
    const before = await server.prisma.user.count();
    const browser = new Browser(server.url);
    const { location, state } = await authorize(browser);
    const back = await answer(browser, await signInAtBankIdp(location, alice));
    expect(callbackParams(back.headers.get("location"))).toMatchObject({ code: expect.any(String), state });
    expect(await server.prisma.user.count()).toBe(before);
  });

  it("the provider's single sign-on is not SCA for a new request: the PSU is asked to sign in again there (prompt=login)", async () => {
    const idpBrowser = new Browser(bank.issuer);
    await answer(new Browser(server.url), await signInAtBankIdp((await authorize(new Browser(server.url))).location, alice, idpBrowser));
    // The provider's session stands; a new request needing SCA shows its page again, and a sign-in there is new SCA.
    const browser = new Browser(server.url);
    const { location } = await authorize(browser, { prompt: "consent" });
    const page = await idpBrowser.fetch(location);
    expect(page.status).toBe(303);
    expect(new URL(page.headers.get("location")!, bank.issuer).pathname).toMatch(/^\/interaction\//);
    const back = await answer(browser, await signInAtBankIdp(location, alice, idpBrowser));
    expect(back.headers.get("location")).toMatch(/^\/consent\?interaction=/);
  });

  it("a client secret (client_secret_basic) works as well as private_key_jwt", async () => {
    const { encryption } = loadKeyEncryption(server.kekFile, false);
    await server.db.identityProviders.update(idpId, { clientId: "tollgate-secret", clientAuthMethod: "client_secret_basic", clientSecret: encryption.seal(Buffer.from("bank-secret-0123456789"), `identity-provider:${idpId}`) });
    try {
      const browser = new Browser(server.url);
      const { location } = await authorize(browser);
      const back = await answer(browser, await signInAtBankIdp(location, alice));
      expect(callbackParams(back.headers.get("location")).code).toBeTruthy();
    } finally {
      await server.db.identityProviders.update(idpId, { clientId: "tollgate", clientAuthMethod: "private_key_jwt", clientSecret: null });
    }
  });
});

describe("refusals, each an error for the TPP (RFC 6749 §4.1.2.1), never a 5xx", () => {
  it("a PSD2 request needs SCA: a sign-in without the one-time code is access_denied, and the audit says why", async () => {
    const browser = new Browser(server.url);
    const { location, state } = await authorize(browser);
    const back = await answer(browser, await signInAtBankIdp(location, { username: alice.username, password: alice.password }));
    expect(back.status).toBe(302);
    const params = callbackParams(back.headers.get("location"));
    expect(params).toMatchObject({ error: "access_denied", state, iss: server.authUrl });
    expect(params.error_description).toMatch(/strong customer authentication/);
    const failed = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "signin.failed" }, orderBy: { at: "desc" } });
    expect(JSON.parse(failed.details)).toMatchObject({ identity_provider: "bank", outcome: "not_sca" });
  });

  it("the PSU cancels at the bank: access_denied", async () => {
    const browser = new Browser(server.url);
    const { location, state } = await authorize(browser);
    const params = callbackParams((await answer(browser, await signInAtBankIdp(location, "cancel"))).headers.get("location"));
    expect(params).toMatchObject({ error: "access_denied", state, error_description: "the bank's sign-in ended with access_denied" });
  });

  it("an answer is used once: replayed, it is 410; in another browser, 403, and it is used up", async () => {
    const browser = new Browser(server.url);
    const { location } = await authorize(browser);
    const callback = await signInAtBankIdp(location, alice);
    expect((await new Browser(server.url).fetch(callback.href)).status).toBe(403);
    const replay = await answer(browser, callback);
    expect(replay.status).toBe(410);
    expect((await json(replay)).error).toBe("expired");
  });

  it("an answer with another iss (mix-up, RFC 9207 §2.4) or a code the provider never issued is access_denied", async () => {
    for (const tamper of [(u: URL) => u.searchParams.set("iss", "https://evil.example"), (u: URL) => u.searchParams.set("code", "forged-code")]) {
      const browser = new Browser(server.url);
      const { location, state } = await authorize(browser);
      const callback = await signInAtBankIdp(location, alice);
      tamper(callback);
      const back = await answer(browser, callback);
      expect(back.status).toBe(302);
      expect(callbackParams(back.headers.get("location"))).toMatchObject({ error: "access_denied", state, error_description: "the bank's sign-in could not be verified" });
    }
  });

  it("an answer nobody asked for (unknown state) is 410", async () => {
    const res = await new Browser(server.url).fetch(`/federation/callback?code=x&state=never-sent&iss=${encodeURIComponent(bank.issuer)}`);
    expect(res.status).toBe(410);
  });

  it("the sign-in page's password form is refused for a PSU who signs in at the bank: 409", async () => {
    const browser = new Browser(server.url);
    await authorize(browser);
    const id = (await server.prisma.interaction.findFirstOrThrow({ orderBy: { createdAt: "desc" } })).id;
    const view = await json(await browser.fetch(`/interaction/${id}`));
    expect(view).toMatchObject({ stage: "login", identityProvider: "bank" });
    const res = await browser.fetch(`/interaction/${id}/login`, { json: { username: DEMO.user.username, password: DEMO.user.password }, headers: { "X-CSRF-Token": view.csrfToken } });
    expect(res.status).toBe(409);
  });

  it("prompt=none cannot sign in at the bank: login_required", async () => {
    const browser = new Browser(server.url);
    const { location, state } = await authorize(browser, { prompt: "none" });
    expect(callbackParams(location)).toMatchObject({ error: "login_required", state });
  });

  it("the provider unreachable: temporarily_unavailable, at /authorize and at the callback", async () => {
    const browser = new Browser(server.url);
    const { location } = await authorize(browser);
    const callback = await signInAtBankIdp(location, alice);
    await server.db.identityProviders.update(idpId, { issuer: "http://127.0.0.1:9" });
    try {
      const later = await authorize(new Browser(server.url));
      expect(callbackParams(later.location)).toMatchObject({ error: "temporarily_unavailable", state: later.state });
      const back = await answer(browser, callback);
      expect(callbackParams(back.headers.get("location"))).toMatchObject({ error: "temporarily_unavailable" });
    } finally {
      await server.db.identityProviders.update(idpId, { issuer: bank.issuer });
    }
  });

  it("the app set back to Tollgate's own sign-in goes to the sign-in page again", async () => {
    await server.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: null } });
    try {
      await catalogSettles();
      const { location } = await authorize(new Browser(server.url));
      expect(location).toMatch(/^\/login\?interaction=/);
    } finally {
      await server.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: idpId } });
      await catalogSettles();
    }
  });
});

describe("with login and consent delegated to the bank's application as well", () => {
  it("a request of an app that signs in at the identity provider still goes there, and consents on Tollgate's page", async () => {
    const { server: other } = await startIssuerServer({ DELEGATED_LOGIN_URL: "https://bank.example/login", DELEGATED_CONSENT_URL: "https://bank.example/consent" });
    const otherBank = await startBankIdp({ clients: [bankIdpClientFor(other.authUrl)] });
    try {
      const idp = await registerBankIdp(other, otherBank.issuer);
      await other.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: idp.id } });
      const browser = new Browser(other.url);
      const start = await browser.fetch(authorizePath(authorizeParams(client, { code_challenge: pkcePair().challenge, code_challenge_method: "S256" })));
      const location = start.headers.get("location")!;
      expect(new URL(location).origin).toBe(otherBank.issuer);
      const back = await browser.fetch((await signInAtBankIdp(location, alice)).href);
      const id = interactionIdFrom(back.headers.get("location"));
      const view = await json(await browser.fetch(`/interaction/${id}`));
      const consent = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: ["aisp"] }, headers: { "X-CSRF-Token": view.csrfToken } });
      expect(consent.status).toBe(200);
      expect(callbackParams((await json(consent)).redirectTo).code).toBeTruthy();
    } finally {
      await otherBank.close();
      await other.close();
    }
  });
});
