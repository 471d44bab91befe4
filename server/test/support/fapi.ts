/**
 * The client side of FAPI 2.0 for the suites, built with `jose` as a TPP would: client
 * assertions for private_key_jwt (RFC 7523 §2.2) signed with the demo app's key, DPoP
 * proofs (RFC 9449 §4) from a key pair of the test's own, pushed authorization requests
 * (RFC 9126) and the whole PAR -> /authorize -> sign-in -> consent -> code walk. Every
 * builder takes overrides so the hostile cases can forge exactly one thing.
 */
import { randomUUID } from "node:crypto";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, type JWTHeaderParameters, type JWTPayload } from "jose";
import { DEMO } from "../../src/demo/seed.js";
import { DEMO_FAPI_PRIVATE_JWK } from "../../src/demo/fapi-key.js";
import { CLIENT_ASSERTION_TYPE } from "../../src/oauth/client-assertion.js";
import { accessTokenHash } from "../../src/oauth/dpop.js";
import { Browser, FORM, TOKEN_ENDPOINT, callbackParams, formBody, interactionIdFrom, json, pkcePair, randomState, send, signInInteraction, type Answer } from "./flow.js";

export const PAR_ENDPOINT = "/oauth2/v1/par";
/** The seeded fapi2 app's client id. */
export const FAPI_CLIENT_ID = DEMO.fapiApp.consumerKey;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The demo fapi2 app's private signing key (server/src/demo/fapi-key.ts). */
export function demoClientKey(): Promise<CryptoKey> {
  return importJWK(DEMO_FAPI_PRIVATE_JWK, "ES256") as Promise<CryptoKey>;
}

/** What to change in a client assertion: claims (undefined removes one), header, signing key and algorithm. */
export interface AssertionOptions {
  claims?: Record<string, unknown>;
  header?: Partial<JWTHeaderParameters>;
  key?: CryptoKey | Uint8Array;
  alg?: string;
}

/**
 * A client assertion (RFC 7523 §3) for `clientId`: iss = sub = the client, aud = `audience`
 * (the issuer), exp in 60 s, iat now, a fresh jti; signed ES256 with the demo app's key.
 */
export async function clientAssertion(audience: string, o: AssertionOptions = {}, clientId: string = FAPI_CLIENT_ID): Promise<string> {
  const claims: Record<string, unknown> = { iss: clientId, sub: clientId, aud: audience, exp: nowSeconds() + 60, iat: nowSeconds(), jti: randomUUID(), ...o.claims };
  for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
  return new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: o.alg ?? "ES256", kid: DEMO_FAPI_PRIVATE_JWK.kid, ...o.header }).sign(o.key ?? (await demoClientKey()));
}

/** The form fields of private_key_jwt client authentication. */
export async function assertionFields(audience: string, o: AssertionOptions = {}, clientId: string = FAPI_CLIENT_ID): Promise<Record<string, string>> {
  return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: await clientAssertion(audience, o, clientId) };
}

/** What to change in a DPoP proof: claims (undefined removes one), header, and the key that signs it. */
export interface ProofOptions {
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Signs with this instead of the pair's private key: another key, or HMAC bytes. */
  signWith?: CryptoKey | Uint8Array;
}

/** A DPoP key pair of a client (RFC 9449 §4.1), and proofs made with it. */
export class DpopKey {
  private constructor(
    readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    readonly jkt: string,
    readonly alg: string,
  ) {}

  /** A new key pair for `alg` (ES256, PS256, EdDSA, or a refused one such as RS256). */
  static async generate(alg = "ES256"): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(publicKey);
    return new DpopKey(privateKey, jwk, await calculateJwkThumbprint(jwk, "sha256"), alg);
  }

  /** A proof for `htm` `htu` (iat now, fresh jti), with `ath` for `accessToken` when given. */
  proof(htm: string, htu: string, accessToken?: string, o: ProofOptions = {}): Promise<string> {
    const claims: Record<string, unknown> = { htm, htu, iat: nowSeconds(), jti: randomUUID(), ...(accessToken ? { ath: accessTokenHash(accessToken) } : {}), ...o.claims };
    for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
    return new SignJWT(claims as JWTPayload)
      .setProtectedHeader({ typ: "dpop+jwt", alg: this.alg, jwk: this.publicJwk, ...o.header } as JWTHeaderParameters)
      .sign(o.signWith ?? this.privateKey);
  }
}

/** POSTs a form to `path` with extra headers (DPoP), through the harness (no 5xx). */
export function postForm(baseUrl: string, path: string, form: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Answer> {
  return send(`${baseUrl}${path}`, { method: "POST", headers: { "Content-Type": FORM, ...headers }, body: formBody(form) });
}

/** The authorization parameters a fapi2 app pushes: code flow, the demo callback, scope aisp, state, PKCE S256. */
export function pushedParams(challenge: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { response_type: "code", redirect_uri: DEMO.callbackUrl, scope: "aisp", state: randomState(), code_challenge: challenge, code_challenge_method: "S256", ...extra };
}

/** A pushed authorization request of the fapi2 demo app, authenticated with a fresh client assertion. */
export async function pushRequest(baseUrl: string, params: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Answer> {
  return postForm(baseUrl, PAR_ENDPOINT, { ...params, ...(await assertionFields(baseUrl)) }, headers);
}

/**
 * The front channel with a pushed request: GET /authorize?client_id&request_uri, sign in as
 * alice (password and passkey), consent to what was asked.
 * @param callbackUrl - the redirect URI the request named (a registered client's), without its query.
 * @returns the callback's parameters (code, state, iss).
 */
export async function authorizePushed(baseUrl: string, requestUri: string, clientId: string = FAPI_CLIENT_ID, callbackUrl: string = DEMO.callbackUrl): Promise<Record<string, string>> {
  const browser = new Browser(baseUrl);
  const start = await browser.fetch(`/authorize?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(requestUri)}`);
  if (start.status !== 302) throw new Error(`/authorize answered ${start.status}: ${await start.text()}`);
  const location = start.headers.get("location");
  if (!location?.startsWith("/")) return callbackParams(location, callbackUrl);
  const id = interactionIdFrom(location);
  const view = await json(await browser.fetch(`/interaction/${id}`));
  // alice has a second factor, and the PSD2 products require SCA: the password, then her passkey.
  const signedIn = await signInInteraction(browser, id, view.csrfToken as string);
  const login = await json(signedIn);
  if (signedIn.status !== 200) throw new Error(`sign-in answered ${signedIn.status}: ${JSON.stringify(login)}`);
  if (login.redirectTo) return callbackParams(login.redirectTo, callbackUrl);
  const scopes = (view.scopes as { name: string }[]).map((s) => s.name);
  const consent = await json(await browser.fetch(`/interaction/${id}/consent`, { json: { approve: true, scopes }, headers: { "X-CSRF-Token": login.csrfToken } }));
  return callbackParams(consent.redirectTo, callbackUrl);
}

/** A code of the fapi2 demo app through PAR, and its PKCE verifier. */
export async function fapiCode(baseUrl: string, extra: Record<string, string | undefined> = {}, headers: Record<string, string> = {}): Promise<{ code: string; verifier: string; callback: Record<string, string> }> {
  const pkce = pkcePair();
  const pushed = await pushRequest(baseUrl, pushedParams(pkce.challenge, extra), headers);
  if (pushed.status !== 201) throw new Error(`PAR answered ${pushed.status}: ${pushed.text}`);
  const callback = await authorizePushed(baseUrl, pushed.body.request_uri);
  if (!callback.code) throw new Error(`no code: ${JSON.stringify(callback)}`);
  return { code: callback.code, verifier: pkce.verifier, callback };
}

/** Exchanges a code of the fapi2 demo app (private_key_jwt, a proof by `key`). */
export async function exchangeCode(baseUrl: string, code: string, verifier: string, key: DpopKey | undefined): Promise<Answer> {
  const form = { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier, ...(await assertionFields(baseUrl)) };
  return postForm(baseUrl, TOKEN_ENDPOINT, form, key ? { DPoP: await key.proof("POST", `${baseUrl}${TOKEN_ENDPOINT}`) } : {});
}

/** DPoP-bound tokens of the fapi2 demo app for alice, through the whole flow; fails unless 200. */
export async function fapiTokens(baseUrl: string, key: DpopKey, extra: Record<string, string | undefined> = {}): Promise<{ access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string }> {
  const { code, verifier } = await fapiCode(baseUrl, extra);
  const answer = await exchangeCode(baseUrl, code, verifier, key);
  if (answer.status !== 200) throw new Error(`token endpoint answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** Refreshes with the fapi2 demo app (private_key_jwt, a proof by `key`). */
export async function refresh(baseUrl: string, refreshToken: string, key: DpopKey | undefined): Promise<Answer> {
  const form = { grant_type: "refresh_token", refresh_token: refreshToken, ...(await assertionFields(baseUrl)) };
  return postForm(baseUrl, TOKEN_ENDPOINT, form, key ? { DPoP: await key.proof("POST", `${baseUrl}${TOKEN_ENDPOINT}`) } : {});
}

/** A gateway call with `Authorization: DPoP` and a proof by `key` for it (override anything through `o`). */
export async function dpopCall(baseUrl: string, accessToken: string, key: DpopKey, path = "/accounts/", o: ProofOptions & { scheme?: string; method?: string } = {}): Promise<Answer> {
  const method = o.method ?? "GET";
  const htu = `${baseUrl}${path.split("?")[0]}`;
  return send(`${baseUrl}${path}`, { method, headers: { Authorization: `${o.scheme ?? "DPoP"} ${accessToken}`, DPoP: await key.proof(method, htu, accessToken, o) } });
}
