/**
 * Client authentication with a signed JWT, `private_key_jwt` (RFC 7523 §2.2 and §3, OIDC
 * Core §9, FAPI 2.0 Security Profile §5.3.2.1): the client signs a short-lived assertion
 * with a key whose public half the app registered as a JWK Set (`jwks`) or publishes at a
 * `jwks_uri`. jose verifies the signature; the claims are checked here.
 */
import { createLocalJWKSet, createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { AddressPolicy } from "../kernel/addresses.js";
import { InvalidClient } from "../kernel/errors.js";
import { fetchBounded, OutboundRefused } from "../kernel/outbound.js";
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
  /** Where a fetch of `jwksUri` may connect (kernel/addresses.ts). */
  addresses: AddressPolicy;
}

/** What an assertion is checked against. */
export interface AssertionContext {
  /** The client the assertion must be from: its `iss` and `sub`. */
  clientId: string;
  keys: AssertionKeys;
  /** The issuer identifier (RFC 8414 `issuer`): the one `aud` accepted, as a JSON string. */
  issuer: string;
  /** Where used assertions are remembered until they expire. */
  replays: ReplayStore;
  /** The time of the request: `exp`, `iat` and `nbf` are compared with it. */
  now: Date;
  /** The realm of the `WWW-Authenticate` challenge of a refusal. */
  realm: string;
}

/** Remote key sets by address policy and `jwks_uri`, so a set is fetched once per cache period, not per request. Least recently used first. */
const remoteKeySets = new Map<string, JWTVerifyGetKey>();

/** How long a `jwks_uri` that failed is not fetched again, milliseconds: jose's cooldown between two fetches. */
const JWKS_COOLDOWN_MS = 30_000;

/** A `jwks_uri` that failed within the cooldown is not fetched. */
class JwksCoolingDown extends Error {}

/**
 * The key set of `jwksUri`, created on first use: jose caches the fetched set for 10
 * minutes, refetches it at most every 30 s when an assertion names an unknown key, and
 * gives up on a fetch after 5 s. The fetch is kernel/outbound.ts's: connected only where
 * `policy` allows, no redirect followed, at most 64 KiB read. A fetch that failed is not
 * tried again for the cooldown: until then the set fails at once, so a slow or huge
 * `jwks_uri` costs one fetch per 30 s, not one per token request.
 * @throws TypeError when `jwksUri` is not a URL.
 */
function remoteKeySet(jwksUri: string, policy: AddressPolicy): JWTVerifyGetKey {
  const key = `${policy} ${jwksUri}`;
  let keySet = remoteKeySets.get(key);
  if (keySet) {
    remoteKeySets.delete(key);
  } else {
    const remote = createRemoteJWKSet(new URL(jwksUri), {
      cacheMaxAge: 600_000,
      cooldownDuration: JWKS_COOLDOWN_MS,
      timeoutDuration: 5000,
      [customFetch]: (url: string, init: RequestInit) => fetchBounded(url, init, policy),
    });
    let failedAt = -Infinity;
    keySet = async (header, token) => {
      if (performance.now() - failedAt < JWKS_COOLDOWN_MS) throw new JwksCoolingDown();
      try {
        return await remote(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) failedAt = performance.now();
        throw error;
      }
    };
    if (remoteKeySets.size >= MAX_REMOTE_KEY_SETS) remoteKeySets.delete(remoteKeySets.keys().next().value!);
  }
  remoteKeySets.set(key, keySet);
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

/** Why jose refused a JWT of an app (`what`: "the client assertion", "the request object"), for its description: never the JWT itself. */
function joseRefusal(error: unknown, what: string): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return `${what}'s signature does not verify with the app's keys`;
  if (error instanceof errors.JWKSNoMatchingKey) return `none of the app's keys fits ${what}'s kid and alg`;
  if (error instanceof errors.JWKSTimeout) return "the app's jwks_uri did not answer in time";
  if (error instanceof OutboundRefused) return `the app's jwks_uri cannot be used: ${error.message}`;
  if (error instanceof JwksCoolingDown) return `the app's jwks_uri failed and is not fetched again for ${JWKS_COOLDOWN_MS / 1000} seconds`;
  if (error instanceof errors.JWTExpired) return `${what} has expired (exp)`;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return `${what}'s nbf is more than ${MAX_CLOCK_SKEW_SECONDS} seconds in the future`;
    return `${what}'s ${error.claim} claim is invalid`;
  }
  if (error instanceof errors.JWTInvalid) return `${what}'s payload is not a JSON object`;
  return `${what} is malformed, or the app's keys cannot be read`;
}

/** A JWT an app signed was refused; the message says why, naming the JWT, never quoting it. */
export class AppJwtRefused extends Error {}

/**
 * Verifies a JWT an app signed with one of its registered keys (a client assertion, a request
 * object): at most `maxLength` characters; `alg` one of {@link SIGNING_ALGORITHMS} (never
 * `none` nor an HMAC); signed by a key of `keys` (the `jwks` when registered, else the set at
 * `jwksUri`); `exp` after `now` and `nbf` not beyond it, with {@link MAX_CLOCK_SKEW_SECONDS}.
 * @param what - names the JWT in the refusals: "the client assertion", "the request object".
 * @returns its claims, for the caller to check.
 * @throws AppJwtRefused for every failure, jose's included, and when the app has no keys.
 */
export async function verifyAppJwt(jwt: string, keys: AssertionKeys, now: Date, what: string, maxLength = MAX_JWT_LENGTH): Promise<JWTPayload> {
  if (jwt.length > maxLength) throw new AppJwtRefused(`${what} is longer than ${maxLength} characters`);
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(jwt));
  } catch {
    throw new AppJwtRefused(`${what} is not a JWT`);
  }
  if (!isSigningAlgorithm(alg)) throw new AppJwtRefused(`${what}'s alg must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  const { jwks, jwksUri } = keys;
  if (!jwks && !jwksUri) throw new AppJwtRefused(`the app has no registered keys (jwks) to verify ${what} with`);
  try {
    const keySet = jwks ? localKeySet(jwks) : remoteKeySet(jwksUri!, keys.addresses);
    // jose checks the signature, then exp and nbf with the skew; the rest is the caller's.
    return (await jwtVerify(jwt, keySet, { algorithms: [...SIGNING_ALGORITHMS], currentDate: now, clockTolerance: MAX_CLOCK_SKEW_SECONDS })).payload;
  } catch (error) {
    throw new AppJwtRefused(joseRefusal(error, what));
  }
}

/** RFC 7523 §3: `iss`, `sub`, `aud`, `exp`, `iat` and `jti` of a verified assertion (jose has checked `nbf`). */
function checkClaims(payload: JWTPayload, ctx: AssertionContext): { jti: string; exp: number } {
  const refuse = (description: string) => new InvalidClient(description, ctx.realm);
  const { iss, sub, aud, exp, iat, jti } = payload;
  if (iss !== ctx.clientId) throw refuse("the client assertion's iss must be the client_id");
  if (sub !== ctx.clientId) throw refuse("the client assertion's sub must be the client_id");
  // FAPI 2.0 §5.3.2.1 and draft-ietf-oauth-rfc7523bis: the issuer alone, as a string; never an
  // endpoint URL or an array, so an assertion made for another server or endpoint is no good here.
  if (aud !== ctx.issuer) throw refuse(`the client assertion's aud must be this server's issuer identifier as a string, ${ctx.issuer}`);
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
 * else the set at `jwksUri`); `iss` and `sub` the client id; `aud` exactly `ctx.issuer`, a
 * JSON string (no array, no endpoint URL); `exp` (seconds since the epoch) after now and at
 * most {@link MAX_ASSERTION_LIFETIME_SECONDS} away; `iat` and `nbf`, when present, at most
 * {@link MAX_CLOCK_SKEW_SECONDS} in the future; `jti` of 1 to 256 characters, used once
 * (remembered until `exp`).
 * @throws InvalidClient (401) for every failure, jose's included, and when the app has no keys.
 */
export async function verifyClientAssertion(assertion: string, ctx: AssertionContext): Promise<void> {
  const refuse = (description: string) => new InvalidClient(description, ctx.realm);
  let payload: JWTPayload;
  try {
    payload = await verifyAppJwt(assertion, ctx.keys, ctx.now, "the client assertion");
  } catch (error) {
    throw error instanceof AppJwtRefused ? refuse(error.message) : error;
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
