/**
 * DEMO ONLY. `npm run demo:fapi`: a FAPI 2.0 client, step by step, against a running
 * Tollgate (`npm start`; BASE_URL, default http://localhost:3000) and its seeded `fapi2` demo
 * app `demo-fapi-key`, whose private key (server/src/demo/fapi-key.ts) is public: never reuse it.
 * It shows: a DPoP key pair (RFC 9449); a pushed authorization request (RFC 9126) with
 * private_key_jwt (RFC 7523), PKCE S256 and a DPoP proof that binds the code; alice's
 * sign-in (password and her demo TOTP code: the PSD2 products need SCA) and consent; the code exchange for DPoP-bound tokens; a gateway call with
 * `Authorization: DPoP` and a proof (the upstream gets X-DPoP-JKT; the same token is
 * refused as Bearer); a refresh without rotation. Sign-in and consent run through the SPA's
 * JSON interaction API, or with `--browser` in your browser (paste the callback URL back).
 * Answers DPoP nonce challenges (DPOP_NONCES=true). Exits 1 on the first failure.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from "jose";
import { generate } from "otplib";
import { DEMO_FAPI_PRIVATE_JWK } from "../server/src/demo/fapi-key.js";
import { DEMO } from "../server/src/demo/seed.js";

const base = (process.env.BASE_URL ?? "http://localhost:3000").replace(/\/$/, "");
const clientId = DEMO.fapiApp.consumerKey;
const now = () => Math.floor(Date.now() / 1000);
const b64sha256 = (s: string) => createHash("sha256").update(s).digest("base64url");
const short = (t: string) => (t.length > 20 ? `${t.slice(0, 6)}…${t.slice(-6)}` : t);
const step = (title: string) => console.log(`\n== ${title}`);
const show = (label: string, value: unknown) => console.log(`   ${label.padEnd(9)} ${typeof value === "string" ? value : JSON.stringify(value)}`);
const fail = (what: string, res?: Response, body?: unknown): never => {
  throw new Error(res ? `${what}: ${res.status} ${JSON.stringify(body)} ${res.headers.get("www-authenticate") ?? ""}`.trim() : what);
};
async function body(res: Response): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const text = await res.text();
  try { return JSON.parse(text); } catch { return text; }
}

// --- the client's keys: the demo app's signing key, and (a) a DPoP key pair of our own ---
const clientKey = await importJWK(DEMO_FAPI_PRIVATE_JWK, "ES256");
let issuer = "";
/** private_key_jwt (RFC 7523 §2.2): iss = sub = the client, aud = the issuer, exp in 60 s, a fresh jti. */
const clientAuth = async () => ({
  client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
  client_assertion: await new SignJWT({ iss: clientId, sub: clientId, aud: issuer, iat: now(), exp: now() + 60, jti: randomUUID() })
    .setProtectedHeader({ alg: "ES256", kid: DEMO_FAPI_PRIVATE_JWK.kid }).sign(clientKey),
});
const dpop = await generateKeyPair("ES256");
const dpopJwk = await exportJWK(dpop.publicKey);
let nonce: string | undefined; // the server's DPoP-Nonce, when it runs with DPOP_NONCES=true (RFC 9449 §8)
/** A DPoP proof (RFC 9449 §4.2) for one request; with `ath` when it carries an access token. */
const proof = (htm: string, htu: string, accessToken?: string) =>
  new SignJWT({ htm, htu, iat: now(), jti: randomUUID(), ...(accessToken ? { ath: b64sha256(accessToken) } : {}), ...(nonce ? { nonce } : {}) })
    .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk: dpopJwk }).sign(dpop.privateKey);
/** Sends a request with a new proof; once more with the server's nonce if it asks for one (use_dpop_nonce). */
async function withProof(method: string, url: string, init: () => Promise<{ headers?: Record<string, string>; form?: Record<string, string> }>, token?: string) {
  for (let attempt = 1; ; attempt++) {
    const { headers = {}, form } = await init();
    const res = await fetch(url, { method, headers: { ...headers, DPoP: await proof(method, url, token), ...(form ? { "Content-Type": "application/x-www-form-urlencoded" } : {}) }, body: form && new URLSearchParams(form) });
    const answer = await body(res);
    nonce = res.headers.get("dpop-nonce") ?? nonce;
    const askedForNonce = answer?.error === "use_dpop_nonce" || /use_dpop_nonce/.test(res.headers.get("www-authenticate") ?? "");
    if (!askedForNonce || attempt > 1) return { res, body: answer };
    show("nonce", `${res.status} use_dpop_nonce: again, with the server's DPoP-Nonce (DPOP_NONCES=true)`);
  }
}

/** A browser's cookie jar over fetch, for the SPA's JSON interaction API; never follows redirects. */
const jar = new Map<string, string>();
async function browse(url: string, json?: unknown, csrf?: string) {
  const headers: Record<string, string> = { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), ...(csrf ? { "X-CSRF-Token": csrf } : {}), ...(json ? { "Content-Type": "application/json" } : {}) };
  const res = await fetch(url, { method: json ? "POST" : "GET", headers, body: json ? JSON.stringify(json) : undefined, redirect: "manual" });
  for (const c of res.headers.getSetCookie()) {
    const [name, value] = c.split(";")[0]!.split(/=(.*)/s) as [string, string];
    if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(name); else jar.set(name, value);
  }
  return res;
}
/** Signs in as alice and consents, as the SPA would; returns the callback URL the server redirects to. */
async function signInAndConsent(authorizeUrl: string, origin: string): Promise<string> {
  const start = await browse(authorizeUrl);
  const next = start.headers.get("location") ?? fail("GET /authorize", start, await body(start));
  if (!next.startsWith("/")) return next; // an error, or a code without any interaction
  const id = new URL(next, origin).searchParams.get("interaction")!;
  const view = await body(await browse(`${origin}/interaction/${id}`));
  show("interact", `${next} -> stage ${view.stage}, client "${view.client?.name ?? clientId}"`);
  const login = await browse(`${origin}/interaction/${id}/login`, { username: DEMO.user.username, password: DEMO.user.password }, view.csrfToken);
  let signedIn = await body(login);
  if (login.status !== 200) fail("sign-in", login, signedIn);
  show("sign-in", `${DEMO.user.username} -> stage ${signedIn.stage ?? "done"}`);
  if (signedIn.stage === "factor") {
    // PSD2 SCA: the second factor, alice's authenticator app (her public demo key). A code is accepted once per 30-s step.
    const code = await generate({ secret: DEMO.user.totpSecret });
    const factor = await browse(`${origin}/interaction/${id}/factor`, { method: "totp", code }, signedIn.csrfToken);
    signedIn = await body(factor);
    if (factor.status !== 200) fail("second factor (a code is accepted once: run again in 30 s)", factor, signedIn);
    show("factor", `TOTP ${code} -> ${signedIn.redirectTo ? "consent remembered" : `stage ${signedIn.stage}`}`);
  }
  if (signedIn.redirectTo) return signedIn.redirectTo;
  const scopes = (view.scopes as { name: string }[]).map((s) => s.name);
  const consent = await browse(`${origin}/interaction/${id}/consent`, { approve: true, scopes }, signedIn.csrfToken);
  const approved = await body(consent);
  if (consent.status !== 200 || !approved.redirectTo) fail("consent", consent, approved);
  show("consent", `approve ${scopes.join(" ")}`);
  return approved.redirectTo;
}

try {
  step(`metadata: GET ${base}/.well-known/oauth-authorization-server`);
  const meta = await body(await fetch(`${base}/.well-known/oauth-authorization-server`).catch(() => fail(`no server at ${base}: start it with npm start (or set BASE_URL)`)));
  if (!meta?.pushed_authorization_request_endpoint) fail(`${base} is not a Tollgate with PAR: ${JSON.stringify(meta).slice(0, 200)}`);
  ({ issuer } = meta);
  show("issuer", issuer);
  show("PAR", meta.pushed_authorization_request_endpoint);
  show("DPoP algs", meta.dpop_signing_alg_values_supported);

  step("a. DPoP key pair (ES256), generated here");
  const jkt = await calculateJwkThumbprint(dpopJwk);
  show("jkt", jkt);

  step(`b. PAR: POST ${meta.pushed_authorization_request_endpoint} (private_key_jwt, PKCE S256, DPoP proof)`);
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(12).toString("base64url");
  const params = { client_id: clientId, response_type: "code", redirect_uri: DEMO.callbackUrl, scope: "aisp", state, code_challenge: b64sha256(verifier), code_challenge_method: "S256" };
  show("sent", `response_type=code scope=aisp state=${state} code_challenge=${short(params.code_challenge)} (S256)`);
  show("", `client_assertion: ES256, kid ${DEMO_FAPI_PRIVATE_JWK.kid}, iss=sub=${clientId}, aud=${issuer}, exp +60 s; DPoP proof htm=POST`);
  const par = await withProof("POST", meta.pushed_authorization_request_endpoint, async () => ({ form: { ...params, ...(await clientAuth()) } }));
  if (par.res.status !== 201) fail("PAR", par.res, par.body);
  show("201", par.body);

  step("c. sign-in and consent");
  const authorizeUrl = `${meta.authorization_endpoint}?client_id=${clientId}&request_uri=${encodeURIComponent(par.body.request_uri)}`;
  show("open", authorizeUrl);
  let callback: string;
  if (process.argv.includes("--browser")) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    callback = await rl.question(`   sign in as ${DEMO.user.username} / ${DEMO.user.password}, allow, then paste the address bar (within 60 s): `);
    rl.close();
  } else {
    callback = await signInAndConsent(authorizeUrl, new URL(meta.authorization_endpoint).origin);
  }
  const answer = new URL(callback.trim()).searchParams;
  show("callback", callback.replace(/code=[^&]+/, (c) => `code=${short(c.slice(5))}`));
  if (!answer.get("code")) fail(`no code in the callback: ${answer.get("error")} ${answer.get("error_description") ?? ""}`);
  if (answer.get("state") !== state || answer.get("iss") !== issuer) fail("the callback's state or iss is not ours");

  step(`d. token: POST ${meta.token_endpoint} grant_type=authorization_code (private_key_jwt, DPoP proof)`);
  const code = { grant_type: "authorization_code", code: answer.get("code")!, redirect_uri: DEMO.callbackUrl, code_verifier: verifier };
  const tokens = await withProof("POST", meta.token_endpoint, async () => ({ form: { ...code, ...(await clientAuth()) } }));
  if (tokens.res.status !== 200 || tokens.body.token_type !== "DPoP") fail("code exchange", tokens.res, tokens.body);
  show("200", { ...tokens.body, access_token: short(tokens.body.access_token), refresh_token: short(tokens.body.refresh_token) });

  step(`e. gateway: GET ${base}/accounts/ with Authorization: DPoP and a proof (ath)`);
  const accounts = `${base}/accounts/`;
  const call = await withProof("GET", accounts, async () => ({ headers: { Authorization: `DPoP ${tokens.body.access_token}` } }), tokens.body.access_token);
  if (call.res.status !== 200) fail("DPoP gateway call", call.res, call.body);
  show("200", (call.body.accounts as { resourceId: string; iban: string }[]).map((a) => `${a.resourceId} ${a.iban}`).join(", "));
  const echo = await withProof("GET", `${accounts}echo/`, async () => ({ headers: { Authorization: `DPoP ${tokens.body.access_token}` } }), tokens.body.access_token);
  if (echo.body?.request?.headers?.["x-dpop-jkt"] !== jkt) fail("the upstream should get X-DPoP-JKT", echo.res, echo.body);
  show("upstream", `GET /accounts/echo/ shows what the gateway forwarded: X-DPoP-JKT ${jkt}`);
  const bearer = await fetch(accounts, { headers: { Authorization: `Bearer ${tokens.body.access_token}` } });
  await bearer.body?.cancel();
  if (bearer.status !== 401 || !bearer.headers.get("www-authenticate")?.startsWith("DPoP ")) fail("the same token as Bearer should be refused", bearer);
  show("Bearer", `401 WWW-Authenticate: ${bearer.headers.get("www-authenticate")}`);

  step(`f. refresh: POST ${meta.token_endpoint} grant_type=refresh_token (new assertion, new proof)`);
  const refresh = async () => {
    const form = { grant_type: "refresh_token", refresh_token: tokens.body.refresh_token };
    const answer = await withProof("POST", meta.token_endpoint, async () => ({ form: { ...form, ...(await clientAuth()) } }));
    if (answer.res.status !== 200 || answer.body.token_type !== "DPoP") fail("refresh", answer.res, answer.body);
    if (answer.body.refresh_token) fail("a fapi2 refresh token should not rotate", answer.res, answer.body);
    return answer.body;
  };
  const refreshed = await refresh();
  show("200", { ...refreshed, access_token: short(refreshed.access_token) });
  await refresh();
  show("rotated", "no: the same refresh token worked a second time, still bound to the DPoP key");
  console.log("\nFAPI 2.0 flow complete.");
} catch (err) {
  console.error(`\ndemo:fapi FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
