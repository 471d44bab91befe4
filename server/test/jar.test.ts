/**
 * Signed request objects (RFC 9101, JAR; FAPI 2.0 Message Signing §5.3) on a real server:
 * pushed as `request` to the PAR endpoint by oauth4webapi, or sent by value to /authorize;
 * only their parameters count, and every request object a client may not use is refused
 * with `invalid_request_object`, never a 5xx. Each test is named by its clause.
 */
import { randomUUID } from "node:crypto";
import * as oauth from "oauth4webapi";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../src/demo/fapi-key.js";
import { MAX_REQUEST_OBJECT_LENGTH } from "../src/oauth/request-object.js";
import { FAPI_CLIENT_ID, assertionFields, demoClientKey, PAR_ENDPOINT, postForm } from "./support/fapi.js";
import { Browser, interactionIdFrom, json, pkcePair, request } from "./support/flow.js";
import { clientOptions, pushedAuthorizationUrl, runBrowserStep, startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let issuer: URL;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: FAPI_CLIENT_ID, token_endpoint_auth_method: "private_key_jwt" };
let auth: oauth.ClientAuth;

beforeAll(async () => {
  ({ server, issuer } = await startIssuerServer());
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions }));
  auth = oauth.PrivateKeyJwt({ key: await demoClientKey(), kid: "demo-fapi-2026" });
  // The strict demo app (standard profile) registers the demo key too, to send request objects by value to /authorize.
  await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { jwks: JSON.stringify(DEMO_FAPI_PUBLIC_JWKS) } });
});
afterAll(() => server?.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Authorization parameters of a code flow with PKCE for the demo callback. */
function parameters(extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: "code", redirect_uri: DEMO.callbackUrl, scope: "aisp", state: randomUUID(), code_challenge: pkcePair().challenge, code_challenge_method: "S256", ...extra };
}

/** A request object of `clientId` signed with the demo key, valid five minutes; `claims` override (undefined removes one). */
async function requestObject(clientId: string, claims: Record<string, unknown> = {}, signWith?: CryptoKey): Promise<string> {
  const all: Record<string, unknown> = { iss: clientId, aud: issuer.origin, nbf: nowSeconds(), exp: nowSeconds() + 300, jti: randomUUID(), client_id: clientId, ...parameters(), ...claims };
  for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
  return new SignJWT(all).setProtectedHeader({ alg: "ES256", kid: "demo-fapi-2026", typ: "oauth-authz-req+jwt" }).sign(signWith ?? (await demoClientKey()));
}

/** A PAR request of the fapi2 demo app (private_key_jwt) with `form`. */
async function push(form: Record<string, string | undefined>) {
  return postForm(server.url, PAR_ENDPOINT, { ...form, ...(await assertionFields(server.url)) });
}

describe("RFC 9101 request objects at the PAR endpoint (FAPI 2.0 Message Signing §5.3.1)", () => {
  it.each(["query", "jwt"])("FAPI 2.0 Message Signing with oauth4webapi: a request object pushed (JAR), the response in mode %s (JARM for jwt), then DPoP-bound tokens", async (mode) => {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const signed = await oauth.issueRequestObject(
      as,
      client,
      { ...parameters({ state, response_mode: mode }), code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier) },
      { key: await demoClientKey(), kid: "demo-fapi-2026" },
    );
    const callback = await runBrowserStep(await pushedAuthorizationUrl(as, client, auth, { request: signed }));
    if (mode === "jwt") expect([...callback.searchParams.keys()]).toEqual(["response"]);
    const params = mode === "jwt" ? await oauth.validateJwtAuthResponse(as, client, callback, state, clientOptions) : oauth.validateAuthResponse(as, client, callback, state);
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, DEMO.callbackUrl, codeVerifier, { DPoP: dpop, ...clientOptions }),
    );
    expect(tokens.token_type).toBe("dpop");
  });

  it("§5: only the request object's parameters count: one sent beside it is invalid_request", async () => {
    const answer = await push({ request: await requestObject(FAPI_CLIENT_ID), scope: "pisp" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request" });
    expect(answer.body.error_description).toContain("scope");
  });

  it("§6.3: unsigned, alg none, HS256 over the public key, expired, replayed, another aud, or oversized: 400 invalid_request_object", async () => {
    const claims = { iss: FAPI_CLIENT_ID, aud: issuer.origin, nbf: nowSeconds(), exp: nowSeconds() + 60, jti: randomUUID(), ...parameters() };
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const replayed = await requestObject(FAPI_CLIENT_ID);
    expect((await push({ request: replayed })).status).toBe(201);
    const { privateKey: stranger } = await generateKeyPair("ES256");
    const bad = {
      unsigned: `${b64({ alg: "none" })}.${b64(claims)}.`,
      hs256: await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "demo-fapi-2026" }).sign(new TextEncoder().encode(JSON.stringify(await exportJWK((await generateKeyPair("ES256")).publicKey)))),
      stranger: await requestObject(FAPI_CLIENT_ID, {}, stranger),
      expired: await requestObject(FAPI_CLIENT_ID, { nbf: nowSeconds() - 600, exp: nowSeconds() - 300 }),
      replayed,
      aud: await requestObject(FAPI_CLIENT_ID, { aud: "https://other.example" }),
    };
    for (const [name, jwt] of Object.entries(bad)) {
      const answer = await push({ request: jwt });
      expect(answer.status, name).toBe(400);
      expect(answer.body.error, name).toBe("invalid_request_object");
    }
    // Over MAX_REQUEST_OBJECT_LENGTH: the PAR body is over the form limit first, 413 invalid_request (RFC 6749 §5.2's format).
    const oversized = await push({ request: await requestObject(FAPI_CLIENT_ID, { state: "s".repeat(MAX_REQUEST_OBJECT_LENGTH) }) });
    expect(oversized.status).toBe(413);
    expect(oversized.body.error).toBe("invalid_request");
  });

  it("§10.5 require_signed_request_object: an app that requires one gets invalid_request for plain parameters", async () => {
    await server.prisma.app.updateMany({ where: { name: DEMO.fapiApp.name }, data: { requireSignedRequestObject: true } });
    try {
      const plain = await push(parameters());
      expect(plain.status).toBe(400);
      expect(plain.body.error_description).toMatch(/signed request object/);
      expect((await push({ request: await requestObject(FAPI_CLIENT_ID) })).status).toBe(201);
    } finally {
      await server.prisma.app.updateMany({ where: { name: DEMO.fapiApp.name }, data: { requireSignedRequestObject: false } });
    }
  });

  it("RFC 8414 metadata: request objects are taken, signed with PS256, ES256 or EdDSA", async () => {
    expect(as.request_parameter_supported).toBe(true);
    expect(as.request_object_signing_alg_values_supported).toEqual(["PS256", "ES256", "EdDSA"]);
  });
});

describe("RFC 9101 request objects by value at /authorize", () => {
  const authorize = (query: Record<string, string>) => new Browser(server.url).fetch(`/authorize?${new URLSearchParams(query)}`);

  it("§5: the request object's parameters are used: the sign-in shows its scope", async () => {
    const browser = new Browser(server.url);
    const start = await browser.fetch(`/authorize?${new URLSearchParams({ client_id: DEMO.strictApp.consumerKey, request: await requestObject(DEMO.strictApp.consumerKey, { scope: "pisp" }) })}`);
    expect(start.status).toBe(302);
    const view = await json(await browser.fetch(`/interaction/${encodeURIComponent(interactionIdFrom(start.headers.get("location")))}`));
    expect(view.scopes.map((s: { name: string }) => s.name)).toEqual(["pisp"]);
  });

  it("§6.3: a request object that does not verify is an error page, never a redirect to its redirect_uri; a parameter beside it too", async () => {
    const forged = await authorize({ client_id: DEMO.strictApp.consumerKey, request: await requestObject(DEMO.strictApp.consumerKey, { aud: "https://other.example" }) });
    expect(forged.status).toBe(400);
    expect(forged.headers.get("location")).toBeNull();
    const beside = await authorize({ client_id: DEMO.strictApp.consumerKey, scope: "aisp", request: await requestObject(DEMO.strictApp.consumerKey) });
    expect(beside.status).toBe(400);
    expect(beside.headers.get("location")).toBeNull();
  });

  it("§5.2 with request_uri: request and request_uri together are an error page", async () => {
    const answer = await request(`${server.url}/authorize?${new URLSearchParams({ client_id: FAPI_CLIENT_ID, request_uri: "urn:ietf:params:oauth:request_uri:x", request: "a.b.c" })}`, { redirect: "manual" });
    expect(answer.status).toBe(400);
  });
});
