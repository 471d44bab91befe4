/**
 * HTTP suite for the standard additions of decisions.md "Hosts and paths": authorization
 * server metadata (RFC 8414), token revocation (RFC 7009) and token introspection
 * (RFC 7662), on a real server with the demo seed and the demo upstream. Tokens come from
 * the real token endpoint and the real front channel (support/flow.ts); nothing is mocked.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  AUDIT_REQUEST_FIELDS,
  basic,
  callApi,
  clientCredentialsToken,
  expectNoStore,
  expectOAuthError,
  INTROSPECTION_ENDPOINT,
  json,
  request,
  REVOCATION_ENDPOINT,
  TOKEN_ENDPOINT,
  tokenRequest,
  userTokens,
  type ClientAuth,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { startTestServer, type TestServer } from "./support/server.js";

const AUTH_URL = "http://auth.tollgate.test:4000";
const BASE_URL = "http://api.tollgate.test:4001";
const ACCESS_LIFETIME = 3600;
const REFRESH_LIFETIME = 7_776_000;

let server: TestServer;
let aliceId: string;

beforeAll(async () => {
  // AUTH_URL and BASE_URL differ from the listening address (reverse proxy set-up), so the
  // metadata must name the configured public addresses, not the socket's.
  server = await startTestServer({ AUTH_URL, BASE_URL });
  await addOpenDataApi(server);
  aliceId = (await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } })).id;
});

afterAll(async () => {
  await server?.close();
});

const revoke = (auth: ClientAuth, token: string | undefined, hint?: string) => tokenRequest(server.url, REVOCATION_ENDPOINT, auth, { token, token_type_hint: hint });
/** Introspects as DEMO.strictApp unless told (`null`: no Authorization header). */
const introspect = (token: string | undefined, hint?: string, auth: ClientAuth = DEMO.strictApp) => tokenRequest(server.url, INTROSPECTION_ENDPOINT, auth, { token, token_type_hint: hint });

/** A client credentials access token of `client`. */
const ccToken = (client: DemoClient = DEMO.app) => clientCredentialsToken(server.url, client);

/** Access and refresh token of alice at DEMO.app (scope aisp), from the real code flow. */
async function aliceTokens(): Promise<{ access: string; refresh: string; body: Json }> {
  const { tokens } = await userTokens(server.url);
  return { access: tokens.access_token, refresh: tokens.refresh_token, body: tokens };
}

const refresh = (refreshToken: string, client: DemoClient = DEMO.app) => tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "refresh_token", refresh_token: refreshToken });

/** Status of a GET at the gateway with `token`, on an API of PSD2-AISP-v1 where client credentials tokens may call too (account data needs the PSU). */
const gateway = async (token: string) => (await callApi(server.url, token, OPEN_DATA)).status;

/** A fresh app (own credential, PSD2-AISP-v1 approved) created straight in the database. */
async function extraClient(label: string): Promise<{ client: DemoClient; appId: string; credentialId: string }> {
  const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
  const product = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
  const client = { consumerKey: `${label}-${randomBytes(4).toString("hex")}`, consumerSecret: randomBytes(32).toString("base64url") };
  const app = await server.prisma.app.create({
    data: {
      name: client.consumerKey,
      developerId: developer.id,
      credentials: {
        create: [{ consumerKey: client.consumerKey, consumerSecretHash: hashSecret(client.consumerSecret), products: { create: [{ apiProductId: product.id }] } }],
      },
    },
    include: { credentials: true },
  });
  return { client, appId: app.id, credentialId: app.credentials[0]!.id };
}

describe("authorization server metadata (RFC 8414)", () => {
  it("GET /.well-known/oauth-authorization-server answers the metadata document", async () => {
    const res = await request(new URL("/.well-known/oauth-authorization-server", server.url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const m = await json(res);
    // §3.3: the issuer must be identical to the configured issuer identifier.
    expect(m.issuer).toBe(AUTH_URL);
    expect(m.authorization_endpoint).toBe(`${AUTH_URL}/authorize`);
    expect(m.token_endpoint).toBe(`${BASE_URL}/oauth2/v1/token`);
    expect(m.revocation_endpoint).toBe(`${BASE_URL}/oauth2/v1/revoke`);
    expect(m.introspection_endpoint).toBe(`${BASE_URL}/oauth2/v1/introspect`);
    expect(m.response_types_supported).toEqual(["code"]);
    expect([...m.grant_types_supported].sort()).toEqual(["authorization_code", "client_credentials", "refresh_token"]);
    expect(m.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt"]);
    expect(m.revocation_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt"]);
    expect(m.introspection_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt"]);
    expect(m.code_challenge_methods_supported).toEqual(["S256"]);
    // The OpenID Connect scopes, then the products'; the internal admin scope (admin API automation) is not advertised.
    expect(m.scopes_supported).toEqual(["openid", "profile", "email", "aisp", "extended_transaction_history", "piisp", "pisp"]);
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    // Every endpoint URL is absolute (https or, in this test, http) with no query or fragment (§2).
    for (const key of ["authorization_endpoint", "token_endpoint", "revocation_endpoint", "introspection_endpoint"]) {
      const url = new URL(m[key]);
      expect(url.search, key).toBe("");
      expect(url.hash, key).toBe("");
    }
  });

  it("the issuer has no trailing slash even when AUTH_URL is configured with one", async () => {
    const other = await startTestServer({ AUTH_URL: `${AUTH_URL}/`, PURGE_INTERVAL_SECONDS: "0" });
    try {
      const m = await json(await request(new URL("/.well-known/oauth-authorization-server", other.url)));
      expect(m.issuer).toBe(AUTH_URL);
      expect(m.authorization_endpoint).toBe(`${AUTH_URL}/authorize`);
    } finally {
      await other.close();
    }
  });

  it("POST is refused without a server error", async () => {
    const res = await tokenRequest(server.url, "/.well-known/oauth-authorization-server", null, "a=b");
    await expectOAuthError(res, 404, "not_found");
  });
});

describe("token revocation (RFC 7009)", () => {
  it("requires HTTP Basic client authentication: 401 with a Basic challenge", async () => {
    const token = await ccToken();
    for (const auth of [null, basic(DEMO.app.consumerKey, "wrong"), "Bearer abc"]) {
      const a = await revoke(auth, token);
      await expectOAuthError(a, 401, "invalid_client");
      expect(a.headers.get("www-authenticate")).toMatch(/^Basic realm="[^"]+"/);
    }
    // Nothing was revoked by the refused calls.
    expect(await gateway(token)).toBe(200);
  });

  it("a request without token is 400 invalid_request", async () => {
    await expectOAuthError(await revoke(DEMO.app, undefined), 400, "invalid_request");
    await expectOAuthError(await revoke(DEMO.app, ""), 400, "invalid_request");
  });

  it("an unknown token is answered 200 with an empty body (§2.2)", async () => {
    const a = await revoke(DEMO.app, randomBytes(32).toString("base64url"));
    expect(a.status).toBe(200);
    expect(a.text).toBe("");
    expectNoStore(a);
  });

  it("revoking an access token stops it at the gateway and in introspection; its refresh token still works", async () => {
    const { access, refresh: refreshToken } = await aliceTokens();
    expect(await gateway(access)).toBe(200);
    const a = await revoke(DEMO.app, access);
    expect(a.status).toBe(200);
    expect(a.text).toBe("");
    expectNoStore(a);
    expect(await gateway(access)).toBe(401);
    expect((await introspect(access)).body).toEqual({ active: false });
    // Revoking again is still 200 (already revoked is like unknown).
    expect((await revoke(DEMO.app, access)).status).toBe(200);

    expect((await introspect(refreshToken)).body.active).toBe(true);
    const next = await refresh(refreshToken);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(await gateway(next.body.access_token)).toBe(200);
  });

  it("revoking a client credentials access token works", async () => {
    const token = await ccToken();
    expect((await revoke(DEMO.app, token)).status).toBe(200);
    expect(await gateway(token)).toBe(401);
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(token) } });
    expect(row.status).toBe("revoked");
    expect(row.revokedAt).toBeInstanceOf(Date);
  });

  it("revoking a refresh token revokes the family: invalid_grant on refresh, the access token refused", async () => {
    const { access, refresh: refreshToken } = await aliceTokens();
    expect(await gateway(access)).toBe(200);
    const a = await revoke(DEMO.app, refreshToken);
    expect(a.status).toBe(200);
    expect(a.text).toBe("");
    await expectOAuthError(await refresh(refreshToken), 400, "invalid_grant");
    expect(await gateway(access)).toBe(401);
    expect((await introspect(access)).body).toEqual({ active: false });
    expect((await introspect(refreshToken)).body).toEqual({ active: false });
  });

  it("revoking a rotated family's newest refresh token also refuses the older rotation's access token", async () => {
    const first = await aliceTokens();
    const second = await refresh(first.refresh);
    expect(second.status).toBe(200);
    expect(await gateway(second.body.access_token)).toBe(200);
    expect((await revoke(DEMO.app, second.body.refresh_token, "refresh_token")).status).toBe(200);
    expect(await gateway(second.body.access_token)).toBe(401);
    expect(await gateway(first.access)).toBe(401);
    await expectOAuthError(await refresh(second.body.refresh_token), 400, "invalid_grant");
  });

  it.each([
    ["access_token", "access"],
    ["refresh_token", "access"],
    ["bogus", "access"],
    ["access_token", "refresh"],
    ["refresh_token", "refresh"],
    ["bogus", "refresh"],
  ] as const)("token_type_hint=%s only orders the search (revoking the %s token)", async (hint, which) => {
    const tokens = await aliceTokens();
    const a = await revoke(DEMO.app, which === "access" ? tokens.access : tokens.refresh, hint);
    expect(a.status, a.text).toBe(200);
    expect(a.text).toBe("");
    expect(await gateway(tokens.access)).toBe(401);
    const next = await refresh(tokens.refresh);
    if (which === "access") expect(next.status, JSON.stringify(next.body)).toBe(200);
    else await expectOAuthError(next, 400, "invalid_grant");
  });

  it("another client's token is refused with 400 invalid_request and is not revoked", async () => {
    const cc = await ccToken(DEMO.app);
    const user = await aliceTokens();
    for (const token of [cc, user.access, user.refresh]) {
      await expectOAuthError(await revoke(DEMO.strictApp, token), 400, "invalid_request");
      await expectOAuthError(await revoke(DEMO.paymentsApp, token, "refresh_token"), 400, "invalid_request");
    }
    expect(await gateway(cc)).toBe(200);
    expect(await gateway(user.access)).toBe(200);
    expect((await introspect(cc)).body.active).toBe(true);
    expect((await introspect(user.refresh)).body.active).toBe(true);
    const next = await refresh(user.refresh);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it("other methods are 405 with Allow: POST", async () => {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const a = await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, { token: "x" }, { method, body: method === "GET" ? undefined : "token=x" });
      expect(a.status, method).toBe(405);
      expect(a.headers.get("allow")).toBe("POST");
      expectNoStore(a);
    }
  });

  it("a form that is not form-urlencoded or repeats a parameter is 400 invalid_request", async () => {
    const asJson = await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, JSON.stringify({ token: "x" }), { headers: { "Content-Type": "application/json" } });
    await expectOAuthError(asJson, 400, "invalid_request");
    await expectOAuthError(await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, "token=a&token=b"), 400, "invalid_request");
  });

  it("writes a token.revoked audit event naming the client and the token row, without the token", async () => {
    const token = await ccToken();
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(token) } });
    expect((await revoke(DEMO.app, token)).status).toBe(200);
    const events = await server.prisma.auditEvent.findMany({ where: { type: "token.revoked", subject: row.id } });
    expect(events).toHaveLength(1);
    expect(events[0]!.actor).toBe(DEMO.app.consumerKey);
    expect(JSON.parse(events[0]!.details)).toEqual({ token_type: "access_token", ...AUDIT_REQUEST_FIELDS });
    expect(JSON.stringify(events[0])).not.toContain(token);
  });

  it("no event is written for an unknown token or another client's token", async () => {
    const before = await server.prisma.auditEvent.count({ where: { type: "token.revoked" } });
    await revoke(DEMO.app, randomBytes(32).toString("base64url"));
    await revoke(DEMO.strictApp, await ccToken(DEMO.app));
    expect(await server.prisma.auditEvent.count({ where: { type: "token.revoked" } })).toBe(before);
  });
});

describe("token introspection (RFC 7662)", () => {
  it("only an app allowed to introspect may call it: DEMO.app is 403 unauthorized_client", async () => {
    const token = await ccToken();
    for (const client of [DEMO.app, DEMO.paymentsApp, DEMO.adminApp]) {
      const a = await introspect(token, undefined, client);
      await expectOAuthError(a, 403, "unauthorized_client");
    }
  });

  it("wrong or missing client credentials are 401 with a Basic challenge", async () => {
    const token = await ccToken();
    for (const auth of [null, basic(DEMO.strictApp.consumerKey, DEMO.app.consumerSecret), basic("nobody", "x")]) {
      const a = await introspect(token, undefined, auth);
      await expectOAuthError(a, 401, "invalid_client");
      expect(a.headers.get("www-authenticate")).toMatch(/^Basic realm="[^"]+"/);
    }
  });

  it("a request without token is 400 invalid_request", async () => {
    await expectOAuthError(await introspect(undefined), 400, "invalid_request");
  });

  it("a Bearer token instead of client credentials is 401 asking for client authentication, not 'malformed Basic'", async () => {
    const token = await ccToken(DEMO.strictApp);
    const a = await introspect(token, undefined, `Bearer ${token}`);
    await expectOAuthError(a, 401, "invalid_client");
    expect(a.headers.get("www-authenticate")).toMatch(/^Basic realm="[^"]+"/);
    expect(a.body.error_description).toBe("client authentication required: HTTP Basic (client_secret_basic), client_id and client_secret in the body (client_secret_post), a client assertion (private_key_jwt), or a TLS client certificate");
    // Malformed Basic credentials are still named as such.
    expect((await introspect(token, undefined, "Basic !!!")).body.error_description).toBe("malformed HTTP Basic credentials");
  });

  it("an active client credentials access token: active, scope, client_id, Bearer, exp/iat in seconds, sub, iss, products", async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await ccToken(DEMO.app);
    const after = Math.ceil(Date.now() / 1000);
    const a = await introspect(token);
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    expectNoStore(a);
    const b = a.body;
    expect(Object.keys(b).sort()).toEqual(["active", "api_product_list_json", "client_id", "exp", "iat", "iss", "scope", "sub", "token_type"]);
    expect(b.active).toBe(true);
    expect(b.client_id).toBe(DEMO.app.consumerKey);
    expect(b.token_type).toBe("Bearer");
    expect(b.scope.split(" ").sort()).toEqual(["aisp", "extended_transaction_history", "piisp", "pisp"]);
    expect(b.sub).toBe(DEMO.app.consumerKey);
    expect(b.iss).toBe(AUTH_URL);
    expect([...b.api_product_list_json].sort()).toEqual(["PSD2-AISP-v1", "PSD2-PIISP-v1", "PSD2-PISP-v1"]);
    expect(Number.isInteger(b.iat)).toBe(true);
    expect(Number.isInteger(b.exp)).toBe(true);
    expect(b.iat).toBeGreaterThanOrEqual(before);
    expect(b.iat).toBeLessThanOrEqual(after);
    expect(b.exp - b.iat).toBe(ACCESS_LIFETIME);
    // Matches the stored row.
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(token) } });
    expect(b.exp).toBe(Math.floor(row.expiresAt.getTime() / 1000));
  });

  it("a narrowed client credentials token shows exactly the granted scope", async () => {
    const b = (await introspect(await clientCredentialsToken(server.url, DEMO.app, "aisp"))).body;
    expect(b.active).toBe(true);
    expect(b.scope).toBe("aisp");
  });

  it("a user access token carries username alice and sub = the user", async () => {
    const { access, body } = await aliceTokens();
    const b = (await introspect(access)).body;
    expect(b.active).toBe(true);
    expect(b.username).toBe(DEMO.user.username);
    expect(b.sub).toBe(aliceId);
    expect(b.client_id).toBe(DEMO.app.consumerKey);
    expect(b.scope).toBe("aisp");
    expect(b.token_type).toBe("Bearer");
    expect(b.exp - b.iat).toBe(ACCESS_LIFETIME);
    // iat matches issued_at of the token response (ms there, s here).
    expect(b.iat).toBe(Math.floor(Number(body.issued_at) / 1000));
    expect(b.api_product_list_json).toEqual(body.api_product_list_json);
  });

  it("a refresh token introspects active with token_type refresh_token and the refresh lifetime", async () => {
    const { refresh: refreshToken, body } = await aliceTokens();
    for (const hint of [undefined, "refresh_token", "access_token", "bogus"]) {
      const a = await introspect(refreshToken, hint);
      expect(a.status).toBe(200);
      const b = a.body;
      expect(b.active, String(hint)).toBe(true);
      expect(b.token_type).toBe("refresh_token");
      expect(b.username).toBe(DEMO.user.username);
      expect(b.client_id).toBe(DEMO.app.consumerKey);
      expect(b.iss).toBe(AUTH_URL);
      expect(Number.isInteger(b.exp) && Number.isInteger(b.iat)).toBe(true);
      expect(b.exp - b.iat).toBe(REFRESH_LIFETIME);
      expect(b.iat).toBe(Math.floor(Number(body.refresh_token_issued_at) / 1000));
    }
  });

  it("strictApp may introspect another app's tokens (resource server)", async () => {
    const token = await ccToken(DEMO.paymentsApp);
    const b = (await introspect(token)).body;
    expect(b.active).toBe(true);
    expect(b.client_id).toBe(DEMO.paymentsApp.consumerKey);
    expect(b.api_product_list_json).toEqual(["PSD2-PISP-v1"]);
  });

  it("an expired access token is exactly {active: false}", async () => {
    const token = await ccToken();
    await server.prisma.accessToken.updateMany({ where: { tokenHash: hashSecret(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const a = await introspect(token);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ active: false });
    expectNoStore(a);
  });

  it("an expired refresh token is exactly {active: false}", async () => {
    const { refresh: refreshToken } = await aliceTokens();
    await server.prisma.accessToken.updateMany({ where: { refreshTokenHash: hashSecret(refreshToken) }, data: { refreshTokenExpiresAt: new Date(Date.now() - 1000) } });
    expect((await introspect(refreshToken)).body).toEqual({ active: false });
  });

  it("a revoked token and an unknown token are exactly {active: false}", async () => {
    const token = await ccToken();
    await revoke(DEMO.app, token);
    expect((await introspect(token)).body).toEqual({ active: false });
    expect((await introspect(randomBytes(32).toString("base64url"))).body).toEqual({ active: false });
    expect((await introspect("not a token at all")).body).toEqual({ active: false });
  });

  it("a rotated (used) refresh token is exactly {active: false}", async () => {
    const { refresh: refreshToken } = await aliceTokens();
    expect((await introspect(refreshToken)).body.active).toBe(true); // read once before its rotation
    expect((await refresh(refreshToken)).status).toBe(200);
    expect((await introspect(refreshToken)).body).toEqual({ active: false });
  });

  it("a token of a revoked app is exactly {active: false}", async () => {
    const extra = await extraClient("revoked-app");
    const token = await ccToken(extra.client);
    expect((await introspect(token)).body.active).toBe(true);
    await server.prisma.app.update({ where: { id: extra.appId }, data: { status: "revoked" } });
    expect((await introspect(token)).body).toEqual({ active: false });
    expect(await gateway(token)).toBe(401);
  });

  it("a token of a revoked or expired credential is exactly {active: false}", async () => {
    const revoked = await extraClient("revoked-cred");
    const t1 = await ccToken(revoked.client);
    await server.prisma.credential.update({ where: { id: revoked.credentialId }, data: { status: "revoked" } });
    expect((await introspect(t1)).body).toEqual({ active: false });

    const expired = await extraClient("expired-cred");
    const t2 = await ccToken(expired.client);
    expect((await introspect(t2)).body.active).toBe(true);
    await server.prisma.credential.update({ where: { id: expired.credentialId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await introspect(t2)).body).toEqual({ active: false });
  });

  it("api_product_list_json leaves out a product no longer approved on the credential, as the gateway does", async () => {
    // The gateway reads a token's products live (tokens/repository.ts findTokenByHash: "products
    // recorded on the token that are still approved on its credential"), so revoking a product
    // on a credential takes effect at once. A resource server deciding from introspection must
    // see the same list, or it grants what the gateway refuses.
    const extra = await extraClient("product-revoked");
    const pisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-PISP-v1" } });
    await server.prisma.credentialProduct.create({ data: { credentialId: extra.credentialId, apiProductId: pisp.id } });
    const token = await ccToken(extra.client);
    expect([...(await introspect(token)).body.api_product_list_json].sort()).toEqual(["PSD2-AISP-v1", "PSD2-PISP-v1"]);
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    await server.prisma.credentialProduct.update({
      where: { credentialId_apiProductId: { credentialId: extra.credentialId, apiProductId: aisp.id } },
      data: { status: "revoked" },
    });
    // The gateway refuses the APIs of PSD2-AISP-v1 at once...
    expect(await gateway(token)).toBe(403);
    // ...so introspection must not report PSD2-AISP-v1 any more.
    const b = (await introspect(token)).body;
    expect(b.active).toBe(true);
    expect(b.api_product_list_json).toEqual(["PSD2-PISP-v1"]);
  });

  it("other methods are 405 with Allow: POST", async () => {
    const a = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, {}, { method: "GET", body: undefined });
    expect(a.status).toBe(405);
    expect(a.headers.get("allow")).toBe("POST");
    expectNoStore(a);
  });
});

describe("client_secret_post and one method per request on revocation and introspection (RFC 6749 §2.3)", () => {
  const strictBody = { client_id: DEMO.strictApp.consumerKey, client_secret: DEMO.strictApp.consumerSecret };

  it("DEMO.strictApp introspects and revokes with client_id and client_secret in the body", async () => {
    const token = await ccToken(DEMO.strictApp);
    const info = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, null, { token, ...strictBody });
    expect(info.status, info.text).toBe(200);
    expect(info.body).toMatchObject({ active: true, client_id: DEMO.strictApp.consumerKey });
    const revoked = await tokenRequest(server.url, REVOCATION_ENDPOINT, null, { token, ...strictBody });
    expect(revoked.status, revoked.text).toBe(200);
    expect(await gateway(token)).toBe(401);
  });

  it("an app that allows only Basic is 401 invalid_client with its real secret in the body, and its token is not revoked", async () => {
    const token = await ccToken(DEMO.app);
    const a = await tokenRequest(server.url, REVOCATION_ENDPOINT, null, { token, client_id: DEMO.app.consumerKey, client_secret: DEMO.app.consumerSecret });
    await expectOAuthError(a, 401, "invalid_client");
    expect(a.headers.get("www-authenticate")).toMatch(/^Basic realm="[^"]+"/);
    expect(await gateway(token)).toBe(200);
  });

  it("Basic plus client_secret in the body is 400 invalid_request, even when both are valid", async () => {
    const token = await ccToken(DEMO.strictApp);
    for (const path of [REVOCATION_ENDPOINT, INTROSPECTION_ENDPOINT]) {
      const a = await tokenRequest(server.url, path, DEMO.strictApp, { token, ...strictBody });
      await expectOAuthError(a, 400, "invalid_request");
      expect(a.headers.get("www-authenticate")).toBeNull();
    }
    expect(await gateway(token)).toBe(200);
  });
});

describe("a body client_id other than the authenticated client (as the token endpoint answers it)", () => {
  it("revocation answers 400 invalid_request to HTTP Basic with another client_id in the body, and revokes nothing", async () => {
    const token = await ccToken(DEMO.strictApp);
    const answer = await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.strictApp, { token, client_id: DEMO.app.consumerKey });
    const body = await expectOAuthError(answer, 400, "invalid_request");
    expect(body.error_description).toMatch(/client_id/);
    expect(await gateway(token)).toBe(200);
  });

  it("introspection answers 400 invalid_request to HTTP Basic with another client_id in the body", async () => {
    const token = await ccToken(DEMO.strictApp);
    const answer = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token, client_id: DEMO.app.consumerKey });
    const body = await expectOAuthError(answer, 400, "invalid_request");
    expect(body.error_description).toMatch(/client_id/);
  });

  it("the client's own client_id beside HTTP Basic is accepted on both", async () => {
    const token = await ccToken(DEMO.strictApp);
    const own = { token, client_id: DEMO.strictApp.consumerKey };
    expect((await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, own)).body.active).toBe(true);
    expect((await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.strictApp, own)).status).toBe(200);
    expect(await gateway(token)).toBe(401);
  });
});
