/**
 * HTTP suite for Tollgate's hardening (server/src/http/security.ts, app.ts, spa.ts,
 * error-handler.ts, interaction/throttle.ts, audit/repository.ts; decisions.md "Errors"):
 * rate limits of the OAuth endpoints, sign-in throttling, body size limits, security
 * headers, Cache-Control, CORS and the audit log. Every case runs on a real server started
 * with the environment it needs; nothing is mocked.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  AUDIT_REQUEST_FIELDS,
  answerFactor,
  authorizeParams,
  authorizePath,
  basic,
  Browser,
  callApi,
  clientCredentialsToken,
  expectNoStore,
  expectOAuthError,
  expectTokenResponseHeaders,
  FORM,
  formBody,
  interactionIdFrom,
  INTROSPECTION_ENDPOINT,
  json,
  passkeyOf,
  pkcePair,
  read,
  REVOCATION_ENDPOINT,
  send,
  TOKEN_ENDPOINT,
  tokenRequest,
  userTokens,
  type Answer,
} from "./support/flow.js";
import { sessionLogin, sessionSignIn } from "./support/graphql.js";
import { createUser, startTestServer, type TestServer } from "./support/server.js";

const TOKEN = TOKEN_ENDPOINT;
const REVOKE = REVOCATION_ENDPOINT;
const INTROSPECT = INTROSPECTION_ENDPOINT;
const FORM_LIMIT = 16_384;
const TPP = "https://tpp.example";
/** Whether the SPA is built (dist/web, as server/src/http/spa.ts finds it): its pages answer 200, else 503. */
const SPA_BUILT = existsSync(new URL("../../dist/web/index.html", import.meta.url));

const servers: TestServer[] = [];

/** Starts a server for one group; closed after the file. */
async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const s = await startTestServer({ PURGE_INTERVAL_SECONDS: "0", ...env });
  servers.push(s);
  return s;
}

afterAll(async () => {
  for (const s of servers) await s.close();
});

const ccForm = formBody({ grant_type: "client_credentials" });

function expectRetryAfter(a: Answer, max: number): number {
  const value = a.headers.get("retry-after");
  expect(value, "Retry-After").toMatch(/^\d+$/);
  const seconds = Number(value);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

/** Starts /authorize for DEMO.strictApp (PKCE, prompt=login) in a new browser; returns it with the interaction id and the CSRF token. */
async function startInteraction(baseUrl: string): Promise<{ browser: Browser; id: string; csrf: string }> {
  const browser = new Browser(baseUrl);
  const start = await browser.fetch(authorizePath(authorizeParams(DEMO.strictApp, { code_challenge: pkcePair().challenge, code_challenge_method: "S256", prompt: "login" })));
  expect(start.status).toBe(302);
  const id = interactionIdFrom(start.headers.get("location"));
  const view = await json(await browser.fetch(`/interaction/${id}`));
  return { browser, id, csrf: view.csrfToken };
}

describe("rate limits of the OAuth endpoints (per client)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await start({ TOKEN_RATE_LIMIT_PER_CLIENT: "5", TOKEN_RATE_LIMIT_PER_IP: "1000" });
  });

  it("the 6th token request of one client within a minute is 429 with Retry-After and an RFC 6749 error body", async () => {
    for (let i = 1; i <= 5; i++) {
      const a = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm);
      expect(a.status, `request ${i}: ${a.text}`).toBe(200);
    }
    const sixth = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm);
    await expectOAuthError(sixth, 429, "too_many_requests");
    expectRetryAfter(sixth, 60);
    // Also on the other token path: the limit is per client, not per path.
    const other = await tokenRequest(s.url, "/token", DEMO.app, ccForm);
    expect(other.status).toBe(429);
  });

  it("another client is not affected", async () => {
    for (let i = 1; i <= 5; i++) {
      const a = await tokenRequest(s.url, TOKEN, DEMO.paymentsApp, ccForm);
      expect(a.status, `request ${i}: ${a.text}`).toBe(200);
    }
    expect((await tokenRequest(s.url, TOKEN, DEMO.paymentsApp, ccForm)).status).toBe(429);
  });

  it("counts a client id whether or not it authenticates (wrong secrets are limited too)", async () => {
    const wrong = { consumerKey: DEMO.adminApp.consumerKey, consumerSecret: "wrong-secret" };
    for (let i = 1; i <= 5; i++) expect((await tokenRequest(s.url, TOKEN, wrong, ccForm)).status).toBe(401);
    await expectOAuthError(await tokenRequest(s.url, TOKEN, wrong, ccForm), 429, "too_many_requests");
  });

  it("token, revocation and introspection share one budget per client", async () => {
    const token = await clientCredentialsToken(s.url, DEMO.strictApp); // 1
    expect((await tokenRequest(s.url, INTROSPECT, DEMO.strictApp, formBody({ token }))).status).toBe(200); // 2
    expect((await tokenRequest(s.url, INTROSPECT, DEMO.strictApp, formBody({ token }))).status).toBe(200); // 3
    expect((await tokenRequest(s.url, REVOKE, DEMO.strictApp, formBody({ token: "unknown" }))).status).toBe(200); // 4
    expect((await tokenRequest(s.url, REVOKE, DEMO.strictApp, formBody({ token }))).status).toBe(200); // 5
    const limited = await tokenRequest(s.url, INTROSPECT, DEMO.strictApp, formBody({ token }));
    await expectOAuthError(limited, 429, "too_many_requests");
    expectRetryAfter(limited, 60);
    await expectOAuthError(await tokenRequest(s.url, REVOKE, DEMO.strictApp, formBody({ token })), 429, "too_many_requests");
    // The same client id sent in the body (client_secret_post) draws on the same budget.
    const post = formBody({ token, client_id: DEMO.strictApp.consumerKey, client_secret: DEMO.strictApp.consumerSecret });
    await expectOAuthError(await tokenRequest(s.url, INTROSPECT, null, post), 429, "too_many_requests");
  });
});

describe("rate limits of the OAuth endpoints (per IP)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await start({ TOKEN_RATE_LIMIT_PER_CLIENT: "0", TOKEN_RATE_LIMIT_PER_IP: "5" });
  });

  it("limits requests from one IP across clients", async () => {
    const clients = [DEMO.app, DEMO.strictApp, DEMO.paymentsApp, DEMO.adminApp, DEMO.app];
    for (const [i, c] of clients.entries()) {
      const a = await tokenRequest(s.url, TOKEN, c, ccForm);
      expect(a.status, `request ${i + 1}: ${a.text}`).toBe(200);
    }
    const sixth = await tokenRequest(s.url, TOKEN, DEMO.strictApp, ccForm);
    await expectOAuthError(sixth, 429, "too_many_requests");
    expectRetryAfter(sixth, 60);
    // Requests without any client id count too.
    await expectOAuthError(await tokenRequest(s.url, REVOKE, null, formBody({ token: "x" })), 429, "too_many_requests");
  });
});

describe("sign-in throttling", () => {
  // Every test counts failures from 127.0.0.1 from zero: each has a server of its own.
  let s: TestServer;
  beforeEach(async () => {
    s = await start({ SIGNIN_MAX_FAILURES_PER_USER: "3", SIGNIN_MAX_FAILURES_PER_IP: "6", SIGNIN_WINDOW_SECONDS: "900" });
  });

  /**
   * Three failed sign-ins of alice: her allowed failures. She has a second factor, so each
   * wrong password is answered by the factor stage, and the verdict, 401, comes after her
   * passkey.
   */
  async function failAlice(browser: Browser): Promise<void> {
    for (let i = 1; i <= 3; i++) {
      const pending = await sessionLogin(browser, { username: DEMO.user.username, password: `wrong-${i}` });
      expect(pending.status, pending.text).toBe(200);
      expect(pending.body).toEqual({ user: null, stage: "factor", csrfToken: expect.any(String) });
      await expectOAuthError(await answerFactor(browser, "/session/factor", pending.body.csrfToken, DEMO.user.username), 401, "invalid_credentials");
    }
  }

  /** The checks after a user's allowed failures: 429 with Retry-After at /session/login even with the right password, whatever the case or compatibility form of the username, and at the interaction sign-in. */
  async function expectUserBlocked(b: Browser, user: { username: string; password: string }, variants: string[]): Promise<void> {
    const limited = await sessionLogin(b, user);
    await expectOAuthError(limited, 429, "too_many_attempts");
    expectRetryAfter(limited, 900);
    // Case, and Unicode compatibility forms, do not escape the per-user counter.
    for (const variant of variants) {
      expect((await sessionLogin(b, { username: variant, password: user.password })).status, variant).toBe(429);
    }
    // The interaction sign-in shares the throttle.
    const i = await startInteraction(s.url);
    const res = await i.browser.fetch(`/interaction/${i.id}/login`, { json: user, headers: { "X-CSRF-Token": i.csrf } });
    await expectOAuthError(res, 429, "too_many_attempts");
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  }

  it("after the allowed failures for a user, /session/login is 429 with Retry-After, even with the right password", async () => {
    const b = new Browser(s.url);
    await failAlice(b);
    await expectUserBlocked(b, DEMO.user, ["ALICE", "Alice", "\uff41\uff4c\uff49\uff43\uff45", "\uff21LICE"]);
  });

  it("the same for a user without a second factor, whose wrong passwords are refused at /session/login itself", async () => {
    const bob = await createUser(s, { username: "bob" });
    const b = new Browser(s.url);
    for (let i = 1; i <= 3; i++) {
      await expectOAuthError(await sessionLogin(b, { username: bob.username, password: `wrong-${i}` }), 401, "invalid_credentials");
    }
    await expectUserBlocked(b, bob, ["BOB", "Bob", "\uff42\uff4f\uff42", "\uff22OB"]);
  });

  it("another user is not affected by alice's failures", async () => {
    await failAlice(new Browser(s.url));
    const a = await sessionSignIn(new Browser(s.url), DEMO.admin);
    expect(a.status, a.text).toBe(200);
    expect(a.body.user).toEqual({ username: DEMO.admin.username, role: "admin" });
  });

  it("failures per IP across usernames are throttled too", async () => {
    // 3 failures of alice, then 3 for unknown users, reach the IP limit of 6.
    const b = new Browser(s.url);
    await failAlice(b);
    for (let i = 1; i <= 3; i++) expect((await sessionLogin(b, { username: `mallory-${i}`, password: "guess" })).status).toBe(401);
    const limited = await sessionLogin(b, DEMO.admin);
    await expectOAuthError(limited, 429, "too_many_attempts");
    expectRetryAfter(limited, 900);
  });
});

describe("the default server", () => {
  let s: TestServer;
  let adminToken: string;
  beforeAll(async () => {
    s = await start();
    adminToken = await clientCredentialsToken(s.url, DEMO.adminApp);
  });

  describe("body size limits", () => {
    const big = (n: number) => `grant_type=client_credentials&padding=${"a".repeat(n)}`;

    it.each([TOKEN, "/token", REVOKE, INTROSPECT])("%s: a form body over FORM_BODY_LIMIT_BYTES is 413 JSON", async (path) => {
      const a = await tokenRequest(s.url, path, DEMO.strictApp, big(FORM_LIMIT + 100));
      await expectOAuthError(a, 413, "invalid_request");
    });

    it("a chunked form body (no Content-Length) over the limit is 413 too", async () => {
      const chunks = ["grant_type=client_credentials&padding=", ...Array.from({ length: 20 }, () => "a".repeat(1000))];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
          controller.close();
        },
      });
      const a = await send(new URL(TOKEN, s.url), {
        method: "POST",
        headers: { Authorization: basic(DEMO.app.consumerKey, DEMO.app.consumerSecret), "Content-Type": FORM },
        body,
        duplex: "half",
      } as RequestInit);
      await expectOAuthError(a, 413, "invalid_request");
    });

    it("a form body just under the limit is read", async () => {
      const a = await tokenRequest(s.url, TOKEN, DEMO.app, big(FORM_LIMIT - 100));
      expect(a.status, a.text.slice(0, 200)).toBe(200);
    });

    it("an interaction JSON body over 4 KiB is 413 JSON", async () => {
      const i = await startInteraction(s.url);
      const res = await i.browser.fetch(`/interaction/${i.id}/login`, {
        json: { username: DEMO.user.username, password: "x".repeat(5000) },
        headers: { "X-CSRF-Token": i.csrf },
      });
      await expectOAuthError(res, 413, "invalid_request");
      // Just under 4 KiB the body is parsed (and then refused for the over-long password).
      const under = await i.browser.fetch(`/interaction/${i.id}/login`, {
        json: { username: DEMO.user.username, password: "x".repeat(3900) },
        headers: { "X-CSRF-Token": i.csrf },
      });
      await expectOAuthError(under, 400, "invalid_request");

      await expectOAuthError(await sessionLogin(new Browser(s.url), { username: "x", password: "y".repeat(5000) }), 413, "invalid_request");
    });
  });

  describe("security headers", () => {
    function expectHelmet(h: Headers, what: string): void {
      const csp = h.get("content-security-policy");
      expect(csp, what).toBeTruthy();
      const directives = new Map(
        csp!
          .split(";")
          .map((d) => d.trim())
          .filter(Boolean)
          .map((d) => {
            const [name, ...values] = d.split(/\s+/);
            return [name!.toLowerCase(), values] as const;
          }),
      );
      expect(directives.get("default-src"), what).toEqual(["'self'"]);
      expect(directives.get("script-src"), what).toEqual(["'self'"]);
      expect(directives.get("frame-ancestors"), what).toEqual(["'none'"]);
      expect(csp, what).not.toContain("unsafe-inline");
      expect(csp, what).not.toContain("unsafe-eval");
      expect(h.get("x-frame-options"), what).toBe("DENY");
      expect(h.get("x-content-type-options"), what).toBe("nosniff");
      expect(h.get("referrer-policy"), what).toBe("no-referrer");
      expect(h.get("x-powered-by"), what).toBeNull();
    }

    it.each(["/", "/login", "/consent", "/admin", "/admin/apps", "/account", "/error"])("SPA page %s carries the helmet headers and no-store", async (path) => {
      // 503 when the SPA has not been built (npm run test:unit without npm run build): the
      // headers are the same either way.
      const a = await send(new URL(path, s.url), { expect5xx: 503 });
      expect(a.status, a.text.slice(0, 200)).toBe(SPA_BUILT ? 200 : 503);
      expect(a.headers.get("content-type")).toMatch(SPA_BUILT ? /^text\/html/ : /^text\/plain/);
      expectHelmet(a.headers, path);
      expectNoStore(a, path);
    });

    it("JSON endpoints of the Express app carry the helmet headers", async () => {
      const answers: [string, Answer][] = [
        ["healthz", await send(new URL("/healthz", s.url))],
        ["metadata", await send(new URL("/.well-known/oauth-authorization-server", s.url))],
        ["session", await send(new URL("/session", s.url))],
        ["graphql", await send(new URL("/graphql", s.url), { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${adminToken}` }, body: JSON.stringify({ query: "{ __typename }" }) })],
      ];
      for (const [what, a] of answers) {
        expect(a.status, what).toBe(200);
        expectHelmet(a.headers, what);
      }
    });

    it("token, revocation and introspection answers carry the API headers: nothing may load or frame them", async () => {
      const answers: [string, number, Answer][] = [
        ["token", 200, await tokenRequest(s.url, TOKEN, DEMO.app, ccForm)],
        ["token", 401, await tokenRequest(s.url, TOKEN, null, ccForm)],
        ["token", 405, await send(new URL(TOKEN, s.url))],
        ["revoke", 200, await tokenRequest(s.url, REVOKE, DEMO.app, formBody({ token: "x" }))],
        ["introspect", 200, await tokenRequest(s.url, INTROSPECT, DEMO.strictApp, formBody({ token: "x" }))],
      ];
      for (const [what, status, a] of answers) {
        expect(a.status, what).toBe(status);
        expect(a.headers.get("content-security-policy"), what).toBe("default-src 'none';frame-ancestors 'none'");
        expect(a.headers.get("x-frame-options"), what).toBe("DENY");
        expect(a.headers.get("x-content-type-options"), what).toBe("nosniff");
        expect(a.headers.get("strict-transport-security"), what).toMatch(/^max-age=\d+/);
        expectNoStore(a, what);
        expect(a.headers.get("x-powered-by"), what).toBeNull();
      }
    });

    it("the gateway's proxied API responses do not carry Tollgate's CSP (they are the upstream's)", async () => {
      // The PSU's token: account data needs the PSU.
      const token = (await userTokens(s.url, { scope: "aisp" })).tokens.access_token as string;
      const a = await callApi(s.url, token);
      expect(a.status, a.text).toBe(200);
      expect(a.body.accounts).toHaveLength(2);
      expect(a.headers.get("content-security-policy")).toBeNull();
      expect(a.headers.get("x-frame-options")).toBeNull();
    });
  });

  describe("Cache-Control: no-store", () => {
    it("on token, revocation and introspection responses (with Pragma: no-cache on tokens)", async () => {
      const t = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm);
      expect(t.status).toBe(200);
      expectTokenResponseHeaders(t);
      const token = t.body.access_token;
      const i = await tokenRequest(s.url, INTROSPECT, DEMO.strictApp, formBody({ token }));
      expect(i.status).toBe(200);
      expectNoStore(i);
      const r = await tokenRequest(s.url, REVOKE, DEMO.app, formBody({ token }));
      expect(r.status).toBe(200);
      expectNoStore(r);
    });

    it("on /authorize, interaction and session responses", async () => {
      const browser = new Browser(s.url);
      const start = await browser.fetch(authorizePath(authorizeParams(DEMO.strictApp, { code_challenge: pkcePair().challenge, code_challenge_method: "S256" })));
      expect(start.status).toBe(302);
      expectNoStore(start, "authorize");
      const id = interactionIdFrom(start.headers.get("location"));
      const view = await browser.fetch(`/interaction/${id}`);
      expect(view.status).toBe(200);
      expectNoStore(view, "interaction view");
      const csrf = (await json(view)).csrfToken;
      const login = await browser.fetch(`/interaction/${id}/login`, { json: DEMO.user, headers: { "X-CSRF-Token": csrf } });
      expect(login.status).toBe(200);
      expectNoStore(login, "interaction login");
      const pending = await json(login);
      expect(pending).toEqual({ stage: "factor", csrfToken: expect.any(String) });
      const options = await browser.fetch("/session/webauthn/authentication-options", { json: {}, headers: { "X-CSRF-Token": pending.csrfToken } });
      expect(options.status).toBe(200);
      expectNoStore(options, "webauthn authentication options");
      const response = passkeyOf(s.url, DEMO.user.username).assert((await json(options)).options);
      const factor = await browser.fetch(`/interaction/${id}/factor`, { json: { method: "webauthn", response }, headers: { "X-CSRF-Token": pending.csrfToken } });
      expect(factor.status).toBe(200);
      expectNoStore(factor, "interaction factor");
      const body = await json(factor);
      expect(body).toEqual({ stage: "consent", csrfToken: expect.any(String) });
      const consent = await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes: ["aisp"] }, headers: { "X-CSRF-Token": body.csrfToken } });
      expect(consent.status).toBe(200);
      expectNoStore(consent, "interaction consent");
      await consent.arrayBuffer();
      const session = await browser.fetch("/session");
      expect(session.status).toBe(200);
      expectNoStore(session, "session");
      const sessionBody = await json(session);
      const logout = await browser.fetch("/session/logout", { json: {}, headers: { "X-CSRF-Token": sessionBody.csrfToken } });
      expect(logout.status).toBe(200);
      expectNoStore(logout, "logout");
      await logout.arrayBuffer();
      const signInBrowser = new Browser(s.url);
      const started = await sessionLogin(signInBrowser, DEMO.user);
      expect(started.status).toBe(200);
      expect(started.body).toEqual({ user: null, stage: "factor", csrfToken: expect.any(String) });
      expectNoStore(started, "session login");
      const ok = await read(await answerFactor(signInBrowser, "/session/factor", started.body.csrfToken, DEMO.user.username));
      expect(ok.status, ok.text).toBe(200);
      expectNoStore(ok, "session factor");
    });

    it("on /graphql responses", async () => {
      const ok = await send(new URL("/graphql", s.url), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ query: "{ __typename }" }),
      });
      expect(ok.status, ok.text).toBe(200);
      expectNoStore(ok, "graphql 200");
      const denied = await send(new URL("/graphql", s.url), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer not-a-live-token" },
        body: JSON.stringify({ query: "{ __typename }" }),
      });
      expect(denied.status).toBe(401);
      expectNoStore(denied, "graphql 401");
      const malformed = await send(new URL("/graphql", s.url), { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" });
      expect(malformed.status).toBe(400);
      expectNoStore(malformed, "graphql malformed");
    });

    it("on every error response", async () => {
      const user = await clientCredentialsToken(s.url, DEMO.paymentsApp);
      const errors: [Answer, number, string][] = [
        [await tokenRequest(s.url, TOKEN, DEMO.app, formBody({ grant_type: "password" })), 400, "unsupported_grant_type"],
        [await tokenRequest(s.url, TOKEN, DEMO.app, formBody({ grant_type: "authorization_code", code: "nope", redirect_uri: DEMO.callbackUrl })), 400, "invalid_grant"],
        [await tokenRequest(s.url, TOKEN, DEMO.app, "{}", { headers: { "Content-Type": "application/json" } }), 400, "invalid_request"],
        [await tokenRequest(s.url, TOKEN, { consumerKey: DEMO.app.consumerKey, consumerSecret: "nope" }, ccForm), 401, "invalid_client"],
        [await send(new URL(TOKEN, s.url)), 405, "invalid_request"],
        [await tokenRequest(s.url, REVOKE, DEMO.app, ""), 400, "invalid_request"],
        [await tokenRequest(s.url, INTROSPECT, DEMO.app, formBody({ token: "x" })), 403, "unauthorized_client"],
        [await send(new URL("/accounts/", s.url)), 401, "invalid_request"],
        [await callApi(s.url, "nope"), 401, "invalid_token"],
        [await callApi(s.url, user), 403, "insufficient_scope"],
        [await send(new URL("/no-such-api/x", s.url)), 404, "not_found"],
        [await send(new URL("/interaction/unknown-id", s.url)), 404, "not_found"],
        [await send(new URL("/authorize", s.url), { method: "POST" }), 405, "invalid_request"],
      ];
      // expectOAuthError asserts Cache-Control: no-store with the status and the error.
      for (const [a, status, error] of errors) await expectOAuthError(a, status, error);
      // The authorization error page (unknown client: never redirected).
      const page = await send(new URL("/authorize?client_id=nobody&response_type=code&redirect_uri=https%3A%2F%2Fevil.example%2F&state=x", s.url));
      expect(page.status).toBe(400);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expectNoStore(page, "authorize error page");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
    });
  });

  describe("CORS (closed by default)", () => {
    it("a cross-origin token request gets no Access-Control-Allow-Origin", async () => {
      const a = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm, { headers: { Origin: TPP } });
      expect(a.status).toBe(200);
      expect(a.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("a preflight gets no Access-Control-Allow-Origin", async () => {
      for (const [path, status] of [[TOKEN, 405], [REVOKE, 405], [INTROSPECT, 405], ["/.well-known/oauth-authorization-server", 404]] as const) {
        const a = await send(new URL(path, s.url), {
          method: "OPTIONS",
          headers: { Origin: TPP, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
        });
        expect(a.status, path).toBe(status);
        expect(a.headers.get("access-control-allow-origin"), path).toBeNull();
        expect(a.headers.get("access-control-allow-methods"), path).toBeNull();
      }
    });
  });

  describe("audit log", () => {
    it("records the security events and never a secret, token, code or password", async () => {
      await s.flushCounts();
      const earlier = new Set((await s.prisma.auditEvent.findMany({ select: { id: true } })).map((e) => e.id));
      // Failed client authentications are aggregated per client and minute: an earlier one of this minute is added to.
      const failedClientCount = async () =>
        (await s.prisma.auditEvent.aggregate({ _sum: { count: true }, where: { type: "client.authentication_failed", actor: DEMO.app.consumerKey } }))._sum.count ?? 0;
      const failedClientBefore = await failedClientCount();
      const wrongSecret = `wrong-secret-${randomBytes(12).toString("hex")}`;
      const wrongPassword = `wrong-password-${randomBytes(12).toString("hex")}`;
      const sensitive: string[] = [
        DEMO.app.consumerSecret,
        DEMO.strictApp.consumerSecret,
        DEMO.paymentsApp.consumerSecret,
        DEMO.adminApp.consumerSecret,
        DEMO.user.password,
        DEMO.admin.password,
        wrongSecret,
        wrongPassword,
      ];

      // client_credentials
      const cc = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm);
      expect(cc.status).toBe(200);
      sensitive.push(cc.body.access_token);

      // authorization code (PKCE, explicit consent), then refresh
      const pkce = pkcePair();
      const { code, browser, tokens: exchanged } = await userTokens(s.url, { client: DEMO.paymentsApp, scope: "pisp", pkce, extra: { prompt: "consent" } });
      sensitive.push(code, pkce.verifier, browser.sessionCookie ?? "no-cookie", exchanged.access_token, exchanged.refresh_token);
      const refreshed = await tokenRequest(s.url, TOKEN, DEMO.paymentsApp, { grant_type: "refresh_token", refresh_token: exchanged.refresh_token });
      expect(refreshed.status).toBe(200);
      sensitive.push(refreshed.body.access_token, refreshed.body.refresh_token);

      // wrong client secret
      expect((await tokenRequest(s.url, TOKEN, { consumerKey: DEMO.app.consumerKey, consumerSecret: wrongSecret }, ccForm)).status).toBe(401);
      // wrong password, then the right one: a user without a second factor...
      const plain = await createUser(s, { prefix: "plain" });
      sensitive.push(plain.password);
      const b = new Browser(s.url);
      sensitive.push((await json(await b.fetch("/session"))).csrfToken);
      expect((await sessionLogin(b, { username: plain.username, password: wrongPassword })).status).toBe(401);
      expect((await sessionLogin(b, plain)).status).toBe(200);
      // ...and alice, who has one: the verdict on the wrong password comes after her passkey.
      const c = new Browser(s.url);
      const pending = await sessionLogin(c, { username: DEMO.user.username, password: wrongPassword });
      expect(pending.body.stage).toBe("factor");
      sensitive.push(pending.body.csrfToken);
      expect((await answerFactor(c, "/session/factor", pending.body.csrfToken, DEMO.user.username)).status).toBe(401);
      expect((await sessionSignIn(c, DEMO.user)).status).toBe(200);
      // revocation
      expect((await tokenRequest(s.url, REVOKE, DEMO.paymentsApp, formBody({ token: refreshed.body.refresh_token }))).status).toBe(200);

      // Refusals are aggregated and written on flush (docs/behaviour.md "Audit of refusals").
      await s.flushCounts();
      const events = (await s.prisma.auditEvent.findMany({ orderBy: { at: "asc" } })).filter((e) => !earlier.has(e.id));
      const of = (type: string) => events.filter((e) => e.type === type);
      const details = (type: string) => of(type).map((e) => JSON.parse(e.details) as Record<string, unknown>);

      const alice = await s.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } });
      const payments = await s.prisma.credential.findUniqueOrThrow({ where: { consumerKey: DEMO.paymentsApp.consumerKey } });

      expect(details("token.issued")).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ grant_type: "client_credentials" }),
          expect.objectContaining({ grant_type: "authorization_code", scope: "pisp" }),
        ]),
      );
      expect(of("token.issued").find((e) => JSON.parse(e.details).grant_type === "authorization_code")?.actor).toBe(DEMO.paymentsApp.consumerKey);
      expect(of("token.refreshed")).toHaveLength(1);
      expect(of("token.refreshed")[0]!.actor).toBe(DEMO.paymentsApp.consumerKey);

      expect((await failedClientCount()) - failedClientBefore).toBe(1);
      const failedClient = await s.prisma.auditEvent.findMany({ where: { type: "client.authentication_failed", actor: DEMO.app.consumerKey }, orderBy: { id: "desc" }, take: 1 });
      expect(failedClient).toHaveLength(1);
      expect(JSON.parse(failedClient[0]!.details)).toMatchObject({ reason: "invalid_client" });

      // A password-only sign-in's failure and success (a user without a second factor)...
      expect(of("signin.failed").length).toBeGreaterThanOrEqual(1);
      expect(of("signin.failed").at(-1)!.actor).toBe(`user:${plain.id}`);
      expect(details("signin.failed").at(-1)).toEqual(expect.objectContaining({ username: plain.username, failed: "password" }));
      expect(of("signin.succeeded").map((e) => e.actor)).toContain(`user:${plain.id}`);
      // ...and a two-factor sign-in's (alice): the failure names the element that was wrong, for the log only.
      expect(of("sca.failed").length).toBeGreaterThanOrEqual(1);
      expect(of("sca.failed").at(-1)!.actor).toBe(`user:${alice.id}`);
      expect(details("sca.failed").at(-1)).toEqual(expect.objectContaining({ username: DEMO.user.username, failed: "password" }));
      expect(of("sca.succeeded").map((e) => e.actor)).toContain(`user:${alice.id}`);

      const consents = of("consent.granted");
      expect(consents).toHaveLength(1);
      expect(consents[0]!.actor).toBe(`user:${alice.id}`);
      expect(consents[0]!.subject).toBe(payments.appId);
      expect(JSON.parse(consents[0]!.details)).toEqual({ username: DEMO.user.username, role: "user", scopes: ["pisp"], ...AUDIT_REQUEST_FIELDS });

      const revoked = of("token.revoked");
      expect(revoked).toHaveLength(1);
      expect(revoked[0]!.actor).toBe(DEMO.paymentsApp.consumerKey);
      expect(JSON.parse(revoked[0]!.details)).toEqual({ token_type: "refresh_token", ...AUDIT_REQUEST_FIELDS });

      // Nothing secret anywhere in the log: not in clear, not as the stored SHA-256 either.
      const all = await s.prisma.auditEvent.findMany();
      const dump = JSON.stringify(all);
      for (const value of sensitive) {
        expect(value.length).toBeGreaterThan(8);
        expect(dump.includes(value), `audit log contains ${value.slice(0, 12)}…`).toBe(false);
        expect(dump.includes(hashSecret(value)), `audit log contains the hash of ${value.slice(0, 12)}…`).toBe(false);
      }
    });
  });
});

describe("CORS with CORS_ORIGINS", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await start({ CORS_ORIGINS: TPP });
  });

  it("the allowed origin is echoed on the token endpoint, without credentials", async () => {
    const a = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm, { headers: { Origin: TPP } });
    expect(a.status).toBe(200);
    expect(a.headers.get("access-control-allow-origin")).toBe(TPP);
    expect(a.headers.get("access-control-allow-credentials")).toBeNull();
    expect(a.headers.get("vary") ?? "").toMatch(/origin/i);
    // Error answers too, so the browser app can read the OAuth error.
    const err = await tokenRequest(s.url, TOKEN, { consumerKey: DEMO.app.consumerKey, consumerSecret: "wrong" }, ccForm, { headers: { Origin: TPP } });
    expect(err.status).toBe(401);
    expect(err.headers.get("access-control-allow-origin")).toBe(TPP);
    const meta = await send(new URL("/.well-known/oauth-authorization-server", s.url), { headers: { Origin: TPP } });
    expect(meta.headers.get("access-control-allow-origin")).toBe(TPP);
  });

  it("the allowed origin's preflight is answered with the methods and headers it needs", async () => {
    for (const path of [TOKEN, "/token", REVOKE, INTROSPECT]) {
      const a = await send(new URL(path, s.url), {
        method: "OPTIONS",
        headers: { Origin: TPP, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
      });
      expect(a.status, path).toBe(204);
      expect(a.headers.get("access-control-allow-origin"), path).toBe(TPP);
      expect(a.headers.get("access-control-allow-methods") ?? "", path).toMatch(/POST/);
      expect((a.headers.get("access-control-allow-headers") ?? "").toLowerCase(), path).toContain("authorization");
    }
  });

  it("another origin is not allowed", async () => {
    const other = "https://evil.example";
    const a = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm, { headers: { Origin: other } });
    expect(a.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await send(new URL(TOKEN, s.url), { method: "OPTIONS", headers: { Origin: other, "Access-Control-Request-Method": "POST" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    // A prefix or suffix of the allowed origin is another origin.
    for (const o of [`${TPP}.evil.example`, "https://tpp.example:8443", "http://tpp.example"]) {
      const x = await tokenRequest(s.url, TOKEN, DEMO.app, ccForm, { headers: { Origin: o } });
      expect(x.headers.get("access-control-allow-origin"), o).toBeNull();
    }
  });

  it("CORS stays closed on the browser-session endpoints even for the allowed origin", async () => {
    const a = await send(new URL("/session", s.url), { headers: { Origin: TPP } });
    expect(a.headers.get("access-control-allow-origin")).toBeNull();
    const g = await send(new URL("/graphql", s.url), { method: "OPTIONS", headers: { Origin: TPP, "Access-Control-Request-Method": "POST" } });
    expect(g.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("malformed requests never answer 500 (decisions.md: nothing ever answers 500)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await start();
  });

  it("a missing file under /assets is 404, not 500", async () => {
    for (const path of ["/assets/does-not-exist.js", "/assets/"]) {
      const a = await send(new URL(path, s.url));
      await expectOAuthError(a, 404, "not_found");
    }
  });

  it("malformed percent-encoding in a route parameter of Tollgate's own paths is 400, not 500", async () => {
    for (const path of ["/interaction/%ZZ", "/interaction/%E0%A4%A", "/login/%ZZ", "/admin/%E0", "/account/%ZZ"]) {
      await expectOAuthError(await send(new URL(path, s.url)), 400, "invalid_request");
    }
  });

  it("a body that does not match its Content-Encoding is 400 invalid_request, not 500", async () => {
    const cases: [string, Record<string, string>, string][] = [
      [TOKEN, { Authorization: basic(DEMO.app.consumerKey, DEMO.app.consumerSecret), "Content-Type": FORM, "Content-Encoding": "gzip" }, ccForm],
      [TOKEN, { Authorization: basic(DEMO.app.consumerKey, DEMO.app.consumerSecret), "Content-Type": FORM, "Content-Encoding": "br" }, ccForm],
      ["/session/login", { "Content-Type": "application/json", "Content-Encoding": "gzip" }, "{}"],
      ["/graphql", { "Content-Type": "application/json", "Content-Encoding": "deflate" }, "{}"],
    ];
    for (const [path, headers, body] of cases) {
      await expectOAuthError(await send(new URL(path, s.url), { method: "POST", headers, body }), 400, "invalid_request");
    }
  });
});
