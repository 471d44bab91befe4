/**
 * Helpers for the oauth4webapi conformance suite: a real Tollgate server whose issuer is
 * its own listening address (oauth4webapi compares the issuer exactly), the options that
 * let oauth4webapi talk plain HTTP to it through the harness's request (no 5xx), and the
 * browser step of the authorization code
 * flow (GET the authorization URL oauth4webapi built -> sign in -> consent) through the
 * JSON interaction API with a cookie jar. Nothing is mocked.
 */
import { freePort } from "./free-port.js";
import * as oauth from "oauth4webapi";
import { DEMO } from "../../src/demo/seed.js";
import { Browser, interactionIdFrom, json, request, signInInteraction } from "./flow.js";
import { startTestServer, type TestServer } from "./server.js";
import { signInAtBankIdp } from "./bank-idp.js";
import { softHsmToken } from "./softhsm.js";
import { cpSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * Spread into every oauth4webapi request's options: plain HTTP allowed (oauth4webapi refuses
 * non-HTTPS URLs unless told otherwise; the test server speaks plain HTTP on 127.0.0.1), and
 * every request sent through support/flow.ts `request`, which fails the test on a 5xx.
 */
export const clientOptions = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: request } as const;


/**
 * Starts a test server on a known port with `AUTH_URL` and `BASE_URL` both set to its real
 * address `http://127.0.0.1:<port>`, so the metadata, the `iss` on redirects and the
 * endpoints are all reachable and equal to what oauth4webapi expects. Retries a few times
 * if the port was taken between probing and listening.
 * @param env - further settings (server/src/config.ts).
 */
export async function startIssuerServer(env: Record<string, string> = {}): Promise<{ server: TestServer; issuer: URL }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const address = `http://127.0.0.1:${port}`;
    try {
      const server = await startTestServer({ ...env, PORT: String(port), AUTH_URL: address, BASE_URL: address });
      if (server.url !== address) {
        await server.close();
        throw new Error(`server listens on ${server.url}, expected ${address}`);
      }
      return { server, issuer: new URL(address) };
    } catch (err) {
      lastError = err;
      if (!(err instanceof Error && "code" in err && err.code === "EADDRINUSE")) throw err;
    }
  }
  throw lastError;
}

/** A token's device taken away and brought back: its files moved aside and restored. */
export interface HsmDevice {
  takeAway(): void;
  bringBack(): void;
}

/**
 * Runs `test` against an issuer server ({@link startIssuerServer}) whose signing keys are made in
 * a new SoftHSM2 token `label` (support/softhsm.ts), once its keyring is ready; then closes the
 * server and removes the token.
 */
export async function withHsmIssuerServer(label: string, pin: string, test: (hsm: { server: TestServer; issuer: URL }, device: HsmDevice) => Promise<void>): Promise<void> {
  const token = softHsmToken(label, pin);
  const saved = path.join(path.dirname(token.tokenDir), "saved");
  const device: HsmDevice = {
    takeAway() {
      cpSync(token.tokenDir, saved, { recursive: true });
      rmSync(token.tokenDir, { recursive: true, force: true });
    },
    bringBack() {
      cpSync(saved, token.tokenDir, { recursive: true });
    },
  };
  const hsm = await startIssuerServer({
    PURGE_INTERVAL_SECONDS: "0",
    PKCS11_MODULE: token.settings.module,
    PKCS11_TOKEN_LABEL: token.settings.tokenLabel,
    PKCS11_PIN: token.settings.pin,
  });
  try {
    await hsm.server.keyring.ready();
    await test(hsm, device);
  } finally {
    await hsm.server.close();
    token.remove();
  }
}

/** The oauth4webapi view of a demo client: its metadata and its client authentication. */
export interface StrictClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

/**
 * oauth4webapi client metadata and client authentication for a demo app: HTTP Basic
 * (`client_secret_basic`, the default) or `client_id` and `client_secret` in the body
 * (`client_secret_post`, oauth4webapi's ClientSecretPost).
 */
export function clientFor(app: { consumerKey: string; consumerSecret: string }, method: "client_secret_basic" | "client_secret_post" = "client_secret_basic"): StrictClient {
  return {
    client: { client_id: app.consumerKey, token_endpoint_auth_method: method },
    auth: method === "client_secret_basic" ? oauth.ClientSecretBasic(app.consumerSecret) : oauth.ClientSecretPost(app.consumerSecret),
  };
}

/** What the user does in the browser step. */
export interface BrowserStep {
  /** Approve (default) or deny at the consent page. */
  approve?: boolean;
  /** Scopes ticked at consent; default every requested scope. */
  scopes?: string[];
  user?: { username: string; password: string };
  /** The browser (its cookies: a session signed in before); default a new one. */
  browser?: Browser;
  /** The customer who signs in at the test bank IdP (support/bank-idp.ts), when the request is sent there. */
  upstream?: { username: string; password: string; otp?: string };
}

/**
 * Plays the user agent for an authorization URL built by the client: GET it with a fresh
 * cookie jar, follow the server's redirect to the sign-in page by reading the interaction
 * through the JSON API the SPA uses, sign in (the password, then the user's passkey when the
 * factor stage follows; or, with `step.upstream`, at the bank IdP it is sent to), answer consent when asked, and return the
 * redirect back to the client's callback exactly as the browser would be sent there (for a
 * `form_post.jwt` answer: this server's page that posts it, which `step.browser` may load).
 * @throws when any step answers something other than the expected status.
 */
export async function runBrowserStep(authorizationUrl: URL, step: BrowserStep = {}): Promise<URL> {
  const browser = step.browser ?? new Browser(authorizationUrl.origin);
  const start = await browser.fetch(authorizationUrl.href);
  if (start.status !== 302) throw new Error(`authorization endpoint answered ${start.status}: ${await start.text()}`);
  let location = start.headers.get("location");
  if (!location) throw new Error("authorization endpoint redirected without Location");
  if (step.upstream && !location.startsWith("/")) {
    // Sent to sign in at the bank's identity provider: its answer comes back to Tollgate, which goes on.
    const back = await browser.fetch((await signInAtBankIdp(location, step.upstream)).href);
    location = back.headers.get("location");
    if (back.status !== 302 || !location) throw new Error(`the identity provider's answer was answered ${back.status}: ${await back.text()}`);
  }
  // An error the server can send back to the client goes straight to the callback.
  if (!location.startsWith("/")) return new URL(location);

  const id = interactionIdFrom(location);
  const viewRes = await browser.fetch(`/interaction/${encodeURIComponent(id)}`);
  const view = await json(viewRes);
  if (viewRes.status !== 200) throw new Error(`GET /interaction answered ${viewRes.status}: ${JSON.stringify(view)}`);
  let csrf = view.csrfToken as string;
  const requested = (view.scopes as { name: string }[]).map((s) => s.name);

  if (view.stage === "login") {
    // The password, then the user's passkey when the factor stage follows (support/flow.ts).
    const res = await signInInteraction(browser, encodeURIComponent(id), csrf, step.user ?? DEMO.user);
    const body = await json(res);
    if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.redirectTo) {
      if (step.approve === false) throw new Error("consent was remembered, so the user could not deny: use prompt=consent");
      return new URL(body.redirectTo as string, browser.baseUrl);
    }
    csrf = body.csrfToken as string;
  }
  const answer = step.approve === false ? { approve: false } : { approve: true, scopes: step.scopes ?? requested };
  const res = await browser.fetch(`/interaction/${encodeURIComponent(id)}/consent`, { json: answer, headers: { "X-CSRF-Token": csrf } });
  const body = await json(res);
  if (res.status !== 200) throw new Error(`consent answered ${res.status}: ${JSON.stringify(body)}`);
  return new URL(body.redirectTo as string, browser.baseUrl);
}

/** An authorization request built with oauth4webapi's helpers (RFC 6749 §4.1.1, RFC 7636 §4). */
export interface PreparedAuthorization {
  url: URL;
  state: string;
  codeVerifier: string;
  codeChallenge: string;
}

/**
 * Builds the authorization URL from the discovered `authorization_endpoint` with a fresh
 * PKCE verifier (S256) and state from oauth4webapi. `extra` adds or, with `undefined`,
 * removes parameters (`state: undefined`: no state, as openid-client sends by default).
 */
export async function prepareAuthorization(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  scope: string,
  extra: Record<string, string | undefined> = {},
): Promise<PreparedAuthorization> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string | undefined> = {
    client_id: client.client_id,
    redirect_uri: DEMO.callbackUrl,
    response_type: "code",
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: "S256",
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { url, state, codeVerifier, codeChallenge };
}

/**
 * Pushes `parameters` (RFC 9126) as `client`, authenticated by `auth`, and answers the
 * authorization URL the browser then opens: `client_id` and the `request_uri` alone.
 * @param options - the DPoP handle, when the request carries a proof.
 */
export async function pushedAuthorizationUrl(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  parameters: Record<string, string>,
  options: { DPoP?: oauth.DPoPHandle } = {},
): Promise<URL> {
  const pushed = await oauth.processPushedAuthorizationResponse(as, client, await oauth.pushedAuthorizationRequest(as, client, auth, parameters, { ...options, ...clientOptions }));
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", client.client_id);
  url.searchParams.set("request_uri", pushed.request_uri);
  return url;
}
