/**
 * JWT access tokens (RFC 9068) and resource indicators (RFC 8707) on a real server: the demo's
 * account information product (PSD2-AISP-v1) issues JWTs here, the others stay opaque. A
 * resource server checks the JWT offline with the published JWK Set; our gateway checks it
 * the same way and still honours a revocation before `exp`; introspection and refresh treat
 * it as any token. Each test is named by the clause it checks.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DpopKey, dpopCall, fapiTokens, refresh } from "./support/fapi.js";
import { callApi, clientCredentialsToken, expectOAuthError, INTROSPECTION_ENDPOINT, json, obtainCode, pkcePair, request, REVOCATION_ENDPOINT, TOKEN_ENDPOINT, tokenRequest, type DemoClient } from "./support/flow.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { startIssuerServer, withHsmIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let jwks: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  ({ server } = await startIssuerServer());
  await addOpenDataApi(server);
  await server.prisma.apiProduct.update({ where: { name: "PSD2-AISP-v1" }, data: { accessTokenFormat: "jwt" } });
  await server.keyring.ready();
  jwks = createLocalJWKSet((await json(await request(`${server.url}/oauth2/v1/jwks`))) as JSONWebKeySet);
});
afterAll(() => server?.close());

/** The resource URI of the gateway's API `name` (oauth/resource.ts). */
const resourceOf = (name: string) => `${server.url}/${name}`;

/** A client credentials token request of `client` with `form` on top; the answer. */
const clientCredentials = (client: DemoClient, form: Record<string, string | undefined> | string) =>
  tokenRequest(server.url, TOKEN_ENDPOINT, client, typeof form === "string" ? form : { grant_type: "client_credentials", ...form });

/** The claims of a JWT access token, verified as a resource server would (RFC 9068 §4): our JWK Set, typ at+jwt, our issuer. */
async function verified(token: string) {
  const { payload, protectedHeader } = await jwtVerify(token, jwks, { typ: "at+jwt", issuer: server.authUrl, algorithms: ["PS256"] });
  return { payload, protectedHeader };
}

/** What introspection (RFC 7662) says of `token`, asked by the strict demo app (it may introspect). */
async function introspect(token: string) {
  const answer = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token });
  expect(answer.status).toBe(200);
  return answer.body;
}

describe("RFC 9068 JWT access tokens", () => {
  it("§2.2: a JWT product's token is a JWT signed with a published key, with iss, exp, aud, sub, client_id, iat, jti and scope", async () => {
    const answer = await clientCredentials(DEMO.app, { scope: "aisp" });
    expect(answer.status, answer.text).toBe(200);
    const token = answer.body.access_token as string;
    const { payload, protectedHeader } = await verified(token);
    expect(protectedHeader).toMatchObject({ typ: "at+jwt", alg: "PS256" });
    expect(typeof protectedHeader.kid).toBe("string");
    // Without resource indicators: the gateway, with every API of the token's products.
    expect(payload).toMatchObject({ iss: server.authUrl, aud: server.url, sub: DEMO.app.consumerKey, client_id: DEMO.app.consumerKey, scope: "aisp" });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.jti).toMatch(/^[0-9a-z]{25}$/);
  });

  it("§2.2: a user's token has the user as sub and acr, amr and auth_time of the authentication (§2.2.1)", async () => {
    const key = await DpopKey.generate();
    const tokens = await fapiTokens(server.url, key);
    const { payload } = await verified(tokens.access_token);
    const user = await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } });
    expect(payload).toMatchObject({ sub: user.id, client_id: DEMO.fapiApp.consumerKey, acr: "urn:tollgate:sca", cnf: { jkt: key.jkt } });
    expect(payload.amr).toContain("pwd");
    expect(typeof payload.auth_time).toBe("number");
  });

  it("opaque stays the default: a token of an opaque product, or of a JWT and an opaque product, is not a JWT", async () => {
    for (const scope of ["pisp", "aisp pisp"]) {
      const token = (await clientCredentials(DEMO.app, { scope })).body.access_token as string;
      expect(token, scope).not.toContain(".");
    }
  });

  it("§4 at our gateway: checked offline, then honoured until revoked (RFC 7009), before its exp", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
    expect((await callApi(server.url, token, OPEN_DATA)).status).toBe(200);
    expect((await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, { token })).status).toBe(200);
    const after = await callApi(server.url, token, OPEN_DATA);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await introspect(token)).toEqual({ active: false });
  });

  it("§4: a JWT whose payload was changed, or signed by another key under our kid, is refused at the gateway and inactive at introspection", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
    const [header, payload, signature] = token.split(".");
    const claims = decodeJwt(token);
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: "aisp pisp" })).toString("base64url");
    const { privateKey } = await generateKeyPair("PS256");
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: "PS256", typ: "at+jwt", kid: decodeProtectedHeader(token).kid }).sign(privateKey);
    for (const bad of [`${header}.${widened}.${signature}`, forged, `${header}.${payload}.`]) {
      const call = await callApi(server.url, bad, OPEN_DATA);
      expect(call.status).toBe(401);
      expect(call.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(await introspect(bad)).toEqual({ active: false });
    }
  });

  it("RFC 7662: introspection answers for a JWT access token as for an opaque one", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
    expect(await introspect(token)).toMatchObject({ active: true, client_id: DEMO.app.consumerKey, scope: "aisp", token_type: "Bearer", sub: DEMO.app.consumerKey });
  });

  it("RFC 9449 §6: a DPoP-bound JWT carries cnf.jkt, and the gateway wants its proof; a refresh gives a JWT again", async () => {
    const key = await DpopKey.generate();
    const tokens = await fapiTokens(server.url, key);
    expect(tokens.token_type).toBe("DPoP");
    expect((await dpopCall(server.url, tokens.access_token, key, OPEN_DATA)).status).toBe(200);
    expect((await callApi(server.url, tokens.access_token, OPEN_DATA)).status).toBe(401);
    const refreshed = await refresh(server.url, tokens.refresh_token, key);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect((await verified(refreshed.body.access_token)).payload.cnf).toEqual({ jkt: key.jkt });
  });
});

describe("RFC 8707 resource indicators", () => {
  it("§2: resource at the token endpoint is the token's aud, and the gateway takes it only at that API", async () => {
    const answer = await clientCredentials(DEMO.app, { scope: "aisp", resource: resourceOf("open-data") });
    expect(answer.status, answer.text).toBe(200);
    const token = answer.body.access_token as string;
    expect((await verified(token)).payload.aud).toBe(resourceOf("open-data"));
    expect(await introspect(token)).toMatchObject({ active: true, aud: resourceOf("open-data") });
    expect((await callApi(server.url, token, OPEN_DATA)).status).toBe(200);
    const elsewhere = await callApi(server.url, token, "/products/");
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("www-authenticate")).toContain("not meant for the API");
  });

  it("§2: resource may be repeated; an opaque token keeps its audience too", async () => {
    const body = `grant_type=client_credentials&scope=pisp&resource=${encodeURIComponent(resourceOf("open-data"))}&resource=${encodeURIComponent(resourceOf("payments"))}`;
    const answer = await clientCredentials(DEMO.app, body);
    expect(answer.status, answer.text).toBe(200);
    expect(await introspect(answer.body.access_token)).toMatchObject({ active: true, aud: [resourceOf("open-data"), resourceOf("payments")] });
  });

  it("§2: a resource that is not an absolute URI, has a fragment, or is no API of the client's products is invalid_target", async () => {
    for (const resource of ["accounts", `${resourceOf("open-data")}#x`, "https://other.example/accounts", resourceOf("no-such-api"), `${server.url}/`]) {
      await expectOAuthError(await clientCredentials(DEMO.app, { scope: "aisp", resource }), 400, "invalid_target");
    }
    // The payments app has only the payment initiation product: the accounts API is not one of its resources.
    await expectOAuthError(await clientCredentials(DEMO.paymentsApp, { resource: resourceOf("accounts") }), 400, "invalid_target");
  });

  it("§2.1-§2.2: the authorization request's resource is carried to the code; the exchange may narrow it, not widen it", async () => {
    const pkce = pkcePair();
    const asked = { resource: resourceOf("open-data") };
    const widen = await obtainCode(server.url, { client: DEMO.strictApp, pkce, extra: asked });
    const widened = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.strictApp, { grant_type: "authorization_code", code: widen.code, redirect_uri: DEMO.callbackUrl, code_verifier: pkce.verifier, resource: resourceOf("products") });
    await expectOAuthError(widened, 400, "invalid_target");

    const flow = await obtainCode(server.url, { client: DEMO.strictApp, pkce, extra: asked, browser: widen.browser });
    const exchanged = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.strictApp, { grant_type: "authorization_code", code: flow.code, redirect_uri: DEMO.callbackUrl, code_verifier: pkce.verifier });
    expect(exchanged.status, exchanged.text).toBe(200);
    expect((await verified(exchanged.body.access_token)).payload.aud).toBe(resourceOf("open-data"));
    const refreshed = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.strictApp, { grant_type: "refresh_token", refresh_token: exchanged.body.refresh_token, resource: resourceOf("products") });
    await expectOAuthError(refreshed, 400, "invalid_target");
  });

  it("§2: an authorization request for a resource outside the client's products is sent back with invalid_target", async () => {
    const answer = await request(`${server.url}/authorize?${new URLSearchParams({ client_id: DEMO.paymentsApp.consumerKey, response_type: "code", redirect_uri: DEMO.callbackUrl, scope: "pisp", state: "s1", code_challenge: pkcePair().challenge, code_challenge_method: "S256", resource: resourceOf("accounts") })}`, { redirect: "manual" });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_target");
    expect(location.searchParams.get("state")).toBe("s1");
  });

  it("§2: a pushed request (RFC 9126) carries its resource to the DPoP-bound token", async () => {
    const key = await DpopKey.generate();
    const tokens = await fapiTokens(server.url, key, { resource: resourceOf("open-data") });
    expect((await verified(tokens.access_token)).payload.aud).toBe(resourceOf("open-data"));
    expect((await dpopCall(server.url, tokens.access_token, key, OPEN_DATA)).status).toBe(200);
    expect((await dpopCall(server.url, tokens.access_token, key, "/products/")).status).toBe(401);
  });
});

describe("JWT access tokens with the signing keys in an HSM (SoftHSM2)", () => {
  it("with the device away, a JWT product's token request is 503 temporarily_unavailable, never a server error nor an opaque token; with it back, JWTs again", async () => {
    await withHsmIssuerServer("tollgate-at-jwt", "pin-3c9e17", async (hsm, device) => {
      await hsm.server.prisma.apiProduct.update({ where: { name: "PSD2-AISP-v1" }, data: { accessTokenFormat: "jwt" } });
      const request = () => tokenRequest(hsm.server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope: "aisp" }, { expect5xx: 503 });
      expect(decodeProtectedHeader((await request()).body.access_token).typ).toBe("at+jwt");

      device.takeAway();
      const refused = await request();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toEqual(expect.any(String));
      expect(refused.body).toEqual({ error: "temporarily_unavailable", error_description: "the access token cannot be signed now: try again later" });

      device.bringBack();
      expect(decodeProtectedHeader((await request()).body.access_token).typ).toBe("at+jwt");
    });
  });
});
