/**
 * The whole FAPI 2.0 flow driven by a strict third-party client, oauth4webapi v3 (the core
 * of openid-client v6, which implements PAR, private_key_jwt and DPoP), against a real
 * Tollgate server: discovery (RFC 8414), a pushed authorization request with private_key_jwt
 * and a DPoP proof (RFC 9126, RFC 7523, RFC 9449 §10), the browser step, the code exchange
 * with DPoP, a DPoP-bound call through the gateway (RFC 9449 §7), refresh without rotation,
 * introspection, and the gateway's DPoP challenge as oauth4webapi parses it. Nothing is
 * mocked: the client keys are the seeded demo app's and a fresh DPoP key pair.
 */
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { FAPI_CLIENT_ID, demoClientKey } from "./support/fapi.js";
import { clientOptions, pushedAuthorizationUrl, runBrowserStep, startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: FAPI_CLIENT_ID, token_endpoint_auth_method: "private_key_jwt" };
let auth: oauth.ClientAuth;
let dpop: oauth.DPoPHandle;

beforeAll(async () => {
  let issuer: URL;
  ({ server, issuer } = await startIssuerServer());
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions }));
  auth = oauth.PrivateKeyJwt({ key: await demoClientKey(), kid: "demo-fapi-2026" });
  dpop = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
});

afterAll(async () => {
  await server?.close();
});

describe("FAPI 2.0 with oauth4webapi: PAR, private_key_jwt, DPoP", () => {
  let tokens: oauth.TokenEndpointResponse;

  it("pushes the request, walks the browser step, and exchanges the code for DPoP-bound tokens", async () => {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const par = await oauth.pushedAuthorizationRequest(
      as,
      client,
      auth,
      {
        redirect_uri: DEMO.callbackUrl,
        response_type: "code",
        scope: "aisp",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      },
      { DPoP: dpop, ...clientOptions },
    );
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, par);
    expect(pushed.expires_in).toBe(60);

    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.searchParams.set("client_id", FAPI_CLIENT_ID);
    authorizationUrl.searchParams.set("request_uri", pushed.request_uri);
    const callback = await runBrowserStep(authorizationUrl);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, DEMO.callbackUrl, codeVerifier, { DPoP: dpop, ...clientOptions });
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe("dpop");
    expect(tokens.expires_in).toBeGreaterThan(0);
    expect(tokens.refresh_token).toBeTruthy();
  });

  it("calls the API through the gateway with the DPoP-bound token", async () => {
    const response = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${server.url}/accounts/`), undefined, undefined, { DPoP: dpop, ...clientOptions });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { accounts: unknown[] }).accounts).toHaveLength(2);
  });

  it("is refused at the gateway without its DPoP key, with a DPoP challenge oauth4webapi parses", async () => {
    const refused = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${server.url}/accounts/`), undefined, undefined, clientOptions).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { response, cause } = refused as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(cause[0]).toMatchObject({ scheme: "dpop", parameters: { error: "invalid_token", algs: "PS256 ES256 EdDSA" } });
  });

  it("refreshes without rotation, and the new access token is bound to the same key", async () => {
    for (let i = 0; i < 2; i++) {
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, { DPoP: dpop, ...clientOptions });
      const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
      expect(refreshed.token_type).toBe("dpop");
      expect(refreshed.refresh_token).toBeUndefined();
      const call = await oauth.protectedResourceRequest(refreshed.access_token, "GET", new URL(`${server.url}/accounts/acc-001`), undefined, undefined, { DPoP: dpop, ...clientOptions });
      expect(call.status).toBe(200);
    }
  });

  it("introspection (RFC 7662) reports the binding as cnf.jkt and token_type DPoP", async () => {
    const strict = { client_id: DEMO.strictApp.consumerKey };
    const response = await oauth.introspectionRequest(as, strict, oauth.ClientSecretBasic(DEMO.strictApp.consumerSecret), tokens.access_token, clientOptions);
    const introspected = await oauth.processIntrospectionResponse(as, strict, response);
    expect(introspected.active).toBe(true);
    expect(introspected.token_type).toBe("DPoP");
    expect(introspected.cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("FAPI 2.0 openid_connect variant with oauth4webapi: the same flow with openid and a nonce", () => {
  /** The demo fapi2 app as an OpenID relying party: its ID tokens are PS256 (the app's default), not OpenID Connect's RS256. */
  const rp: oauth.Client = { ...client, id_token_signed_response_alg: "PS256" };
  let tokens: oauth.TokenEndpointResponse;

  it("gets an ID token with the nonce, at_hash and acr, signed with a key of the JWK Set; UserInfo answers with the DPoP-bound token; a refresh's ID token has no nonce", async () => {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const authorizationUrl = await pushedAuthorizationUrl(as, rp, auth, {
      redirect_uri: DEMO.callbackUrl,
      response_type: "code",
      scope: "openid profile aisp",
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    }, { DPoP: dpop });
    const params = oauth.validateAuthResponse(as, rp, await runBrowserStep(authorizationUrl), oauth.expectNoState);

    const response = await oauth.authorizationCodeGrantRequest(as, rp, auth, params, DEMO.callbackUrl, codeVerifier, { DPoP: dpop, ...clientOptions });
    tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
    // The ID token's signature against the JWK Set (OpenID Connect Core §3.1.3.7 item 6: not left to TLS alone).
    await oauth.validateApplicationLevelSignature(as, response, clientOptions);
    expect(tokens.token_type).toBe("dpop");
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ iss: as.issuer, aud: FAPI_CLIENT_ID, azp: FAPI_CLIENT_ID, nonce, acr: "urn:tollgate:sca" });
    expect(claims.at_hash).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const userInfo = await oauth.processUserInfoResponse(as, rp, claims.sub, await oauth.userInfoRequest(as, rp, tokens.access_token, { DPoP: dpop, ...clientOptions }));
    expect(userInfo).toMatchObject({ sub: claims.sub, name: "Alice Martin", preferred_username: DEMO.user.username });
    expect(userInfo.email).toBeUndefined();

    const refreshed = await oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, tokens.refresh_token!, { DPoP: dpop, ...clientOptions }));
    const again = oauth.getValidatedIdTokenClaims(refreshed)!;
    expect({ sub: again.sub, auth_time: again.auth_time, nonce: again.nonce }).toEqual({ sub: claims.sub, auth_time: claims.auth_time, nonce: undefined });
  });

  it("UserInfo refuses the DPoP-bound token sent as a bearer token: 401 invalid_token with a DPoP challenge oauth4webapi parses", async () => {
    const refused = await oauth.userInfoRequest(as, rp, tokens.access_token, clientOptions).then(
      (response) => oauth.processUserInfoResponse(as, rp, oauth.skipSubjectCheck, response),
      (err: unknown) => err,
    ).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { response, cause } = refused as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(cause[0]).toMatchObject({ scheme: "dpop", parameters: { error: "invalid_token" } });
  });
});
