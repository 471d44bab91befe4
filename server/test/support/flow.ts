/**
 * Helpers for HTTP suites of the authorization code flow: a tiny browser (cookie jar over
 * fetch with `redirect: "manual"`), the /authorize -> sign-in -> consent walk that yields a
 * code, PKCE values, and token endpoint calls with HTTP Basic client authentication.
 * Everything talks to a real server over HTTP; nothing is mocked.
 */
import { createHash, randomBytes } from "node:crypto";
import { DEMO } from "../../src/demo/seed.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The session cookie's name (server/src/interaction/session.ts). */
export const SESSION_COOKIE = "tollgate.sid";
export const FORM = "application/x-www-form-urlencoded";
export const TOKEN_PATHS = ["/oauth2/v1/token", "/token"] as const;

/** A client of the demo seed. */
export interface DemoClient {
  consumerKey: string;
  consumerSecret: string;
}

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

/** A user agent with its own cookie jar; never follows redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every status answered to this browser, to check that none was a 5xx. */
  readonly statuses: { method: string; path: string; status: number }[] = [];

  constructor(readonly baseUrl: string) {}

  /** The session cookie's current value, if any. */
  get sessionCookie(): string | undefined {
    return this.cookies.get(SESSION_COOKIE);
  }

  /**
   * Sends a request (path relative to the server, or absolute URL) with this browser's
   * cookies; stores cookies it sets. `json` sends a JSON body with Content-Type application/json.
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
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: "manual" });
    for (const header of res.headers.getSetCookie()) {
      const c = parseSetCookie(header);
      const expires = c.attributes.get("expires");
      const removed = c.attributes.get("max-age") === "0" || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (removed) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    this.statuses.push({ method, path, status: res.status });
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

/** The query parameters of a redirect to the client's callback, as a plain object. */
export function callbackParams(location: string | null): Record<string, string> {
  const url = new URL(location ?? "");
  if (`${url.origin}${url.pathname}` !== DEMO.callbackUrl) throw new Error(`not a redirect to the callback: ${String(location)}`);
  return Object.fromEntries(url.searchParams);
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
    const res = await browser.fetch(`/interaction/${id}/login`, { json: user, headers: { "X-CSRF-Token": csrf } });
    const body = await json(res);
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.redirectTo) return finish(body.redirectTo, state, browser);
    csrf = body.csrfToken;
  }
  const res = await browser.fetch(`/interaction/${id}/consent`, {
    json: { approve: true, scopes: o.approve ?? scope.split(" ") },
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

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 Appendix B). */
export function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** `Authorization: Basic` for a client (RFC 6749 §2.3.1). */
export function basic(client: DemoClient): string {
  return `Basic ${Buffer.from(`${formEncode(client.consumerKey)}:${formEncode(client.consumerSecret)}`, "utf8").toString("base64")}`;
}

/** The answer of a token request. */
export interface TokenAnswer {
  status: number;
  headers: Headers;
  body: Json;
}

/** POSTs a form to the token endpoint at `path` (undefined values left out) as `client`. */
export async function tokenRequest(baseUrl: string, path: string, client: DemoClient, form: Record<string, string | undefined>): Promise<TokenAnswer> {
  const body = Object.entries(form)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`)
    .join("&");
  const res = await fetch(new URL(path, baseUrl), {
    method: "POST",
    headers: { Authorization: basic(client), "Content-Type": FORM, Accept: "application/json" },
    body,
  });
  return { status: res.status, headers: res.headers, body: await json(res) };
}
