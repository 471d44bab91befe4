/**
 * HTTP suite for the client credentials token endpoint (spec "Obtain a token, client
 * credentials"; decisions.md "Hosts and paths", "Token response", "Standard clients",
 * "Scopes and API products", "Status values", "Errors"), on a real server with the demo seed.
 * Both token paths are exercised with the same cases.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import { basic, callApi, expectNoStore, expectOAuthError, expectTokenResponseHeaders, FORM, formBody, formEncode, request, TOKEN_ENDPOINT, TOKEN_PATHS, type Json } from "./support/flow.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { CLIENT_CREDENTIALS_KEYS } from "./support/token-response.js";

/** Products and scopes of the seed (server/src/demo/seed.ts). */
const ALL_PRODUCTS = ["PSD2-AISP-v1", "PSD2-PIISP-v1", "PSD2-PISP-v1"];
const ALL_SCOPES = ["aisp", "extended_transaction_history", "piisp", "pisp"];

let server: TestServer;

const demoBasic = basic(DEMO.app.consumerKey, DEMO.app.consumerSecret);

interface Call {
  method?: string;
  authorization?: string | null;
  /** Content-Type; null sends none. Default form-urlencoded. */
  contentType?: string | null;
  /** Raw body; default grant_type=client_credentials. null sends no body. */
  body?: string | null;
  headers?: Record<string, string>;
}

/** Sends a request to the token endpoint at `path`, as DEMO.app (HTTP Basic) unless told. */
async function call(path: string, c: Call = {}): Promise<Response> {
  const method = c.method ?? "POST";
  const headers: Record<string, string> = { Accept: "application/json", ...c.headers };
  const authorization = c.authorization === undefined ? demoBasic : c.authorization;
  if (authorization !== null) headers.Authorization = authorization;
  const contentType = c.contentType === undefined ? FORM : c.contentType;
  if (contentType !== null) headers["Content-Type"] = contentType;
  const text = c.body === undefined ? "grant_type=client_credentials" : c.body;
  // A Uint8Array body makes fetch send no Content-Type of its own.
  const body = text === null || method === "GET" || method === "HEAD" ? undefined : new TextEncoder().encode(text);
  return request(`${server.url}${path}`, { method, headers, body });
}

/** Checks a 401 invalid_client with a Basic challenge (RFC 6749 §5.2, RFC 7617). */
async function expectInvalidClient(res: Response): Promise<Json> {
  const body = await expectOAuthError(res, 401, "invalid_client");
  expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm="tollgate"/);
  return body;
}

interface TestClient {
  appId: string;
  appName: string;
  credentialId: string;
  consumerKey: string;
  consumerSecret: string;
}

interface ClientOptions {
  appStatus?: string;
  credentialStatus?: string;
  credentialExpiresAt?: Date | null;
  /** Product names with their status on the credential (default approved). */
  products?: { name: string; status?: string }[];
  profile?: "apigee" | "rfc6749";
  accessTokenLifetimeSeconds?: number;
  consumerKey?: string;
  consumerSecret?: string;
  /** App.tokenEndpointAuthMethods (default: the column's default, client_secret_basic). */
  authMethods?: string;
}

/** Creates an app of the demo developer with one credential, directly in the database. */
async function createClient(o: ClientOptions = {}): Promise<TestClient> {
  const n = randomUUID().slice(0, 8);
  const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
  const wanted = o.products ?? [{ name: "PSD2-AISP-v1" }];
  const products = await server.prisma.apiProduct.findMany({ where: { name: { in: wanted.map((p) => p.name) } } });
  expect(products).toHaveLength(wanted.length);
  const consumerKey = o.consumerKey ?? `test-key-${n}`;
  const consumerSecret = o.consumerSecret ?? `test-secret-${randomBytes(16).toString("hex")}`;
  const appName = `Test App ${n}`;
  const app = await server.prisma.app.create({
    data: {
      name: appName,
      developerId: developer.id,
      status: o.appStatus ?? "approved",
      tokenResponseProfile: o.profile ?? "apigee",
      ...(o.accessTokenLifetimeSeconds !== undefined ? { accessTokenLifetimeSeconds: o.accessTokenLifetimeSeconds } : {}),
      ...(o.authMethods !== undefined ? { tokenEndpointAuthMethods: o.authMethods } : {}),
      credentials: {
        create: [
          {
            consumerKey,
            consumerSecretHash: hashSecret(consumerSecret),
            status: o.credentialStatus ?? "approved",
            expiresAt: o.credentialExpiresAt ?? null,
            products: {
              create: products.map((p) => ({ apiProductId: p.id, status: wanted.find((w) => w.name === p.name)!.status ?? "approved" })),
            },
          },
        ],
      },
    },
    include: { credentials: true },
  });
  return { appId: app.id, appName, credentialId: app.credentials[0]!.id, consumerKey, consumerSecret };
}

function tokenCount(credentialId: string): Promise<number> {
  return server.prisma.accessToken.count({ where: { credentialId } });
}

function sortedScopes(scope: string): string[] {
  return scope.split(" ").filter(Boolean).sort();
}

beforeAll(async () => {
  server = await startTestServer();
  // Where a client credentials token may call (account data needs the PSU).
  await addOpenDataApi(server);
});

afterAll(async () => {
  await server?.close();
});

describe.each(TOKEN_PATHS)("POST %s, client credentials", (path) => {
  describe("success", () => {
    it("answers the spec's token response with exact types, values and headers", async () => {
      const before = Date.now();
      const res = await call(path);
      const after = Date.now();
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expectTokenResponseHeaders(res);

      const body = JSON.parse(text) as Json;
      expect(Object.keys(body).sort()).toEqual(CLIENT_CREDENTIALS_KEYS);

      // Opaque, URL-safe, at least 256 bits (43 base64url characters).
      expect(typeof body.access_token).toBe("string");
      expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(body.token_type).toBe("BearerToken");

      // Every number is a JSON string.
      for (const key of ["expires_in", "issued_at", "refresh_token_expires_in", "refresh_count"]) {
        expect(typeof body[key], key).toBe("string");
        expect(body[key], key).toMatch(/^\d+$/);
      }
      const issuedAt = Number(body.issued_at);
      expect(issuedAt).toBeGreaterThanOrEqual(before);
      expect(issuedAt).toBeLessThanOrEqual(after);
      expect(["3600", "3599"]).toContain(body.expires_in);
      expect(body.refresh_token_expires_in).toBe("0");
      expect(body.refresh_count).toBe("0");
      expect(body.status).toBe("approved");

      // No scope requested: every scope of the approved products, space-joined.
      expect(typeof body.scope).toBe("string");
      expect(body.scope).not.toMatch(/^ | $| {2}/);
      expect(sortedScopes(body.scope)).toEqual(ALL_SCOPES);

      expect(Array.isArray(body.api_product_list_json)).toBe(true);
      expect([...body.api_product_list_json].sort()).toEqual(ALL_PRODUCTS);
      for (const p of body.api_product_list_json) expect(typeof p).toBe("string");
      expect(typeof body.api_product_list).toBe("string");
      expect(body.api_product_list).toBe(`[${body.api_product_list_json.join(", ")}]`);

      expect(body.client_id).toBe(DEMO.app.consumerKey);
      expect(body.application_name).toBe(DEMO.app.name);
      expect(body.organization_name).toBe(DEMO.organization);
      expect(body["developer.email"]).toBe(DEMO.developerEmail);

      for (const absent of ["refresh_token", "refresh_token_issued_at", "refresh_token_status"]) {
        expect(body, absent).not.toHaveProperty([absent]);
      }
    });

    it("stores only the SHA-256 of the token, with the granted scopes, products and expiry", async () => {
      const res = await call(path);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(await server.prisma.accessToken.findFirst({ where: { tokenHash: body.access_token } })).toBeNull();
      const row = await server.prisma.accessToken.findFirst({ where: { tokenHash: createHash("sha256").update(body.access_token, "utf8").digest("hex") } });
      expect(row).not.toBeNull();
      expect(row!.grantType).toBe("client_credentials");
      expect(row!.status).toBe("approved");
      expect(row!.userId).toBeNull();
      expect(row!.refreshTokenHash).toBeNull();
      expect(sortedScopes(row!.scope)).toEqual(sortedScopes(body.scope));
      expect(row!.apiProducts.split(" ").sort()).toEqual(ALL_PRODUCTS);
      expect(row!.issuedAt.getTime()).toBe(Number(body.issued_at));
      expect(row!.expiresAt.getTime() - row!.issuedAt.getTime()).toBe(3600 * 1000);
    });

    it("issues a different token on every request", async () => {
      const a = (await (await call(path)).json()) as Json;
      const b = (await (await call(path)).json()) as Json;
      expect(a.access_token).not.toBe(b.access_token);
    });

    it("accepts a charset parameter on the form content type and ignores Accept", async () => {
      const res = await call(path, { contentType: `${FORM}; charset=UTF-8`, headers: { Accept: "text/html" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
      expect(((await res.json()) as Json).client_id).toBe(DEMO.app.consumerKey);
    });

    it("accepts a media type in any letter case and a lowercase basic scheme", async () => {
      const upper = await call(path, { contentType: "Application/X-WWW-Form-URLEncoded" });
      expect(upper.status, await upper.clone().text()).toBe(200);
      const lower = await call(path, { authorization: demoBasic.replace(/^Basic/, "basic") });
      expect(lower.status, await lower.clone().text()).toBe(200);
    });

    it("reads parameters from the body only, never from the query string", async () => {
      await expectOAuthError(await call(`${path}?grant_type=client_credentials`, { body: "" }), 400, "invalid_request");
      const res = await call(`${path}?scope=pisp`, { body: "grant_type=client_credentials&scope=aisp" });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).scope).toBe("aisp");
    });

    it("issues distinct tokens to concurrent requests without a server error", async () => {
      const responses = await Promise.all(Array.from({ length: 20 }, () => call(path)));
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as Json[];
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(bodies.map((b) => b.access_token)).size).toBe(20);
    });

    it("accepts client_id in the body when it matches the Basic credentials", async () => {
      const res = await call(path, { body: formBody({ grant_type: "client_credentials", client_id: DEMO.app.consumerKey }) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).client_id).toBe(DEMO.app.consumerKey);
    });

    it("decodes form-urlencoded Basic credentials (RFC 6749 §2.3.1)", async () => {
      const n = randomUUID().slice(0, 8);
      const client = await createClient({
        consumerKey: `tg key:${n}/+%`,
        consumerSecret: `p@ss word+%:é/${n}=&`,
      });
      const header = basic(client.consumerKey, client.consumerSecret);
      // The encoded form really differs from the raw pair (spaces, colon, plus, percent...).
      expect(Buffer.from(header.slice(6), "base64").toString("utf8")).not.toBe(`${client.consumerKey}:${client.consumerSecret}`);
      const res = await call(path, { authorization: header });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const body = JSON.parse(text) as Json;
      expect(body.client_id).toBe(client.consumerKey);
      expect(body.application_name).toBe(client.appName);
    });
  });

  describe("scope parameter", () => {
    it("narrows the token to a requested subset", async () => {
      const res = await call(path, { body: formBody({ grant_type: "client_credentials", scope: "pisp aisp" }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(sortedScopes(body.scope)).toEqual(["aisp", "pisp"]);
      // The products stay the credential's approved products (decisions.md).
      expect([...body.api_product_list_json].sort()).toEqual(ALL_PRODUCTS);
      const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(body.access_token) } });
      expect(sortedScopes(row.scope)).toEqual(["aisp", "pisp"]);
    });

    it("grants exactly one requested scope", async () => {
      const res = await call(path, { body: formBody({ grant_type: "client_credentials", scope: "piisp" }) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).scope).toBe("piisp");
    });

    it("refuses an unknown scope with invalid_scope", async () => {
      const before = await server.prisma.accessToken.count();
      await expectOAuthError(await call(path, { body: formBody({ grant_type: "client_credentials", scope: "aisp admin" }) }), 400, "invalid_scope");
      await expectOAuthError(await call(path, { body: formBody({ grant_type: "client_credentials", scope: "made_up" }) }), 400, "invalid_scope");
      expect(await server.prisma.accessToken.count()).toBe(before);
    });

    it("describes a scope with characters RFC 6749 section 3.3 forbids in plain ASCII (no '?' in place of a section sign)", async () => {
      const body = await expectOAuthError(await call(path, { body: formBody({ grant_type: "client_credentials", scope: "aisp\u00e4" }) }), 400, "invalid_scope");
      expect(body.error_description).toBe("scope contains characters RFC 6749 section 3.3 does not allow");
    });

    it("refuses a scope of a product the credential is not approved for", async () => {
      const res = await call(path, {
        authorization: basic(DEMO.paymentsApp.consumerKey, DEMO.paymentsApp.consumerSecret),
        body: "grant_type=client_credentials&scope=aisp",
      });
      await expectOAuthError(res, 400, "invalid_scope");
    });

    it("grants every scope of the approved products when scope is absent or empty", async () => {
      for (const body of ["grant_type=client_credentials", "grant_type=client_credentials&scope="]) {
        const res = await call(path, { body });
        expect(res.status).toBe(200);
        expect(sortedScopes(((await res.json()) as Json).scope)).toEqual(ALL_SCOPES);
      }
      const payments = await call(path, { authorization: basic(DEMO.paymentsApp.consumerKey, DEMO.paymentsApp.consumerSecret) });
      expect(payments.status).toBe(200);
      const p = (await payments.json()) as Json;
      expect(p.scope).toBe("pisp");
      expect(p.api_product_list).toBe("[PSD2-PISP-v1]");
      expect(p.api_product_list_json).toEqual(["PSD2-PISP-v1"]);
      expect(p.application_name).toBe(DEMO.paymentsApp.name);
    });

    it("counts only approved products of the credential (pending and revoked ones yield nothing)", async () => {
      const client = await createClient({
        products: [{ name: "PSD2-AISP-v1" }, { name: "PSD2-PISP-v1", status: "pending" }, { name: "PSD2-PIISP-v1", status: "revoked" }],
      });
      const auth = basic(client.consumerKey, client.consumerSecret);
      const res = await call(path, { authorization: auth });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
      expect(body.api_product_list).toBe("[PSD2-AISP-v1]");
      expect(sortedScopes(body.scope)).toEqual(["aisp", "extended_transaction_history"]);
      await expectOAuthError(await call(path, { authorization: auth, body: "grant_type=client_credentials&scope=pisp" }), 400, "invalid_scope");
    });
  });

  describe("token response profile and lifetime", () => {
    it("answers the rfc6749 profile app (DEMO.strictApp) with token_type Bearer, a numeric expires_in and issued_at in epoch seconds", async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await call(path, { authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret) });
      const after = Math.floor(Date.now() / 1000);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expectTokenResponseHeaders(res);
      const body = JSON.parse(text) as Json;
      expect(body.token_type).toBe("Bearer");
      expect(typeof body.expires_in).toBe("number");
      expect(Number.isInteger(body.expires_in)).toBe(true);
      expect([3600, 3599]).toContain(body.expires_in);
      expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(body.client_id).toBe(DEMO.strictApp.consumerKey);
      expect(body.application_name).toBe(DEMO.strictApp.name);
      expect(sortedScopes(body.scope)).toEqual(ALL_SCOPES);
      // A JSON number of whole seconds (as clients such as AppAuth read it), not milliseconds.
      expect(Number.isInteger(body.issued_at)).toBe(true);
      expect(body.issued_at).toBeGreaterThanOrEqual(before);
      expect(body.issued_at).toBeLessThanOrEqual(after);
      const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(body.access_token) } });
      expect(body.issued_at).toBe(Math.floor(row.issuedAt.getTime() / 1000));
      expect(body.issued_at + body.expires_in).toBeGreaterThanOrEqual(Math.floor(row.expiresAt.getTime() / 1000) - 1);
      // Same members as the apigee profile: only token_type, expires_in and issued_at change.
      expect(Object.keys(body).sort()).toEqual(CLIENT_CREDENTIALS_KEYS);
      expect(body.refresh_token_expires_in).toBe("0");
      expect(body.status).toBe("approved");
    });

    it("uses the app's accessTokenLifetimeSeconds for expires_in and the stored expiry", async () => {
      const client = await createClient();
      await server.prisma.app.update({ where: { id: client.appId }, data: { accessTokenLifetimeSeconds: 1800 } });
      const res = await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(["1800", "1799"]).toContain(body.expires_in);
      const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(body.access_token) } });
      expect(row.expiresAt.getTime() - row.issuedAt.getTime()).toBe(1800 * 1000);

      await server.prisma.app.update({ where: { id: client.appId }, data: { accessTokenLifetimeSeconds: 120 } });
      const again = (await (await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) })).json()) as Json;
      expect(["120", "119"]).toContain(again.expires_in);
    });

    it("uses the app's lifetime with the rfc6749 profile too", async () => {
      const client = await createClient({ profile: "rfc6749", accessTokenLifetimeSeconds: 900 });
      const body = (await (await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) })).json()) as Json;
      expect(body.token_type).toBe("Bearer");
      expect([900, 899]).toContain(body.expires_in);
    });
  });

  describe("client authentication errors", () => {
    it("answers a missing Authorization header with 401 invalid_client and a Basic challenge", async () => {
      await expectInvalidClient(await call(path, { authorization: null }));
    });

    it.each([
      ["not base64", "Basic !!!not-base64!!!"],
      ["base64 without a colon", `Basic ${Buffer.from("demo-budgeting-key").toString("base64")}`],
      ["empty credentials", "Basic "],
      ["scheme only", "Basic"],
      ["empty client id", `Basic ${Buffer.from(`:${DEMO.app.consumerSecret}`).toString("base64")}`],
      ["truncated base64", `Basic ${Buffer.from(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).toString("base64").slice(0, -3)}`],
      ["bad percent-encoding", `Basic ${Buffer.from(`%ZZ:${DEMO.app.consumerSecret}`).toString("base64")}`],
      ["another scheme", `Bearer ${Buffer.from(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).toString("base64")}`],
    ])("answers malformed Basic credentials (%s) with 401 invalid_client", async (_label, header) => {
      await expectInvalidClient(await call(path, { authorization: header }));
    });

    it("answers a wrong secret with 401 invalid_client", async () => {
      await expectInvalidClient(await call(path, { authorization: basic(DEMO.app.consumerKey, "wrong-secret") }));
      // Another app's secret is as wrong.
      await expectInvalidClient(await call(path, { authorization: basic(DEMO.app.consumerKey, DEMO.paymentsApp.consumerSecret) }));
    });

    it("answers an unknown consumer key with 401 invalid_client", async () => {
      await expectInvalidClient(await call(path, { authorization: basic("no-such-key", DEMO.app.consumerSecret) }));
    });

    it("answers a revoked credential with 401 invalid_client and issues nothing", async () => {
      const client = await createClient({ credentialStatus: "revoked" });
      await expectInvalidClient(await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) }));
      expect(await tokenCount(client.credentialId)).toBe(0);
    });

    it("answers a revoked app with 401 invalid_client and issues nothing", async () => {
      const client = await createClient({ appStatus: "revoked" });
      await expectInvalidClient(await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) }));
      expect(await tokenCount(client.credentialId)).toBe(0);
    });

    it("answers a credential past its expiresAt with 401 invalid_client, and accepts one not yet expired", async () => {
      const expired = await createClient({ credentialExpiresAt: new Date(Date.now() - 60_000) });
      await expectInvalidClient(await call(path, { authorization: basic(expired.consumerKey, expired.consumerSecret) }));
      expect(await tokenCount(expired.credentialId)).toBe(0);

      const valid = await createClient({ credentialExpiresAt: new Date(Date.now() + 3_600_000) });
      expect((await call(path, { authorization: basic(valid.consumerKey, valid.consumerSecret) })).status).toBe(200);
    });

    it("stops accepting a credential once it is revoked", async () => {
      const client = await createClient();
      const auth = basic(client.consumerKey, client.consumerSecret);
      expect((await call(path, { authorization: auth })).status).toBe(200);
      await server.prisma.credential.update({ where: { id: client.credentialId }, data: { status: "revoked" } });
      await expectInvalidClient(await call(path, { authorization: auth }));
    });
  });

  describe("request errors", () => {
    it("answers a missing grant_type with 400 invalid_request", async () => {
      await expectOAuthError(await call(path, { body: "" }), 400, "invalid_request");
      await expectOAuthError(await call(path, { body: "scope=aisp" }), 400, "invalid_request");
      const body = await expectOAuthError(await call(path, { body: "grant_type=" }), 400, "invalid_request");
      expect(body.error_description).toMatch(/grant_type/);
    });

    it("answers an unknown grant_type with 400 unsupported_grant_type", async () => {
      await expectOAuthError(await call(path, { body: "grant_type=urn%3Aexample%3Amade-up" }), 400, "unsupported_grant_type");
      await expectOAuthError(await call(path, { body: "grant_type=CLIENT_CREDENTIALS" }), 400, "unsupported_grant_type");
    });

    it.each(["GET", "PUT", "DELETE", "PATCH", "OPTIONS"])("answers %s with 405 and Allow: POST", async (method) => {
      const res = await call(path, { method });
      await expectOAuthError(res, 405, "invalid_request");
      expect(res.headers.get("allow")).toBe("POST");
    });

    it("answers HEAD with 405 and Allow: POST", async () => {
      const res = await call(path, { method: "HEAD" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    });

    it.each([
      ["application/json", "application/json", JSON.stringify({ grant_type: "client_credentials" })],
      ["text/plain", "text/plain", "grant_type=client_credentials"],
      ["no content type", null, "grant_type=client_credentials"],
      ["multipart/form-data", "multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--\r\n'],
    ])("answers a %s body with 400 invalid_request", async (_label, contentType, body) => {
      await expectOAuthError(await call(path, { contentType, body }), 400, "invalid_request");
    });

    it("answers a repeated parameter with 400 invalid_request", async () => {
      await expectOAuthError(await call(path, { body: "grant_type=client_credentials&grant_type=client_credentials" }), 400, "invalid_request");
      await expectOAuthError(await call(path, { body: "grant_type=client_credentials&scope=aisp&scope=pisp" }), 400, "invalid_request");
      await expectOAuthError(await call(path, { body: "grant_type=client_credentials&scope=aisp&scope=aisp" }), 400, "invalid_request");
    });

    it("answers a body over 16384 bytes with 413 invalid_request, and accepts one of exactly 16384", async () => {
      const prefix = "grant_type=client_credentials&padding=";
      const exact = prefix + "a".repeat(16384 - prefix.length);
      expect(Buffer.byteLength(exact)).toBe(16384);
      const ok = await call(path, { body: exact });
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(((await ok.json()) as Json).client_id).toBe(DEMO.app.consumerKey);

      const over = prefix + "a".repeat(16385 - prefix.length);
      await expectOAuthError(await call(path, { body: over }), 413, "invalid_request");
      await expectOAuthError(await call(path, { body: prefix + "a".repeat(100_000) }), 413, "invalid_request");
    });

    it("answers a client_id in the body that differs from the Basic credentials with 400", async () => {
      const before = await server.prisma.accessToken.count();
      const res = await call(path, { body: formBody({ grant_type: "client_credentials", client_id: DEMO.paymentsApp.consumerKey }) });
      await expectOAuthError(res, 400, "invalid_request");
      expect(await server.prisma.accessToken.count()).toBe(before);
    });

    it("answers client_secret in the body without Basic with 401 invalid_client for an app that allows only Basic", async () => {
      const res = await call(path, {
        authorization: null,
        body: formBody({ grant_type: "client_credentials", client_id: DEMO.app.consumerKey, client_secret: DEMO.app.consumerSecret }),
      });
      await expectInvalidClient(res);
    });
  });
});

/**
 * Audit events of failed client authentications with this actor, after the refusal audit's
 * pending aggregates are written (they are aggregated per client, reason and minute, and
 * written on flush: docs/behaviour.md "Audit of refusals").
 */
async function authFailures(actor: string) {
  await server.flushCounts();
  return server.prisma.auditEvent.findMany({ where: { type: "client.authentication_failed", actor }, orderBy: { at: "asc" } });
}

/** How many failed client authentications the aggregated rows of `actor` stand for. */
async function authFailureCount(actor: string): Promise<number> {
  return (await authFailures(actor)).reduce((n, e) => n + e.count, 0);
}

describe.each(TOKEN_PATHS)("POST %s, client_secret_post and one authentication method per request (RFC 6749 §2.3)", (path) => {
  const strictPost = { grant_type: "client_credentials", client_id: DEMO.strictApp.consumerKey, client_secret: DEMO.strictApp.consumerSecret };

  it("authenticates DEMO.strictApp with client_id and client_secret in the body, without an Authorization header", async () => {
    const res = await call(path, { authorization: null, body: formBody(strictPost) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const body = JSON.parse(text) as Json;
    expect(body.client_id).toBe(DEMO.strictApp.consumerKey);
    expect(body.token_type).toBe("Bearer");
    expect(sortedScopes(body.scope)).toEqual(ALL_SCOPES);
    expectNoStore(res);
  });

  it("answers the real secret in the body of an app that allows only Basic with 401 invalid_client, a Basic challenge and an audit event", async () => {
    const client = await createClient();
    const res = await call(path, { authorization: null, body: formBody({ grant_type: "client_credentials", client_id: client.consumerKey, client_secret: client.consumerSecret }) });
    const body = await expectInvalidClient(res);
    expect(body.error_description).toBe("this client may not authenticate with client_secret_post");
    expect(await tokenCount(client.credentialId)).toBe(0);
    const audited = await authFailures(client.consumerKey);
    expect(audited).toHaveLength(1);
    expect(audited[0]!.count).toBe(1);
    expect(JSON.parse(audited[0]!.details)).toMatchObject({ reason: "invalid_client", description: "this client may not authenticate with client_secret_post", endpoint: path });
    // The same app still authenticates with Basic.
    expect((await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) })).status).toBe(200);
  });

  it("answers Basic for an app that allows only client_secret_post with 401 invalid_client, and accepts its body credentials", async () => {
    const client = await createClient({ authMethods: "client_secret_post" });
    const refused = await expectInvalidClient(await call(path, { authorization: basic(client.consumerKey, client.consumerSecret) }));
    expect(refused.error_description).toBe("this client may not authenticate with client_secret_basic");
    const res = await call(path, { authorization: null, body: formBody({ grant_type: "client_credentials", client_id: client.consumerKey, client_secret: client.consumerSecret }) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as Json).client_id).toBe(client.consumerKey);
  });

  it("applies a change of the app's allowed methods on the next request", async () => {
    const client = await createClient();
    const post = formBody({ grant_type: "client_credentials", client_id: client.consumerKey, client_secret: client.consumerSecret });
    await expectInvalidClient(await call(path, { authorization: null, body: post }));
    await server.prisma.app.update({ where: { id: client.appId }, data: { tokenEndpointAuthMethods: "client_secret_basic client_secret_post" } });
    expect((await call(path, { authorization: null, body: post })).status).toBe(200);
    await server.prisma.app.update({ where: { id: client.appId }, data: { tokenEndpointAuthMethods: "client_secret_basic" } });
    await expectInvalidClient(await call(path, { authorization: null, body: post }));
  });

  it("answers a wrong body secret and an unknown body client_id alike: 401 invalid_client with a Basic challenge, audited", async () => {
    const [strictBefore, anonymousBefore] = [await authFailureCount(DEMO.strictApp.consumerKey), await authFailureCount("")];
    const wrong = await expectInvalidClient(await call(path, { authorization: null, body: formBody({ ...strictPost, client_secret: "wrong-secret" }) }));
    const unknownId = `no-such-key-${randomUUID()}`;
    const unknown = await expectInvalidClient(await call(path, { authorization: null, body: formBody({ ...strictPost, client_id: unknownId }) }));
    // Nothing tells a wrong secret from an unknown client id, nor an app that only allows Basic.
    const basicOnly = await expectInvalidClient(await call(path, { authorization: null, body: formBody({ ...strictPost, client_id: DEMO.app.consumerKey, client_secret: "wrong-secret" }) }));
    expect(wrong).toEqual(unknown);
    expect(basicOnly).toEqual(unknown);
    expect(unknown.error_description).toBe("invalid consumer key or secret");
    // The registered client is named; the unknown client id never is: it counts under "".
    expect(await authFailureCount(DEMO.strictApp.consumerKey)).toBe(strictBefore + 1);
    expect(await authFailureCount("")).toBe(anonymousBefore + 1);
    expect(await authFailures(unknownId)).toEqual([]);
    // The row holds the details of the first refusal of its minute under "" (an earlier test's, maybe).
    expect(JSON.parse((await authFailures("")).at(-1)!.details)).toMatchObject({ reason: "invalid_client" });
  });

  it("answers client_secret without client_id, and client_id alone, with 401 invalid_client", async () => {
    const noId = await expectInvalidClient(await call(path, { authorization: null, body: formBody({ grant_type: "client_credentials", client_secret: DEMO.strictApp.consumerSecret }) }));
    expect(noId.error_description).toMatch(/client_id/);
    const idOnly = await expectInvalidClient(await call(path, { authorization: null, body: formBody({ grant_type: "client_credentials", client_id: DEMO.strictApp.consumerKey }) }));
    expect(idOnly.error_description).toMatch(/^client authentication required/);
  });

  it.each([
    ["valid Basic and the same valid body credentials", basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret), strictPost],
    ["valid Basic and a body client_secret without client_id", basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret), { grant_type: "client_credentials", client_secret: DEMO.strictApp.consumerSecret }],
    ["valid Basic and a wrong body secret", basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret), { ...strictPost, client_secret: "wrong-secret" }],
    ["valid Basic of a Basic-only app and another app's body credentials", basic(DEMO.app.consumerKey, DEMO.app.consumerSecret), strictPost],
    ["a wrong Basic secret and valid body credentials", basic(DEMO.strictApp.consumerKey, "wrong-secret"), strictPost],
    ["malformed Basic and valid body credentials", "Basic !!!", strictPost],
    ["a Bearer header and valid body credentials", "Bearer some-access-token", strictPost],
  ])("answers %s with 400 invalid_request before authenticating: no token, no audit event", async (_label, authorization, params) => {
    const [tokens, audits] = [await server.prisma.accessToken.count(), await server.prisma.auditEvent.count()];
    const res = await call(path, { authorization, body: formBody(params) });
    const body = await expectOAuthError(res, 400, "invalid_request");
    expect(body.error_description).toMatch(/one client authentication method/);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(await server.prisma.accessToken.count()).toBe(tokens);
    expect(await server.prisma.auditEvent.count()).toBe(audits);
  });

  it("answers a repeated client_id or client_secret with 400 invalid_request", async () => {
    const post = formBody(strictPost);
    for (const extra of [`client_secret=${formEncode(DEMO.strictApp.consumerSecret)}`, `client_id=${DEMO.strictApp.consumerKey}`, "client_secret="]) {
      await expectOAuthError(await call(path, { authorization: null, body: `${post}&${extra}` }), 400, "invalid_request");
    }
  });

  it("treats an empty client_secret as omitted (RFC 6749 §3.1): Basic alone authenticates, and an empty body secret is no credential", async () => {
    const res = await call(path, {
      authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret),
      body: `grant_type=client_credentials&client_id=${DEMO.strictApp.consumerKey}&client_secret=`,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await expectInvalidClient(await call(path, { authorization: null, body: `grant_type=client_credentials&client_id=${DEMO.strictApp.consumerKey}&client_secret=` }));
    expect(body.error_description).toMatch(/^client authentication required/);
  });
});

describe("client id timing", () => {
  /** A server of its own, without rate limits (the requests here would exceed them). */
  let quiet: TestServer;
  beforeAll(async () => {
    quiet = await startTestServer({ TOKEN_RATE_LIMIT_PER_CLIENT: "0", TOKEN_RATE_LIMIT_PER_IP: "0" });
  }, 60_000);
  afterAll(async () => {
    await quiet?.close();
  });

  /** Microseconds from sending a client credentials request to reading the whole answer, which must have `status`. */
  async function timed(authorization: string, status: number): Promise<number> {
    const start = process.hrtime.bigint();
    const res = await request(`${quiet.url}${TOKEN_ENDPOINT}`, { method: "POST", headers: { Authorization: authorization, "Content-Type": FORM }, body: "grant_type=client_credentials" });
    await res.arrayBuffer();
    const elapsed = Number(process.hrtime.bigint() - start) / 1000;
    expect(res.status).toBe(status);
    return elapsed;
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it("a wrong secret costs the same for a client id in active use, an unused one and an unknown one (medians within 25 %)", async () => {
    const WARMUP = 30;
    const ROUNDS = 300;
    // Client ids that exist but that nobody has used yet: not in the catalog cache.
    const developer = await quiet.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const unused = Array.from({ length: WARMUP + ROUNDS }, (_, i) => `timing-key-${i}-${randomBytes(6).toString("hex")}`);
    await quiet.prisma.app.create({
      data: { name: "Timing", developerId: developer.id, credentials: { create: unused.map((consumerKey) => ({ consumerKey, consumerSecretHash: hashSecret(randomBytes(32).toString("hex")) })) } },
    });
    const inUse = basic(DEMO.app.consumerKey, DEMO.app.consumerSecret);
    const ids = {
      // DEMO.app's owner is issued a token before every measured request, so it is in the catalog cache.
      "in use": () => DEMO.app.consumerKey,
      unused: (i: number) => unused[i]!,
      unknown: () => `timing-key-${randomBytes(9).toString("hex")}`,
    };
    const kinds = Object.keys(ids) as (keyof typeof ids)[];
    const samples: Record<string, number[]> = { "in use": [], unused: [], unknown: [] };
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // Interleaved, in a rotating order, so load on the machine hits every series alike.
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(i + k) % kinds.length]!;
        await timed(inUse, 200);
        const elapsed = await timed(basic(ids[kind](i), "wrong-secret"), 401);
        if (i >= WARMUP) samples[kind]!.push(elapsed);
      }
    }
    const medians = Object.fromEntries(kinds.map((k) => [k, median(samples[k]!)]));
    console.log(`client id timing, median µs over ${ROUNDS} requests each: ${kinds.map((k) => `${k} ${medians[k]!.toFixed(0)}`).join(", ")}`);
    for (const kind of ["in use", "unused"] as const) {
      const [a, b] = [medians[kind]!, medians.unknown!];
      expect(Math.abs(a - b) / Math.min(a, b), `${kind} ${a.toFixed(0)} µs vs unknown ${b.toFixed(0)} µs`).toBeLessThan(0.25);
    }
  }, 120_000);
});

describe("revoked products and client credentials", () => {
  it("a product revoked on the credential since the last token adds no scope or product to the next one", async () => {
    const client = await createClient({ products: [{ name: "PSD2-AISP-v1" }, { name: "PSD2-PISP-v1" }] });
    const auth = basic(client.consumerKey, client.consumerSecret);
    const first = (await (await call("/token", { authorization: auth })).json()) as Json;
    expect(sortedScopes(first.scope)).toEqual(["aisp", "extended_transaction_history", "pisp"]);
    const pisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-PISP-v1" } });
    await server.prisma.credentialProduct.update({ where: { credentialId_apiProductId: { credentialId: client.credentialId, apiProductId: pisp.id } }, data: { status: "revoked" } });
    const next = (await (await call("/token", { authorization: auth })).json()) as Json;
    expect(sortedScopes(next.scope)).toEqual(["aisp", "extended_transaction_history"]);
    expect(next.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
    await expectOAuthError(await call("/token", { authorization: auth, body: "grant_type=client_credentials&scope=pisp" }), 400, "invalid_scope");
  });
});

describe("a revoked credential's tokens at the gateway", () => {
  it("stop working once the credential is revoked", async () => {
    const client = await createClient();
    const res = await call(TOKEN_ENDPOINT, { authorization: basic(client.consumerKey, client.consumerSecret) });
    expect(res.status).toBe(200);
    const { access_token: token } = (await res.json()) as Json;

    const ok = await callApi(server.url, token, OPEN_DATA);
    expect(ok.status).toBe(200);
    expect(ok.body.caller.clientId).toBe(client.consumerKey);

    await server.prisma.credential.update({ where: { id: client.credentialId }, data: { status: "revoked" } });
    const refused = await callApi(server.url, token, OPEN_DATA);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer realm="tollgate".*error="invalid_token"/);
    expect(refused.body.error).toBe("invalid_token");
  });

  it("stop working once the app is revoked", async () => {
    const client = await createClient();
    const res = await call("/token", { authorization: basic(client.consumerKey, client.consumerSecret) });
    const { access_token: token } = (await res.json()) as Json;
    expect((await callApi(server.url, token, OPEN_DATA)).status).toBe(200);
    await server.prisma.app.update({ where: { id: client.appId }, data: { status: "revoked" } });
    const refused = await callApi(server.url, token, OPEN_DATA);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("stop working once the credential passes its expiresAt", async () => {
    const client = await createClient({ credentialExpiresAt: new Date(Date.now() + 3_600_000) });
    const res = await call(TOKEN_ENDPOINT, { authorization: basic(client.consumerKey, client.consumerSecret) });
    const { access_token: token } = (await res.json()) as Json;
    expect((await callApi(server.url, token, OPEN_DATA)).status).toBe(200);
    await server.prisma.credential.update({ where: { id: client.credentialId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const refused = await callApi(server.url, token, OPEN_DATA);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });
});
