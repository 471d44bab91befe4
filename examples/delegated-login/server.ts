/**
 * A reference login and consent application for Tollgate's delegated login (DELEGATED_LOGIN_URL,
 * DELEGATED_CONSENT_URL): the template a bank adapts to sign its customers in with its own
 * customer check and SCA, and to ask their consent, while Tollgate stays the authorization
 * server. See README.md.
 *
 *   GET  /login?login_challenge=…      the sign-in form (what the TPP asks, username, password, one-time code)
 *   POST /login                        sign in (accept the login request) or Cancel (reject it); 303 to Tollgate's next step
 *   GET  /consent?consent_challenge=…  the consent form (scopes, the payment or account access, the accounts to choose)
 *   POST /consent                      Allow (accept the consent request) or Deny (reject it); 303 to the TPP
 *
 * node:http only. It never sees the PSU's Tollgate session: it knows a request only by its
 * challenge, and answers it with the bank's admin client (tollgate.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkCustomer, loadCustomers } from "./customers.js";
import { choicesNeeded } from "./describe.js";
import { autoPostPage, CONTENT_SECURITY_POLICY } from "./html.js";
import { consentPage, errorPage, loginPage, type ConsentChoice } from "./pages.js";
import { ACR_PASSWORD, ACR_SCA, Tollgate, TollgateError, type Answer } from "./tollgate.js";

/* Settings (environment) */

const env = process.env;
/** DEMO ONLY: Tollgate's demo admin client ("Tollgate Automation", DEMO.adminApp in server/src/demo/seed.ts). */
const DEMO_ADMIN_CLIENT = { id: "demo-admin-key", secret: "demo-admin-secret-Jw57kT" };

const settings = {
  port: Number(env.PORT ?? 4000),
  host: env.HOST ?? "127.0.0.1",
  tollgate: {
    url: (env.TOLLGATE_URL ?? "http://localhost:3000").replace(/\/+$/, ""),
    clientId: env.CLIENT_ID ?? DEMO_ADMIN_CLIENT.id,
    clientSecret: env.CLIENT_SECRET ?? DEMO_ADMIN_CLIENT.secret,
  },
  bankName: env.BANK_NAME ?? "Demo Bank",
  /** Secure cookies (HTTPS only; Chromium also keeps them from http://localhost and http://127.0.0.1): `COOKIE_SECURE=false` only for a plain-HTTP demo in a browser that does not. */
  cookieSecure: env.COOKIE_SECURE !== "false",
  /** Key of the forms' CSRF tokens: give the same CSRF_SECRET to every instance behind one address; random per start otherwise. */
  csrfKey: env.CSRF_SECRET ? Buffer.from(env.CSRF_SECRET, "utf8") : randomBytes(32),
};
if (!Number.isInteger(settings.port) || settings.port < 0 || settings.port > 65535) throw new Error(`PORT must be a port number, not ${env.PORT}`);

const customers = loadCustomers(env.CUSTOMERS_FILE);
const tollgate = new Tollgate(settings.tollgate);

/* CSRF protection: a browser cookie, and a per-challenge token in each form bound to it */

/** Names this browser (random); a form's token is only good with the cookie of the browser it was shown in. */
const BROWSER_COOKIE = settings.cookieSecure ? "__Host-browser" : "browser";
/** Largest form body read. */
const MAX_BODY_BYTES = 8 * 1024;

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/** This browser's id: from its cookie, or a new one set on the response. */
function browserId(req: IncomingMessage, res: ServerResponse): string {
  const existing = cookie(req, BROWSER_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const id = randomBytes(32).toString("base64url");
  res.setHeader("Set-Cookie", `${BROWSER_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${settings.cookieSecure ? "; Secure" : ""}`);
  return id;
}

/** The token of a form: HMAC of what it is for (`login` or `consent`), the challenge and the browser. */
function csrfToken(purpose: "login" | "consent", challenge: string, browser: string): string {
  return createHmac("sha256", settings.csrfKey).update(`${purpose}\n${challenge}\n${browser}`).digest("base64url");
}

/** Whether a posted form came from the page this application showed this browser for this challenge. */
function csrfValid(req: IncomingMessage, purpose: "login" | "consent", challenge: string, token: string | null): boolean {
  const browser = cookie(req, BROWSER_COOKIE);
  if (!browser || !token) return false;
  const expected = Buffer.from(csrfToken(purpose, challenge, browser));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/* HTTP helpers */

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8" }).end(body);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A challenge as it came (never changed); refused only when absent or absurdly long. */
function challengeOf(value: string | null): string {
  if (!value || value.length > 512) throw new HttpError(400, "No sign-in request", "This page was opened without a valid request.");
  return value;
}

/** The urlencoded form of a POST. @throws HttpError 415, 413. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) throw new HttpError(415, "Unsupported form", "This form must be sent by the page.");
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "Form too large", "This form is larger than it can be.");
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** Sends the browser where Tollgate said: a 303 to `redirect_to`, or the page posting a `form_post` answer to the TPP. */
function sendAnswer(res: ServerResponse, answer: Answer): void {
  const target = "redirect_to" in answer ? answer.redirect_to : answer.form_post.action;
  if (!URL.canParse(target) || !["http:", "https:"].includes(new URL(target).protocol)) throw new TollgateError(502, "bad_response", "Tollgate answered a target that is not an http(s) URL");
  if ("redirect_to" in answer) res.writeHead(303, { Location: answer.redirect_to }).end();
  else send(res, 200, autoPostPage(answer.form_post.action, answer.form_post.response, settings.bankName));
}

/* The pages */

async function showLogin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const challenge = challengeOf(url.searchParams.get("login_challenge"));
  const request = await tollgate.readLoginRequest(challenge);
  send(res, 200, loginPage(request, { csrf: csrfToken("login", challenge, browserId(req, res)) }, settings.bankName));
}

async function postLogin(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const challenge = challengeOf(form.get("login_challenge"));
  if (!csrfValid(req, "login", challenge, form.get("csrf"))) throw expiredForm();
  if (form.get("action") === "cancel") {
    sendAnswer(res, await tollgate.rejectLogin(challenge, { error: "access_denied", error_description: "the customer cancelled the sign-in at the bank" }));
    return;
  }
  const request = await tollgate.readLoginRequest(challenge);
  const username = (form.get("username") ?? "").trim();
  // REPLACE: the bank's own customer check and SCA (customers.ts).
  const result = checkCustomer(customers, username, form.get("password") ?? "", (form.get("otp") ?? "").trim(), request.sca_required);
  if (!result.ok) {
    const error = {
      credentials: "The username or password is not right.",
      otp: "The one-time code is not right.",
      "otp-missing": "Enter the one-time code from your banking app: this request needs strong customer authentication.",
    }[result.problem];
    send(res, 400, loginPage(request, { csrf: csrfToken("login", challenge, browserId(req, res)), username, error }, settings.bankName));
    return;
  }
  const sca = result.amr.includes("otp");
  const answer = await tollgate.acceptLogin(challenge, {
    subject: result.username,
    acr: sca ? ACR_SCA : ACR_PASSWORD,
    amr: result.amr,
    auth_time: Math.floor(Date.now() / 1000),
  });
  sendAnswer(res, answer);
}

async function showConsent(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const challenge = challengeOf(url.searchParams.get("consent_challenge"));
  const request = await tollgate.readConsentRequest(challenge);
  send(res, 200, consentPage(request, { csrf: csrfToken("consent", challenge, browserId(req, res)) }, settings.bankName));
}

async function postConsent(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const challenge = challengeOf(form.get("consent_challenge"));
  if (!csrfValid(req, "consent", challenge, form.get("csrf"))) throw expiredForm();
  const action = form.get("action");
  if (action === "deny") {
    sendAnswer(res, await tollgate.rejectConsent(challenge));
    return;
  }
  if (action !== "allow") throw new HttpError(400, "Choose Allow or Deny", "The form was sent without choosing Allow or Deny.");
  const request = await tollgate.readConsentRequest(challenge);
  const choice: ConsentChoice = {
    // Only scopes that were asked for: Tollgate lets a consent narrow them, never widen them.
    scopes: form.getAll("scope").filter((s) => request.requested_scope.includes(s)),
    accounts: form.getAll("account"),
    debtorAccount: form.get("debtor_account") ?? undefined,
  };
  const needs = choicesNeeded(request.authorization_details);
  const again = (error: string) => send(res, 400, consentPage(request, { csrf: csrfToken("consent", challenge, browserId(req, res)), choice, error }, settings.bankName));
  if (needs.debtorAccount && !choice.debtorAccount) return again("Choose the account to pay from.");
  if (needs.accounts && choice.accounts.length === 0) return again("Choose at least one account to share.");
  try {
    const answer = await tollgate.acceptConsent(challenge, {
      grant_scope: [...choice.scopes],
      ...(needs.accounts ? { accounts: [...choice.accounts] } : {}),
      ...(needs.debtorAccount && choice.debtorAccount ? { debtor_account: choice.debtorAccount } : {}),
    });
    sendAnswer(res, answer);
  } catch (error) {
    // A choice Tollgate refuses (no scope left, an account that is not the PSU's): the page again, with its reason.
    if (error instanceof TollgateError && error.status === 400 && error.error === "invalid_request") return again(`${error.description[0]?.toUpperCase() ?? ""}${error.description.slice(1)}.`);
    throw error;
  }
}

function expiredForm(): HttpError {
  return new HttpError(403, "This form has expired", "The form was not sent from the page this browser was shown, or the page is too old.");
}

/* The server */

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://app.invalid");
  const route = `${req.method} ${url.pathname}`;
  if (route === "GET /login") return showLogin(req, res, url);
  if (route === "POST /login") return postLogin(req, res);
  if (route === "GET /consent") return showConsent(req, res, url);
  if (route === "POST /consent") return postConsent(req, res);
  throw new HttpError(404, "Page not found", "There is no page here.");
}

/** An error as the PSU sees it. */
function failure(res: ServerResponse, error: unknown): void {
  if (res.headersSent) return void res.destroy();
  if (error instanceof HttpError) return send(res, error.status, errorPage(error.title, error.message, settings.bankName));
  if (error instanceof TollgateError && error.status === 404) {
    return send(res, 404, errorPage("This request has ended", "It was already answered, it expired, or it is not valid.", settings.bankName));
  }
  // Tollgate refused the answer itself (e.g. login_required: the PSU was idle too long after signing in): its reason.
  if (error instanceof TollgateError && (error.status === 400 || error.status === 409 || error.error === "login_required")) {
    return send(res, 400, errorPage("This request cannot go on", error.description, settings.bankName));
  }
  // Anything else is this application's problem (Tollgate unreachable, the admin client refused: CLIENT_ID, CLIENT_SECRET).
  console.error(error);
  send(res, 502, errorPage("Sign-in is not available", "The bank's sign-in cannot be reached right now. Try again in a few minutes.", settings.bankName));
}

const server = createServer((req, res) => {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("Cache-Control", "no-store");
  // The challenge is in this page's address: never in a Referer.
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  handle(req, res).catch((error: unknown) => failure(res, error));
});

server.listen(settings.port, settings.host, () => {
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  console.log(`delegated login app listening on http://${host}:${port} (Tollgate ${settings.tollgate.url}, client ${settings.tollgate.clientId})`);
  if (settings.tollgate.clientId === DEMO_ADMIN_CLIENT.id || !env.CUSTOMERS_FILE) console.log("DEMO: the demo admin client and/or the demo customers are in use; not for production");
});

for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
