/**
 * Client authentication with a signed JWT, `private_key_jwt` (RFC 7523 §2.2 and §3, OIDC
 * Core §9, FAPI 2.0 Security Profile §5.3.2.1): the client signs a short-lived assertion
 * with a key whose public half the app registered as a JWK Set (`jwks`) or publishes at a
 * `jwks_uri`. jose verifies the signature; the claims are checked here.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { InvalidClient } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import type { ReplayStore } from "../stores/replays.js";
import { isSigningAlgorithm, MAX_JWT_LENGTH, SIGNING_ALGORITHMS } from "./signing.js";

/** The `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2). */
export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** Longest lifetime of an assertion accepted, in seconds: `exp` at most this far after now. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** How far in the future `iat` and `nbf` may be, in seconds: the clock skew allowed to a client. */
export const MAX_CLOCK_SKEW_SECONDS = 10;

/** Longest `jti` accepted, in characters: it is stored (hashed) until the assertion expires. */
const MAX_JTI_LENGTH = 256;
/** Most `jwks_uri` key sets kept at once; past it the least recently used is dropped. */
const MAX_REMOTE_KEY_SETS = 1000;

/** An app's registered keys: a JWK Set, or the URL of one (OIDC Dynamic Client Registration §2 `jwks`, `jwks_uri`). */
export interface AssertionKeys {
  jwks: { keys: object[] } | null;
  jwksUri: string | null;
}

/** What an assertion is checked against. */
export interface AssertionContext {
  /** The client the assertion must be from: its `iss` and `sub`. */
  clientId: string;
  keys: AssertionKeys;
  /** The `aud` values accepted: the issuer identifier first, then the endpoint URLs also accepted. */
  audiences: readonly string[];
  /** Where used assertions are remembered until they expire. */
  replays: ReplayStore;
  /** The time of the request: `exp`, `iat` and `nbf` are compared with it. */
  now: Date;
  /** The realm of the `WWW-Authenticate` challenge of a refusal. */
  realm: string;
}

/** Remote key sets by `jwks_uri`, so a set is fetched once per cache period, not per request. Least recently used first. */
const remoteKeySets = new Map<string, JWTVerifyGetKey>();

/**
 * The key set of `jwksUri`, created on first use: jose caches the fetched set for 10
 * minutes, refetches it at most every 30 s when an assertion names an unknown key, and
 * gives up on a fetch after 5 s.
 * @throws TypeError when `jwksUri` is not a URL.
 */
function remoteKeySet(jwksUri: string): JWTVerifyGetKey {
  let keySet = remoteKeySets.get(jwksUri);
  if (keySet) {
    remoteKeySets.delete(jwksUri);
  } else {
    keySet = createRemoteJWKSet(new URL(jwksUri), { cacheMaxAge: 600_000, cooldownDuration: 30_000, timeoutDuration: 5000 });
    if (remoteKeySets.size >= MAX_REMOTE_KEY_SETS) remoteKeySets.delete(remoteKeySets.keys().next().value!);
  }
  remoteKeySets.set(jwksUri, keySet);
  return keySet;
}

/**
 * The key set of a registered JWK Set, one per set object: a client record (and so its
 * `jwks`) stays the same object while the catalog cache holds it, and jose's key set imports
 * each key once, so an assertion is not paid for with a key import.
 */
const localKeySets = new WeakMap<object, JWTVerifyGetKey>();

function localKeySet(jwks: object): JWTVerifyGetKey {
  let keySet = localKeySets.get(jwks);
  if (!keySet) localKeySets.set(jwks, (keySet = createLocalJWKSet(jwks as JSONWebKeySet)));
  return keySet;
}

/** Why jose refused an assertion, for its description: never the assertion itself. */
function joseRefusal(error: unknown): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the client assertion's signature does not verify with the app's keys";
  if (error instanceof errors.JWKSNoMatchingKey) return "none of the app's keys fits the client assertion's kid and alg";
  if (error instanceof errors.JWKSTimeout) return "the app's jwks_uri did not answer in time";
  if (error instanceof errors.JWTExpired) return "the client assertion has expired (exp)";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return `the client assertion's nbf is more than ${MAX_CLOCK_SKEW_SECONDS} seconds in the future`;
    return `the client assertion's ${error.claim} claim is invalid`;
  }
  if (error instanceof errors.JWTInvalid) return "the client assertion's payload is not a JSON object";
  return "the client assertion is malformed, or the app's keys cannot be read";
}

/** RFC 7523 §3: `iss`, `sub`, `aud`, `exp`, `iat` and `jti` of a verified assertion (jose has checked `nbf`). */
function checkClaims(payload: JWTPayload, ctx: AssertionContext): { jti: string; exp: number } {
  const refuse = (description: string) => new InvalidClient(description, ctx.realm);
  const { iss, sub, aud, exp, iat, jti } = payload;
  if (iss !== ctx.clientId) throw refuse("the client assertion's iss must be the client_id");
  if (sub !== ctx.clientId) throw refuse("the client assertion's sub must be the client_id");
  // FAPI 2.0 §5.3.2.1 and RFC 7523bis: one audience, never an array naming other servers too.
  if (Array.isArray(aud) && aud.length > 1) throw refuse("the client assertion's aud must be a single value, not an array of several");
  const audience = Array.isArray(aud) ? aud[0] : aud;
  if (audience === undefined || !ctx.audiences.includes(audience)) throw refuse(`the client assertion's aud must be this server's issuer identifier, ${ctx.audiences[0] ?? ""}`);
  const nowSeconds = Math.floor(ctx.now.getTime() / 1000);
  if (typeof exp !== "number") throw refuse("the client assertion needs an exp claim");
  if (exp <= nowSeconds) throw refuse("the client assertion has expired (exp)");
  if (exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS) throw refuse(`the client assertion's exp is more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds away`);
  if (iat !== undefined && iat > nowSeconds + MAX_CLOCK_SKEW_SECONDS) throw refuse(`the client assertion's iat is more than ${MAX_CLOCK_SKEW_SECONDS} seconds in the future`);
  if (typeof jti !== "string" || jti.length < 1 || jti.length > MAX_JTI_LENGTH) throw refuse(`the client assertion needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  return { jti, exp };
}

/**
 * Authenticates a client by its JWT assertion (RFC 7523 §3, OIDC Core §9 `private_key_jwt`,
 * FAPI 2.0 §5.3.2.1): at most {@link MAX_JWT_LENGTH} characters; `alg` one of
 * {@link SIGNING_ALGORITHMS}; signed by a key of `ctx.keys` (the `jwks` when registered,
 * else the set at `jwksUri`); `iss` and `sub` the client id; `aud` one of `ctx.audiences`,
 * as a string or an array of exactly one; `exp` (seconds since the epoch) after now and at
 * most {@link MAX_ASSERTION_LIFETIME_SECONDS} away; `iat` and `nbf`, when present, at most
 * {@link MAX_CLOCK_SKEW_SECONDS} in the future; `jti` of 1 to 256 characters, used once
 * (remembered until `exp`).
 * @throws InvalidClient (401) for every failure, jose's included, and when the app has no keys.
 */
export async function verifyClientAssertion(assertion: string, ctx: AssertionContext): Promise<void> {
  const refuse = (description: string) => new InvalidClient(description, ctx.realm);
  if (assertion.length > MAX_JWT_LENGTH) throw refuse(`the client assertion is longer than ${MAX_JWT_LENGTH} characters`);
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(assertion));
  } catch {
    throw refuse("the client assertion is not a JWT");
  }
  if (!isSigningAlgorithm(alg)) throw refuse(`the client assertion's alg must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  const { jwks, jwksUri } = ctx.keys;
  if (!jwks && !jwksUri) throw refuse("the app has no registered keys (jwks) for private_key_jwt");
  let payload: JWTPayload;
  try {
    const keySet = jwks ? localKeySet(jwks) : remoteKeySet(jwksUri!);
    // jose checks the signature, then exp and nbf with the skew; everything else is checkClaims'.
    ({ payload } = await jwtVerify(assertion, keySet, { algorithms: [...SIGNING_ALGORITHMS], currentDate: ctx.now, clockTolerance: MAX_CLOCK_SKEW_SECONDS }));
  } catch (error) {
    throw refuse(joseRefusal(error));
  }
  const { jti, exp } = checkClaims(payload, ctx);
  if (!(await ctx.replays.firstUse(hashSecret(`assertion:${ctx.clientId}:${jti}`), new Date(exp * 1000), ctx.now))) {
    throw refuse("the client assertion was already used (jti replay)");
  }
}

/**
 * The `iss` claim of an assertion, read without verifying anything, to find the client
 * when the request has no `client_id` (RFC 7523 §3: `iss` is the client id). Bounded cost:
 * an assertion longer than {@link MAX_JWT_LENGTH} characters is not decoded.
 * @returns the `iss` string, or undefined when the assertion is too long, not a JWT, or has
 *   no string `iss`. Never throws.
 */
export function unverifiedAssertionIssuer(assertion: string): string | undefined {
  if (assertion.length > MAX_JWT_LENGTH) return undefined;
  try {
    const { iss } = decodeJwt(assertion);
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}
