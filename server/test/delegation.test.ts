/**
 * Login and consent delegated to the bank's own application (DELEGATED_LOGIN_URL,
 * DELEGATED_CONSENT_URL; interaction/delegation.ts), on a real server: the browser is sent to
 * the bank's pages with a challenge, and the bank's application reads and answers the request
 * through /delegation/v1 with an admin client's bearer token. The PSD2 rules hold on its
 * answers (SCA, scopes only narrowed, the payment approved as asked), challenges are answered
 * once and cannot be guessed or swapped, and every refusal has the RFC's shape, never a 5xx.
 */
import { createHash } from "node:crypto";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../src/demo/upstream.js";
import { ACR_SCA } from "../src/kernel/acr.js";
import { DELEGATED_LOGIN } from "../src/stores/tokens.js";
import {
  authorizeParams,
  authorizePath,
  Browser,
  callbackParams,
  clientCredentialsToken,
  expectOAuthError,
  INTROSPECTION_ENDPOINT,
  json,
  pkcePair,
  send,
  tokenRequest,
  TOKEN_ENDPOINT,
} from "./support/flow.js";
import { pemFolder, privateKeyPem, testPki, tlsListenerSettings, type PemFolder, type TestCertificate, type TestPki } from "./support/pki.js";
import { startTestServer, type TestServer } from "./support/server.js";

const LOGIN_URL = "https://bank.example/login";
const CONSENT_URL = "https://bank.example/consent";
const API = "/delegation/v1";
const client = DEMO.strictApp;

let server: TestServer;
let adminToken: string;

beforeAll(async () => {
  server = await startTestServer({ DELEGATED_LOGIN_URL: LOGIN_URL, DELEGATED_CONSENT_URL: CONSENT_URL });
  adminToken = await clientCredentialsToken(server.url, DEMO.adminApp);
});
afterAll(() => server?.close());

/** A call of the bank's application to /delegation/v1 (POST with a JSON body when `body` is given). */
function call(path: string, body?: unknown, token = adminToken) {
  return send(new URL(`${API}${path}`, server.url), {
    method: body === undefined && !path.endsWith("/reject") ? "GET" : "POST",
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Starts an authorization request of the strict app (`prompt=consent`: a remembered consent
 * would skip the consent step); the browser is sent to the bank's login page. @returns its login challenge.
 */
async function start(extra: Record<string, string> = {}): Promise<{ challenge: string; state: string; verifier: string; browser: Browser }> {
  const browser = new Browser(server.url);
  const pkce = pkcePair();
  const params = authorizeParams(client, { code_challenge: pkce.challenge, code_challenge_method: "S256", prompt: "consent", ...extra });
  const res = await browser.fetch(authorizePath(params));
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(LOGIN_URL);
  return { challenge: location.searchParams.get("login_challenge")!, state: params.state as string, verifier: pkce.verifier, browser };
}

/** Accepts a login as alice with SCA. @returns the consent challenge it leads to. */
async function signInAlice(challenge: string): Promise<string> {
  const accepted = await call(`/login-requests/${challenge}/accept`, { subject: DEMO.user.username, acr: ACR_SCA, amr: ["pwd", "hwk"] });
  expect(accepted.status, accepted.text).toBe(200);
  const next = new URL(accepted.body.redirect_to);
  expect(`${next.origin}${next.pathname}`).toBe(CONSENT_URL);
  return next.searchParams.get("consent_challenge")!;
}

describe("the bank's application signs the PSU in and asks for consent", () => {
  it("reads the login request, accepts it with SCA, reads the consent request, grants aisp: the TPP's code gives an SCA token", async () => {
    const { challenge, state, verifier } = await start();
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const login = await call(`/login-requests/${challenge}`);
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ challenge, client: { client_id: client.consumerKey, name: client.name }, requested_scope: ["aisp"], sca_required: true, authorization_details: null });

    const consentChallenge = await signInAlice(challenge);
    const consent = await call(`/consent-requests/${consentChallenge}`);
    expect(consent.body).toMatchObject({ subject: DEMO.user.username, requested_scope: ["aisp"], amr: ["pwd", "hwk", "mfa"] });

    const granted = await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: ["aisp"] });
    expect(granted.status, granted.text).toBe(200);
    const { code, state: returned } = callbackParams(granted.body.redirect_to);
    expect(returned).toBe(state);
    const tokens = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
    expect(tokens.status, tokens.text).toBe(200);
    const introspected = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, client, { token: tokens.body.access_token });
    expect(introspected.body).toMatchObject({ active: true, acr: ACR_SCA, username: DEMO.user.username, scope: "aisp" });
    // The token records where the PSU authenticated, and a refresh keeps it.
    const refreshed = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "refresh_token", refresh_token: tokens.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
    const rows = await server.prisma.accessToken.findMany({ where: { familyId: { not: null }, user: { username: DEMO.user.username } }, orderBy: { issuedAt: "desc" }, take: 2 });
    expect(rows.map((r) => r.authenticatedBy)).toEqual([DELEGATED_LOGIN, DELEGATED_LOGIN]);
  });

  it("a payment is approved as asked: the PSU's account is chosen, the details may not be changed", async () => {
    const payment = { type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "99.00" }, creditorName: "ACME GmbH", creditorAccount: { iban: "FR1420041010050500013M02606" } };
    const { challenge, verifier } = await start({ scope: "", authorization_details: JSON.stringify([payment]) } as Record<string, string>);
    const consentChallenge = await signInAlice(challenge);
    const consent = await call(`/consent-requests/${consentChallenge}`);
    expect(consent.body.authorization_details).toEqual([payment]);
    expect(consent.body.accounts.map((a: { iban: string }) => a.iban)).toEqual(DEMO_ACCOUNTS.map((a) => a.iban));

    const changed = await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: [], authorization_details: [{ ...payment, instructedAmount: { currency: "EUR", amount: "9999.00" } }] });

    await expectOAuthError(changed, 400, "invalid_request");
    expect(changed.body.error_description).toMatch(/approved as asked/);
    const notTheirs = await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: [], debtor_account: "NL91ABNA0417164300" });
    await expectOAuthError(notTheirs, 400, "invalid_request");

    const granted = await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: [], debtor_account: DEMO_ACCOUNTS[0]!.iban });
    expect(granted.status, granted.text).toBe(200);
    const { code } = callbackParams(granted.body.redirect_to);
    const tokens = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
    expect(tokens.body.authorization_details).toEqual([{ ...payment, debtorAccount: { iban: DEMO_ACCOUNTS[0]!.iban } }]);
  });

  it("a PSU the bank names for the first time becomes a Tollgate user without a password", async () => {
    const { challenge } = await start();
    const subject = `customer-${Date.now()}`;
    const accepted = await call(`/login-requests/${challenge}/accept`, { subject, acr: ACR_SCA });
    expect(accepted.status, accepted.text).toBe(200);
    expect(await server.prisma.user.findUniqueOrThrow({ where: { username: subject } })).toMatchObject({ passwordHash: "", role: "user" });
  });
});

describe("refusals", () => {
  it("a request that needs SCA cannot be accepted without acr SCA (400), and the challenge stays open", async () => {
    const { challenge } = await start();
    for (const acr of [undefined, "urn:tollgate:pwd", "urn:bank:something"]) {
      const refused = await call(`/login-requests/${challenge}/accept`, { subject: DEMO.user.username, ...(acr ? { acr } : {}) });
      await expectOAuthError(refused, 400, "invalid_request");
      expect(refused.body.error_description).toMatch(/strong customer authentication/);
    }
    await signInAlice(challenge);
  });

  it("a challenge is answered once: a replayed login accept, or a login challenge at the consent endpoint, is 404; a guessed one too", async () => {
    const { challenge } = await start();
    const consentChallenge = await signInAlice(challenge);
    await expectOAuthError(await call(`/login-requests/${challenge}/accept`, { subject: DEMO.user.username, acr: ACR_SCA }), 404, "not_found");
    await expectOAuthError(await call(`/login-requests/${challenge}`), 404, "not_found");
    await expectOAuthError(await call(`/consent-requests/${challenge}`), 404, "not_found");
    await expectOAuthError(await call(`/login-requests/${consentChallenge}`), 404, "not_found");
    await expectOAuthError(await call(`/consent-requests/${"A".repeat(43)}`), 404, "not_found");
    expect((await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: ["aisp"] })).status).toBe(200);
    await expectOAuthError(await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: ["aisp"] }), 404, "not_found");
  });

  it("scopes are only narrowed: a consent that widens them is 400", async () => {
    const { challenge } = await start();
    const consentChallenge = await signInAlice(challenge);
    await expectOAuthError(await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: ["aisp", "pisp"] }), 400, "invalid_request");
    await expectOAuthError(await call(`/consent-requests/${consentChallenge}/accept`, { grant_scope: ["admin"] }), 400, "invalid_request");
  });

  it("the bank's application rejects the login or the consent: the TPP gets the error with its state", async () => {
    const login = await start();
    const rejected = await call(`/login-requests/${login.challenge}/reject`, { error: "login_required", error_description: "the customer left" });
    expect(callbackParams(rejected.body.redirect_to)).toMatchObject({ error: "login_required", error_description: "the customer left", state: login.state });

    const consent = await start();
    const denied = await call(`/consent-requests/${await signInAlice(consent.challenge)}/reject`);
    expect(callbackParams(denied.body.redirect_to)).toMatchObject({ error: "access_denied", state: consent.state });
  });

  it("the API needs an admin client's bearer token: none is 401 with a challenge, another client's is 403", async () => {
    const { challenge } = await start();
    const anonymous = await send(new URL(`${API}/login-requests/${challenge}`, server.url));
    await expectOAuthError(anonymous, 401, "invalid_request");
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
    const tpp = await clientCredentialsToken(server.url, DEMO.app);
    await expectOAuthError(await call(`/login-requests/${challenge}`, undefined, tpp), 403, "insufficient_scope");
    await expectOAuthError(await call(`/login-requests/${challenge}`, undefined, "not-a-token"), 401, "invalid_token");
  });

  it("Tollgate's own sign-in and consent pages are refused for a delegated request: 409", async () => {
    const { browser } = await start();
    const id = (await server.prisma.interaction.findFirstOrThrow({ orderBy: { createdAt: "desc" } })).id;
    const view = await json(await browser.fetch(`/interaction/${id}`));
    const login = await browser.fetch(`/interaction/${id}/login`, { json: { username: DEMO.user.username, password: DEMO.user.password }, headers: { "X-CSRF-Token": view.csrfToken } });
    expect(login.status).toBe(409);
  });

  it("bad bodies are 400 invalid_request, never a 5xx", async () => {
    const { challenge } = await start();
    for (const body of [{}, { subject: "" }, { subject: "a\u0000b" }, { subject: "x".repeat(300) }, { subject: "alice", amr: "pwd" }, { subject: "alice", auth_time: -1 }, { subject: "alice", extra: 1 }]) {
      await expectOAuthError(await call(`/login-requests/${challenge}/accept`, body), 400, "invalid_request");
    }
    const malformed = await send(new URL(`${API}/login-requests/${challenge}/accept`, server.url), { method: "POST", headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" }, body: "{" });
    expect(malformed.status).toBe(400);
  });
});

describe("over mutual TLS: a certificate-bound admin token (RFC 8705 §3)", () => {
  let pki: TestPki;
  let folder: PemFolder;
  let tls: TestServer;
  const agents: Agent[] = [];

  /** A TLS client of the listener, presenting `client` (and its issuing CA) or no certificate. */
  async function tlsClient(client?: TestCertificate): Promise<Agent> {
    const identity = client ? { cert: client.pem + pki.intermediate.pem, key: await privateKeyPem(client) } : {};
    const agent = new Agent({ connect: { ca: [pki.root.pem, pki.intermediate.pem], ...identity } });
    agents.push(agent);
    return agent;
  }

  beforeAll(async () => {
    pki = await testPki();
    folder = pemFolder("tollgate-delegation-");
    tls = await startTestServer({ TLS_PORT: "0", ...(await tlsListenerSettings(pki, folder)), DELEGATED_LOGIN_URL: LOGIN_URL, DELEGATED_CONSENT_URL: CONSENT_URL });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await tls?.close();
    folder?.remove();
  });

  it("is taken with its certificate, refused without it or with another", async () => {
    const token = await clientCredentialsToken(tls.url, DEMO.adminApp);
    // The admin app's token, bound to the plain test certificate as tls_client_auth would bind it.
    const x5t = createHash("sha256").update(pki.plain.der).digest("base64url");
    await tls.prisma.accessToken.updateMany({ where: { credential: { consumerKey: DEMO.adminApp.consumerKey } }, data: { x5t } });
    const url = `${tls.tlsUrl!}${API}/login-requests/${"A".repeat(43)}`;
    const call = async (dispatcher: Agent) => (await request(url, { dispatcher, headers: { authorization: `Bearer ${token}` } })).statusCode;
    // Past the authentication, the challenge is unknown: 404.
    expect(await call(await tlsClient(pki.plain))).toBe(404);
    expect(await call(await tlsClient())).toBe(401);
    expect(await call(await tlsClient(pki.aisp))).toBe(401);
  });
});
