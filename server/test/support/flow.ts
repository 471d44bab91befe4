/**
 * The HTTP harness of the suites, one place for what every suite needs to talk to a real
 * server: {@link request}, through which every request goes and which fails the test on a
 * 5xx the call does not expect; HTTP Basic client authentication and form posts to the
 * token, revocation and introspection endpoints; client credentials and user tokens;
 * calls through the gateway; the checks of OAuth error answers (RFC 6749 §5.2) and of
 * `Cache-Control: no-store`; and the front channel of the authorization code flow: a tiny
 * browser (cookie jar over fetch with `redirect: "manual"`), PKCE values and the
 * /authorize -> sign-in -> consent walk that yields a code. Nothing is mocked.
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { DEMO } from "../../src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../../src/demo/upstream.js";
import type { SoftwarePasskey } from "./passkey.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The session cookie's name (server/src/interaction/session.ts). */
export const SESSION_COOKIE = "tollgate.sid";
export const FORM = "application/x-www-form-urlencoded";
/** The token endpoint (RFC 6749 §3.2) at its Apigee path; `/token` is the same endpoint. */
export const TOKEN_ENDPOINT = "/oauth2/v1/token";
export const TOKEN_PATHS = [TOKEN_ENDPOINT, "/token"] as const;
/** The revocation endpoint (RFC 7009). */
export const REVOCATION_ENDPOINT = "/oauth2/v1/revoke";
/** The introspection endpoint (RFC 7662). */
export const INTROSPECTION_ENDPOINT = "/oauth2/v1/introspect";

/**
 * What every audit event written while serving a request adds to its details: the request id
 * and the FAPI interaction id (new UUIDs, as the tests send neither).
 */
export const AUDIT_REQUEST_FIELDS = {
  request_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  interaction_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
};

/** A client of the demo seed. */
export interface DemoClient {
  consumerKey: string;
  consumerSecret: string;
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/** fetch's options, plus the one 5xx status a call expects. */
export interface RequestOptions extends RequestInit {
  /** A 5xx this call expects (e.g. the gateway's 502 for an upstream that is down); any other 5xx still fails the test. */
  expect5xx?: number;
}

/**
 * Fails the test when `status` is a 5xx other than `expected`, naming the request and
 * quoting the answer. For request paths that do not go through {@link request} (node:http).
 */
export function refuse5xx(method: string, url: string | URL, status: number, answer: string, expected?: number): void {
  if (status >= 500 && status !== expected) throw new Error(`${method} ${String(url)} answered ${status}: ${answer.slice(0, 1000)}`);
}

/**
 * fetch with `redirect: "manual"` (the suites look at redirects themselves) that fails the
 * test on a 5xx answer unless `init.expect5xx` names that status.
 */
export async function request(url: string | URL, init: RequestOptions = {}): Promise<Response> {
  const { expect5xx, ...rest } = init;
  const res = await fetch(url, { redirect: "manual", ...rest });
  if (res.status >= 500 && res.status !== expect5xx) {
    const sent = typeof rest.body === "string" ? `\nrequest body: ${rest.body.slice(0, 500)}` : "";
    refuse5xx(rest.method ?? "GET", url, res.status, `${await res.text()}${sent}`, expect5xx);
  }
  return res;
}

/** An answer read to the end: the raw text and, when it is JSON, the parsed body. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: Json;
}

/** Reads a response to the end. */
export async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: Json;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** {@link request}, read to the end. */
export async function send(url: string | URL, init: RequestOptions = {}): Promise<Answer> {
  return read(await request(url, init));
}

/** Reads the JSON body of a response (throws with the text when it is not JSON). */
export async function json(res: Response): Promise<Json> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

// ---------------------------------------------------------------------------------------
// Client authentication and the OAuth endpoints
// ---------------------------------------------------------------------------------------

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 Appendix B). */
export function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** A form body of `params` in order, values form-encoded; undefined values are left out. */
export function formBody(params: Record<string, string | undefined>): string {
  return Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`)
    .join("&");
}

/** The `Authorization` value of HTTP Basic client authentication (RFC 6749 §2.3.1: each half form-encoded first). */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, "utf8").toString("base64")}`;
}

/** How a request to an OAuth endpoint authenticates: as a client (HTTP Basic), with a raw `Authorization` value, or not at all (null). */
export type ClientAuth = DemoClient | string | null;

/**
 * POSTs a form to the token endpoint at `path`, or to the revocation or introspection
 * endpoint, authenticated by `auth`. `form` is a body as is, or parameters (form-encoded,
 * undefined left out); `init` adds to or overrides the request.
 */
export async function tokenRequest(baseUrl: string, path: string, auth: ClientAuth, form: string | Record<string, string | undefined>, init: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { "Content-Type": FORM, Accept: "application/json" };
  if (typeof auth === "string") headers.Authorization = auth;
  else if (auth) headers.Authorization = basic(auth.consumerKey, auth.consumerSecret);
  return send(new URL(path, baseUrl), {
    method: "POST",
    body: typeof form === "string" ? form : formBody(form),
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
  });
}

/** An access token of `client` by the client credentials grant (RFC 6749 §4.4); fails the test unless the token endpoint answers 200. */
export async function clientCredentialsToken(baseUrl: string, client: DemoClient, scope?: string): Promise<string> {
  const answer = await tokenRequest(baseUrl, TOKEN_ENDPOINT, client, { grant_type: "client_credentials", scope });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.access_token as string;
}

/** Calls an API through the gateway of `baseUrl` with an access token (RFC 6750 §2.1, `Authorization: Bearer`). */
export function callApi(baseUrl: string, accessToken: string, path = "/accounts/", init: RequestOptions = {}): Promise<Answer> {
  return send(new URL(path, baseUrl), { ...init, headers: { Authorization: `Bearer ${accessToken}`, ...(init.headers as Record<string, string> | undefined) } });
}

/** Asserts `Cache-Control: no-store` (RFC 6749 §5.1, and every error answer of Tollgate). */
export function expectNoStore(res: { headers: Headers }, what = ""): void {
  expect(res.headers.get("cache-control"), what).toBe("no-store");
}

/** Asserts the headers of a token response (RFC 6749 §5.1): JSON, `Cache-Control: no-store` and `Pragma: no-cache`. */
export function expectTokenResponseHeaders(res: { headers: Headers }): void {
  expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
  expectNoStore(res);
  expect(res.headers.get("pragma")).toBe("no-cache");
}

/**
 * Asserts an RFC 6749 §5.2 error answer: `status`, a JSON body of exactly `error` and a
 * non-empty `error_description`, and `Cache-Control: no-store`.
 * @returns the body.
 */
export async function expectOAuthError(res: Response | Answer, status: number, error: string): Promise<Json> {
  const answer = res instanceof Response ? await read(res) : res;
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json\b/);
  expect(answer.body, answer.text).toEqual({ error, error_description: expect.stringMatching(/./) });
  expectNoStore(answer, answer.text);
  return answer.body;
}

// ---------------------------------------------------------------------------------------
// The front channel of the authorization code flow
// ---------------------------------------------------------------------------------------

/** One parsed `Set-Cookie` header. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case, mapped to their value ("" for flags such as HttpOnly). */
  attributes: Map<string, string>;
}

/** Parses one `Set-Cookie` header value (RFC 6265 §5.2, enough for these tests). */
export function parseSetCookie(header: string): SetCookie {
  const [pair = "", ...attrs] = header.split(";");
  const eq = pair.indexOf("=");
  const attributes = new Map<string, string>();
  for (const a of attrs) {
    const i = a.indexOf("=");
    const key = (i < 0 ? a : a.slice(0, i)).trim().toLowerCase();
    attributes.set(key, i < 0 ? "" : a.slice(i + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes };
}

/** The software passkeys of users on running test servers, by `<server URL> <username>`. */
const passkeys = new Map<string, SoftwarePasskey>();

/** Records the passkey `username` has on the server at `baseUrl` (server.ts enrols one for the demo user). */
export function rememberPasskey(baseUrl: string, username: string, passkey: SoftwarePasskey): void {
  passkeys.set(`${baseUrl} ${username}`, passkey);
}

/** The passkey of `username` on the server at `baseUrl`. @throws Error when none was enrolled. */
export function passkeyOf(baseUrl: string, username: string): SoftwarePasskey {
  const passkey = passkeys.get(`${baseUrl} ${username}`);
  if (!passkey) throw new Error(`${username} has no software passkey on ${baseUrl}`);
  return passkey;
}

/**
 * Answers a pending sign-in's second factor with the user's software passkey: fetches a
 * challenge (`/session/webauthn/authentication-options`) and posts the assertion to `path`
 * (`/interaction/:id/factor` or `/session/factor`).
 * @returns the answer to the factor post.
 */
export async function answerFactor(browser: Browser, path: string, csrf: string, username: string): Promise<Response> {
  return answerFactorWith(browser, path, csrf, passkeyOf(browser.baseUrl, username));
}

/**
 * {@link answerFactor} with a given passkey, whoever's it is (e.g. the demo user's passkey
 * presented for an unknown username, or after a wrong password).
 * @returns the answer to the factor post.
 */
export async function answerFactorWith(browser: Browser, path: string, csrf: string, passkey: SoftwarePasskey): Promise<Response> {
  const headers = { "X-CSRF-Token": csrf };
  const challenge = await browser.fetch("/session/webauthn/authentication-options", { json: {}, headers });
  if (challenge.status !== 200) throw new Error(`authentication-options answered ${challenge.status}: ${await challenge.text()}`);
  const { options } = (await challenge.json()) as Json;
  const response = passkey.assert(options);
  return browser.fetch(path, { json: { method: "webauthn", response }, headers });
}

/**
 * Signs `user` in on an interaction at its login stage, as the SPA does: the password
 * (`POST /interaction/:id/login`) and, when the server answers with the factor stage, the
 * user's software passkey (`POST /interaction/:id/factor`, {@link answerFactor}).
 * @returns the answer of the last post: the factor's when the factor stage was entered, else
 *   the login's (a password-only sign-in, or an error such as 401 or 429).
 */
export async function signInInteraction(browser: Browser, id: string, csrf: string, user: { username: string; password: string } = DEMO.user): Promise<Response> {
  const login = await browser.fetch(`/interaction/${id}/login`, { json: { username: user.username, password: user.password }, headers: { "X-CSRF-Token": csrf } });
  if (login.status !== 200) return login;
  const body = (await login.clone().json()) as Json;
  if (body.stage !== "factor") return login;
  return answerFactor(browser, `/interaction/${id}/factor`, body.csrfToken as string, user.username);
}

/** A user agent with its own cookie jar; never follows redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  /** The session cookie's current value, if any. */
  get sessionCookie(): string | undefined {
    return this.cookies.get(SESSION_COOKIE);
  }

  /**
   * Sends a request (path relative to the server, or absolute URL) with this browser's
   * cookies through {@link request}; stores cookies it sets. `json` sends a JSON body with
   * Content-Type application/json.
   */
  async fetch(path: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["Content-Type"] ??= "application/json";
    }
    const method = init.method ?? (body === undefined ? "GET" : "POST");
    const res = await request(new URL(path, this.baseUrl), { method, headers, body });
    for (const header of res.headers.getSetCookie()) {
      const c = parseSetCookie(header);
      const expires = c.attributes.get("expires");
      const removed = c.attributes.get("max-age") === "0" || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (removed) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.1, §4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: s256(verifier) };
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function randomState(): string {
  return randomBytes(12).toString("base64url");
}

/** Builds `/authorize?...` from parameters in order; an array value repeats the parameter; undefined is left out. */
export function authorizePath(params: Record<string, string | string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  }
  return `/authorize?${q.toString()}`;
}

/** Standard parameters of an authorization request for `client` (demo callback, state, scope aisp). */
export function authorizeParams(
  client: DemoClient = DEMO.app,
  extra: Record<string, string | string[] | undefined> = {},
): Record<string, string | string[] | undefined> {
  return { client_id: client.consumerKey, response_type: "code", scope: "aisp", redirect_uri: DEMO.callbackUrl, state: randomState(), ...extra };
}

/** The interaction id in a `/login?interaction=` or `/consent?interaction=` Location. */
export function interactionIdFrom(location: string | null): string {
  const url = new URL(location ?? "", "http://x");
  const id = url.searchParams.get("interaction");
  if (!id) throw new Error(`no interaction in Location ${String(location)}`);
  return id;
}

/** The query parameters of a redirect to the client's callback (the demo apps' unless `callbackUrl`), as a plain object. */
export function callbackParams(location: string | null, callbackUrl: string = DEMO.callbackUrl): Record<string, string> {
  const url = new URL(location ?? "");
  if (`${url.origin}${url.pathname}` !== callbackUrl) throw new Error(`not a redirect to the callback: ${String(location)}`);
  return Object.fromEntries(url.searchParams);
}

/** Options of {@link obtainCode}. */
export interface CodeOptions {
  client?: DemoClient;
  scope?: string;
  /** Scopes to approve at consent; default every requested scope. */
  approve?: string[];
  pkce?: { challenge: string };
  extra?: Record<string, string | undefined>;
  browser?: Browser;
  user?: { username: string; password: string };
  /** The PSU's choice of accounts for a PSD2 consent (IBANs), sent with the approval. */
  choice?: { accounts?: string[]; debtorAccount?: string };
}

/** Result of {@link obtainCode}: the code and the rest of the callback, plus the browser used. */
export interface CodeResult {
  code: string;
  state: string;
  params: Record<string, string>;
  browser: Browser;
}

/**
 * Runs the whole front channel in a browser: GET /authorize -> GET /interaction/:id ->
 * POST login -> (POST consent when asked) and returns the code from the callback redirect.
 */
export async function obtainCode(baseUrl: string, o: CodeOptions = {}): Promise<CodeResult> {
  const browser = o.browser ?? new Browser(baseUrl);
  const client = o.client ?? DEMO.app;
  const scope = o.scope ?? "aisp";
  const state = randomState();
  const params = authorizeParams(client, {
    scope,
    state,
    ...(o.pkce ? { code_challenge: o.pkce.challenge, code_challenge_method: "S256" } : {}),
    ...o.extra,
  });
  const start = await browser.fetch(authorizePath(params));
  if (start.status !== 302) throw new Error(`/authorize answered ${start.status}: ${await start.text()}`);
  let location = start.headers.get("location");
  if (!location?.startsWith("/")) return finish(location, state, browser);

  const id = interactionIdFrom(location);
  const view = await json(await browser.fetch(`/interaction/${id}`));
  let csrf = view.csrfToken as string;
  if (view.stage === "login") {
    const user = o.user ?? DEMO.user;
    const res = await browser.fetch(`/interaction/${id}/login`, { json: { username: user.username, password: user.password }, headers: { "X-CSRF-Token": csrf } });
    let body = await json(res);
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.stage === "factor") {
      const factor = await answerFactor(browser, `/interaction/${id}/factor`, body.csrfToken, user.username);
      body = await json(factor);
      if (factor.status !== 200) throw new Error(`factor answered ${factor.status}: ${JSON.stringify(body)}`);
    }
    if (body.redirectTo) return finish(body.redirectTo, state, browser);
    csrf = body.csrfToken;
  }
  const res = await browser.fetch(`/interaction/${id}/consent`, {
    json: { approve: true, scopes: o.approve ?? (scope ? scope.split(" ") : []), ...o.choice },
    headers: { "X-CSRF-Token": csrf },
  });
  const body = await json(res);
  if (res.status !== 200) throw new Error(`consent answered ${res.status}: ${JSON.stringify(body)}`);
  location = body.redirectTo;
  return finish(location, state, browser);
}

function finish(location: string | null, state: string, browser: Browser): CodeResult {
  const params = callbackParams(location);
  if (!params.code) throw new Error(`no code in callback redirect ${String(location)}`);
  return { code: params.code, state, params, browser };
}

/** Options of {@link userTokens}: those of {@link obtainCode}, with the whole PKCE pair so the exchange can send the verifier. */
type UserTokenOptions = Omit<CodeOptions, "pkce"> & { pkce?: { verifier: string; challenge: string } };

/**
 * A user's tokens by the authorization code grant: {@link obtainCode}, then the code
 * exchanged at the token endpoint (RFC 6749 §4.1.3) as the same client, with the PKCE
 * verifier when `pkce` is given; fails the test unless the exchange answers 200.
 * @returns the token response and what {@link obtainCode} returned.
 */
export async function userTokens(baseUrl: string, o: UserTokenOptions = {}): Promise<CodeResult & { tokens: Json }> {
  const flow = await obtainCode(baseUrl, o);
  const answer = await tokenRequest(baseUrl, TOKEN_ENDPOINT, o.client ?? DEMO.app, {
    grant_type: "authorization_code",
    code: flow.code,
    redirect_uri: DEMO.callbackUrl,
    code_verifier: o.pkce?.verifier,
  });
  expect(answer.status, answer.text).toBe(200);
  return { ...flow, tokens: answer.body };
}

/**
 * The demo PSU's tokens for the PSD2 authorization `details` (RFC 9396), by the strict demo
 * app's authorization code flow with PKCE: her SCA, then the consent page, paying from her
 * main account. @returns the token response.
 */
export async function psd2ConsentTokens(baseUrl: string, details: unknown[]): Promise<Json> {
  const flow = await userTokens(baseUrl, {
    client: DEMO.strictApp,
    scope: "",
    approve: [],
    pkce: pkcePair(),
    choice: { debtorAccount: DEMO_ACCOUNTS[0]!.iban },
    extra: { authorization_details: JSON.stringify(details) },
  });
  return flow.tokens;
}
