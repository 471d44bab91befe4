/**
 * The whole FAPI 2.0 flow driven by a strict third-party client, oauth4webapi v3 (the core
 * of openid-client v6, which implements PAR, private_key_jwt, DPoP, JAR and JARM), against a
 * real Tollgate server, once for every combination of the OpenID Foundation FAPI 2.0 plan's
 * `fapi_request_method` (unsigned: the authorization request pushed as form parameters;
 * signed_non_repudiation: pushed as one request object signed with the client's key, RFC 9101
 * and FAPI 2.0 Message Signing §5.3) and `fapi_response_mode` (plain_response: code, state and
 * iss in the callback's query, RFC 9207; jarm: one signed `response` parameter, response_mode
 * jwt, JARM §2.3.1 and FAPI 2.0 Message Signing §5.4, validated with `validateJwtAuthResponse`).
 * Under each, the oauth variant: a pushed authorization request with private_key_jwt and a
 * DPoP proof (RFC 9126, RFC 7523, RFC 9449 §10), the browser step, the code exchange with
 * DPoP, a DPoP-bound call through the gateway (RFC 9449 §7), the gateway's DPoP challenge as
 * oauth4webapi parses it, refresh without rotation and introspection; and the openid_connect
 * variant: the ID token with nonce, at_hash and acr, UserInfo with the DPoP-bound token, the
 * refresh's ID token, and UserInfo's DPoP challenge. Discovery (RFC 8414) and the metadata
 * the variants need are checked once. Last, each variant once more with the PSU signed in at
 * the bank's identity provider (a second OpenID Provider, support/bank-idp.ts) instead of
 * Tollgate's own page. Nothing is mocked: the client keys are the seeded demo app's and a fresh
 * DPoP key pair.
 */
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { FAPI_CLIENT_ID, demoClientKey } from "./support/fapi.js";
import { BANK_CUSTOMERS, bankIdpClientFor, registerBankIdp, startBankIdp, type BankIdp } from "./support/bank-idp.js";
import { clientOptions, runBrowserStep, startIssuerServer, type BrowserStep } from "./support/oauth4webapi.js";
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

/** One combination of the FAPI 2.0 conformance plan's variants this file runs under. */
interface Variant {
  fapi_request_method: "unsigned" | "signed_non_repudiation";
  fapi_response_mode: "plain_response" | "jarm";
}

/** Every combination of `fapi_request_method` and `fapi_response_mode`. */
const VARIANTS: Variant[] = (["unsigned", "signed_non_repudiation"] as const).flatMap((fapi_request_method) =>
  (["plain_response", "jarm"] as const).map((fapi_response_mode) => ({ fapi_request_method, fapi_response_mode })),
);

/**
 * The authorization step of a flow under `variant`, as oauth4webapi does it: `parameters`
 * pushed (RFC 9126) by `rp` with private_key_jwt and a DPoP proof, as form parameters
 * (unsigned) or as a request object signed with the demo app's key (signed_non_repudiation;
 * a fresh one per flow, its jti being single-use); `response_mode=jwt` added for jarm; then
 * the browser step, and the callback validated: its plain parameters with iss (plain_response)
 * or its one signed `response` parameter (jarm).
 * @param parameters - the authorization request; its `state`, when there is one, is the state the callback must carry.
 * @param step - what the PSU does in the browser (support/oauth4webapi.ts), e.g. sign in at the bank's identity provider.
 * @returns the callback's parameters as oauth4webapi validated them (the code).
 */
async function authorize(variant: Variant, rp: oauth.Client, parameters: Record<string, string>, step: BrowserStep = {}): Promise<URLSearchParams> {
  const request = variant.fapi_response_mode === "jarm" ? { ...parameters, response_mode: "jwt" } : parameters;
  const pushedParameters =
    variant.fapi_request_method === "signed_non_repudiation" ? { request: await oauth.issueRequestObject(as, rp, request, { key: await demoClientKey(), kid: "demo-fapi-2026" }) } : request;
  const pushed = await oauth.processPushedAuthorizationResponse(as, rp, await oauth.pushedAuthorizationRequest(as, rp, auth, pushedParameters, { DPoP: dpop, ...clientOptions }));
  expect(pushed.expires_in).toBe(60);

  const authorizationUrl = new URL(as.authorization_endpoint!);
  authorizationUrl.searchParams.set("client_id", rp.client_id);
  authorizationUrl.searchParams.set("request_uri", pushed.request_uri);
  const callback = await runBrowserStep(authorizationUrl, step);
  const state = parameters.state ?? oauth.expectNoState;
  if (variant.fapi_response_mode === "plain_response") return oauth.validateAuthResponse(as, rp, callback, state);
  // Only `response` is sent: no code, state or iss beside it (JARM §2.3.1).
  expect([...callback.searchParams.keys()]).toEqual(["response"]);
  return oauth.validateJwtAuthResponse(as, rp, callback, state, clientOptions);
}

describe("RFC 8414 metadata for the FAPI 2.0 plan's variants", () => {
  it("advertises request objects signed with the demo app's ES256 (signed_non_repudiation) and response_mode jwt signed with PS256, the app's default (jarm)", () => {
    expect(as.request_object_signing_alg_values_supported).toContain("ES256");
    expect(as.authorization_signing_alg_values_supported).toContain("PS256");
    expect(as.response_modes_supported).toContain("jwt");
  });
});

describe.each(VARIANTS)("FAPI 2.0 plan variant fapi_request_method=$fapi_request_method, fapi_response_mode=$fapi_response_mode", (variant) => {
  describe("oauth with oauth4webapi: PAR, private_key_jwt, DPoP", () => {
    let tokens: oauth.TokenEndpointResponse;

    it(`pushes the request (${variant.fapi_request_method}), walks the browser step, validates the response (${variant.fapi_response_mode}), and exchanges the code for DPoP-bound tokens`, async () => {
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const params = await authorize(variant, client, {
        redirect_uri: DEMO.callbackUrl,
        response_type: "code",
        scope: "aisp",
        state: oauth.generateRandomState(),
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      });

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

  describe("openid_connect with oauth4webapi: the same flow with openid and a nonce", () => {
    /** The demo fapi2 app as an OpenID relying party: its ID tokens are PS256 (the app's default), not OpenID Connect's RS256. */
    const rp: oauth.Client = { ...client, id_token_signed_response_alg: "PS256" };
    let tokens: oauth.TokenEndpointResponse;

    it("gets an ID token with the nonce, at_hash and acr, signed with a key of the JWK Set; UserInfo answers with the DPoP-bound token; a refresh's ID token has no nonce", async () => {
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const nonce = oauth.generateRandomNonce();
      // No state: the nonce binds the flow (as openid-client sends by default).
      const params = await authorize(variant, rp, {
        redirect_uri: DEMO.callbackUrl,
        response_type: "code",
        scope: "openid profile aisp",
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      });

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
});

describe("with the PSU authenticated at the bank's identity provider (federation/: a second OpenID Provider, support/bank-idp.ts)", () => {
  let bank: BankIdp;
  const rp: oauth.Client = { ...client, id_token_signed_response_alg: "PS256" };

  beforeAll(async () => {
    bank = await startBankIdp({ clients: [bankIdpClientFor(server.url)] });
    const idp = await registerBankIdp(server, bank.issuer);
    await server.prisma.app.updateMany({ where: { name: DEMO.fapiApp.name }, data: { identityProviderId: idp.id } });
    // The catalog cache keeps a client for up to a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });
  afterAll(async () => {
    await server?.prisma.app.updateMany({ where: { name: DEMO.fapiApp.name }, data: { identityProviderId: null } });
    await bank?.close();
  });

  it.each(VARIANTS)(
    "fapi_request_method=$fapi_request_method, fapi_response_mode=$fapi_response_mode: an SCA sign-in upstream gives an ID token with acr SCA and a DPoP-bound token that works at the gateway",
    async (variant) => {
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const nonce = oauth.generateRandomNonce();
      const params = await authorize(
        variant,
        rp,
        { redirect_uri: DEMO.callbackUrl, response_type: "code", scope: "openid aisp", nonce, code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: "S256" },
        { upstream: BANK_CUSTOMERS.alice },
      );
      const response = await oauth.authorizationCodeGrantRequest(as, rp, auth, params, DEMO.callbackUrl, codeVerifier, { DPoP: dpop, ...clientOptions });
      const tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
      expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ iss: as.issuer, aud: FAPI_CLIENT_ID, nonce, acr: "urn:tollgate:sca" });
      const call = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${server.url}/accounts/`), undefined, undefined, { DPoP: dpop, ...clientOptions });
      expect(call.status).toBe(200);
    },
  );
});
