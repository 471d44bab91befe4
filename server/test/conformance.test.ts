/**
 * Conformance suite driven by a strict, widely used OAuth client library, oauth4webapi v3
 * (the core of openid-client v6), against a real Tollgate server (fresh SQLite, demo seed,
 * demo upstream; nothing mocked). decisions.md "Standard clients": DEMO.strictApp has the
 * `rfc6749` token response profile so such clients work; DEMO.app keeps the spec's Apigee
 * format and is shown to be refused by the same client.
 *
 * Covers RFC 8414 (metadata), RFC 6749 §4.4 (client credentials), §4.1 with RFC 7636 (PKCE)
 * and RFC 9207 (`iss` on the authorization response), §6 with RFC 9700 §4.14.2 (refresh
 * rotation and reuse detection), RFC 7009 (revocation), RFC 7662 (introspection) and RFC
 * 6750 §3 (the gateway's Bearer challenges, as parsed by oauth4webapi).
 *
 * The server's issuer must equal its own address exactly (oauth4webapi compares it), so it
 * is started on a known port with AUTH_URL = BASE_URL = http://127.0.0.1:<port>.
 */
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { expectNoStore, type Json } from "./support/flow.js";
import { clientFor, clientOptions, prepareAuthorization, runBrowserStep, startIssuerServer, type StrictClient } from "./support/oauth4webapi.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import type { TestServer } from "./support/server.js";

/** decisions.md: default access token lifetime 3600 s, refresh token 90 days. */
const ACCESS_LIFETIME = 3600;
const REFRESH_LIFETIME = 7_776_000;
/** Every scope of the PSD2 products DEMO.strictApp is approved for (demo seed). */
const PSD2_SCOPES = ["aisp", "extended_transaction_history", "pisp", "piisp"];

let server: TestServer;
let issuer: URL;
/** The metadata as oauth4webapi discovered and validated it. */
let as: oauth.AuthorizationServer;
const strict: StrictClient = clientFor(DEMO.strictApp);
const legacy: StrictClient = clientFor(DEMO.app);
/** DEMO.strictApp authenticating with client_id and client_secret in the body (its app allows both methods). */
const strictPost: StrictClient = clientFor(DEMO.strictApp, "client_secret_post");

beforeAll(async () => {
  ({ server, issuer } = await startIssuerServer());
  await addOpenDataApi(server);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions }));
});

afterAll(async () => {
  await server?.close();
});

/** The rejection of `p`, failing the test when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection, but the call succeeded");
}

/** The exception thrown by `f`, failing the test when it returns. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error("expected an exception, but the call returned");
}

/** A token endpoint answer processed by oauth4webapi, with the raw JSON members as sent. */
interface Processed {
  token: oauth.TokenEndpointResponse;
  raw: Json;
  headers: Headers;
}

async function processed(response: Response, process: (r: Response) => Promise<oauth.TokenEndpointResponse>): Promise<Processed> {
  const raw: Json = response.status === 200 ? await response.clone().json() : undefined;
  return { token: await process(response), raw, headers: response.headers };
}

/** Client credentials through oauth4webapi (RFC 6749 §4.4). */
function clientCredentials(c: StrictClient, params: Record<string, string> = {}): Promise<Response> {
  return oauth.clientCredentialsGrantRequest(as, c.client, c.auth, params, clientOptions);
}

async function clientCredentialsToken(c: StrictClient = strict, params: Record<string, string> = {}): Promise<Processed> {
  return processed(await clientCredentials(c, params), (r) => oauth.processClientCredentialsResponse(as, c.client, r));
}

/** The whole authorization code flow with PKCE for DEMO.strictApp (authenticating as `c`) and alice. */
async function userTokens(scope = "aisp", c: StrictClient = strict): Promise<Processed> {
  const request = await prepareAuthorization(as, c.client, scope);
  const callback = await runBrowserStep(request.url);
  const params = oauth.validateAuthResponse(as, c.client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(as, c.client, c.auth, params, DEMO.callbackUrl, request.codeVerifier, clientOptions);
  return processed(response, (r) => oauth.processAuthorizationCodeResponse(as, c.client, r));
}

function refresh(refreshToken: string, scope?: string, c: StrictClient = strict): Promise<Response> {
  return oauth.refreshTokenGrantRequest(as, c.client, c.auth, refreshToken, {
    ...clientOptions,
    ...(scope === undefined ? {} : { additionalParameters: { scope } }),
  });
}

/** The answer of the gateway's accounts API for a token, via oauth4webapi's protected resource request. */
interface GatewayAnswer {
  status: number;
  body?: Json;
  /** The parsed `WWW-Authenticate` challenge when the gateway refused the token. */
  challenge?: oauth.WWWAuthenticateChallenge;
}

/** @param path - default the accounts API, for a PSU's token; OPEN_DATA for a client credentials token (account data needs the PSU). */
async function gateway(accessToken: string, path = "/accounts/"): Promise<GatewayAnswer> {
  try {
    const res = await oauth.protectedResourceRequest(accessToken, "GET", new URL(path, server.url), undefined, null, clientOptions);
    return { status: res.status, body: await res.json() };
  } catch (err) {
    if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw err;
    await err.response.body?.cancel();
    return { status: err.response.status, challenge: err.cause[0] };
  }
}

/** RFC 6750 §3.1: the gateway's answer to a revoked or otherwise invalid token. */
function expectInvalidToken(answer: GatewayAnswer): void {
  expect(answer.status).toBe(401);
  expect(answer.challenge?.scheme).toBe("bearer");
  expect(answer.challenge?.parameters.error).toBe("invalid_token");
}

async function introspect(token: string, by: StrictClient = strict, hint?: string): Promise<oauth.IntrospectionResponse> {
  const response = await oauth.introspectionRequest(as, by.client, by.auth, token, {
    ...clientOptions,
    ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
  });
  return oauth.processIntrospectionResponse(as, by.client, response);
}

async function revoke(token: string, by: StrictClient = strict, hint?: string): Promise<undefined> {
  const response = await oauth.revocationRequest(as, by.client, by.auth, token, {
    ...clientOptions,
    ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
  });
  return oauth.processRevocationResponse(response);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * `issued_at` (and `refresh_token_issued_at`) of an rfc6749-profile token response read as
 * AppAuth reads `issued_at`: a number of epoch seconds, with the token valid while
 * `now < issued_at + expires_in`. Checks that the token is fresh, neither expired nor
 * seemingly valid for ages (as milliseconds read as seconds would be).
 */
function expectIssuedAtInSeconds(raw: Json): void {
  const now = nowSeconds();
  for (const key of ["issued_at", ...(raw.refresh_token === undefined ? [] : ["refresh_token_issued_at"])]) {
    expect(Number.isInteger(raw[key]), key).toBe(true);
    expect(raw[key], key).toBeGreaterThan(now - 60);
    expect(raw[key], key).toBeLessThanOrEqual(now + 1);
  }
  const expiry = raw.issued_at + raw.expires_in;
  expect(now).toBeLessThan(expiry);
  expect(expiry).toBeLessThanOrEqual(now + ACCESS_LIFETIME + 1);
}

/** A `customFetch` for oauth4webapi that records what each request sent, then sends it as {@link clientOptions} does. */
function recordingFetch(sent: { headers: Headers; body: string }[]): typeof fetch {
  return async (url, init) => {
    sent.push({ headers: new Headers(init?.headers), body: String(init?.body ?? "") });
    return clientOptions[oauth.customFetch](url as string, init);
  };
}

describe("RFC 8414 authorization server metadata", () => {
  it("is discovered at /.well-known/oauth-authorization-server with the issuer and endpoints of this server", async () => {
    const response = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions });
    expect(new URL(response.url).pathname).toBe("/.well-known/oauth-authorization-server");
    const metadata = await oauth.processDiscoveryResponse(issuer, response);

    // §3.3: the issuer is identical to the issuer identifier the metadata URL was built from.
    expect(metadata.issuer).toBe(`http://127.0.0.1:${issuer.port}`);
    expect(metadata.authorization_endpoint).toBe(`${metadata.issuer}/authorize`);
    expect(metadata.token_endpoint).toBe(`${metadata.issuer}/oauth2/v1/token`);
    expect(metadata.revocation_endpoint).toBe(`${metadata.issuer}/oauth2/v1/revoke`);
    expect(metadata.introspection_endpoint).toBe(`${metadata.issuer}/oauth2/v1/introspect`);
    // §2 REQUIRED member, and the only response type this server implements.
    expect(metadata.response_types_supported).toEqual(["code"]);
    // RFC 7636 §6.2 / decisions.md: S256 only, plain refused.
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "client_credentials", "refresh_token"]));
    expect(metadata.grant_types_supported).not.toContain("implicit");
    for (const methods of [metadata.token_endpoint_auth_methods_supported, metadata.revocation_endpoint_auth_methods_supported, metadata.introspection_endpoint_auth_methods_supported]) {
      expect(methods).toEqual(expect.arrayContaining(["client_secret_basic", "client_secret_post"]));
    }
    // RFC 9207 §3: the server promises `iss` on every authorization response.
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(PSD2_SCOPES));
    // The internal admin scope is not advertised.
    expect(metadata.scopes_supported).not.toContain("admin");
  });

  it("is refused by a client that expects another issuer (mix-up defence: the issuer is compared exactly)", async () => {
    const other = new URL(`http://localhost:${issuer.port}`);
    const response = await oauth.discoveryRequest(other, { algorithm: "oauth2", ...clientOptions });
    const err = await rejection(oauth.processDiscoveryResponse(other, response));
    expect(err).toBeInstanceOf(oauth.OperationProcessingError);
    expect((err as oauth.OperationProcessingError).code).toBe(oauth.JSON_ATTRIBUTE_COMPARISON);
  });
});

describe("RFC 6749 §4.4 client credentials with client_secret_basic", () => {
  it("issues an RFC 6749 §5.1 token to the rfc6749-profile app that works at the gateway", async () => {
    const { token, raw, headers } = await clientCredentialsToken();
    // On the wire: token_type "Bearer" and a JSON number expires_in (rfc6749 profile).
    expect(raw.token_type).toBe("Bearer");
    expect(typeof raw.expires_in).toBe("number");
    expectNoStore({ headers });
    // As oauth4webapi hands it to the application.
    expect(token.token_type).toBe("bearer");
    expect(token.expires_in).toBeGreaterThanOrEqual(ACCESS_LIFETIME - 5);
    expect(token.expires_in).toBeLessThanOrEqual(ACCESS_LIFETIME);
    expect(token.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    // §4.4.3: no refresh token for client credentials.
    expect(token.refresh_token).toBeUndefined();
    // No scope requested: every scope of the approved products (decisions.md).
    expect(token.scope?.split(" ").sort()).toEqual([...PSD2_SCOPES].sort());
    expect(token.client_id).toBe(DEMO.strictApp.consumerKey);

    const answer = await gateway(token.access_token, OPEN_DATA);
    expect(answer.status).toBe(200);
    expect(answer.body.caller.clientId).toBe(DEMO.strictApp.consumerKey);
  });

  it("grants exactly a requested scope, and refuses one outside the app's products with invalid_scope", async () => {
    const { token } = await clientCredentialsToken(strict, { scope: "aisp" });
    expect(token.scope).toBe("aisp");

    const err = await rejection(oauth.processClientCredentialsResponse(as, strict.client, await clientCredentials(strict, { scope: "admin" })));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 400, error: "invalid_scope" });
  });

  it("answers a wrong client secret with 401 and a Basic challenge (RFC 6749 §5.2), which oauth4webapi surfaces", async () => {
    const wrong = { client: strict.client, auth: oauth.ClientSecretBasic("not-the-secret") };
    const err = await rejection(oauth.processClientCredentialsResponse(as, wrong.client, await clientCredentials(wrong)));
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = err as oauth.WWWAuthenticateChallengeError;
    expect(challenge.response.status).toBe(401);
    expect(challenge.cause[0]?.scheme).toBe("basic");
    expect(challenge.cause[0]?.parameters.realm).toBe("tollgate");
    expect(await challenge.response.json()).toMatchObject({ error: "invalid_client" });
  });

  it("is refused by oauth4webapi for the apigee-profile app: token_type \"BearerToken\" is not an RFC 6749 §7.1 type", async () => {
    const response = await clientCredentials(legacy);
    expect(response.status).toBe(200);
    const raw: Json = await response.clone().json();
    // The spec's format, which is why the rfc6749 profile exists.
    expect(raw.token_type).toBe("BearerToken");
    expect(typeof raw.expires_in).toBe("string");

    const err = await rejection(oauth.processClientCredentialsResponse(as, legacy.client, response));
    expect(err).toBeInstanceOf(oauth.UnsupportedOperationError);
    expect((err as Error).message).toBe("unsupported `token_type` value");
    // The token itself is valid: the refusal is only about the response format.
    expect((await gateway(raw.access_token as string, OPEN_DATA)).status).toBe(200);
  });

  it("pins down the conflict: only token_type blocks oauth4webapi; it parses the string expires_in once the type is recognised", async () => {
    // oauth4webapi parseFloat()s a string expires_in, so with "bearertoken" registered as a
    // known type the Apigee response is accepted; without it (previous test) it is refused.
    const token = await oauth.processClientCredentialsResponse(as, legacy.client, await clientCredentials(legacy), {
      recognizedTokenTypes: { bearertoken: () => {} },
    });
    expect(token.token_type).toBe("bearertoken");
    expect(typeof token.expires_in).toBe("number");
    expect(token.expires_in).toBeGreaterThan(ACCESS_LIFETIME - 5);
  });
});

describe("RFC 6749 §4.1 authorization code with PKCE (RFC 7636) and RFC 9207 iss", () => {
  it("completes with oauth4webapi: iss and state validated, code exchanged with the verifier, refresh token issued", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    expect(request.url.searchParams.get("code_challenge_method")).toBe("S256");
    const callback = await runBrowserStep(request.url);

    expect(`${callback.origin}${callback.pathname}`).toBe(DEMO.callbackUrl);
    expect(callback.searchParams.get("iss")).toBe(as.issuer);
    expect(callback.searchParams.get("state")).toBe(request.state);
    const params = oauth.validateAuthResponse(as, strict.client, callback, request.state);
    expect(params.get("code")).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const response = await oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, DEMO.callbackUrl, request.codeVerifier, clientOptions);
    const raw: Json = await response.clone().json();
    expectNoStore(response);
    expect(raw.token_type).toBe("Bearer");
    expect(typeof raw.expires_in).toBe("number");

    const token = await oauth.processAuthorizationCodeResponse(as, strict.client, response);
    expect(token.token_type).toBe("bearer");
    expect(token.expires_in).toBeGreaterThanOrEqual(ACCESS_LIFETIME - 5);
    expect(token.expires_in).toBeLessThanOrEqual(ACCESS_LIFETIME);
    expect(token.scope).toBe("aisp");
    expect(typeof token.refresh_token).toBe("string");
    expect(token.refresh_token).not.toBe(token.access_token);

    const answer = await gateway(token.access_token);
    expect(answer.status).toBe(200);
    expect(answer.body.accounts).toHaveLength(2);
  });

  it("yields a callback that validateAuthResponse rejects once iss is wrong or missing", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    const callback = await runBrowserStep(request.url);

    const wrongIss = new URL(callback);
    wrongIss.searchParams.set("iss", "https://attacker.example");
    const err = thrown(() => oauth.validateAuthResponse(as, strict.client, wrongIss, request.state));
    expect(err).toBeInstanceOf(oauth.OperationProcessingError);
    expect(err).toMatchObject({ code: oauth.INVALID_RESPONSE, message: expect.stringContaining('"iss"') });

    const noIss = new URL(callback);
    noIss.searchParams.delete("iss");
    expect(thrown(() => oauth.validateAuthResponse(as, strict.client, noIss, request.state))).toMatchObject({
      code: oauth.INVALID_RESPONSE,
      message: expect.stringContaining('"iss"'),
    });

    // The untouched callback is accepted: the server's iss is exactly the discovered issuer.
    expect(oauth.validateAuthResponse(as, strict.client, callback, request.state).get("code")).toBeTruthy();
  });

  it("yields a callback that validateAuthResponse rejects for another state (RFC 6749 §10.12)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    const callback = await runBrowserStep(request.url);
    const err = thrown(() => oauth.validateAuthResponse(as, strict.client, callback, oauth.generateRandomState()));
    expect(err).toBeInstanceOf(oauth.OperationProcessingError);
    expect(err).toMatchObject({ code: oauth.INVALID_RESPONSE, message: expect.stringContaining('"state"') });
    expect(oauth.validateAuthResponse(as, strict.client, callback, request.state).get("code")).toBeTruthy();
  });

  it("sends a denied consent back as access_denied with state and iss (RFC 6749 §4.1.2.1, RFC 9207 §2)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { prompt: "consent" });
    const callback = await runBrowserStep(request.url, { approve: false });
    expect(callback.searchParams.has("code")).toBe(false);

    const err = thrown(() => oauth.validateAuthResponse(as, strict.client, callback, request.state));
    // Thrown only after iss and state passed: the error response carries both correctly.
    expect(err).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((err as oauth.AuthorizationResponseError).error).toBe("access_denied");
  });

  it.each([
    ["without code_challenge", { code_challenge: undefined, code_challenge_method: undefined }],
    ["with code_challenge_method=plain", { code_challenge_method: "plain" }],
  ])("refuses a request %s for the PKCE-required app with an invalid_request redirect carrying iss", async (_label, extra) => {
    const request = await prepareAuthorization(as, strict.client, "aisp", extra);
    if (extra.code_challenge_method === "plain") request.url.searchParams.set("code_challenge", request.codeVerifier);
    const callback = await runBrowserStep(request.url);
    const err = thrown(() => oauth.validateAuthResponse(as, strict.client, callback, request.state));
    expect(err).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((err as oauth.AuthorizationResponseError).error).toBe("invalid_request");
  });

  const verifiers: [string, string | typeof oauth.nopkce][] = [
    ["a wrong code_verifier", oauth.generateRandomCodeVerifier()],
    ["no code_verifier", oauth.nopkce],
  ];
  it.each(verifiers)("refuses a code redeemed with %s (RFC 7636 §4.6) with invalid_grant", async (_label, verifier) => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    const params = oauth.validateAuthResponse(as, strict.client, await runBrowserStep(request.url), request.state);
    const response = await oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, DEMO.callbackUrl, verifier, clientOptions);
    const err = await rejection(oauth.processAuthorizationCodeResponse(as, strict.client, response));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("refuses a code redeemed with another redirect_uri (RFC 6749 §4.1.3)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    const params = oauth.validateAuthResponse(as, strict.client, await runBrowserStep(request.url), request.state);
    const response = await oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, "http://localhost:8080/other", request.codeVerifier, clientOptions);
    const err = await rejection(oauth.processAuthorizationCodeResponse(as, strict.client, response));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("refuses a second redemption of a code with invalid_grant and revokes the tokens it issued (RFC 6749 §4.1.2)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp");
    const params = oauth.validateAuthResponse(as, strict.client, await runBrowserStep(request.url), request.state);
    const redeem = () => oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, DEMO.callbackUrl, request.codeVerifier, clientOptions);
    const first = await oauth.processAuthorizationCodeResponse(as, strict.client, await redeem());
    expect((await gateway(first.access_token)).status).toBe(200);

    const err = await rejection(oauth.processAuthorizationCodeResponse(as, strict.client, await redeem()));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant" });
    expectInvalidToken(await gateway(first.access_token));
    expect(await introspect(first.refresh_token!)).toEqual({ active: false });
  });
});

describe("RFC 6749 §6 refresh with rotation (RFC 9700 §4.14.2)", () => {
  it("rotates the refresh token; reusing the old one is invalid_grant and revokes the family", async () => {
    const { token: first } = await userTokens();
    const rt1 = first.refresh_token!;

    const response = await refresh(rt1);
    const raw: Json = await response.clone().json();
    expect(raw.token_type).toBe("Bearer");
    expect(typeof raw.expires_in).toBe("number");
    const second = await oauth.processRefreshTokenResponse(as, strict.client, response);
    expect(second.token_type).toBe("bearer");
    expect(second.scope).toBe("aisp");
    expect(typeof second.refresh_token).toBe("string");
    expect(second.refresh_token).not.toBe(rt1);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await gateway(second.access_token)).status).toBe(200);

    const reuse = await rejection(oauth.processRefreshTokenResponse(as, strict.client, await refresh(rt1)));
    expect(reuse).toBeInstanceOf(oauth.ResponseBodyError);
    expect(reuse).toMatchObject({ status: 400, error: "invalid_grant" });

    // Reuse is treated as theft: the successor is dead too.
    const successor = await rejection(oauth.processRefreshTokenResponse(as, strict.client, await refresh(second.refresh_token!)));
    expect(successor).toMatchObject({ status: 400, error: "invalid_grant" });
    expectInvalidToken(await gateway(second.access_token));
    expect(await introspect(second.refresh_token!)).toEqual({ active: false });
  });

  it("narrows the scope on request and refuses to widen it (invalid_scope)", async () => {
    const { token } = await userTokens("aisp extended_transaction_history");
    expect(token.scope?.split(" ").sort()).toEqual(["aisp", "extended_transaction_history"]);

    const wider = await rejection(oauth.processRefreshTokenResponse(as, strict.client, await refresh(token.refresh_token!, "aisp pisp")));
    expect(wider).toBeInstanceOf(oauth.ResponseBodyError);
    expect(wider).toMatchObject({ status: 400, error: "invalid_scope" });

    const narrowed = await oauth.processRefreshTokenResponse(as, strict.client, await refresh(token.refresh_token!, "aisp"));
    expect(narrowed.scope).toBe("aisp");
  });
});

describe("RFC 6749 §2.3.1 client_secret_post (oauth4webapi ClientSecretPost)", () => {
  it("client credentials: DEMO.strictApp sends its secret in the body, no Authorization header, and gets a token that works", async () => {
    const sent: { headers: Headers; body: string }[] = [];
    const response = await oauth.clientCredentialsGrantRequest(as, strictPost.client, strictPost.auth, {}, { ...clientOptions, [oauth.customFetch]: recordingFetch(sent) });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.has("authorization")).toBe(false);
    const form = new URLSearchParams(sent[0]!.body);
    expect(form.get("client_id")).toBe(DEMO.strictApp.consumerKey);
    expect(form.get("client_secret")).toBe(DEMO.strictApp.consumerSecret);

    const token = await oauth.processClientCredentialsResponse(as, strictPost.client, response);
    expect(token.token_type).toBe("bearer");
    expect(token.client_id).toBe(DEMO.strictApp.consumerKey);
    expect((await gateway(token.access_token, OPEN_DATA)).status).toBe(200);
  });

  it("authorization code with PKCE, refresh, introspection and revocation all authenticate with ClientSecretPost", async () => {
    const { token, raw } = await userTokens("aisp", strictPost);
    expect(token.scope).toBe("aisp");
    expectIssuedAtInSeconds(raw);
    const second = await oauth.processRefreshTokenResponse(as, strictPost.client, await refresh(token.refresh_token!, undefined, strictPost));
    expect(second.refresh_token).not.toBe(token.refresh_token);
    expect((await introspect(second.access_token, strictPost)).active).toBe(true);
    await expect(revoke(second.refresh_token!, strictPost)).resolves.toBeUndefined();
    expectInvalidToken(await gateway(second.access_token));
  });

  it("is refused for an app that allows only Basic: 401 invalid_client, still with a Basic challenge oauth4webapi surfaces", async () => {
    const legacyPost = clientFor(DEMO.app, "client_secret_post");
    const err = await rejection(oauth.processClientCredentialsResponse(as, legacyPost.client, await clientCredentials(legacyPost)));
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = err as oauth.WWWAuthenticateChallengeError;
    expect(challenge.response.status).toBe(401);
    expect(challenge.cause[0]?.scheme).toBe("basic");
    expect(await challenge.response.json()).toMatchObject({ error: "invalid_client" });
  });
});

describe("authorization code with PKCE and no state (RFC 9700 §2.1), as openid-client sends by default", () => {
  it("the rfc6749-profile app gets a callback without state that validateAuthResponse accepts with expectNoState; the code is redeemed", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { state: undefined });
    expect(request.url.searchParams.has("state")).toBe(false);
    const callback = await runBrowserStep(request.url);
    expect(callback.searchParams.has("state")).toBe(false);
    const params = oauth.validateAuthResponse(as, strict.client, callback, oauth.expectNoState);
    const response = await oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, DEMO.callbackUrl, request.codeVerifier, clientOptions);
    const { token, raw } = await processed(response, (r) => oauth.processAuthorizationCodeResponse(as, strict.client, r));
    expect(token.scope).toBe("aisp");
    expectIssuedAtInSeconds(raw);
    expect((await gateway(token.access_token)).status).toBe(200);
  });

  it("the apigee-profile app (the spec's flow) still needs state: invalid_request, with neither state nor code", async () => {
    const request = await prepareAuthorization(as, legacy.client, "aisp", { state: undefined });
    const callback = await runBrowserStep(request.url);
    expect(callback.searchParams.has("code")).toBe(false);
    const err = thrown(() => oauth.validateAuthResponse(as, legacy.client, callback, oauth.expectNoState));
    expect(err).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((err as oauth.AuthorizationResponseError).error).toBe("invalid_request");
  });
});

describe("issued_at of the rfc6749 profile is consumable as epoch seconds (as AppAuth reads it)", () => {
  it("in the client credentials response", async () => {
    const { raw } = await clientCredentialsToken();
    expectIssuedAtInSeconds(raw);
  });

  it("in the authorization code and refresh responses, refresh_token_issued_at too", async () => {
    const { token, raw } = await userTokens();
    expectIssuedAtInSeconds(raw);
    const response = await refresh(token.refresh_token!);
    const refreshed: Json = await response.clone().json();
    await oauth.processRefreshTokenResponse(as, strict.client, response);
    expectIssuedAtInSeconds(refreshed);
  });
});

describe("RFC 7009 token revocation", () => {
  it("revokes an access token: the gateway refuses it with invalid_token and it introspects inactive", async () => {
    const { token } = await clientCredentialsToken();
    expect((await gateway(token.access_token, OPEN_DATA)).status).toBe(200);
    await expect(revoke(token.access_token, strict, "access_token")).resolves.toBeUndefined();
    expectInvalidToken(await gateway(token.access_token));
    expect(await introspect(token.access_token)).toEqual({ active: false });
  });

  it("revokes a refresh token with its whole family (§2.1): every access token of the grant, earlier rotations included", async () => {
    const { token: first } = await userTokens();
    // One rotation, so the family spans two issuances: the first access token is still live.
    const second = await oauth.processRefreshTokenResponse(as, strict.client, await refresh(first.refresh_token!));
    expect((await gateway(first.access_token)).status).toBe(200);
    expect((await gateway(second.access_token)).status).toBe(200);

    await expect(revoke(second.refresh_token!, strict, "refresh_token")).resolves.toBeUndefined();

    // Checked before trying the refresh token, whose reuse detection would revoke the family anyway.
    for (const accessToken of [first.access_token, second.access_token]) {
      expectInvalidToken(await gateway(accessToken));
      expect(await introspect(accessToken)).toEqual({ active: false });
    }
    expect(await introspect(second.refresh_token!)).toEqual({ active: false });
    const err = await rejection(oauth.processRefreshTokenResponse(as, strict.client, await refresh(second.refresh_token!)));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("answers 200 for an unknown token, a wrong hint and an already revoked token (§2.2)", async () => {
    await expect(revoke(oauth.generateRandomState())).resolves.toBeUndefined();
    const { token } = await clientCredentialsToken();
    // §2.1: a wrong token_type_hint only changes the lookup order.
    await expect(revoke(token.access_token, strict, "refresh_token")).resolves.toBeUndefined();
    expectInvalidToken(await gateway(token.access_token));
    await expect(revoke(token.access_token)).resolves.toBeUndefined();
  });

  it("refuses to revoke a token issued to another client (§2.1), leaving it active", async () => {
    const { token } = await clientCredentialsToken();
    const err = await rejection(revoke(token.access_token, legacy));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).status).toBe(400);
    expect((await gateway(token.access_token, OPEN_DATA)).status).toBe(200);
    expect((await introspect(token.access_token)).active).toBe(true);
  });
});

describe("RFC 7662 token introspection", () => {
  it("describes an active user access token: scope, client_id, username, token_type, exp, iat", async () => {
    const { token } = await userTokens();
    const before = nowSeconds();
    const info = await introspect(token.access_token);
    expect(info.active).toBe(true);
    expect(info.scope).toBe("aisp");
    expect(info.client_id).toBe(DEMO.strictApp.consumerKey);
    expect(info.username).toBe(DEMO.user.username);
    expect(info.token_type?.toLowerCase()).toBe("bearer");
    expect(Number.isInteger(info.exp)).toBe(true);
    expect(Number.isInteger(info.iat)).toBe(true);
    expect(info.iat!).toBeLessThanOrEqual(before + 1);
    expect(info.iat!).toBeGreaterThan(before - 60);
    expect(info.exp! - info.iat!).toBeGreaterThanOrEqual(ACCESS_LIFETIME - 1);
    expect(info.exp! - info.iat!).toBeLessThanOrEqual(ACCESS_LIFETIME);
    expect(info.iss).toBe(as.issuer);
  });

  it("describes a client credentials token without a username, whichever app it was issued to", async () => {
    const own = await introspect((await clientCredentialsToken()).token.access_token);
    expect(own).toMatchObject({ active: true, client_id: DEMO.strictApp.consumerKey });
    expect(own.username).toBeUndefined();
    expect(own.scope?.split(" ").sort()).toEqual([...PSD2_SCOPES].sort());

    // A resource server introspects tokens of every app, apigee profile included.
    const legacyToken: Json = await (await clientCredentials(legacy, { scope: "aisp" })).json();
    const other = await introspect(legacyToken.access_token as string);
    expect(other).toMatchObject({ active: true, client_id: DEMO.app.consumerKey, scope: "aisp" });
  });

  it("describes an active refresh token with its own 90-day expiry", async () => {
    const { token } = await userTokens();
    const info = await introspect(token.refresh_token!, strict, "refresh_token");
    expect(info).toMatchObject({ active: true, client_id: DEMO.strictApp.consumerKey, username: DEMO.user.username, scope: "aisp" });
    expect(info.exp! - info.iat!).toBeGreaterThanOrEqual(REFRESH_LIFETIME - 1);
    expect(info.exp! - info.iat!).toBeLessThanOrEqual(REFRESH_LIFETIME);
  });

  it("answers only {active: false} for a revoked or unknown token (§2.2)", async () => {
    const { token } = await clientCredentialsToken();
    await revoke(token.access_token);
    expect(await introspect(token.access_token)).toEqual({ active: false });
    expect(await introspect(oauth.generateRandomState())).toEqual({ active: false });
    expect(await introspect(oauth.generateRandomState(), strict, "refresh_token")).toEqual({ active: false });
  });

  it("refuses a client without the introspection permission with 403 unauthorized_client", async () => {
    const { token } = await clientCredentialsToken();
    const response = await oauth.introspectionRequest(as, legacy.client, legacy.auth, token.access_token, clientOptions);
    const err = await rejection(oauth.processIntrospectionResponse(as, legacy.client, response));
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect(err).toMatchObject({ status: 403, error: "unauthorized_client" });
  });
});
