/**
 * The test bank IdP (server/test/support/bank-idp.ts), the OpenID Provider that plays the
 * bank's own identity provider for Tollgate's federated sign-in, checked over real HTTP on
 * 127.0.0.1 with openid-client 6 as the relying party: its discovery (PAR, RFC 9207 `iss`,
 * the acr values, `customer_number`); PAR + PKCE S256 + nonce flows driven by
 * `signInAtBankIdp` with and without the one-time code (the ID token's `sub`, `acr`, `amr`,
 * `auth_time`, `customer_number`); PKCE required; a wrong password or one-time code, which
 * shows the page again and finishes nothing; cancel (`access_denied` at the callback);
 * client authentication by client_secret_basic and private_key_jwt (PS256 keys given inline,
 * ES256 keys at a loopback `jwks_uri` as Tollgate publishes its own); the sign-in page
 * itself (`login_hint` prefilled); and `close()`. Nothing is mocked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BANK_ACR, BANK_CUSTOMERS, bankIdpClientFor, signInAtBankIdp, startBankIdp, type BankIdp } from "./support/bank-idp.js";
import { Browser, FORM, read, request } from "./support/flow.js";

/** The test relying parties' redirect URI: never requested, the driver returns the redirect to it. */
const RP_CALLBACK = "https://rp.example/callback";
const BASIC_RP = { client_id: "rp-basic", client_secret: "rp-basic-secret-0123456789abcdef" };
const JWT_RP_ID = "rp-jwt";
const JWT_RP_KID = "rp-jwt-ps256";
/** The kid of the ES256 key the stand-in Tollgate publishes at its `/oauth2/v1/jwks`. */
const TOLLGATE_KID = "tollgate-es256";

const alice = BANK_CUSTOMERS.alice;

let idp: BankIdp;
/** A stand-in for Tollgate's `/oauth2/v1/jwks`, the `jwks_uri` of the client of {@link bankIdpClientFor}. */
let tollgate: Server;
let tollgateUrl: string;
let rpKey: CryptoKey;
let tollgateKey: CryptoKey;

/** A public JWK of `key` for signatures with `alg`, named `kid`. */
async function publicJwk(key: CryptoKey, alg: string, kid: string): Promise<JWK> {
  return { ...(await exportJWK(key)), alg, kid, use: "sig" };
}

beforeAll(async () => {
  const rpPair = await generateKeyPair("PS256");
  const tollgatePair = await generateKeyPair("ES256");
  rpKey = rpPair.privateKey;
  tollgateKey = tollgatePair.privateKey;
  const tollgateJwks = JSON.stringify({ keys: [await publicJwk(tollgatePair.publicKey, "ES256", TOLLGATE_KID)] });
  tollgate = createServer((req, res) => {
    if (req.url === "/oauth2/v1/jwks") res.writeHead(200, { "Content-Type": "application/json" }).end(tollgateJwks);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => tollgate.listen(0, "127.0.0.1", resolve));
  tollgateUrl = `http://127.0.0.1:${(tollgate.address() as AddressInfo).port}`;

  idp = await startBankIdp({
    clients: [
      { ...BASIC_RP, redirect_uris: [RP_CALLBACK], token_endpoint_auth_method: "client_secret_basic" },
      { client_id: JWT_RP_ID, redirect_uris: [RP_CALLBACK], token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [await publicJwk(rpPair.publicKey, "PS256", JWT_RP_KID)] } },
      bankIdpClientFor(tollgateUrl),
    ],
  });
});

afterAll(async () => {
  await idp?.close();
  await new Promise((resolve) => (tollgate ? tollgate.close(resolve).closeAllConnections() : resolve(undefined)));
});

/** openid-client's configuration of a relying party at the bank IdP, by discovery (plain http allowed); ID tokens PS256. */
function relyingParty(clientId: string, auth: client.ClientAuth): Promise<client.Configuration> {
  return client.discovery(new URL(idp.issuer), clientId, { id_token_signed_response_alg: "PS256" }, auth, { execute: [client.allowInsecureRequests] });
}

const basicRp = (): Promise<client.Configuration> => relyingParty(BASIC_RP.client_id, client.ClientSecretBasic(BASIC_RP.client_secret));

/** An authorization request pushed (PAR) by `config`'s client: PKCE S256, nonce, state, scope `openid customer` and `extra`. */
async function pushAuthorization(config: client.Configuration, extra: Record<string, string> = {}, redirectUri = RP_CALLBACK) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const expectedNonce = client.randomNonce();
  const expectedState = client.randomState();
  const url = await client.buildAuthorizationUrlWithPAR(config, {
    redirect_uri: redirectUri,
    scope: "openid customer",
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: "S256",
    nonce: expectedNonce,
    state: expectedState,
    ...extra,
  });
  return { url, checks: { pkceCodeVerifier, expectedNonce, expectedState, idTokenExpected: true } };
}

/** Opens the sign-in page of an authorization request in a fresh browser: GET the URL, then the IdP's redirect to `/interaction/<uid>`. */
async function openSignInPage(url: URL): Promise<{ browser: Browser; page: URL; html: string }> {
  const browser = new Browser(url.origin);
  const start = await browser.fetch(url.href);
  expect(start.status).toBe(303);
  const page = new URL(start.headers.get("location") ?? "", url);
  expect(page.pathname).toMatch(/^\/interaction\/[A-Za-z0-9_-]+$/);
  const answer = await read(await browser.fetch(page.href));
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
  return { browser, page, html: answer.text };
}

/**
 * GETs `url` in `browser` and follows the IdP's 303s while they stay on the IdP.
 * @returns the first redirect off the IdP (not requested) and the IdP paths passed on the way.
 */
async function followToRelyingParty(browser: Browser, url: URL): Promise<{ callback: URL; passed: string[] }> {
  const passed: string[] = [];
  let at = url;
  for (let hops = 0; hops < 10; hops++) {
    const res = await browser.fetch(at.href);
    expect(res.status, `GET ${at.href}`).toBe(303);
    const next = new URL(res.headers.get("location") ?? "", at);
    if (next.origin !== url.origin) return { callback: next, passed };
    passed.push(next.pathname);
    at = next;
  }
  throw new Error(`more than 10 redirects from ${url.href}`);
}

/** Posts the sign-in form of the interaction page `page` in `browser`. */
function postLogin(browser: Browser, page: URL, fields: { username: string; password: string; otp?: string }): Promise<Response> {
  return browser.fetch(`${page.href}/login`, { method: "POST", headers: { "Content-Type": FORM }, body: new URLSearchParams({ otp: "", ...fields }).toString() });
}

describe("discovery", () => {
  it("offers PAR, RFC 9207 iss, PKCE S256, the two acr values, customer_number, and the two client authentication methods", async () => {
    const metadata = (await basicRp()).serverMetadata();
    expect(metadata).toMatchObject({
      issuer: idp.issuer,
      pushed_authorization_request_endpoint: `${idp.issuer}/request`,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ["S256"],
      acr_values_supported: [BANK_ACR.password, BANK_ACR.sca],
      scopes_supported: expect.arrayContaining(["openid", "customer"]),
      claims_supported: expect.arrayContaining(["sub", "acr", "amr", "auth_time", "customer_number"]),
      response_types_supported: ["code"],
      id_token_signing_alg_values_supported: ["PS256", "ES256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["PS256", "ES256"],
    });
  });
});

describe("the sign-in, as the relying party sees it (openid-client 6, PAR + PKCE + nonce)", () => {
  it("with the one-time code: an ID token of alice with acr sca, amr pwd+otp, auth_time and customer_number; the callback carries iss", async () => {
    const config = await basicRp();
    const before = Math.floor(Date.now() / 1000);
    const { url, checks } = await pushAuthorization(config, { acr_values: BANK_ACR.sca, max_age: "300", login_hint: alice.username, ui_locales: "en" });
    expect([...url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);

    const callback = await signInAtBankIdp(url.href, { username: alice.username, password: alice.password, otp: alice.otp });
    expect(`${callback.origin}${callback.pathname}`).toBe(RP_CALLBACK);
    expect(Object.fromEntries(callback.searchParams)).toEqual({ code: expect.any(String), state: checks.expectedState, iss: idp.issuer });

    const tokens = await client.authorizationCodeGrant(config, callback, { ...checks, maxAge: 300 });
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      iss: idp.issuer,
      aud: BASIC_RP.client_id,
      sub: alice.sub,
      nonce: checks.expectedNonce,
      acr: BANK_ACR.sca,
      amr: ["pwd", "otp"],
      customer_number: alice.customerNumber,
    });
    expect(claims?.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(claims?.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it("without the one-time code: acr password and amr pwd, even when the request asked for acr sca (the relying party must refuse it)", async () => {
    const config = await basicRp();
    const { url, checks } = await pushAuthorization(config, { acr_values: BANK_ACR.sca });
    const callback = await signInAtBankIdp(url.href, { username: alice.username, password: alice.password });
    expect(callback.searchParams.get("iss")).toBe(idp.issuer);
    const claims = (await client.authorizationCodeGrant(config, callback, checks)).claims();
    expect(claims).toMatchObject({ sub: alice.sub, acr: BANK_ACR.password, amr: ["pwd"], auth_time: expect.any(Number), customer_number: alice.customerNumber });
  });

  it("signs in bob as bob, and leaves customer_number out when scope customer is not asked for", async () => {
    const bob = BANK_CUSTOMERS.bob;
    const config = await basicRp();
    const { url, checks } = await pushAuthorization(config, { scope: "openid" });
    const callback = await signInAtBankIdp(url.href, { username: bob.username, password: bob.password, otp: bob.otp });
    const claims = (await client.authorizationCodeGrant(config, callback, checks)).claims();
    expect(claims).toMatchObject({ sub: bob.sub, acr: BANK_ACR.sca, amr: ["pwd", "otp"], auth_time: expect.any(Number) });
    expect(claims).not.toHaveProperty("customer_number");
  });

  it("requires PKCE: a pushed request without a code challenge is refused", async () => {
    const metadata = (await basicRp()).serverMetadata();
    const answer = await read(
      await request(metadata.pushed_authorization_request_endpoint!, {
        method: "POST",
        headers: { "Content-Type": FORM, Authorization: `Basic ${Buffer.from(`${BASIC_RP.client_id}:${BASIC_RP.client_secret}`).toString("base64")}` },
        body: new URLSearchParams({ response_type: "code", client_id: BASIC_RP.client_id, redirect_uri: RP_CALLBACK, scope: "openid", nonce: "n-0123456789", state: "s-0123456789" }).toString(),
      }),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request", error_description: expect.stringMatching(/PKCE/) });
  });

  it("cancel: the callback gets error=access_denied with the state and iss, which openid-client reports", async () => {
    const config = await basicRp();
    const { url, checks } = await pushAuthorization(config);
    const callback = await signInAtBankIdp(url.href, "cancel");
    expect(`${callback.origin}${callback.pathname}`).toBe(RP_CALLBACK);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: "access_denied",
      error_description: "the customer cancelled",
      state: checks.expectedState,
      iss: idp.issuer,
    });
    await expect(client.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({ error: "access_denied" });
  });
});

describe("wrong credentials", () => {
  it("signInAtBankIdp throws with the page's error on a wrong password, an unknown username and a wrong one-time code", async () => {
    const config = await basicRp();
    const wrongPassword = await pushAuthorization(config);
    await expect(signInAtBankIdp(wrongPassword.url.href, { username: alice.username, password: "not-her-password" })).rejects.toThrow(/refused the sign-in .*: Wrong username or password$/);
    const unknown = await pushAuthorization(config);
    await expect(signInAtBankIdp(unknown.url.href, { username: "mallory@bank.example", password: alice.password })).rejects.toThrow(/: Wrong username or password$/);
    const wrongOtp = await pushAuthorization(config);
    await expect(signInAtBankIdp(wrongOtp.url.href, { username: alice.username, password: alice.password, otp: "000000" })).rejects.toThrow(/: Wrong one-time code$/);
  });

  it("a wrong password shows the page again with the error and finishes nothing; the right one then finishes the same sign-in", async () => {
    const config = await basicRp();
    const { url, checks } = await pushAuthorization(config);
    const { browser, page } = await openSignInPage(url);

    const wrong = await read(await postLogin(browser, page, { username: alice.username, password: "nope" }));
    expect(wrong.status).toBe(200);
    expect(wrong.headers.get("location")).toBeNull();
    expect(wrong.text).toContain('<p id="error" role="alert">Wrong username or password</p>');
    expect(wrong.text).toContain(`value="${alice.username}"`);

    const right = await postLogin(browser, page, { username: alice.username, password: alice.password, otp: alice.otp });
    expect(right.status).toBe(303);
    const { callback, passed } = await followToRelyingParty(browser, new URL(right.headers.get("location") ?? "", page));
    expect(passed).toEqual([]);
    expect(`${callback.origin}${callback.pathname}`).toBe(RP_CALLBACK);
    const claims = (await client.authorizationCodeGrant(config, callback, checks)).claims();
    expect(claims).toMatchObject({ sub: alice.sub, acr: BANK_ACR.sca });
  });
});

describe("single sign-on in one browser: the prompts do not loop", () => {
  it("after alice signed in, the same client goes straight to its callback, and another client's consent is given at once", async () => {
    const basic = await basicRp();
    const first = await pushAuthorization(basic);
    const { browser, page } = await openSignInPage(first.url);
    const login = await postLogin(browser, page, { username: alice.username, password: alice.password, otp: alice.otp });
    expect(login.status).toBe(303);
    const signedIn = await followToRelyingParty(browser, new URL(login.headers.get("location") ?? "", page));
    const authTime = (await client.authorizationCodeGrant(basic, signedIn.callback, first.checks)).claims()?.auth_time;

    // The same client again: the session and the client's grant answer at once, no page.
    const again = await pushAuthorization(basic);
    const sso = await followToRelyingParty(browser, again.url);
    expect(sso.passed).toEqual([]);
    expect((await client.authorizationCodeGrant(basic, sso.callback, again.checks)).claims()).toMatchObject({ sub: alice.sub, acr: BANK_ACR.sca, amr: ["pwd", "otp"], auth_time: authTime });

    // Another client: only consent is missing, which the interaction gives without a page.
    const jwt = await relyingParty(JWT_RP_ID, client.PrivateKeyJwt({ key: rpKey, kid: JWT_RP_KID }));
    const other = await pushAuthorization(jwt);
    const consented = await followToRelyingParty(browser, other.url);
    expect(consented.passed).toEqual([expect.stringMatching(/^\/interaction\//), expect.stringMatching(/^\/auth\//)]);
    expect((await client.authorizationCodeGrant(jwt, consented.callback, other.checks)).claims()).toMatchObject({ aud: JWT_RP_ID, sub: alice.sub, customer_number: alice.customerNumber });
  });

  it("prompt=login shows the page again, and bob may sign in where alice was", async () => {
    const bob = BANK_CUSTOMERS.bob;
    const config = await basicRp();
    const first = await pushAuthorization(config);
    const { browser, page } = await openSignInPage(first.url);
    const aliceLogin = await postLogin(browser, page, { username: alice.username, password: alice.password });
    expect(aliceLogin.status).toBe(303);
    const aliceSignedIn = await followToRelyingParty(browser, new URL(aliceLogin.headers.get("location") ?? "", page));
    expect((await client.authorizationCodeGrant(config, aliceSignedIn.callback, first.checks)).claims()).toMatchObject({ sub: alice.sub });

    const second = await pushAuthorization(config, { prompt: "login" });
    const start = await browser.fetch(second.url.href);
    const again = new URL(start.headers.get("location") ?? "", second.url);
    expect(again.pathname).toMatch(/^\/interaction\//);
    expect((await read(await browser.fetch(again.href))).text).toContain("<h1>Bank sign-in</h1>");
    const login = await postLogin(browser, again, { username: bob.username, password: bob.password, otp: bob.otp });
    expect(login.status).toBe(303);
    // oidc-provider ends alice's session first: its logout confirmation, a self-submitting form (a browser posts it).
    const resume = await read(await browser.fetch(new URL(login.headers.get("location") ?? "", again).href));
    expect(resume.status).toBe(200);
    const action = /<form method="post" action="([^"]+)"/.exec(resume.text)?.[1];
    const fields = Object.fromEntries([...resume.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)].map((m) => [m[1]!, m[2]!]));
    expect(action).toBeDefined();
    const confirm = await browser.fetch(new URL(action!, again).href, { method: "POST", headers: { "Content-Type": FORM }, body: new URLSearchParams(fields).toString() });
    expect(confirm.status).toBe(303);
    const { callback } = await followToRelyingParty(browser, new URL(confirm.headers.get("location") ?? "", again));
    expect((await client.authorizationCodeGrant(config, callback, second.checks)).claims()).toMatchObject({ sub: bob.sub, acr: BANK_ACR.sca });
  });
});

describe("client authentication by private_key_jwt", () => {
  it("with the client's PS256 key given inline (jwks)", async () => {
    const config = await relyingParty(JWT_RP_ID, client.PrivateKeyJwt({ key: rpKey, kid: JWT_RP_KID }));
    const { url, checks } = await pushAuthorization(config);
    const callback = await signInAtBankIdp(url.href, { username: alice.username, password: alice.password, otp: alice.otp });
    const tokens = await client.authorizationCodeGrant(config, callback, checks);
    expect(tokens.claims()).toMatchObject({ aud: JWT_RP_ID, sub: alice.sub, acr: BANK_ACR.sca, customer_number: alice.customerNumber });
  });

  it("bankIdpClientFor: Tollgate's client, ES256 keys fetched from <tollgate>/oauth2/v1/jwks on 127.0.0.1, redirect URI <tollgate>/federation/callback", async () => {
    const tollgateClient = bankIdpClientFor(tollgateUrl);
    expect(tollgateClient).toEqual({
      client_id: "tollgate",
      redirect_uris: [`${tollgateUrl}/federation/callback`],
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: `${tollgateUrl}/oauth2/v1/jwks`,
    });
    const config = await relyingParty("tollgate", client.PrivateKeyJwt({ key: tollgateKey, kid: TOLLGATE_KID }));
    const { url, checks } = await pushAuthorization(config, {}, tollgateClient.redirect_uris[0]);
    const callback = await signInAtBankIdp(url.href, { username: alice.username, password: alice.password });
    expect(`${callback.origin}${callback.pathname}`).toBe(`${tollgateUrl}/federation/callback`);
    expect(callback.searchParams.get("iss")).toBe(idp.issuer);
    const tokens = await client.authorizationCodeGrant(config, callback, checks);
    expect(tokens.claims()).toMatchObject({ aud: "tollgate", sub: alice.sub, acr: BANK_ACR.password, amr: ["pwd"], customer_number: alice.customerNumber });
  });

  it("refuses an assertion signed with a key the client did not register", async () => {
    const stranger = await generateKeyPair("PS256");
    const config = await relyingParty(JWT_RP_ID, client.PrivateKeyJwt({ key: stranger.privateKey, kid: JWT_RP_KID }));
    await expect(pushAuthorization(config)).rejects.toMatchObject({ error: "invalid_client" });
  });
});

describe("the sign-in page", () => {
  it("is titled Bank sign-in, with labelled Username (prefilled from login_hint), Password and One-time code, Sign in and Cancel", async () => {
    const { url } = await pushAuthorization(await basicRp(), { login_hint: alice.username });
    const { html, page } = await openSignInPage(url);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("<title>Bank sign-in</title>");
    expect(html).toMatch(/<main>[\s\S]*<h1>Bank sign-in<\/h1>[\s\S]*<\/main>/);
    expect(html).toContain('<label for="username">Username</label>');
    expect(html).toMatch(/<input id="username" name="username" [^>]*value="alice@bank\.example"/);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<label for="otp">One-time code (for strong customer authentication)</label>');
    expect(html).toContain(`<form method="post" action="${page.pathname}/login">`);
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain(`<form method="post" action="${page.pathname}/cancel">`);
    expect(html).toContain('<button type="submit">Cancel</button>');
    expect(html).not.toContain("<script");
    expect(html).not.toContain('role="alert"');
  });

  it("leaves the username empty without login_hint", async () => {
    const { url } = await pushAuthorization(await basicRp());
    const { html } = await openSignInPage(url);
    expect(html).toMatch(/<input id="username" name="username" [^>]*value=""/);
  });

  it("refuses a sign-in post without the browser's interaction cookie", async () => {
    const { url } = await pushAuthorization(await basicRp());
    const { page } = await openSignInPage(url);
    const stranger = new Browser(url.origin);
    const answer = await read(await stranger.fetch(`${page.href}/login`, { method: "POST", headers: { "Content-Type": FORM }, body: new URLSearchParams({ username: alice.username, password: alice.password }).toString() }));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('<p role="alert">This sign-in cannot go on: interaction session id cookie not found.</p>');
  });
});

describe("close", () => {
  it("stops listening and closes the connections", async () => {
    const other = await startBankIdp({ clients: [] });
    const discovery = `${other.issuer}/.well-known/openid-configuration`;
    expect((await request(discovery)).status).toBe(200);
    await other.close();
    await expect(fetch(discovery)).rejects.toThrow();
  });
});
