/**
 * The test bank IdP: a real OpenID Provider (panva's oidc-provider 9) that plays the bank's
 * own identity provider in the HTTP suites (vitest) and the browser journeys (Playwright),
 * where Tollgate is its relying party (federated PSU sign-in, OpenID Connect Core §3.1).
 *
 * {@link startBankIdp} runs it in this process on 127.0.0.1 (any free port, plain http), with:
 * - the authorization code flow only (`response_type=code`), PKCE S256 required on every
 *   request (RFC 7636), pushed authorization requests offered (RFC 9126, not required), and
 *   `iss` in every authorization response (RFC 9207; oidc-provider 9 always sends it and its
 *   discovery says `authorization_response_iss_parameter_supported: true`, no option to set);
 * - scopes `openid` (claim `sub`) and `customer` (claim `customer_number`); the ID token carries
 *   `acr`, `amr` and `auth_time` always and the scopes' claims (`conformIdTokenClaims: false`);
 * - `acr_values_supported` {@link BANK_ACR}: `password` after a password alone, `sca` after the
 *   password and the customer's one-time code, whatever `acr_values` asked for (a relying
 *   party that asked for SCA must then refuse the password-only answer itself);
 * - ID tokens signed PS256 (a generated RSA key; a generated P-256 key for ES256 beside it),
 *   client authentication `client_secret_basic` or `private_key_jwt` (PS256 or ES256);
 * - its own sign-in page at `/interaction/<uid>` ({@link BANK_CUSTOMERS} sign in there), and the
 *   consent given at once with the sign-in (the bank's own IdP: first-party, no consent page).
 *
 * {@link signInAtBankIdp} plays the PSU's user agent headlessly for the HTTP suites; in a
 * journey, Chromium fills in the page (labelled fields "Username", "Password", "One-time code
 * (for strong customer authentication)", buttons "Sign in" and "Cancel").
 *
 * Its sessions live in the browser's cookies: a second authorization request in the same
 * browser signs in again without the page (single sign-on) unless it sends `prompt=login` or
 * a `max_age` the session is older than.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js";
import LRU from "oidc-provider/lib/helpers/lru.js";
import { JWKS_PATH } from "../../src/kernel/paths.js";
import type { IdentityProviderRecord, IdentityProviderSettings } from "../../src/stores/identity-providers.js";
import type { TestServer } from "./server.js";
import { Browser, FORM } from "./flow.js";

/** The `acr` values of the bank IdP (`acr_values_supported`): a password alone, or strong customer authentication (password and one-time code). */
export const BANK_ACR = {
  password: "urn:bank:acr:pwd",
  sca: "urn:bank:acr:sca",
} as const;

/**
 * The bank's customers who can sign in at the bank IdP: their username and password, the
 * one-time code that makes the sign-in SCA, their `sub` at the IdP and their customer number
 * (claim `customer_number`, scope `customer`).
 */
export const BANK_CUSTOMERS = {
  alice: { username: "alice@bank.example", password: "Bank-alice-2026!", otp: "246810", sub: "bank-0001", customerNumber: "CUST-0001" },
  bob: { username: "bob@bank.example", password: "Bank-bob-2026!", otp: "135790", sub: "bank-0002", customerNumber: "CUST-0002" },
} as const;

/** One of {@link BANK_CUSTOMERS}. */
type BankCustomer = (typeof BANK_CUSTOMERS)[keyof typeof BANK_CUSTOMERS];

/**
 * A relying party registered at the bank IdP. Every client gets `grant_types`
 * `authorization_code`, `response_types` `code`, ID tokens signed PS256 and `auth_time` in
 * every ID token; a `private_key_jwt` client's assertions may be signed PS256 or ES256 with a
 * key of `jwks` or `jwks_uri` (fetched when needed; loopback addresses allowed).
 */
export interface BankIdpClient {
  client_id: string;
  redirect_uris: string[];
  token_endpoint_auth_method: "private_key_jwt" | "client_secret_basic";
  /** Required for client_secret_basic. */
  client_secret?: string;
  /** For private_key_jwt: where the client publishes its public keys (e.g. Tollgate's `/oauth2/v1/jwks`). */
  jwks_uri?: string;
  /** For private_key_jwt: the client's public keys, instead of `jwks_uri`. */
  jwks?: { keys: object[] };
}

/** A running bank IdP. */
export interface BankIdp {
  /** Its issuer identifier, `http://127.0.0.1:<port>`; discovery at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** Stops listening and closes every connection; resolves once the server is closed. */
  close(): Promise<void>;
}

/** Where the bank IdP's sign-in page lives: `/interaction/<uid>`, `/interaction/<uid>/login`, `/interaction/<uid>/cancel`. */
const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)(\/login|\/cancel)?$/;

/** The redirect URI Tollgate registers at the bank IdP, below its own origin. */
const FEDERATION_CALLBACK_PATH = "/federation/callback";

/** The most bytes of a sign-in form read. */
const FORM_LIMIT = 16_384;

/** The error shown for an unknown username or a wrong password. */
const WRONG_CREDENTIALS = "Wrong username or password";
/** The error shown for a wrong (non-empty) one-time code. */
const WRONG_OTP = "Wrong one-time code";

/** What the sign-in page needs of a pending interaction (oidc-provider's `interactionDetails`). */
interface InteractionDetails {
  uid: string;
  prompt: { name: string };
  params: { client_id: string; scope?: string; login_hint?: string };
  /** The grant of the session's account for this client, when there is one. */
  grantId?: string;
  /** The IdP session's signed-in account, when there is one. */
  session?: { accountId: string };
}

/** An oidc-provider Grant: the scopes an account granted a client (oidc-provider 9 needs one to pass the consent prompt). */
interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}

/** The part of oidc-provider's API used here beyond the constructor and `callback()` (the package ships no types). */
interface ProviderApi {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options: { mergeWithLastSubmission: boolean }): Promise<void>;
  Grant: { new (properties: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
  on(event: "server_error", listener: (ctx: unknown, error: unknown) => void): void;
}

/** An answer of the sign-in routes other than a page or a redirect: its status and a message for the PSU. */
class InteractionError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The customer with `username` (compared without case), if any. */
function customerNamed(username: string): BankCustomer | undefined {
  const wanted = username.trim().toLowerCase();
  return Object.values(BANK_CUSTOMERS).find((c) => c.username === wanted);
}

/** The customer whose `sub` this is, if any. */
function customerWithSub(sub: string): BankCustomer | undefined {
  return Object.values(BANK_CUSTOMERS).find((c) => c.sub === sub);
}

/** Escapes text for HTML element content and double-quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Sends an HTML page, never cached; the CSP allows no script, style, frame or object. */
function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    // No form-action: Chromium applies it to the redirects after a submission too, and the
    // sign-in's answer redirects on to the relying party, on another origin.
    "Content-Security-Policy": "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(html);
}

/** A whole page titled `title` around `body` (the inside of its `<main>`). */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * The sign-in page of interaction `uid`: username (prefilled with `username`), password and
 * the optional one-time code, "Sign in"; "Cancel" in a form of its own; `error` above the
 * fields, announced (role alert) and referenced by the fields it is about.
 */
function signInPage(uid: string, o: { username?: string; error?: string; errorField?: "credentials" | "otp" } = {}): string {
  const base = `/interaction/${encodeURIComponent(uid)}`;
  const invalid = (field: "credentials" | "otp"): string => (o.error && o.errorField === field ? ` aria-invalid="true" aria-describedby="error"` : "");
  return page(
    "Bank sign-in",
    `<h1>Bank sign-in</h1>
<p>Sign in with your online banking username and password. Add your one-time code for strong customer authentication.</p>
${o.error ? `<p id="error" role="alert">${escapeHtml(o.error)}</p>\n` : ""}<form method="post" action="${base}/login">
<p><label for="username">Username</label><br><input id="username" name="username" type="text" autocomplete="username" required value="${escapeHtml(o.username ?? "")}"${invalid("credentials")}></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required${invalid("credentials")}></p>
<p><label for="otp">One-time code (for strong customer authentication)</label><br><input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code"${invalid("otp")}></p>
<p><button type="submit">Sign in</button></p>
</form>
<form method="post" action="${base}/cancel">
<p><button type="submit">Cancel</button></p>
</form>`,
  );
}

/** Reads an application/x-www-form-urlencoded body (at most {@link FORM_LIMIT} bytes). */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== FORM) throw new InteractionError(415, `The sign-in form must be sent as ${FORM}.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new InteractionError(413, "The sign-in form is too large.");
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * Records the consent of `accountId` to the requested scopes in a Grant (the first-party IdP
 * asks no consent): the session's grant for the client when it is the same account's, else a
 * new one. @returns the grant's id, for the interaction result's `consent.grantId`.
 */
async function grantRequestedScopes(api: ProviderApi, details: InteractionDetails, accountId: string): Promise<string> {
  const existing = details.grantId && details.session?.accountId === accountId ? await api.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new api.Grant({ accountId, clientId: details.params.client_id });
  grant.addOIDCScope(details.params.scope ?? "openid");
  return grant.save();
}

/**
 * `GET /interaction/<uid>`: the sign-in page (username prefilled with `login_hint`); when the
 * PSU is signed in already and only consent is missing, the consent is given at once.
 */
async function showInteraction(api: ProviderApi, req: IncomingMessage, res: ServerResponse, details: InteractionDetails): Promise<void> {
  if (details.prompt.name !== "login" && details.session) {
    const grantId = await grantRequestedScopes(api, details, details.session.accountId);
    return api.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  sendHtml(res, 200, signInPage(details.uid, { username: details.params.login_hint }));
}

/**
 * `POST /interaction/<uid>/login`: signs the customer in. Wrong username or password, or a
 * wrong one-time code: the page again with the error, status 200 (the interaction stays
 * open). Right: the sign-in (`acr`/`amr` by the one-time code: none gives
 * {@link BANK_ACR}.password and `["pwd"]`, the right one {@link BANK_ACR}.sca and
 * `["pwd", "otp"]`) and the consent, then a 303 back to the authorization endpoint.
 */
async function login(api: ProviderApi, req: IncomingMessage, res: ServerResponse, details: InteractionDetails): Promise<void> {
  const form = await readForm(req);
  const username = form.get("username") ?? "";
  const otp = (form.get("otp") ?? "").trim();
  const customer = customerNamed(username);
  if (!customer || form.get("password") !== customer.password) {
    return sendHtml(res, 200, signInPage(details.uid, { username, error: WRONG_CREDENTIALS, errorField: "credentials" }));
  }
  if (otp !== "" && otp !== customer.otp) {
    return sendHtml(res, 200, signInPage(details.uid, { username, error: WRONG_OTP, errorField: "otp" }));
  }
  const sca = otp !== "";
  const grantId = await grantRequestedScopes(api, details, customer.sub);
  await api.interactionFinished(
    req,
    res,
    {
      login: { accountId: customer.sub, acr: sca ? BANK_ACR.sca : BANK_ACR.password, amr: sca ? ["pwd", "otp"] : ["pwd"] },
      consent: { grantId },
    },
    { mergeWithLastSubmission: false },
  );
}

/** The request handler: the interaction routes here, everything else oidc-provider's. */
function handler(provider: Provider): (req: IncomingMessage, res: ServerResponse) => void {
  const api = provider as unknown as ProviderApi;
  const callback = provider.callback();
  const interactions = async (req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> => {
    const method = action ? "POST" : "GET";
    if (req.method !== method && !(method === "GET" && req.method === "HEAD")) {
      res.setHeader("Allow", method === "GET" ? "GET, HEAD" : "POST");
      throw new InteractionError(405, `Use ${method} here.`);
    }
    const details = await api.interactionDetails(req, res);
    if (details.uid !== uid) throw new InteractionError(400, "This sign-in is not the one this browser started.");
    if (action === "/login") return login(api, req, res, details);
    if (action === "/cancel") {
      return api.interactionFinished(req, res, { error: "access_denied", error_description: "the customer cancelled" }, { mergeWithLastSubmission: false });
    }
    return showInteraction(api, req, res, details);
  };
  return (req, res) => {
    const match = INTERACTION_PATH.exec(new URL(req.url ?? "/", "http://idp").pathname);
    if (!match) return callback(req, res);
    interactions(req, res, match[1]!, match[2]).catch((error: unknown) => {
      // oidc-provider's own errors (SessionNotFound: no or an expired interaction cookie) carry a 4xx status.
      const status = error instanceof InteractionError ? error.status : ((error as { status?: number }).status ?? 500);
      const described = (error as { error_description?: string }).error_description ?? (error as Error).message;
      const message = error instanceof InteractionError ? error.message : status < 500 ? `This sign-in cannot go on: ${described}.` : String(error);
      if (status >= 500) console.error("bank IdP interaction failed", error);
      if (res.headersSent) return void res.end();
      sendHtml(res, status, page("Bank sign-in: error", `<h1>Bank sign-in</h1>\n<p role="alert">${escapeHtml(message)}</p>`));
    });
  };
}

/** oidc-provider's client metadata for `c`. */
function clientMetadata(c: BankIdpClient): Record<string, unknown> {
  return {
    ...Object.fromEntries(Object.entries(c).filter(([, value]) => value !== undefined)),
    grant_types: ["authorization_code"],
    response_types: ["code"],
    id_token_signed_response_alg: "PS256",
    require_auth_time: true,
  };
}

/**
 * Starts a bank IdP for `clients` on 127.0.0.1 (a free port, http), in this process.
 * @returns once it listens: its issuer and `close()`.
 */
export async function startBankIdp(options: { clients: BankIdpClient[] }): Promise<BankIdp> {
  let serve: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => serve(req, res));
  // Listening on port 0 first: the issuer must name the port, and no other process can take it in between.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const store = new LRU({ maxSize: 10_000 });
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
  const provider = new Provider(issuer, {
    // Its own store: the MemoryAdapter's default one is shared by every provider of the process.
    adapter: (model: string) => new MemoryAdapter(model, store),
    clients: options.clients.map(clientMetadata),
    clientAuthMethods: ["client_secret_basic", "private_key_jwt"],
    enabledJWA: {
      clientAuthSigningAlgValues: ["PS256", "ES256"],
      idTokenSigningAlgValues: ["PS256", "ES256"],
    },
    jwks: {
      keys: [
        { ...rsa, kid: `rsa-${randomBytes(6).toString("hex")}`, use: "sig", alg: "PS256" },
        { ...ec, kid: `ec-${randomBytes(6).toString("hex")}`, use: "sig", alg: "ES256" },
      ],
    },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    responseTypes: ["code"],
    scopes: ["openid", "customer"],
    // acr, amr and auth_time with `openid`: the ID token's claims are the granted scopes' (and
    // those the request asked for), so a claim of no scope would be left out.
    claims: { openid: ["sub", "acr", "amr", "auth_time"], customer: ["customer_number"] },
    conformIdTokenClaims: false,
    acrValues: [BANK_ACR.password, BANK_ACR.sca],
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, sub: string) => {
      const customer = customerWithSub(sub);
      return customer && { accountId: sub, claims: async () => ({ sub, customer_number: customer.customerNumber }) };
    },
    // Lifetimes in seconds, set so that oidc-provider does not print a notice about each default.
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false },
    },
    // oidc-provider's fetch (jwks_uri) goes through a dispatcher that refuses loopback and
    // private addresses (SSRF protection); Tollgate's JWK Set is on 127.0.0.1 in the tests.
    fetch: (url: string | URL, init: RequestInit & { dispatcher?: unknown }) => {
      delete init.dispatcher;
      return fetch(url, init);
    },
  });
  (provider as unknown as ProviderApi).on("server_error", (_ctx, error) => console.error("bank IdP server_error", error));
  serve = handler(provider);

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * The bank IdP's client for a Tollgate at `tollgateUrl`: `private_key_jwt` with Tollgate's
 * own keys (`<tollgateUrl>/oauth2/v1/jwks`), redirect URI `<tollgateUrl>/federation/callback`.
 */
export function bankIdpClientFor(tollgateUrl: string, client_id = "tollgate"): BankIdpClient {
  return {
    client_id,
    redirect_uris: [new URL(FEDERATION_CALLBACK_PATH, tollgateUrl).href],
    token_endpoint_auth_method: "private_key_jwt",
    jwks_uri: new URL(JWKS_PATH, tollgateUrl).href,
  };
}

/** Whether `status` is a redirect with a Location to follow. */
function isRedirect(status: number): boolean {
  return [301, 302, 303, 307, 308].includes(status);
}

/** Where a walk through the bank IdP stopped: a redirect off the IdP, or one of its pages. */
type Stop = { left: URL } | { page: URL; status: number; html: string };

/**
 * Follows the IdP's redirects from `res` (the answer to `at`) with `browser`'s cookies, GETting
 * each Location on the IdP's origin, until a redirect leaves the origin (not requested) or a
 * page is answered.
 */
async function follow(browser: Browser, res: Response, at: URL): Promise<Stop> {
  for (let hops = 0; hops < 10; hops++) {
    if (!isRedirect(res.status)) return { page: at, status: res.status, html: await res.text() };
    const location = res.headers.get("location");
    if (!location) throw new Error(`the bank IdP answered ${res.status} without a Location to ${at.href}`);
    const next = new URL(location, at);
    if (next.origin !== browser.baseUrl) return { left: next };
    at = next;
    res = await browser.fetch(at.href);
  }
  throw new Error(`the bank IdP redirected more than 10 times, last to ${at.href}`);
}

/** The error a sign-in page shows (its role=alert text), if any. */
function shownError(html: string): string | undefined {
  const text = /<p id="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
  return text?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/**
 * Plays the PSU's user agent at the bank IdP, with a cookie jar of its own (or `jar`, kept
 * between calls: the IdP's single sign-on then answers without its page): GETs
 * `authorizationUrl` (an authorization request at the IdP, e.g. with a PAR `request_uri`),
 * follows the IdP's redirects to its sign-in page, posts `who`'s username, password and
 * one-time code (empty when none), or cancels, and follows the IdP's redirects until one
 * leaves the IdP's origin.
 * @returns that redirect's URL, not requested: the relying party's redirect URI with `code`,
 *   `state` and `iss`, or with `error` (`access_denied` after "cancel").
 * @throws Error naming the status and the page on any other answer: an error page of the IdP,
 *   a 5xx, or the sign-in page again (its error shown, e.g. "Wrong username or password").
 */
export async function signInAtBankIdp(authorizationUrl: string, who: { username: string; password: string; otp?: string } | "cancel", jar?: Browser): Promise<URL> {
  const start = new URL(authorizationUrl);
  const browser = jar ?? new Browser(start.origin);
  const first = await follow(browser, await browser.fetch(start.href), start);
  if ("left" in first) return first.left;
  if (first.status !== 200 || !INTERACTION_PATH.test(first.page.pathname)) {
    throw new Error(`expected the bank IdP's sign-in page, got ${first.status} at ${first.page.href}: ${first.html.slice(0, 500)}`);
  }
  const action = new URL(`${first.page.pathname}/${who === "cancel" ? "cancel" : "login"}`, start.origin);
  const body = who === "cancel" ? "" : new URLSearchParams({ username: who.username, password: who.password, otp: who.otp ?? "" }).toString();
  const after = await follow(browser, await browser.fetch(action.href, { method: "POST", headers: { "Content-Type": FORM }, body }), action);
  if ("left" in after) return after.left;
  const error = shownError(after.html);
  if (error) throw new Error(`the bank IdP refused the sign-in (${after.status} at ${after.page.href}): ${error}`);
  throw new Error(`expected a redirect off the bank IdP, got ${after.status} at ${after.page.href}: ${after.html.slice(0, 500)}`);
}

/**
 * Registers the identity provider at `issuer` on a test Tollgate as the bank's, named "bank",
 * Tollgate's client `tollgate` there authenticating with private_key_jwt, `sca` ({@link BANK_ACR})
 * its SCA acr; `settings` change any of that.
 */
export function registerBankIdp(server: Pick<TestServer, "db">, issuer: string, settings: Partial<IdentityProviderSettings> = {}): Promise<IdentityProviderRecord> {
  return server.db.identityProviders.create({
    name: "bank",
    issuer,
    clientId: "tollgate",
    clientAuthMethod: "private_key_jwt",
    clientSecret: null,
    scopes: ["openid"],
    customerNumberClaim: null,
    scaAcrValues: [BANK_ACR.sca],
    ...settings,
  });
}
