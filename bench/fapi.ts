/**
 * The FAPI 2.0 client side of `npm run bench` (issue 15), the same against Tollgate and the
 * oidc-provider FAPI peer: ES256 JWTs signed with node:crypto (client assertions, RFC 7523
 * `private_key_jwt`, with the demo fapi2 app's key of server/src/demo/fapi-key.ts, DEMO
 * ONLY; DPoP proofs, RFC 9449, with a key made per process); the pushed authorization
 * request, front channel and code exchange that give a DPoP-bound refresh token; and
 * targets whose every request carries JWTs of its own, built before each run (bench/run.ts)
 * or batch of requests (bench/callgrind.ts), since a server accepts a `jti` once.
 */
import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { DEMO_FAPI_PRIVATE_JWK } from "../server/src/demo/fapi-key.js";
import { DEMO } from "../server/src/demo/seed.js";
import { CLIENT_ASSERTION_TYPE, MAX_ASSERTION_LIFETIME_SECONDS } from "../server/src/oauth/client-assertion.js";
import { accessTokenHash, DPOP_PROOF_MAX_AGE_SECONDS } from "../server/src/oauth/dpop.js";
import { Browser, formBody, obtainCode, pkcePair, randomState } from "../server/test/support/flow.js";
import { codeFromRedirects, eachOnce, enrolDemoPasskey, type OneUse, type Target } from "./support.js";

/** Lifetime of a client assertion, seconds: it outlives any run its request is built for. */
const ASSERTION_LIFETIME_SECONDS = Math.min(120, MAX_ASSERTION_LIFETIME_SECONDS);
/** Seconds kept between a run's end and the age at which its oldest DPoP proof would be refused. */
const PROOF_AGE_MARGIN_SECONDS = 5;
/** A run gets this many times the requests per second its scenario reached before, times its seconds. */
const REQUEST_MARGIN = 2;

/** An ES256 key and the encoded JOSE header of the JWTs it signs. */
interface Signer {
  key: KeyObject;
  header: string;
}

/** base64url of the JSON of `value`: a JWS header or payload. */
function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** A compact JWS of `claims` (RFC 7515 §7.1), ES256: the signature as R || S (RFC 7518 §3.4). */
function signJwt({ key, header }: Signer, claims: Record<string, unknown>): string {
  const input = `${header}.${encode(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}

/** The demo fapi2 app's key, registered at both servers; its `kid` names it in the app's JWK Set. */
const CLIENT_SIGNER: Signer = {
  key: createPrivateKey({ key: DEMO_FAPI_PRIVATE_JWK, format: "jwk" }),
  header: encode({ alg: "ES256", typ: "JWT", kid: DEMO_FAPI_PRIVATE_JWK.kid }),
};

/** The DPoP key of this benchmark process: its public half travels in every proof's header (RFC 9449 §4.2). */
const DPOP_SIGNER: Signer = (() => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { key: privateKey, header: encode({ typ: "dpop+jwt", alg: "ES256", jwk: publicKey.export({ format: "jwk" }) }) };
})();

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What a FAPI client needs of a server. */
export interface FapiServer {
  clientId: string;
  /** The issuer identifier: the `aud` of every client assertion (FAPI 2.0 §5.3.2.1). */
  issuer: string;
  parEndpoint: string;
  tokenEndpoint: string;
  /** The front channel of a pushed request: from the authorization endpoint to the code the callback receives. */
  authorize(requestUri: string): Promise<string>;
}

/** The form fields of `private_key_jwt` with a new assertion for `server` made at `iat`. */
function clientAuthentication(server: FapiServer, iat = nowSeconds()): Record<string, string> {
  const { clientId, issuer } = server;
  const claims = { iss: clientId, sub: clientId, aud: issuer, jti: randomUUID(), iat, exp: iat + ASSERTION_LIFETIME_SECONDS };
  return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: signJwt(CLIENT_SIGNER, claims) };
}

/**
 * A new DPoP proof for `htm` `htu` made at `iat` (RFC 9449 §4.2).
 * @param ath - the hash of the access token the proof goes with (accessTokenHash), if any.
 */
function dpopProof(htm: "GET" | "POST", htu: string, iat = nowSeconds(), ath?: string): string {
  return signJwt(DPOP_SIGNER, { jti: randomUUID(), htm, htu, iat, ...(ath === undefined ? {} : { ath }) });
}

/** The endpoints a server's authorization server metadata (RFC 8414) names. */
async function endpoints(metadataUrl: string): Promise<{ issuer: string; parEndpoint: string; tokenEndpoint: string; authorizationEndpoint: string }> {
  const res = await fetch(metadataUrl);
  if (res.status !== 200) throw new Error(`GET ${metadataUrl} answered ${res.status}: ${await res.text()}`);
  const m = (await res.json()) as Record<string, string>;
  return { issuer: m.issuer!, parEndpoint: m.pushed_authorization_request_endpoint!, tokenEndpoint: m.token_endpoint!, authorizationEndpoint: m.authorization_endpoint! };
}

/**
 * Tollgate at `baseUrl` as the demo fapi2 app uses it; the front channel is alice's sign-in
 * (her password and a passkey, see support.ts enrolDemoPasskey: scope aisp requires strong
 * customer authentication) and consent through the interaction JSON API
 * (server/test/support/flow.ts obtainCode), starting from `/authorize?client_id&request_uri`
 * alone (RFC 9126 §4).
 */
export async function tollgateFapi(baseUrl: string): Promise<FapiServer> {
  const clientId = DEMO.fapiApp.consumerKey;
  const { issuer, parEndpoint, tokenEndpoint } = await endpoints(`${baseUrl}/.well-known/oauth-authorization-server`);
  // obtainCode's own authorization parameters left out: they were pushed, and only client_id may go with request_uri.
  const pushedOnly = { response_type: undefined, scope: undefined, redirect_uri: undefined, state: undefined };
  return {
    clientId,
    issuer,
    parEndpoint,
    tokenEndpoint,
    async authorize(requestUri) {
      await enrolDemoPasskey(baseUrl);
      return (await obtainCode(baseUrl, { client: { consumerKey: clientId, consumerSecret: "" }, extra: { ...pushedOnly, request_uri: requestUri } })).code;
    },
  };
}

/**
 * The oidc-provider FAPI peer at `issuer` (bench/peers/oidc-provider-fapi.ts) as its client
 * `clientId` uses it; the front channel follows the redirects, the peer completing the
 * interaction on its own.
 */
export async function oidcProviderFapi(issuer: string, clientId: string): Promise<FapiServer> {
  const { authorizationEndpoint, ...rest } = await endpoints(`${issuer}/.well-known/openid-configuration`);
  return {
    clientId,
    ...rest,
    authorize: (requestUri) => codeFromRedirects(new Browser(issuer), `${authorizationEndpoint}?${formBody({ client_id: clientId, request_uri: requestUri })}`),
  };
}

/**
 * POSTs `form` to `url` as the client (a new client assertion), with a new DPoP proof when
 * `dpop` is set.
 * @returns the JSON answer. @throws unless the answer is `status`.
 */
async function clientPost(server: FapiServer, url: string, form: Record<string, string>, dpop: boolean, status: number): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop ? { dpop: dpopProof("POST", url) } : {}) },
    body: formBody({ ...form, ...clientAuthentication(server) }),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * A DPoP-bound refresh token of `server`'s client for scope `aisp`: a pushed authorization
 * request (RFC 9126) with PKCE, the front channel, and the code exchanged with a DPoP proof
 * of this process's key.
 */
export async function fapiRefreshToken(server: FapiServer): Promise<string> {
  const pkce = pkcePair();
  const pushed = await clientPost(
    server,
    server.parEndpoint,
    {
      client_id: server.clientId,
      response_type: "code",
      redirect_uri: DEMO.callbackUrl,
      scope: "aisp",
      state: randomState(),
      code_challenge: pkce.challenge,
      code_challenge_method: "S256",
    },
    false,
    201,
  );
  const code = await server.authorize(pushed.request_uri as string);
  const tokens = await clientPost(server, server.tokenEndpoint, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: pkce.verifier }, true, 200);
  if (tokens.token_type !== "DPoP" || typeof tokens.refresh_token !== "string") throw new Error(`the code exchange at ${server.tokenEndpoint} gave no DPoP-bound refresh token: ${JSON.stringify(tokens)}`);
  return tokens.refresh_token;
}

/** A DPoP-bound access token of `server`'s client by the client credentials grant (RFC 6749 §4.4), with a DPoP proof of this process's key. */
export async function dpopClientCredentialsToken(server: FapiServer): Promise<string> {
  const tokens = await clientPost(server, server.tokenEndpoint, { grant_type: "client_credentials" }, true, 200);
  if (tokens.token_type !== "DPoP") throw new Error(`the token endpoint at ${server.tokenEndpoint} answered a ${String(tokens.token_type)} token, not a DPoP one`);
  return tokens.access_token as string;
}

/**
 * The targets of a scenario in which every request carries JWTs of its own (a DPoP proof or
 * client assertion is accepted once), each built when it is asked for, just before its run,
 * so that signing does not compete with the server for the CPU during the run.
 */
export interface OneUseTargets {
  /**
   * A target for a run of `seconds` (bench/run.ts): {@link REQUEST_MARGIN} × the highest
   * rate (requests per second) an earlier run's target reached × the run's seconds, plus one
   * for the probe, which sends the first; the first target (the warm-up's) assumes
   * `initialRate`. A warm-up runs colder than the run after it, hence the margin.
   * @throws when the oldest proof would be older than a server accepts
   *   (DPOP_PROOF_MAX_AGE_SECONDS, 60) before the run ends.
   */
  forRun(seconds: number): Target;
  /**
   * A target with `count` requests of their own after the probe's, and `spare` more for the
   * calls autocannon makes when it opens connections (bench/callgrind.ts: `amount`
   * requests). All are signed now: the caller sends them before their proofs are 60 s old.
   */
  forCount(count: number, spare: number): Target;
}

/**
 * The targets of a scenario in which every request carries JWTs of its own (see
 * {@link OneUseTargets}). A run that still outruns its requests signs the rest as it sends
 * them, in the load generator's process, after a warning.
 * @param build - one request's JWTs, made at `iat` (seconds since the epoch).
 * @param initialRate - requests per second expected of the first run of `forRun`.
 */
function oneUseTargets(request: Omit<Target, "requests">, build: (iat: number) => OneUse, initialRate: number): OneUseTargets {
  /** A target sending prepared[0] in the probe, then prepared[1], prepared[2], … under load. */
  const target = (prepared: OneUse[]) => eachOnce(request, prepared, { make: () => build(nowSeconds()), note: "the rest of this run signs its own" });
  let highestRate: number | undefined;
  let previous: { used: () => number; seconds: number } | undefined;
  return {
    forRun(seconds) {
      if (previous) highestRate = Math.max(highestRate ?? 0, previous.used() / previous.seconds);
      const count = Math.ceil((highestRate ?? initialRate) * seconds * REQUEST_MARGIN) + 1;
      const iat = nowSeconds();
      const prepared = Array.from({ length: count }, () => build(iat));
      const ageAtEnd = Date.now() / 1000 - iat + seconds;
      if (ageAtEnd > DPOP_PROOF_MAX_AGE_SECONDS - PROOF_AGE_MARGIN_SECONDS) {
        throw new Error(`${count} one-use requests took until their proofs would be ${Math.ceil(ageAtEnd)} s old at the end of a ${seconds} s run (accepted up to ${DPOP_PROOF_MAX_AGE_SECONDS} s): shorten BENCH_DURATION`);
      }
      const made = target(prepared);
      previous = { used: made.used, seconds };
      return made.target;
    },
    forCount(count, spare) {
      const iat = nowSeconds();
      return target(Array.from({ length: count + spare + 1 }, () => build(iat))).target;
    },
  };
}

/**
 * Gateway calls to `url` (with no query) with a DPoP-bound `accessToken`: `Authorization:
 * DPoP` and a new proof per request, for GET `url` with the token's hash (RFC 9449 §7).
 * @param initialRate - requests per second expected of the first run of `forRun`.
 */
export function dpopGatewayTargets(url: string, accessToken: string, initialRate: number): OneUseTargets {
  const ath = accessTokenHash(accessToken);
  return oneUseTargets({ url, headers: { authorization: `DPoP ${accessToken}` } }, (iat) => ({ headers: { dpop: dpopProof("GET", url, iat, ath) } }), initialRate);
}

/**
 * The refresh grant of `server`'s client with `refreshToken`, which is not rotated (FAPI
 * 2.0 §5.3.2.1), so every request sends it again: each with a new client assertion and a
 * new DPoP proof of the key the token is bound to.
 * @param initialRate - requests per second expected of the first run of `forRun`.
 */
export function fapiRefreshTargets(server: FapiServer, refreshToken: string, initialRate: number): OneUseTargets {
  const url = server.tokenEndpoint;
  return oneUseTargets(
    { url, method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } },
    (iat) => ({
      headers: { dpop: dpopProof("POST", url, iat) },
      body: formBody({ grant_type: "refresh_token", refresh_token: refreshToken, ...clientAuthentication(server, iat) }),
    }),
    initialRate,
  );
}
