/**
 * A tiny relying party (the third-party client of the authorization code flow) for the
 * browser journeys. It does what a real confidential client does, over real HTTP, with
 * node:http and fetch only:
 *
 * - `GET /start?app=legacy|strict[&prompt=…][&response_mode=…]`: makes a `state` (and, for
 *   apps that use PKCE, an S256 verifier/challenge), remembers them, and redirects the
 *   browser to Tollgate's `/authorize` for `scope`.
 * - `GET /callback`: checks `state` (400 page when it is missing, unknown or already used)
 *   and `iss` (RFC 9207); on `error=` shows the error, its description and the state;
 *   otherwise exchanges the code at `POST /token` with HTTP Basic, calls the protected API
 *   through the gateway with the access token, and shows both results.
 * - `POST /callback` (`response_mode=form_post.jwt`, JARM §2.3.3): verifies the posted
 *   `response` JWT against Tollgate's JWK Set (its `iss` and `aud`), then goes on as
 *   `GET /callback` with the parameters it carries.
 * - `POST /refresh` (form field `session`): refreshes the session's tokens, calls the API
 *   with the new access token, presents the old refresh token again (a replay, which
 *   Tollgate treats as theft), then tries the new refresh token and access token once more.
 *
 * Every result is shown in an element with a `data-testid`; JSON bodies are printed in
 * `<pre>` elements. Everything it receives is recorded in `requests`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { JWKS_PATH } from "../../server/src/kernel/paths.js";

/** An OAuth client registered at Tollgate. */
export interface RelyingPartyClient {
  clientId: string;
  clientSecret: string;
  /** Send a PKCE S256 challenge on /authorize and the verifier on the code exchange. */
  pkce: boolean;
}

export interface RelyingPartyOptions {
  /** Tollgate's origin: {auth_url} (authorize, token endpoint, issuer) and {base_url} (gateway). */
  tollgateUrl: string;
  /** The clients this relying party can play, by the name used in `/start?app=`. */
  clients: Record<string, RelyingPartyClient>;
  /** Scope requested on /authorize. */
  scope: string;
  /** Gateway path of the protected API called with the access token, e.g. `/accounts/`. */
  apiPath: string;
}

/** An authorization request the relying party sent the browser to. */
export interface StartedFlow {
  app: string;
  state: string;
  codeVerifier: string | null;
  codeChallenge: string | null;
  prompt: string | null;
  /** The `response_mode` sent; null when none. */
  responseMode: string | null;
  authorizeUrl: string;
}

/** A request the relying party received. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  url: string;
}

export interface RelyingParty {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The redirect URI it sends and must be registered at Tollgate: `<url>/callback`. */
  callbackUrl: string;
  /** Authorization requests started, oldest first. */
  readonly flows: readonly StartedFlow[];
  /** Every request received, oldest first. */
  readonly requests: readonly ReceivedRequest[];
  /** Forgets recorded flows and requests (pending states stay valid). */
  clearLog(): void;
  close(): Promise<void>;
}

/** A call the relying party made to Tollgate, as shown on its pages. */
interface CallResult {
  status: number;
  body: unknown;
}

interface Session {
  app: string;
  client: RelyingPartyClient;
  accessToken: string;
  refreshToken: string;
}

const base64url = (buf: Buffer) => buf.toString("base64url");

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${esc(title)} · Relying party</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
}

/** One labelled value: `<p>label: <output data-testid=…>value</output></p>`. */
function field(testId: string, label: string, value: string | number | null | undefined): string {
  return `<p>${esc(label)}: <output data-testid="${esc(testId)}">${esc(value === null || value === undefined ? "" : String(value))}</output></p>`;
}

/** A call's HTTP status and JSON body. */
function call(testId: string, label: string, result: CallResult): string {
  return `<section><h2>${esc(label)}</h2>${field(`${testId}-status`, "HTTP status", result.status)}<pre data-testid="${esc(testId)}-response">${esc(
    JSON.stringify(result.body, null, 2),
  )}</pre></section>`;
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
  res.end(html);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { non_json_body: text };
  }
}

/** HTTP Basic credentials, each part form-urlencoded first (RFC 6749 §2.3.1). */
function basic(client: RelyingPartyClient): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString("base64")}`;
}

/**
 * Starts the relying party on 127.0.0.1 on a free port.
 */
export async function startRelyingParty(options: RelyingPartyOptions): Promise<RelyingParty> {
  const tollgate = options.tollgateUrl.replace(/\/+$/, "");
  const pending = new Map<string, StartedFlow>();
  const sessions = new Map<string, Session>();
  const flows: StartedFlow[] = [];
  const requests: ReceivedRequest[] = [];
  let origin = "";

  async function tokenRequest(client: RelyingPartyClient, form: Record<string, string>): Promise<CallResult> {
    const res = await fetch(`${tollgate}/token`, {
      method: "POST",
      headers: { Authorization: basic(client), "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });
    return { status: res.status, body: await readJson(res) };
  }

  async function callApi(accessToken: string): Promise<CallResult> {
    const res = await fetch(`${tollgate}${options.apiPath}`, {
      headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" },
      redirect: "manual",
    });
    return { status: res.status, body: await readJson(res) };
  }

  function start(url: URL, res: ServerResponse): void {
    const app = url.searchParams.get("app") ?? "";
    const client = options.clients[app];
    if (!client) {
      send(res, 400, page("Unknown app", `<p>Use /start?app=${Object.keys(options.clients).map(esc).join("|")}</p>`));
      return;
    }
    const state = base64url(randomBytes(16));
    const codeVerifier = client.pkce ? base64url(randomBytes(32)) : null;
    const codeChallenge = codeVerifier === null ? null : base64url(createHash("sha256").update(codeVerifier).digest());
    const prompt = url.searchParams.get("prompt");
    const authorize = new URL(`${tollgate}/authorize`);
    authorize.searchParams.set("client_id", client.clientId);
    authorize.searchParams.set("response_type", "code");
    authorize.searchParams.set("scope", options.scope);
    authorize.searchParams.set("redirect_uri", `${origin}/callback`);
    authorize.searchParams.set("state", state);
    if (codeChallenge !== null) {
      authorize.searchParams.set("code_challenge", codeChallenge);
      authorize.searchParams.set("code_challenge_method", "S256");
    }
    if (prompt) authorize.searchParams.set("prompt", prompt);
    const responseMode = url.searchParams.get("response_mode");
    if (responseMode) authorize.searchParams.set("response_mode", responseMode);
    const flow: StartedFlow = { app, state, codeVerifier, codeChallenge, prompt, responseMode, authorizeUrl: authorize.href };
    pending.set(state, flow);
    flows.push(flow);
    res.writeHead(302, { Location: authorize.href, "Cache-Control": "no-store" });
    res.end();
  }

  async function callback(url: URL, res: ServerResponse): Promise<void> {
    const q = url.searchParams;
    const state = q.get("state");
    const iss = q.get("iss");
    const flow = state === null ? undefined : pending.get(state);
    if (!flow) {
      send(res, 400, page("State mismatch", field("state-check", "state", "mismatch") + field("returned-state", "Returned state", state)));
      return;
    }
    pending.delete(flow.state);
    const checks = field("state-check", "state", "matches") + field("returned-state", "Returned state", state) + field("iss", "iss", iss);
    if (iss !== tollgate) {
      send(res, 400, page("Issuer mismatch", checks + field("iss-check", "iss", "mismatch")));
      return;
    }
    const error = q.get("error");
    if (error !== null) {
      send(
        res,
        200,
        page(
          "Authorization failed",
          checks + field("error", "error", error) + field("error-description", "error_description", q.get("error_description")),
        ),
      );
      return;
    }
    const code = q.get("code");
    if (!code) {
      send(res, 400, page("No code", checks));
      return;
    }
    const client = options.clients[flow.app]!;
    const form: Record<string, string> = { grant_type: "authorization_code", code, redirect_uri: `${origin}/callback` };
    if (flow.codeVerifier !== null) form.code_verifier = flow.codeVerifier;
    const token = await tokenRequest(client, form);
    let html = checks + field("app", "App", flow.app) + call("token", "Token response", token);
    const tokens = token.body as { access_token?: unknown; refresh_token?: unknown };
    if (token.status === 200 && typeof tokens.access_token === "string") {
      html += call("api", `GET ${options.apiPath}`, await callApi(tokens.access_token));
      if (typeof tokens.refresh_token === "string") {
        const id = base64url(randomBytes(16));
        sessions.set(id, { app: flow.app, client, accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
        html += `<form method="post" action="/refresh"><input type="hidden" name="session" value="${esc(id)}"><button type="submit">Refresh tokens</button></form>`;
      }
    }
    send(res, 200, page("Signed in", html));
  }

  const jwks = createRemoteJWKSet(new URL(`${tollgate}${JWKS_PATH}`));

  /** A form_post.jwt answer: the `response` JWT verified, then its parameters handled as a GET callback's (JARM §2.3.3, §2.4). */
  async function postedCallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const response = new URLSearchParams(await readBody(req)).get("response") ?? "";
    const audiences = Object.values(options.clients).map((c) => c.clientId);
    const verified = await jwtVerify(response, jwks, { issuer: tollgate, audience: audiences }).catch(() => undefined);
    if (!verified) {
      send(res, 400, page("Invalid response", field("response-check", "response", "does not verify")));
      return;
    }
    const url = new URL(`${origin}/callback`);
    for (const [name, value] of Object.entries(verified.payload)) if (typeof value === "string") url.searchParams.set(name, value);
    await callback(url, res);
  }

  async function refresh(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = new URLSearchParams(await readBody(req)).get("session") ?? "";
    const session = sessions.get(id);
    if (!session) {
      send(res, 400, page("Unknown session", ""));
      return;
    }
    const oldRefreshToken = session.refreshToken;
    const refreshed = await tokenRequest(session.client, { grant_type: "refresh_token", refresh_token: oldRefreshToken });
    let html = field("old-refresh-token", "Old refresh token", oldRefreshToken) + call("refresh", "Refresh (rotation)", refreshed);
    const body = refreshed.body as { access_token?: unknown; refresh_token?: unknown };
    if (refreshed.status === 200 && typeof body.access_token === "string" && typeof body.refresh_token === "string") {
      session.accessToken = body.access_token;
      session.refreshToken = body.refresh_token;
      html += field("new-refresh-token", "New refresh token", body.refresh_token);
      html += call("refreshed-api", `GET ${options.apiPath} with the new access token`, await callApi(body.access_token));
    }
    // A replay of the rotated refresh token, as a thief holding the old one would do.
    html += call("reuse", "Old refresh token presented again", await tokenRequest(session.client, { grant_type: "refresh_token", refresh_token: oldRefreshToken }));
    if (refreshed.status === 200) {
      html += call("after-reuse-refresh", "New refresh token after the replay", await tokenRequest(session.client, { grant_type: "refresh_token", refresh_token: session.refreshToken }));
      html += call("after-reuse-api", `GET ${options.apiPath} with the new access token after the replay`, await callApi(session.accessToken));
    }
    send(res, 200, page("Refreshed", html));
  }

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "" });
    const url = new URL(req.url ?? "/", origin);
    const route = `${req.method} ${url.pathname}`;
    const handled =
      route === "GET /start"
        ? Promise.resolve(start(url, res))
        : route === "GET /callback"
          ? callback(url, res)
          : route === "POST /callback"
            ? postedCallback(req, res)
            : route === "POST /refresh"
            ? refresh(req, res)
            : Promise.resolve(send(res, 404, page("Not found", "")));
    handled.catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, page("Relying party error", `<pre data-testid="rp-error">${esc(String(err))}</pre>`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;

  return {
    url: origin,
    port,
    callbackUrl: `${origin}/callback`,
    flows,
    requests,
    clearLog() {
      flows.length = 0;
      requests.length = 0;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
