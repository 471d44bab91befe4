/**
 * Authorization requests and client assertions as the OIDF FAPI 2.0 plan (ported) and
 * openid-client 5's FAPI client send them, against a real server: a client assertion's `aud`
 * is the issuer identifier alone (FAPI 2.0 SP §5.3.2.1, draft-ietf-oauth-rfc7523bis);
 * parameters repeated beside `request_uri` are ignored when they equal the pushed ones (RFC
 * 9101 §5, RFC 9126 §4); `response_mode` values not served and a `request` object at PAR are
 * refused; a `request_uri` may be loaded again until a code is issued, and never burnt or
 * shown by another client (FAPI 2.0 SP §5.3.2.2 note 3); a private_key_jwt request without
 * `client_id` counts against its assertion's `iss`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import { assertionFields, DpopKey, FAPI_CLIENT_ID, PAR_ENDPOINT, postForm, pushRequest, pushedParams } from "./support/fapi.js";
import { basic, Browser, callbackParams, expectOAuthError, interactionIdFrom, json, pkcePair, request, signInInteraction, TOKEN_ENDPOINT, type Answer } from "./support/flow.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let base: string;

beforeAll(async () => {
  ({ server } = await startIssuerServer());
  base = server.url;
});
afterAll(() => server?.close());

const authorizeUrl = (requestUri: string, clientId: string = FAPI_CLIENT_ID, extra: Record<string, string> = {}) =>
  `/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, ...extra }).toString()}`;

/** A fresh pushed request of the fapi2 demo app; @returns its request_uri and what was pushed. */
async function pushed(extra: Record<string, string | undefined> = {}): Promise<{ requestUri: string; params: Record<string, string | undefined> }> {
  const params = pushedParams(pkcePair().challenge, extra);
  const answer = await pushRequest(base, params);
  expect(answer.status, answer.text).toBe(201);
  return { requestUri: answer.body.request_uri, params };
}

/** Opens /authorize in `browser`; @returns the interaction id of the sign-in page it sends the browser to. */
async function open(browser: Browser, path: string): Promise<string> {
  const res = await browser.fetch(path);
  expect(res.status, await res.clone().text()).toBe(302);
  return interactionIdFrom(res.headers.get("location"));
}

/** Signs alice in on interaction `id` and consents: @returns the callback's parameters. */
async function finish(browser: Browser, id: string): Promise<Record<string, string>> {
  const view = await json(await browser.fetch(`/interaction/${id}`));
  const signedIn = await signInInteraction(browser, id, view.csrfToken as string);
  const login = await json(signedIn);
  expect(signedIn.status, JSON.stringify(login)).toBe(200);
  if (login.redirectTo) return callbackParams(login.redirectTo);
  const scopes = (view.scopes as { name: string }[]).map((s) => s.name);
  const consent = await json(await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes }, headers: { "X-CSRF-Token": login.csrfToken } }));
  return callbackParams(consent.redirectTo);
}

/** The fixed error page of /authorize. */
async function expectErrorPage(res: Response, description: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  const page = await res.text();
  expect(page).toContain("Authorization error");
  expect(page).toMatch(description);
}

describe("a client assertion's aud is the issuer identifier alone, as a string (FAPI 2.0 SP §5.3.2.1)", () => {
  const clientCredentials = async (aud: unknown): Promise<Answer> => {
    const key = await DpopKey.generate();
    return postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(base, { claims: { aud } })) }, { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`) });
  };

  it("is accepted at the token endpoint and at PAR", async () => {
    expect((await clientCredentials(base)).status).toBe(200);
    await pushed();
  });

  it.each([
    ["the token endpoint's URL", () => `${base}${TOKEN_ENDPOINT}`],
    ["the PAR endpoint's URL", () => `${base}${PAR_ENDPOINT}`],
    ["an array of exactly the issuer", () => [base]],
  ])("refuses aud that is %s with invalid_client, at the token endpoint and at PAR", async (_what, aud) => {
    await expectOAuthError(await clientCredentials(aud()), 401, "invalid_client");
    const par = await postForm(base, PAR_ENDPOINT, { ...pushedParams(pkcePair().challenge), ...(await assertionFields(base, { claims: { aud: aud() } })) });
    const body = await expectOAuthError(par, 401, "invalid_client");
    expect(body.error_description).toMatch(/aud must be this server's issuer identifier as a string/);
  });
});

describe("parameters beside request_uri at /authorize (RFC 9101 §5, RFC 9126 §4)", () => {
  it("ignores scope, response_type and redirect_uri repeated with the pushed values (openid-client 5's FAPI client)", async () => {
    const { requestUri, params } = await pushed();
    const browser = new Browser(base);
    const id = await open(browser, authorizeUrl(requestUri, FAPI_CLIENT_ID, { scope: params.scope!, response_type: "code", redirect_uri: DEMO.callbackUrl }));
    const callback = await finish(browser, id);
    expect(callback.code).toBeTruthy();
    expect(callback.state).toBe(params.state);
  });

  it.each([
    ["a scope that differs", { scope: "pisp" }],
    ["a redirect_uri that differs", { redirect_uri: "https://attacker.example/cb" }],
    ["a parameter that was not pushed", { prompt: "none" }],
    ["a state that differs", { state: "another" }],
  ])("refuses %s, and the request_uri stays usable", async (_what, extra) => {
    const { requestUri } = await pushed();
    await expectErrorPage(await request(`${base}${authorizeUrl(requestUri, FAPI_CLIENT_ID, extra)}`), /differ|pushed/);
    await open(new Browser(base), authorizeUrl(requestUri));
  });
});

describe("response_mode values not served, and request objects at PAR", () => {
  it.each(["fragment", "form_post", "fragment.jwt"])("PAR refuses response_mode=%s with invalid_request", async (mode) => {
    const answer = await pushRequest(base, pushedParams(pkcePair().challenge, { response_mode: mode }));
    const body = await expectOAuthError(answer, 400, "invalid_request");
    expect(body.error_description).toMatch(/response_mode/);
  });

  it("PAR accepts response_mode=query, and the code comes in the query (jwt, query.jwt and form_post.jwt: server/test/jarm.test.ts)", async () => {
    const { requestUri } = await pushed({ response_mode: "query" });
    const browser = new Browser(base);
    expect((await finish(browser, await open(browser, authorizeUrl(requestUri)))).code).toBeTruthy();
  });

  it("/authorize of a standard app answers response_mode=fragment with an error redirect, not a code in the query", async () => {
    const query = new URLSearchParams({ client_id: DEMO.app.consumerKey, response_type: "code", scope: "aisp", redirect_uri: DEMO.callbackUrl, state: "s1", response_mode: "fragment" });
    const res = await request(`${base}/authorize?${query.toString()}`);
    expect(res.status).toBe(302);
    const callback = callbackParams(res.headers.get("location"));
    expect(callback).toMatchObject({ error: "invalid_request", state: "s1" });
    expect(callback.error_description).toMatch(/response_mode/);
  });

  it("PAR answers an unsigned request object (alg none, RFC 9101 §6.2) with invalid_request_object, whatever else is missing", async () => {
    const answer = await postForm(base, PAR_ENDPOINT, { request: "eyJhbGciOiJub25lIn0.eyJzY29wZSI6ImFpc3AifQ.", ...(await assertionFields(base)) });
    const body = await expectOAuthError(answer, 400, "invalid_request_object");
    expect(body.error_description).toMatch(/request object's alg must be one of/);
  });
});

describe("a request_uri is usable until its code is issued (FAPI 2.0 SP §5.3.2.2 note 3)", () => {
  it("can be loaded again (a reload) and each load starts a sign-in; once one issues a code, the others cannot and it is used up", async () => {
    const { requestUri } = await pushed();
    const first = new Browser(base);
    const second = new Browser(base);
    const firstId = await open(first, authorizeUrl(requestUri));
    const reloadId = await open(first, authorizeUrl(requestUri));
    const secondId = await open(second, authorizeUrl(requestUri));
    expect(new Set([firstId, reloadId, secondId]).size).toBe(3);

    const callback = await finish(first, reloadId);
    expect(callback.code).toBeTruthy();
    // Used up: no new load, and no second code from a sign-in started before.
    await expectErrorPage(await request(`${base}${authorizeUrl(requestUri)}`), /unknown, expired or already used/);
    const late = await finish(second, secondId);
    expect(late.code).toBeUndefined();
    expect(late.error).toBe("invalid_request");
    expect(late.error_description).toMatch(/already/);
  });

  it("another client's client_id neither burns nor reveals it", async () => {
    const { requestUri } = await pushed();
    const foreign = await request(`${base}${authorizeUrl(requestUri, DEMO.strictApp.consumerKey)}`);
    const unknown = await request(`${base}${authorizeUrl("urn:ietf:params:oauth:request_uri:made-up", DEMO.strictApp.consumerKey)}`);
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(await foreign.text()).toBe(await unknown.text());
    const browser = new Browser(base);
    expect((await finish(browser, await open(browser, authorizeUrl(requestUri)))).code).toBeTruthy();
  });

  it("still expires: a request_uri past its lifetime is refused", async () => {
    const { requestUri } = await pushed();
    await server.prisma.pushedAuthorizationRequest.update({ where: { requestUriHash: hashSecret(requestUri) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectErrorPage(await request(`${base}${authorizeUrl(requestUri)}`), /unknown, expired or already used/);
  });

  it("a sign-in started before the request_uri expired still gets its code", async () => {
    const { requestUri } = await pushed();
    const browser = new Browser(base);
    const id = await open(browser, authorizeUrl(requestUri));
    await server.prisma.pushedAuthorizationRequest.update({ where: { requestUriHash: hashSecret(requestUri) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await finish(browser, id)).code).toBeTruthy();
  });
});

describe("the per-client rate limit counts a private_key_jwt request without client_id against its assertion's iss", () => {
  const LIMIT = 3;
  let limited: TestServer;
  beforeAll(async () => {
    ({ server: limited } = await startIssuerServer({ TOKEN_RATE_LIMIT_PER_CLIENT: String(LIMIT), TOKEN_RATE_LIMIT_PER_IP: "1000" }));
  });
  afterAll(() => limited?.close());

  const withoutClientId = async () => {
    const key = await DpopKey.generate();
    return postForm(limited.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(limited.url)) }, { DPoP: await key.proof("POST", `${limited.url}${TOKEN_ENDPOINT}`) });
  };

  it(`the ${LIMIT + 1}th request of the client within a minute is 429, and another client is not affected`, async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const answer = await withoutClientId();
      expect(answer.status, `request ${i}: ${answer.text}`).toBe(200);
    }
    await expectOAuthError(await withoutClientId(), 429, "too_many_requests");
    // The same client named by client_id draws on the same budget.
    const named = await postForm(limited.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", client_id: FAPI_CLIENT_ID, ...(await assertionFields(limited.url)) });
    await expectOAuthError(named, 429, "too_many_requests");
    const other = await postForm(limited.url, TOKEN_ENDPOINT, { grant_type: "client_credentials" }, { Authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret) });
    expect(other.status, other.text).toBe(200);
  });

  it("an assertion naming no readable iss is counted against the IP only, and refused as invalid_client", async () => {
    for (const assertion of ["not.a.jwt", "x".repeat(9000)]) {
      const answer = await postForm(limited.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion });
      await expectOAuthError(answer, 401, "invalid_client");
    }
  });
});
