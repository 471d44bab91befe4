/**
 * HTTP suite for the front channel of the authorization code flow (spec "Start
 * authorization"; decisions.md "Authorization code flow"; RFC 6749 §4.1.1, §4.1.2.1,
 * RFC 7636, RFC 9207): `GET /authorize` and the interaction API the SPA's sign-in and
 * consent pages call, on a real server with the demo seed.
 *
 * The demo's PSD2 products require strong customer authentication (issue 16): a request for
 * their scopes needs the password and a second factor in this authentication, never reuses
 * the browser's session, and alice answers the factor stage with the software passkey every
 * test server gives her. What is about a password-only sign-in or a reused session is checked
 * on an app whose product does not require SCA ({@link createPasswordOnlyApp}).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { FLOW_COOKIE } from "../src/interaction/session.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  answerFactor,
  answerFactorWith,
  authorizeParams,
  authorizePath,
  Browser,
  callbackParams,
  expectNoStore,
  expectOAuthError,
  interactionIdFrom,
  json,
  parseSetCookie,
  passkeyOf,
  pkcePair,
  SESSION_COOKIE,
  signInInteraction,
  tokenRequest,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import { createPasswordOnlyApp, createUser, startTestServer, type TestServer } from "./support/server.js";

/** The issuer (`iss`, RFC 9207) of this suite's server. */
const ISSUER = "http://auth.tollgate.test";
const MAX_FAILURES_PER_USER = 3;
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  aisp: "Read your account details, balances and transactions",
  pisp: "Initiate payments from your accounts",
  piisp: "Confirm that funds are available on your account",
  extended_transaction_history: "Read your transaction history beyond the last 90 days",
};

let server: TestServer;
/** Apps whose product does not require SCA (scopes aisp, pisp, piisp): password-only sign-ins and reused sessions. */
let openApp: DemoClient;
let otherOpenApp: DemoClient;

const newBrowser = () => new Browser(server.url);

beforeAll(async () => {
  server = await startTestServer({
    AUTH_URL: ISSUER,
    SIGNIN_MAX_FAILURES_PER_USER: String(MAX_FAILURES_PER_USER),
    // Only the per-user limit is under test; keep the per-IP one (all calls come from 127.0.0.1) out of the way.
    SIGNIN_MAX_FAILURES_PER_IP: "1000",
  });
  openApp = await createPasswordOnlyApp(server);
  otherOpenApp = await createPasswordOnlyApp(server);
});

afterAll(async () => {
  await server?.close();
});

// Remembered consents change which stage a flow reaches; every test starts without any.
beforeEach(async () => {
  await server.prisma.consent.deleteMany();
});

/** Starts a flow in `browser`; expects a redirect to a page of the SPA and returns the interaction id. */
async function start(browser: Browser, params: Record<string, string | string[] | undefined> = authorizeParams()): Promise<{ id: string; location: string }> {
  const res = await browser.fetch(authorizePath(params));
  const location = res.headers.get("location");
  expect(res.status, `${res.status} ${location}`).toBe(302);
  expect(location).toMatch(/^\/(login|consent)\?interaction=/);
  return { id: interactionIdFrom(location), location: location! };
}

/** GET /interaction/:id; expects 200 and returns the view. */
async function view(browser: Browser, id: string): Promise<Json> {
  const res = await browser.fetch(`/interaction/${id}`);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The password step alone: POST /interaction/:id/login. */
function login(browser: Browser, id: string, csrf: string | undefined, user: { username: string; password: string } = DEMO.user): Promise<Response> {
  return browser.fetch(`/interaction/${id}/login`, { json: user, headers: csrf === undefined ? {} : { "X-CSRF-Token": csrf } });
}

/** The password step, which must answer 200 `{stage: "factor", csrfToken}`; @returns that CSRF token. */
async function toFactorStage(browser: Browser, id: string, csrf: string, user: { username: string; password: string } = DEMO.user): Promise<string> {
  const res = await login(browser, id, csrf, user);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual({ stage: "factor", csrfToken: expect.any(String) });
  return body.csrfToken as string;
}

function consent(browser: Browser, id: string, csrf: string, answer: Json): Promise<Response> {
  return browser.fetch(`/interaction/${id}/consent`, { json: answer, headers: { "X-CSRF-Token": csrf } });
}

/**
 * Starts a flow and signs alice in: the password (answered by the factor stage, as she has a
 * second factor), then her passkey; expects the consent stage.
 * @returns the interaction id and the new CSRF token.
 */
async function signedIn(browser: Browser, params: Record<string, string | string[] | undefined> = authorizeParams()): Promise<{ id: string; csrf: string }> {
  const { id } = await start(browser, params);
  const v = await view(browser, id);
  expect(v.stage).toBe("login");
  const factorCsrf = await toFactorStage(browser, id, v.csrfToken);
  const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  return { id, csrf: body.csrfToken };
}

/** Runs a whole flow of `client` approving `scope` in `browser`, which ends signed in with the consent remembered. */
async function consented(browser: Browser, scope: string, client: DemoClient = DEMO.app): Promise<void> {
  const { id, csrf } = await signedIn(browser, authorizeParams(client, { scope }));
  const res = await consent(browser, id, csrf, { approve: true, scopes: scope.split(" ") });
  expect(res.status).toBe(200);
  expect(callbackParams((await json(res)).redirectTo).code).toBeTruthy();
}

/** Expects a redirect to the demo callback with exactly error, error_description, iss and (when given) state. */
function expectErrorRedirect(res: Response, error: string, state: string | undefined): Record<string, string> {
  expect(res.status).toBe(302);
  const p = callbackParams(res.headers.get("location"));
  expect(Object.keys(p).sort()).toEqual(state === undefined ? ["error", "error_description", "iss"] : ["error", "error_description", "iss", "state"]);
  expect(p.error).toBe(error);
  expect(p.error_description!.length).toBeGreaterThan(0);
  expect(p.iss).toBe(ISSUER);
  if (state !== undefined) expect(p.state).toBe(state);
  return p;
}

const CODE = /^[A-Za-z0-9_-]{43,}$/;

/** Expects a redirect to the demo callback with exactly code, state and iss. */
function expectCodeRedirect(location: string | null, state: string): string {
  const p = callbackParams(location);
  expect(Object.keys(p).sort()).toEqual(["code", "iss", "state"]);
  expect(p.code).toMatch(CODE);
  expect(p.state).toBe(state);
  expect(p.iss).toBe(ISSUER);
  return p.code!;
}

describe("GET /authorize: requests that are never redirected (error page)", () => {
  const cb = DEMO.callbackUrl;
  const cases: [string, Record<string, string | string[] | undefined>][] = [
    ["client_id missing", authorizeParams(DEMO.app, { client_id: undefined })],
    ["client_id empty", authorizeParams(DEMO.app, { client_id: "" })],
    ["client_id unknown", authorizeParams(DEMO.app, { client_id: "no-such-client" })],
    ["client_id unknown, even with otherwise bad parameters", authorizeParams(DEMO.app, { client_id: "no-such-client", response_type: "token", state: undefined })],
    ["client_id repeated", authorizeParams(DEMO.app, { client_id: [DEMO.app.consumerKey, DEMO.strictApp.consumerKey] })],
    ["redirect_uri missing", authorizeParams(DEMO.app, { redirect_uri: undefined })],
    ["redirect_uri repeated", authorizeParams(DEMO.app, { redirect_uri: [cb, cb] })],
    ["redirect_uri unregistered", authorizeParams(DEMO.app, { redirect_uri: "https://evil.example/callback" })],
    ["redirect_uri open-redirect suffix (host-like)", authorizeParams(DEMO.app, { redirect_uri: `${cb}.evil.com` })],
    ["redirect_uri with a trailing slash", authorizeParams(DEMO.app, { redirect_uri: `${cb}/` })],
    ["redirect_uri with an extra path segment", authorizeParams(DEMO.app, { redirect_uri: `${cb}/evil` })],
    ["redirect_uri prefix of the registered one", authorizeParams(DEMO.app, { redirect_uri: cb.slice(0, -1) })],
    ["redirect_uri in upper case", authorizeParams(DEMO.app, { redirect_uri: cb.toUpperCase() })],
    ["redirect_uri with a differently-cased path", authorizeParams(DEMO.app, { redirect_uri: cb.replace("callback", "Callback") })],
    ["redirect_uri with an added query", authorizeParams(DEMO.app, { redirect_uri: `${cb}?next=https://evil.example` })],
    ["redirect_uri with a fragment", authorizeParams(DEMO.app, { redirect_uri: `${cb}#evil` })],
    ["redirect_uri with userinfo pointing elsewhere", authorizeParams(DEMO.app, { redirect_uri: "http://localhost:8080@evil.example/callback" })],
    ["redirect_uri on another port", authorizeParams(DEMO.app, { redirect_uri: "http://localhost:8081/callback" })],
    ["redirect_uri https instead of http", authorizeParams(DEMO.app, { redirect_uri: cb.replace("http:", "https:") })],
  ];

  it.each(cases)("%s -> 400 HTML page, no Location, cannot be framed", async (_name, params) => {
    const res = await newBrowser().fetch(authorizePath(params));
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expectNoStore(res);
    expect(text).toContain("invalid_request");
    // Nothing the attacker sent is reflected into the page.
    expect(text).not.toContain("evil");
  });

  it("a revoked app -> 400 page with unauthorized_client", async () => {
    const developer = await server.prisma.developer.findFirstOrThrow();
    await server.prisma.app.create({
      data: {
        name: "Revoked app",
        developerId: developer.id,
        status: "revoked",
        requirePkce: false,
        callbackUrls: { create: [{ url: DEMO.callbackUrl }] },
        credentials: { create: [{ consumerKey: "revoked-app-key", consumerSecretHash: hashSecret("revoked-app-secret") }] },
      },
    });
    const res = await newBrowser().fetch(authorizePath(authorizeParams({ consumerKey: "revoked-app-key", consumerSecret: "" })));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(await res.text()).toContain("unauthorized_client");
  });
});

describe("GET /authorize: errors redirected to the client with error, error_description, state, iss", () => {
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; // RFC 7636 Appendix B
  const cases: [string, string, DemoClient, Record<string, string | string[] | undefined>][] = [
    ["response_type missing", "invalid_request", DEMO.app, { response_type: undefined }],
    ["response_type=token", "unsupported_response_type", DEMO.app, { response_type: "token" }],
    ["response_type=code token", "unsupported_response_type", DEMO.app, { response_type: "code token" }],
    ["scope missing", "invalid_scope", DEMO.app, { scope: undefined }],
    ["scope empty", "invalid_scope", DEMO.app, { scope: "" }],
    ["scope unknown", "invalid_scope", DEMO.app, { scope: "aisp bogus" }],
    ["scope not available to the client", "invalid_scope", DEMO.paymentsApp, { scope: "aisp", code_challenge: challenge, code_challenge_method: "S256" }],
    ["scope with characters RFC 6749 §3.3 forbids", "invalid_scope", DEMO.app, { scope: 'ai"sp' }],
    ["code_challenge_method=plain", "invalid_request", DEMO.app, { code_challenge: challenge, code_challenge_method: "plain" }],
    ["code_challenge without code_challenge_method", "invalid_request", DEMO.app, { code_challenge: challenge }],
    ["code_challenge_method without code_challenge", "invalid_request", DEMO.app, { code_challenge_method: "S256" }],
    ["code_challenge too short", "invalid_request", DEMO.app, { code_challenge: "abc", code_challenge_method: "S256" }],
    ["code_challenge with characters outside the PKCE alphabet", "invalid_request", DEMO.app, { code_challenge: `${challenge.slice(0, 42)}+`, code_challenge_method: "S256" }],
    ["code_challenge too long", "invalid_request", DEMO.app, { code_challenge: "a".repeat(129), code_challenge_method: "S256" }],
    ["PKCE missing for a client that requires it", "invalid_request", DEMO.strictApp, {}],
    ["plain PKCE for a client that requires PKCE", "invalid_request", DEMO.strictApp, { code_challenge: challenge, code_challenge_method: "plain" }],
    ["prompt=bogus", "invalid_request", DEMO.app, { prompt: "bogus" }],
    ["scope repeated", "invalid_request", DEMO.app, { scope: ["aisp", "pisp"] }],
    ["response_type repeated", "invalid_request", DEMO.app, { response_type: ["code", "code"] }],
    ["code_challenge repeated", "invalid_request", DEMO.app, { code_challenge: [challenge, challenge], code_challenge_method: "S256" }],
    ["prompt repeated", "invalid_request", DEMO.app, { prompt: ["login", "consent"] }],
    // A value that is not well-formed text is an error, never ignored as if absent (fast-check found prompt=%00 taken for no prompt).
    ["prompt with NUL", "invalid_request", DEMO.app, { prompt: "\u0000" }],
    ["max_age with NUL", "invalid_request", DEMO.app, { max_age: "60\u0000" }],
    ["code_challenge_method with a lone surrogate", "invalid_request", DEMO.app, { code_challenge: challenge, code_challenge_method: "S256\ud800" }],
  ];

  it.each(cases)("%s -> 302 to the callback with error=%s", async (_name, error, client, extra) => {
    const params = authorizeParams(client, extra);
    const res = await newBrowser().fetch(authorizePath(params));
    expectErrorRedirect(res, error, params.state as string);
    expectNoStore(res);
  });

  it("state missing -> invalid_request redirect without state", async () => {
    const res = await newBrowser().fetch(authorizePath(authorizeParams(DEMO.app, { state: undefined })));
    expectErrorRedirect(res, "invalid_request", undefined);
  });

  it("state repeated -> invalid_request redirect (no single state to return)", async () => {
    const res = await newBrowser().fetch(authorizePath(authorizeParams(DEMO.app, { state: ["a", "b"] })));
    const p = expectErrorRedirect(res, "invalid_request", undefined);
    expect(p.error_description).toContain("state");
  });

  it("keeps the registered redirect URI intact and percent-encodes the state it returns", async () => {
    const state = "a b&c=d/é";
    const res = await newBrowser().fetch(authorizePath(authorizeParams(DEMO.app, { state, response_type: "token" })));
    const p = expectErrorRedirect(res, "unsupported_response_type", state);
    expect(p.state).toBe(state);
  });

  it("prompt=none without a session -> login_required", async () => {
    const params = authorizeParams(DEMO.app, { prompt: "none" });
    expectErrorRedirect(await newBrowser().fetch(authorizePath(params)), "login_required", params.state as string);
  });

  // A session is reused only for a request that does not need SCA: these use an app without a PSD2 product.
  it("prompt=none signed in but without consent -> consent_required", async () => {
    const browser = newBrowser();
    await signedIn(browser, authorizeParams(openApp));
    const params = authorizeParams(openApp, { prompt: "none" });
    expectErrorRedirect(await browser.fetch(authorizePath(params)), "consent_required", params.state as string);
  });

  it("prompt=none signed in with consent to fewer scopes than requested -> consent_required", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp", openApp);
    const params = authorizeParams(openApp, { prompt: "none", scope: "aisp pisp" });
    expectErrorRedirect(await browser.fetch(authorizePath(params)), "consent_required", params.state as string);
  });

  it("prompt=none signed in with consent -> code without any page", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp", openApp);
    const params = authorizeParams(openApp, { prompt: "none" });
    const res = await browser.fetch(authorizePath(params));
    expect(res.status).toBe(302);
    expectCodeRedirect(res.headers.get("location"), params.state as string);
  });

  it("prompt=none for a request that needs SCA -> login_required, even signed in with two factors and consented", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp");
    const params = authorizeParams(DEMO.app, { prompt: "none" });
    const p = expectErrorRedirect(await browser.fetch(authorizePath(params)), "login_required", params.state as string);
    expect(p.error_description).toBe("strong customer authentication is required");
  });
});

describe("GET /authorize: valid requests", () => {
  it("-> 302 to /login?interaction=<id>, flow cookie HttpOnly SameSite=Lax, no session yet, no-store", async () => {
    const browser = newBrowser();
    const sessionsBefore = await server.prisma.session.count();
    const res = await browser.fetch(authorizePath(authorizeParams()));
    expect(res.status).toBe(302);
    const location = res.headers.get("location");
    expect(location).toMatch(/^\/login\?interaction=[A-Za-z0-9_-]+$/);
    expectNoStore(res);
    const cookies = res.headers.getSetCookie().map(parseSetCookie);
    // Nothing to keep before a sign-in: no session cookie and no session row (L5).
    expect(cookies.map((c) => c.name)).toEqual([FLOW_COOKIE]);
    expect(await server.prisma.session.count()).toBe(sessionsBefore);
    const flow = cookies[0]!;
    expect(flow.attributes.has("httponly")).toBe(true);
    expect(flow.attributes.get("samesite")?.toLowerCase()).toBe("lax");
    expect(flow.attributes.get("path")).toBe("/");
    // The issuer is http in this suite, so the cookie is not Secure (it would be with https).
    expect(flow.attributes.has("secure")).toBe(false);
    const id = interactionIdFrom(location);
    expect(await server.prisma.interaction.findUnique({ where: { id } })).toMatchObject({ stage: "login", userId: null, scope: "aisp" });
  });

  it("with S256 PKCE for the client that requires it -> /login", async () => {
    const res = await newBrowser().fetch(
      authorizePath(authorizeParams(DEMO.strictApp, { code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" })),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login\?interaction=/);
  });

  it("already signed in, no consent yet -> 302 to /consent?interaction=<id> (a request that does not need SCA)", async () => {
    const browser = newBrowser();
    await signedIn(browser, authorizeParams(openApp));
    const { location, id } = await start(browser, authorizeParams(openApp, { scope: "aisp pisp" }));
    expect(location).toBe(`/consent?interaction=${id}`);
    const v = await view(browser, id);
    expect(v.stage).toBe("consent");
    expect(v.user).toEqual({ username: DEMO.user.username });
    expect(v.scaRequired).toBe(false);
  });

  it("already signed in with two factors, a request that needs SCA -> 302 to /login: a fresh password and factor, never the session", async () => {
    const browser = newBrowser();
    await signedIn(browser);
    const { location, id } = await start(browser, authorizeParams(DEMO.app, { scope: "aisp pisp" }));
    expect(location).toBe(`/login?interaction=${id}`);
    const v = await view(browser, id);
    expect(v).toMatchObject({ stage: "login", user: null, scaRequired: true });
    const factorCsrf = await toFactorStage(browser, id, v.csrfToken);
    const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
    expect(await json(res)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });
});

describe("GET /authorize: state with PKCE (RFC 9700 §2.1)", () => {
  const withPkce = (challenge = pkcePair().challenge) => ({ code_challenge: challenge, code_challenge_method: "S256" });

  it("rfc6749-profile app with S256 PKCE and no state -> a code on a callback without state, redeemed with the verifier", async () => {
    const browser = newBrowser();
    const pkce = pkcePair();
    const { id, csrf } = await signedIn(browser, authorizeParams(DEMO.strictApp, { state: undefined, ...withPkce(pkce.challenge) }));
    const res = await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] });
    expect(res.status).toBe(200);
    const p = callbackParams((await json(res)).redirectTo);
    expect(Object.keys(p).sort()).toEqual(["code", "iss"]);
    expect(p.iss).toBe(ISSUER);
    const exchanged = await tokenRequest(server.url, "/token", DEMO.strictApp, {
      grant_type: "authorization_code",
      code: p.code,
      redirect_uri: DEMO.callbackUrl,
      code_verifier: pkce.verifier,
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body.scope).toBe("aisp");
  });

  it("an error of a state-less PKCE request of the rfc6749-profile app is redirected without state", async () => {
    const res = await newBrowser().fetch(authorizePath(authorizeParams(DEMO.strictApp, { state: undefined, scope: "admin", ...withPkce() })));
    expectErrorRedirect(res, "invalid_scope", undefined);
  });

  it("apigee-profile app (the spec's flow): state stays required even with S256 PKCE -> invalid_request", async () => {
    const res = await newBrowser().fetch(authorizePath(authorizeParams(DEMO.app, { state: undefined, ...withPkce() })));
    expect(expectErrorRedirect(res, "invalid_request", undefined).error_description).toBe("state is required");
  });

  it("rfc6749-profile app without PKCE, or with an empty code_challenge: state stays required -> invalid_request", async () => {
    // An rfc6749-profile app that does not require PKCE, so that only state is missing.
    const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    const key = `state-test-${Date.now()}`;
    await server.prisma.app.create({
      data: {
        name: key,
        developerId: developer.id,
        tokenResponseProfile: "rfc6749",
        requirePkce: false,
        callbackUrls: { create: [{ url: DEMO.callbackUrl }] },
        credentials: { create: [{ consumerKey: key, consumerSecretHash: hashSecret("x"), products: { create: [{ apiProductId: aisp.id }] } }] },
      },
    });
    const client = { consumerKey: key, consumerSecret: "x" };
    for (const extra of [{}, { code_challenge: "", code_challenge_method: "S256" }]) {
      const res = await newBrowser().fetch(authorizePath(authorizeParams(client, { state: undefined, ...extra })));
      expect(expectErrorRedirect(res, "invalid_request", undefined).error_description).toBe("state is required unless PKCE (code_challenge) is used");
    }
    // With state, the same request is valid.
    await start(newBrowser(), authorizeParams(client));
  });
});

describe("interaction API", () => {
  it("GET /interaction/:id shows the stage, client, scopes with descriptions, user and a CSRF token", async () => {
    const browser = newBrowser();
    const { id } = await start(browser, authorizeParams(DEMO.app, { scope: "pisp aisp" }));
    const res = await browser.fetch(`/interaction/${id}`);
    expectNoStore(res);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body).toEqual({
      id,
      stage: "login",
      client: { name: DEMO.app.name, organization: DEMO.organization },
      scopes: [
        { name: "pisp", description: SCOPE_DESCRIPTIONS.pisp },
        { name: "aisp", description: SCOPE_DESCRIPTIONS.aisp },
      ],
      user: null,
      loginHint: null,
      uiLocales: [],
      identityProvider: null,
      scaRequired: true,
      authorizationDetails: null,
      accounts: [],
      // The demo app's refresh tokens live 90 days: that long, from now.
      accessUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
    });
    expect(Math.round((Date.parse(body.accessUntil) - Date.now()) / 86_400_000)).toBe(90);
    // The CSRF token is stable within the session.
    expect((await view(browser, id)).csrfToken).toBe(body.csrfToken);
  });

  it("GET of an unknown interaction -> 404", async () => {
    const browser = newBrowser();
    await start(browser);
    await expectOAuthError(await browser.fetch("/interaction/no-such-interaction"), 404, "not_found");
    await expectOAuthError(await newBrowser().fetch("/interaction/no-such-interaction"), 404, "not_found");
  });

  it("GET from another browser, or with no cookie -> 403", async () => {
    const alice = newBrowser();
    const { id } = await start(alice);
    const other = newBrowser();
    await start(other);
    await expectOAuthError(await other.fetch(`/interaction/${id}`), 403, "access_denied");
    await expectOAuthError(await newBrowser().fetch(`/interaction/${id}`), 403, "access_denied");
    // The owner still can.
    expect((await view(alice, id)).stage).toBe("login");
  });

  it("POST login from another browser, with that browser's own valid CSRF token -> 403", async () => {
    const victim = newBrowser();
    const { id } = await start(victim);
    const attacker = newBrowser();
    const own = await start(attacker);
    const attackerCsrf = (await view(attacker, own.id)).csrfToken;
    await expectOAuthError(await login(attacker, id, attackerCsrf), 403, "access_denied");
    expect((await server.prisma.interaction.findUniqueOrThrow({ where: { id } })).stage).toBe("login");
  });

  it("POST login without a CSRF header, with a wrong one, or with another session's -> 403; the flow still works after", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    const other = newBrowser();
    const otherCsrf = (await view(other, (await start(other)).id)).csrfToken as string;

    await expectOAuthError(await login(browser, id, undefined), 403, "invalid_request");
    await expectOAuthError(await login(browser, id, "wrong"), 403, "invalid_request");
    await expectOAuthError(await login(browser, id, `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "B" : "A"}`), 403, "invalid_request");
    await expectOAuthError(await login(browser, id, otherCsrf), 403, "invalid_request");
    expect((await server.prisma.interaction.findUniqueOrThrow({ where: { id } })).stage).toBe("login");

    const factorCsrf = await toFactorStage(browser, id, csrf);
    const ok = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it("POST login with a non-JSON body -> 415 (even with the right CSRF token)", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    const asText = await browser.fetch(`/interaction/${id}/login`, {
      body: JSON.stringify(DEMO.user),
      headers: { "Content-Type": "text/plain", "X-CSRF-Token": csrf },
    });
    await expectOAuthError(asText, 415, "invalid_request");
    const asForm = await browser.fetch(`/interaction/${id}/login`, {
      body: `username=${DEMO.user.username}&password=${DEMO.user.password}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": csrf },
    });
    await expectOAuthError(asForm, 415, "invalid_request");
  });

  it("POST login with a malformed body -> 400 invalid_request", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    await expectOAuthError(await login(browser, id, csrf, { username: DEMO.user.username } as never), 400, "invalid_request");
    const broken = await browser.fetch(`/interaction/${id}/login`, { body: "{not json", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
    await expectOAuthError(broken, 400, "invalid_request");
  });

  it("wrong password and unknown user -> 401 with the same body (a request without SCA, a user without a factor)", async () => {
    const dave = await createUser(server, { prefix: "dave" });
    const browser = newBrowser();
    const { id } = await start(browser, authorizeParams(openApp));
    const csrf = (await view(browser, id)).csrfToken as string;
    const wrong = await expectOAuthError(await login(browser, id, csrf, { username: dave.username, password: "not-the-password" }), 401, "invalid_credentials");
    const unknown = await expectOAuthError(await login(browser, id, csrf, { username: `nobody-${Date.now()}`, password: "whatever-password" }), 401, "invalid_credentials");
    expect(unknown).toEqual(wrong);
    expect(wrong.error_description).toBe("The sign-in details are incorrect.");
    // Still at the login stage, still answerable.
    expect((await view(browser, id)).stage).toBe("login");
    const ok = await login(browser, id, csrf, dave);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it("'Not you? Sign out' at consent signs the browser out and sends the request back to sign-in, where another user goes on", async () => {
    const [dave, erin] = [await createUser(server, { prefix: "dave" }), await createUser(server, { prefix: "erin" })];
    const browser = newBrowser();
    const { id } = await start(browser, authorizeParams(openApp));
    const ok = await login(browser, id, (await view(browser, id)).csrfToken, dave);
    const { csrfToken } = await json(ok);
    expect((await view(browser, id)).user).toEqual({ username: dave.username });
    // Only with the browser's CSRF token, and only at the consent step.
    expect((await browser.fetch(`/interaction/${id}/sign-out`, { json: {}, headers: { "X-CSRF-Token": "forged" } })).status).toBe(403);
    const out = await browser.fetch(`/interaction/${id}/sign-out`, { json: {}, headers: { "X-CSRF-Token": csrfToken } });
    expect(out.status).toBe(200);
    const { stage, csrfToken: fresh } = await json(out);
    expect(stage).toBe("login");
    expect((await json(await browser.fetch("/session"))).user).toBeNull();
    expect(await view(browser, id)).toMatchObject({ stage: "login", user: null });
    expect((await browser.fetch(`/interaction/${id}/sign-out`, { json: {}, headers: { "X-CSRF-Token": fresh } })).status).toBe(409);
    const again = await login(browser, id, fresh, erin);
    expect(again.status).toBe(200);
    expect((await view(browser, id)).user).toEqual({ username: erin.username });
  });

  it("a request that needs SCA: wrong password and unknown user both get the factor stage, then the same 401 body there; the interaction is back at login", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    // The second element presented is alice's own passkey both times: only the password (or the account) is wrong.
    const passkey = passkeyOf(server.url, DEMO.user.username);

    const wrongCsrf = await toFactorStage(browser, id, csrf, { username: DEMO.user.username, password: "not-the-password" });
    expect((await view(browser, id)).stage).toBe("factor");
    const wrong = await expectOAuthError(await answerFactorWith(browser, `/interaction/${id}/factor`, wrongCsrf, passkey), 401, "invalid_credentials");
    expect((await view(browser, id)).stage).toBe("login");

    const unknownCsrf = await toFactorStage(browser, id, wrongCsrf, { username: `nobody-${Date.now()}`, password: "whatever-password" });
    expect((await view(browser, id)).stage).toBe("factor");
    const unknown = await expectOAuthError(await answerFactorWith(browser, `/interaction/${id}/factor`, unknownCsrf, passkey), 401, "invalid_credentials");
    expect(unknown).toEqual(wrong);
    expect(wrong.error_description).toBe("The sign-in details are incorrect.");
    // Back at the login stage, still answerable.
    expect((await view(browser, id)).stage).toBe("login");
    const ok = await signInInteraction(browser, id, unknownCsrf);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it("successful sign-in regenerates the session (fixation defence): new cookie, new CSRF token, old ones dead", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrfBefore = (await view(browser, id)).csrfToken as string;
    const before = browser.cookies.get(FLOW_COOKIE);
    expect(before).toBeDefined();
    expect(browser.sessionCookie).toBeUndefined();

    // The password step already leaves the pre-sign-in state: a new session holds the pending sign-in.
    const factorCsrf = await toFactorStage(browser, id, csrfBefore);
    const pending = browser.sessionCookie;
    expect(pending).toBeDefined();
    expect(browser.cookies.has(FLOW_COOKIE)).toBe(false);
    expect(factorCsrf).not.toBe(csrfBefore);

    const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body).toEqual({ stage: "consent", csrfToken: expect.any(String) });
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
    expect(browser.sessionCookie).toBeDefined();
    expect(browser.sessionCookie).not.toBe(pending);
    expect(browser.cookies.has(FLOW_COOKIE)).toBe(false);
    expect(body.csrfToken).not.toBe(csrfBefore);
    expect(body.csrfToken).not.toBe(factorCsrf);

    // A browser still holding the pre-login cookie (e.g. one planted by an attacker) has nothing.
    const planted = newBrowser();
    planted.cookies.set(FLOW_COOKIE, before!);
    await expectOAuthError(await planted.fetch(`/interaction/${id}`), 403, "access_denied");
    // Nor does one holding the session cookie of the pending sign-in.
    const copied = newBrowser();
    copied.cookies.set(SESSION_COOKIE, pending!);
    await expectOAuthError(await copied.fetch(`/interaction/${id}`), 403, "access_denied");
    // The pre-login and the pending sign-in's CSRF tokens are no longer accepted.
    await expectOAuthError(await consent(browser, id, csrfBefore, { approve: true, scopes: ["aisp"] }), 403, "invalid_request");
    await expectOAuthError(await consent(browser, id, factorCsrf, { approve: true, scopes: ["aisp"] }), 403, "invalid_request");

    const v = await view(browser, id);
    expect(v).toMatchObject({ stage: "consent", user: { username: DEMO.user.username }, csrfToken: body.csrfToken });
  });

  it("consent before login -> 409", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] }), 409, "invalid_request");
    await expectOAuthError(await consent(browser, id, csrf, { approve: false }), 409, "invalid_request");
    expect((await view(browser, id)).stage).toBe("login");
  });

  it("login at the consent stage -> 409", async () => {
    const browser = newBrowser();
    const { id, csrf } = await signedIn(browser);
    await expectOAuthError(await login(browser, id, csrf), 409, "invalid_request");
  });

  it("answering consent twice -> 410, and the interaction is gone", async () => {
    const browser = newBrowser();
    const { id, csrf } = await signedIn(browser);
    const first = await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] });
    expect(first.status).toBe(200);
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] }), 410, "expired");
    await expectOAuthError(await consent(browser, id, csrf, { approve: false }), 410, "expired");
    await expectOAuthError(await browser.fetch(`/interaction/${id}`), 410, "expired");
  });

  it("deny -> redirectTo the callback with error=access_denied, the original state and iss; nothing remembered", async () => {
    const browser = newBrowser();
    const params = authorizeParams();
    const { id, csrf } = await signedIn(browser, params);
    const codesBefore = await server.prisma.authorizationCode.count();
    const res = await consent(browser, id, csrf, { approve: false });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(["redirectTo"]);
    const p = callbackParams(body.redirectTo);
    expect(Object.keys(p).sort()).toEqual(["error", "error_description", "iss", "state"]);
    expect(p).toMatchObject({ error: "access_denied", state: params.state, iss: ISSUER });
    expect(await server.prisma.consent.count()).toBe(0);
    expect(await server.prisma.authorizationCode.count()).toBe(codesBefore);
    // The next request in this browser asks again: after the sign-in (SCA: never the session), the consent stage, not a code.
    const next = await start(browser);
    expect(next.location).toMatch(/^\/login\?/);
    const again = await signInInteraction(browser, next.id, (await view(browser, next.id)).csrfToken);
    expect(await json(again)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it("approve with a scope that was not requested, or with none -> 400; the stage can still be answered", async () => {
    const browser = newBrowser();
    const params = authorizeParams(DEMO.app, { scope: "aisp" });
    const { id, csrf } = await signedIn(browser, params);
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: ["pisp"] }), 400, "invalid_request");
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: ["aisp", "pisp"] }), 400, "invalid_request");
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: [] }), 400, "invalid_request");
    await expectOAuthError(await consent(browser, id, csrf, { approve: true }), 400, "invalid_request");
    await expectOAuthError(await consent(browser, id, csrf, { approve: "yes", scopes: ["aisp"] }), 400, "invalid_request");
    expect(await server.prisma.consent.count()).toBe(0);

    const ok = await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] });
    expect(ok.status).toBe(200);
    expectCodeRedirect((await json(ok)).redirectTo, params.state as string);
  });

  it("approve a subset of the requested scopes -> the code is bound to that subset only", async () => {
    const browser = newBrowser();
    const params = authorizeParams(DEMO.app, { scope: "aisp pisp" });
    const { id, csrf } = await signedIn(browser, params);
    const ok = await consent(browser, id, csrf, { approve: true, scopes: ["pisp"] });
    expect(ok.status).toBe(200);
    const code = expectCodeRedirect((await json(ok)).redirectTo, params.state as string);
    const row = await server.prisma.authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
    expect(row.scope).toBe("pisp");
    expect(row.redirectUri).toBe(DEMO.callbackUrl);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeLessThanOrEqual(61_000);
  });

  it("approving the same scope twice grants it once: the token's scope has no duplicates", async () => {
    const browser = newBrowser();
    const { id, csrf } = await signedIn(browser, authorizeParams(DEMO.app, { scope: "aisp pisp" }));
    const res = await consent(browser, id, csrf, { approve: true, scopes: ["aisp", "aisp"] });
    expect(res.status).toBe(200);
    const code = callbackParams((await json(res)).redirectTo).code!;
    const answer = await tokenRequest(server.url, "/oauth2/v1/token", DEMO.app, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.scope).toBe("aisp");
  });

  /** Expects the 429 of a blocked sign-in, with a Retry-After of at most the 15-minute window. */
  async function expectBlocked(res: Response): Promise<void> {
    await expectOAuthError(res, 429, "too_many_attempts");
    const retryAfter = res.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(900);
  }

  it(`sign-in throttling: after ${MAX_FAILURES_PER_USER} failures -> 429 with Retry-After, even with the right password; other users unaffected (a request without SCA, a user without a factor)`, async () => {
    const bob = await createUser(server, { prefix: "bob" });
    const browser = newBrowser();
    const { id } = await start(browser, authorizeParams(openApp));
    const csrf = (await view(browser, id)).csrfToken as string;
    for (let i = 0; i < MAX_FAILURES_PER_USER; i++) {
      await expectOAuthError(await login(browser, id, csrf, { username: bob.username, password: `wrong-${i}` }), 401, "invalid_credentials");
    }
    await expectBlocked(await login(browser, id, csrf, bob));
    await expectOAuthError(await login(browser, id, csrf, { username: bob.username, password: "wrong-again" }), 429, "too_many_attempts");
    expect((await view(browser, id)).stage).toBe("login");

    // Another user signs in fine from the same browser and IP.
    const ok = await signInInteraction(browser, id, csrf, DEMO.user);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it(`a request that needs SCA: after ${MAX_FAILURES_PER_USER} attempts failed at the factor stage -> 429 at the password step with Retry-After, even with the right password; other users unaffected`, async () => {
    const erin = await createUser(server, { prefix: "erin", passkey: true });
    const browser = newBrowser();
    const { id } = await start(browser);
    let csrf = (await view(browser, id)).csrfToken as string;
    for (let i = 0; i < MAX_FAILURES_PER_USER; i++) {
      csrf = await toFactorStage(browser, id, csrf, { username: erin.username, password: `wrong-${i}` });
      await expectOAuthError(await answerFactor(browser, `/interaction/${id}/factor`, csrf, erin.username), 401, "invalid_credentials");
    }
    await expectBlocked(await login(browser, id, csrf, erin));
    await expectOAuthError(await login(browser, id, csrf, { username: erin.username, password: "wrong-again" }), 429, "too_many_attempts");
    expect((await view(browser, id)).stage).toBe("login");

    // Another user signs in fine from the same browser and IP.
    const ok = await signInInteraction(browser, id, csrf, DEMO.user);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  });

  it("a successful sign-in clears the user's failure count (a request without SCA, a user without a factor)", async () => {
    const carol = await createUser(server, { prefix: "carol" });
    for (let round = 0; round < 2; round++) {
      const browser = newBrowser();
      const { id } = await start(browser, authorizeParams(openApp));
      const csrf = (await view(browser, id)).csrfToken as string;
      for (let i = 0; i < MAX_FAILURES_PER_USER - 1; i++) {
        await expectOAuthError(await login(browser, id, csrf, { ...carol, password: "wrong-password" }), 401, "invalid_credentials");
      }
      expect((await login(browser, id, csrf, carol)).status).toBe(200);
    }
  });

  it("a request that needs SCA: a successful sign-in (password and factor) clears the user's failure count", async () => {
    const frank = await createUser(server, { prefix: "frank", passkey: true });
    for (let round = 0; round < 2; round++) {
      const browser = newBrowser();
      const { id } = await start(browser);
      let csrf = (await view(browser, id)).csrfToken as string;
      for (let i = 0; i < MAX_FAILURES_PER_USER - 1; i++) {
        csrf = await toFactorStage(browser, id, csrf, { ...frank, password: "wrong-password" });
        await expectOAuthError(await answerFactor(browser, `/interaction/${id}/factor`, csrf, frank.username), 401, "invalid_credentials");
      }
      const ok = await signInInteraction(browser, id, csrf, frank);
      expect(ok.status).toBe(200);
      expect(await json(ok)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
    }
  });

  it("an expired interaction -> 410 on GET and on POST", async () => {
    const browser = newBrowser();
    const { id } = await start(browser);
    const csrf = (await view(browser, id)).csrfToken as string;
    await server.prisma.interaction.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectOAuthError(await browser.fetch(`/interaction/${id}`), 410, "expired");
    await expectOAuthError(await login(browser, id, csrf), 410, "expired");
  });

  it("an interaction that expires at the consent stage -> 410 on consent, no code issued", async () => {
    const browser = newBrowser();
    const { id, csrf } = await signedIn(browser);
    await server.prisma.interaction.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectOAuthError(await consent(browser, id, csrf, { approve: true, scopes: ["aisp"] }), 410, "expired");
    expect(await server.prisma.consent.count()).toBe(0);
  });

  it("remembered consent: same or fewer scopes in the same browser -> straight to the callback with a code; more scopes -> consent page (a request without SCA)", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp pisp", openApp);

    for (const scope of ["aisp pisp", "pisp aisp", "aisp", "pisp"]) {
      const params = authorizeParams(openApp, { scope });
      const res = await browser.fetch(authorizePath(params));
      expect(res.status).toBe(302);
      const code = expectCodeRedirect(res.headers.get("location"), params.state as string);
      const row = await server.prisma.authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
      expect(row.scope.split(" ").sort()).toEqual(scope.split(" ").sort());
    }

    const wider = await start(browser, authorizeParams(openApp, { scope: "aisp piisp" }));
    expect(wider.location).toMatch(/^\/consent\?/);
    // Consent is per app: another app asks.
    const otherApp = await start(browser, authorizeParams(otherOpenApp));
    expect(otherApp.location).toMatch(/^\/consent\?/);
  });

  it("remembered consent for a request that needs SCA, same browser: /login every time; the password and factor answer redirectTo with a code, no consent stage", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp pisp");
    for (const scope of ["aisp pisp", "pisp"]) {
      const params = authorizeParams(DEMO.app, { scope });
      const { id, location } = await start(browser, params);
      expect(location).toBe(`/login?interaction=${id}`);
      const factorCsrf = await toFactorStage(browser, id, (await view(browser, id)).csrfToken);
      const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
      const body = await json(res);
      expect(res.status).toBe(200);
      expect(Object.keys(body)).toEqual(["redirectTo"]);
      const code = expectCodeRedirect(body.redirectTo, params.state as string);
      const row = await server.prisma.authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
      expect(row.scope.split(" ").sort()).toEqual(scope.split(" ").sort());
    }
  });

  it("remembered consent in a new browser: sign-in answers redirectTo with a code, no consent stage", async () => {
    await consented(newBrowser(), "aisp");
    const browser = newBrowser();
    const params = authorizeParams();
    const { id } = await start(browser, params);
    const factorCsrf = await toFactorStage(browser, id, (await view(browser, id)).csrfToken);
    const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(["redirectTo"]);
    expectCodeRedirect(body.redirectTo, params.state as string);
    await expectOAuthError(await browser.fetch(`/interaction/${id}`), 410, "expired");
  });

  it("prompt=consent forces the consent stage despite a remembered consent", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp", openApp);
    const params = authorizeParams(openApp, { prompt: "consent" });
    const { id, location } = await start(browser, params);
    expect(location).toBe(`/consent?interaction=${id}`);
    const v = await view(browser, id);
    expect(v.stage).toBe("consent");
    const res = await consent(browser, id, v.csrfToken, { approve: true, scopes: ["aisp"] });
    expectCodeRedirect((await json(res)).redirectTo, params.state as string);

    // From a new browser: the sign-in is followed by the consent stage, for a request with SCA and one without.
    await consented(newBrowser(), "aisp");
    for (const client of [openApp, DEMO.app]) {
      const fresh = newBrowser();
      const second = await start(fresh, authorizeParams(client, { prompt: "consent" }));
      expect(second.location).toMatch(/^\/login\?/);
      const loggedIn = await signInInteraction(fresh, second.id, (await view(fresh, second.id)).csrfToken);
      expect(await json(loggedIn)).toEqual({ stage: "consent", csrfToken: expect.any(String) });
    }
  });

  it("prompt=login forces the login stage although signed in and consented (a request without SCA)", async () => {
    const browser = newBrowser();
    await consented(browser, "aisp", openApp);
    const params = authorizeParams(openApp, { prompt: "login" });
    const { id, location } = await start(browser, params);
    expect(location).toBe(`/login?interaction=${id}`);
    const v = await view(browser, id);
    expect(v).toMatchObject({ stage: "login", user: null });
    const factorCsrf = await toFactorStage(browser, id, v.csrfToken);
    const res = await answerFactor(browser, `/interaction/${id}/factor`, factorCsrf, DEMO.user.username);
    const body = await json(res);
    expect(res.status).toBe(200);
    expectCodeRedirect(body.redirectTo, params.state as string);
  });
});

describe("GET /authorize with an https issuer behind a trusted reverse proxy", () => {
  let tls: TestServer;
  beforeAll(async () => {
    tls = await startTestServer({ AUTH_URL: "https://auth.tollgate.test", TRUST_PROXY_HOPS: "1" });
  });
  afterAll(async () => {
    await tls?.close();
  });

  it("the session cookie is Secure as well as HttpOnly and SameSite=Lax, and iss is the https issuer", async () => {
    const browser = new Browser(tls.url);
    const res = await browser.fetch(authorizePath(authorizeParams()), { headers: { "X-Forwarded-Proto": "https" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login\?interaction=/);
    const flow = res.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === FLOW_COOKIE);
    expect(flow).toBeDefined();
    expect(flow!.attributes.has("secure")).toBe(true);
    expect(flow!.attributes.has("httponly")).toBe(true);
    expect(flow!.attributes.get("samesite")?.toLowerCase()).toBe("lax");
    const id = interactionIdFrom(res.headers.get("location"));
    const csrf = (await json(await browser.fetch(`/interaction/${id}`, { headers: { "X-Forwarded-Proto": "https" } }))).csrfToken;
    const login = await browser.fetch(`/interaction/${id}/login`, { json: DEMO.user, headers: { "X-CSRF-Token": csrf, "X-Forwarded-Proto": "https" } });
    expect(login.status).toBe(200);
    // The password step's session (the pending sign-in) and the factor step's (signed in) alike.
    const pending = await json(login);
    expect(pending).toEqual({ stage: "factor", csrfToken: expect.any(String) });
    const https = { "X-CSRF-Token": pending.csrfToken as string, "X-Forwarded-Proto": "https" };
    const options = await json(await browser.fetch("/session/webauthn/authentication-options", { json: {}, headers: https }));
    const response = passkeyOf(tls.url, DEMO.user.username).assert(options.options);
    const factor = await browser.fetch(`/interaction/${id}/factor`, { json: { method: "webauthn", response }, headers: https });
    expect(factor.status).toBe(200);
    for (const res of [login, factor]) {
      const sid = res.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === SESSION_COOKIE);
      expect(sid).toBeDefined();
      expect(sid!.attributes.has("secure")).toBe(true);
      expect(sid!.attributes.has("httponly")).toBe(true);
      expect(sid!.attributes.get("samesite")?.toLowerCase()).toBe("lax");
    }

    const denied = await browser.fetch(authorizePath(authorizeParams(DEMO.app, { response_type: "token", state: "s1" })), { headers: { "X-Forwarded-Proto": "https" } });
    expect(callbackParams(denied.headers.get("location"))).toMatchObject({ error: "unsupported_response_type", state: "s1", iss: "https://auth.tollgate.test" });
  });
});
