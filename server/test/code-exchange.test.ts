/**
 * HTTP suite for the back channel of the authorization code flow (spec "Exchange the
 * authorization code for a token", "Token response"; decisions.md "Authorization code
 * flow", "Refresh tokens", "Token response", "Standard clients", "Errors"; RFC 6749 §4.1.3,
 * §6, RFC 7636 §4.6, RFC 9700 §4.14.2): `grant_type=authorization_code` and
 * `grant_type=refresh_token` on both token paths, and the issued tokens on the gateway.
 * Codes come from the real front channel (see support/flow.ts); nothing is mocked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  callApi,
  expectOAuthError,
  expectTokenResponseHeaders,
  obtainCode,
  pkcePair,
  TOKEN_PATHS,
  tokenRequest,
  type Answer,
  type CodeOptions,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import { createUser, startTestServer, type TestServer } from "./support/server.js";
import { AUTH_CODE_KEYS } from "./support/token-response.js";

/** decisions.md: refresh token lifetime 90 days. */
const REFRESH_LIFETIME = 7_776_000;
const OPAQUE = /^[A-Za-z0-9_-]{43,}$/;

let server: TestServer;
let aliceId: string;

beforeAll(async () => {
  server = await startTestServer();
  aliceId = (await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } })).id;
});

afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A code from the real front channel (alice, DEMO.app, scope aisp unless told). */
async function code(o: CodeOptions = {}): Promise<string> {
  return (await obtainCode(server.url, o)).code;
}

function exchange(path: string, value: string | undefined, extra: Record<string, string | undefined> = {}, client: DemoClient = DEMO.app): Promise<Answer> {
  return tokenRequest(server.url, path, client, { grant_type: "authorization_code", code: value, redirect_uri: DEMO.callbackUrl, ...extra });
}

function refresh(path: string, refreshToken: string | undefined, extra: Record<string, string | undefined> = {}, client: DemoClient = DEMO.app): Promise<Answer> {
  return tokenRequest(server.url, path, client, { grant_type: "refresh_token", refresh_token: refreshToken, ...extra });
}

/** Expects 200 and returns the token response. */
function ok(answer: Answer): Json {
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** GET /accounts/ through the gateway; expects 200 and returns what the demo upstream echoed (the caller identity). */
async function expectAccepted(accessToken: string): Promise<Json> {
  const r = await callApi(server.url, accessToken);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

async function expectRefused(accessToken: string): Promise<void> {
  const r = await callApi(server.url, accessToken);
  expect(r.status, r.text).toBe(401);
  expect(r.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]*", error="invalid_token"/);
}

/** Checks the spec's authorization code token response for DEMO.app (apigee profile). */
function expectApigeeResponse(body: Json, scope: string, products: string[], refreshCount: string): void {
  expect(Object.keys(body).sort()).toEqual(AUTH_CODE_KEYS);
  for (const key of AUTH_CODE_KEYS) if (key !== "api_product_list_json") expect(typeof body[key], key).toBe("string");
  expect(body.access_token).toMatch(OPAQUE);
  expect(body.refresh_token).toMatch(OPAQUE);
  expect(body.refresh_token).not.toBe(body.access_token);
  expect(body.token_type).toBe("BearerToken");
  expect(["3599", "3600"]).toContain(body.expires_in);
  expect(body.issued_at).toMatch(/^\d{13}$/);
  expect(Math.abs(Number(body.issued_at) - Date.now())).toBeLessThan(10_000);
  expect(body.refresh_token_issued_at).toMatch(/^\d{13}$/);
  expect(Math.abs(Number(body.refresh_token_issued_at) - Date.now())).toBeLessThan(10_000);
  expect(body.refresh_token_status).toBe("approved");
  expect(body.refresh_token_expires_in).toMatch(/^[1-9]\d*$/);
  expect(Number(body.refresh_token_expires_in)).toBeLessThanOrEqual(REFRESH_LIFETIME);
  expect(body.refresh_count).toBe(refreshCount);
  expect(body.status).toBe("approved");
  expect(body.scope).toBe(scope);
  expect(body.api_product_list).toBe(`[${products.join(", ")}]`);
  expect(body.api_product_list_json).toEqual(products);
  expect(body.client_id).toBe(DEMO.app.consumerKey);
  expect(body.application_name).toBe(DEMO.app.name);
  expect(body.organization_name).toBe(DEMO.organization);
  expect(body["developer.email"]).toBe(DEMO.developerEmail);
}

/**
 * rfc6749 profile: `issued_at` and `refresh_token_issued_at` are JSON numbers of whole epoch
 * seconds (as AppAuth reads `issued_at`), now, so that `issued_at + expires_in` is the expiry.
 */
function expectEpochSeconds(body: Json): void {
  const now = Date.now() / 1000;
  for (const key of ["issued_at", "refresh_token_issued_at"]) {
    expect(Number.isInteger(body[key]), key).toBe(true);
    expect(Math.abs(body[key] - now), key).toBeLessThan(10);
  }
  expect(body.refresh_token_issued_at).toBe(body.issued_at);
  expect(Math.abs(body.issued_at + body.expires_in - (now + 3600))).toBeLessThan(10);
}

describe.each(TOKEN_PATHS)("POST %s grant_type=authorization_code", (path) => {
  it("exchanges a code for the spec's full token response, no-store", async () => {
    const answer = await exchange(path, await code({ scope: "aisp" }));
    const body = ok(answer);
    expectTokenResponseHeaders(answer);
    expectApigeeResponse(body, "aisp", ["PSD2-AISP-v1"], "0");
    expect(body.refresh_token_issued_at).toBe(body.issued_at);
    expect(Number(body.refresh_token_expires_in)).toBeGreaterThan(REFRESH_LIFETIME - 10);
  });

  it("api_product_list holds only the products covering the granted scopes", async () => {
    const two = ok(await exchange(path, await code({ scope: "aisp pisp" })));
    expectApigeeResponse(two, "aisp pisp", ["PSD2-AISP-v1", "PSD2-PISP-v1"], "0");
    const pisp = ok(await exchange(path, await code({ scope: "pisp" })));
    expectApigeeResponse(pisp, "pisp", ["PSD2-PISP-v1"], "0");
    const all = ok(await exchange(path, await code({ scope: "extended_transaction_history piisp" })));
    expectApigeeResponse(all, "extended_transaction_history piisp", ["PSD2-AISP-v1", "PSD2-PIISP-v1"], "0");
  });

  it("the scope granted at consent (a subset of the request) is the token's scope", async () => {
    const body = ok(await exchange(path, await code({ scope: "aisp pisp", approve: ["pisp"], extra: { prompt: "consent" } })));
    expect(body.scope).toBe("pisp");
    expect(body.api_product_list_json).toEqual(["PSD2-PISP-v1"]);
  });

  it("the access token works on the gateway and the upstream sees the user (X-User-Id)", async () => {
    const body = ok(await exchange(path, await code({ scope: "aisp" })));
    const echoed = await expectAccepted(body.access_token);
    expect(echoed.caller).toEqual({ clientId: DEMO.app.consumerKey, appName: DEMO.app.name, scopes: "aisp", userId: aliceId });
    // The refresh token is not an access token.
    await expectRefused(body.refresh_token);
  });

  it("a token without the API's scope is refused with 403 insufficient_scope", async () => {
    const body = ok(await exchange(path, await code({ scope: "pisp" })));
    const r = await callApi(server.url, body.access_token);
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("PKCE (S256) with the rfc6749 client: Bearer, numeric expires_in, refresh token", async () => {
    const { verifier, challenge } = pkcePair();
    const answer = await exchange(path, await code({ client: DEMO.strictApp, pkce: { challenge } }), { code_verifier: verifier }, DEMO.strictApp);
    const body = ok(answer);
    expectTokenResponseHeaders(answer);
    expect(Object.keys(body).sort()).toEqual(AUTH_CODE_KEYS);
    expect(body.token_type).toBe("Bearer");
    expect(typeof body.expires_in).toBe("number");
    expect([3599, 3600]).toContain(body.expires_in);
    expect(body.refresh_token).toMatch(OPAQUE);
    expect(body.refresh_token_status).toBe("approved");
    expect(body.refresh_count).toBe("0");
    expect(body.client_id).toBe(DEMO.strictApp.consumerKey);
    expect(body.application_name).toBe(DEMO.strictApp.name);
    expect(body.scope).toBe("aisp");
    expectEpochSeconds(body);
    const echoed = await expectAccepted(body.access_token);
    expect(echoed.caller.userId).toBe(aliceId);
  });

  it("PKCE used voluntarily by the legacy client is enforced too", async () => {
    const { verifier, challenge } = pkcePair();
    ok(await exchange(path, await code({ pkce: { challenge } }), { code_verifier: verifier }));
    await expectOAuthError(await exchange(path, await code({ pkce: { challenge } })), 400, "invalid_grant");
  });

  it("wrong code_verifier -> invalid_grant", async () => {
    const { challenge } = pkcePair();
    const other = pkcePair();
    await expectOAuthError(await exchange(path, await code({ client: DEMO.strictApp, pkce: { challenge } }), { code_verifier: other.verifier }, DEMO.strictApp), 400, "invalid_grant");
  });

  it("code_verifier equal to the challenge (plain downgrade) -> invalid_grant", async () => {
    const { challenge } = pkcePair();
    await expectOAuthError(await exchange(path, await code({ client: DEMO.strictApp, pkce: { challenge } }), { code_verifier: challenge }, DEMO.strictApp), 400, "invalid_grant");
  });

  it("missing code_verifier -> invalid_grant", async () => {
    const { challenge } = pkcePair();
    await expectOAuthError(await exchange(path, await code({ client: DEMO.strictApp, pkce: { challenge } }), {}, DEMO.strictApp), 400, "invalid_grant");
  });

  it("code_verifier without a code_challenge in the request -> invalid_grant", async () => {
    await expectOAuthError(await exchange(path, await code(), { code_verifier: pkcePair().verifier }), 400, "invalid_grant");
  });

  it("code replay -> invalid_grant, and the tokens of the first exchange are revoked", async () => {
    const value = await code({ scope: "aisp" });
    const first = ok(await exchange(path, value));
    await expectAccepted(first.access_token);

    await expectOAuthError(await exchange(path, value), 400, "invalid_grant");
    await expectRefused(first.access_token);
    await expectOAuthError(await refresh(path, first.refresh_token), 400, "invalid_grant");
  });

  it("code replay after a refresh revokes the rotated tokens too", async () => {
    const value = await code({ scope: "aisp" });
    const first = ok(await exchange(path, value));
    const rotated = ok(await refresh(path, first.refresh_token));
    await expectAccepted(rotated.access_token);

    await expectOAuthError(await exchange(path, value), 400, "invalid_grant");
    await expectRefused(rotated.access_token);
    await expectOAuthError(await refresh(path, rotated.refresh_token), 400, "invalid_grant");
  });

  it("code issued to another client -> invalid_grant", async () => {
    await expectOAuthError(await exchange(path, await code(), {}, DEMO.strictApp), 400, "invalid_grant");
    await expectOAuthError(await exchange(path, await code(), {}, DEMO.paymentsApp), 400, "invalid_grant");
  });

  it("redirect_uri different from the authorization request -> invalid_grant", async () => {
    await expectOAuthError(await exchange(path, await code(), { redirect_uri: "http://localhost:8080/other" }), 400, "invalid_grant");
    await expectOAuthError(await exchange(path, await code(), { redirect_uri: `${DEMO.callbackUrl}/` }), 400, "invalid_grant");
  });

  it("missing code or redirect_uri -> invalid_request (the code stays usable)", async () => {
    await expectOAuthError(await exchange(path, undefined), 400, "invalid_request");
    const value = await code();
    await expectOAuthError(await exchange(path, value, { redirect_uri: undefined }), 400, "invalid_request");
    await expectOAuthError(await exchange(path, value, { redirect_uri: "" }), 400, "invalid_request");
    ok(await exchange(path, value));
  });

  it("a repeated parameter -> invalid_request", async () => {
    const value = await code();
    const answer = await tokenRequest(server.url, path, DEMO.app, `grant_type=authorization_code&code=${value}&code=${value}&redirect_uri=${encodeURIComponent(DEMO.callbackUrl)}`);
    await expectOAuthError(answer, 400, "invalid_request");
  });

  it("unknown code -> invalid_grant", async () => {
    await expectOAuthError(await exchange(path, "not-a-code-that-was-ever-issued-aaaaaaaaaaaa"), 400, "invalid_grant");
  });

  it("expired code -> invalid_grant", async () => {
    const value = await code();
    await server.prisma.authorizationCode.update({ where: { codeHash: hashSecret(value) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectOAuthError(await exchange(path, value), 400, "invalid_grant");
  });

  it("codes live 60 seconds", async () => {
    const value = await code();
    const row = await server.prisma.authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(value) } });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThan(55_000);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeLessThanOrEqual(61_000);
  });

  it("scope at the exchange may narrow the granted scope", async () => {
    const body = ok(await exchange(path, await code({ scope: "aisp pisp" }), { scope: "aisp" }));
    expectApigeeResponse(body, "aisp", ["PSD2-AISP-v1"], "0");
    await expectAccepted(body.access_token);
  });

  it("scope at the exchange may not widen -> invalid_scope", async () => {
    await expectOAuthError(await exchange(path, await code({ scope: "aisp" }), { scope: "aisp pisp" }), 400, "invalid_scope");
    await expectOAuthError(await exchange(path, await code({ scope: "aisp" }), { scope: "bogus" }), 400, "invalid_scope");
  });

  it("wrong client secret -> 401 invalid_client with a Basic challenge", async () => {
    const answer = await exchange(path, await code(), {}, { consumerKey: DEMO.app.consumerKey, consumerSecret: "wrong-secret" });
    await expectOAuthError(answer, 401, "invalid_client");
    expect(answer.headers.get("www-authenticate")).toMatch(/^Basic realm="/);
  });

  it("a code of a user disabled since -> invalid_grant", async () => {
    // A passkey: scope aisp (a PSD2 product) needs a second factor.
    const user = await createUser(server, { prefix: `dora-${path.length}`, passkey: true });
    const value = await code({ user });
    await server.prisma.user.update({ where: { id: user.id }, data: { status: "disabled" } });
    await expectOAuthError(await exchange(path, value), 400, "invalid_grant");
  });
});

describe.each(TOKEN_PATHS)("POST %s grant_type=refresh_token", (path) => {
  it("rotates: new tokens, refresh_count 1 then 2, issue times updated, expiry never grows", async () => {
    const first = ok(await exchange(path, await code({ scope: "aisp" })));
    await sleep(5);
    const a1 = await refresh(path, first.refresh_token);
    const second = ok(a1);
    expectTokenResponseHeaders(a1);
    expectApigeeResponse(second, "aisp", ["PSD2-AISP-v1"], "1");
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(Number(second.refresh_token_issued_at)).toBeGreaterThan(Number(first.refresh_token_issued_at));
    expect(Number(second.issued_at)).toBeGreaterThan(Number(first.issued_at));
    expect(Number(second.refresh_token_expires_in)).toBeLessThanOrEqual(Number(first.refresh_token_expires_in));
    const echoed = await expectAccepted(second.access_token);
    expect(echoed.caller.userId).toBe(aliceId);

    await sleep(5);
    const third = ok(await refresh(path, second.refresh_token));
    expectApigeeResponse(third, "aisp", ["PSD2-AISP-v1"], "2");
    expect(new Set([first.refresh_token, second.refresh_token, third.refresh_token]).size).toBe(3);
    expect(Number(third.refresh_token_issued_at)).toBeGreaterThan(Number(second.refresh_token_issued_at));
    expect(Number(third.refresh_token_expires_in)).toBeLessThanOrEqual(Number(second.refresh_token_expires_in));
    await expectAccepted(third.access_token);
  });

  it("rotation keeps the family's refresh expiry (never extends it)", async () => {
    const first = ok(await exchange(path, await code()));
    const soon = new Date(Date.now() + 1000 * 1000);
    await server.prisma.accessToken.updateMany({ where: { refreshTokenHash: hashSecret(first.refresh_token) }, data: { refreshTokenExpiresAt: soon } });
    const second = ok(await refresh(path, first.refresh_token));
    expect(Number(second.refresh_token_expires_in)).toBeLessThanOrEqual(1000);
    expect(Number(second.refresh_token_expires_in)).toBeGreaterThan(990);
    const third = ok(await refresh(path, second.refresh_token));
    expect(Number(third.refresh_token_expires_in)).toBeLessThanOrEqual(Number(second.refresh_token_expires_in));
  });

  it("reusing a rotated refresh token -> invalid_grant and the whole family is revoked", async () => {
    const first = ok(await exchange(path, await code()));
    const second = ok(await refresh(path, first.refresh_token));
    const third = ok(await refresh(path, second.refresh_token));
    await expectAccepted(third.access_token);

    await expectOAuthError(await refresh(path, first.refresh_token), 400, "invalid_grant");
    await expectRefused(third.access_token);
    await expectRefused(second.access_token);
    await expectRefused(first.access_token);
    await expectOAuthError(await refresh(path, third.refresh_token), 400, "invalid_grant");
  });

  it("the family is revoked only for that grant: another grant of the same user keeps working", async () => {
    const victim = ok(await exchange(path, await code()));
    const bystander = ok(await exchange(path, await code()));
    ok(await refresh(path, victim.refresh_token));
    await expectOAuthError(await refresh(path, victim.refresh_token), 400, "invalid_grant");
    await expectAccepted(bystander.access_token);
    ok(await refresh(path, bystander.refresh_token));
  });

  it("scope may narrow", async () => {
    const first = ok(await exchange(path, await code({ scope: "aisp pisp" })));
    const narrowed = ok(await refresh(path, first.refresh_token, { scope: "pisp" }));
    expectApigeeResponse(narrowed, "pisp", ["PSD2-PISP-v1"], "1");
    const again = ok(await refresh(path, narrowed.refresh_token, { scope: "pisp" }));
    expect(again.scope).toBe("pisp");
  });

  it("scope may not widen -> invalid_scope, and the refresh token is not consumed", async () => {
    const first = ok(await exchange(path, await code({ scope: "aisp" })));
    await expectOAuthError(await refresh(path, first.refresh_token, { scope: "aisp pisp" }), 400, "invalid_scope");
    await expectOAuthError(await refresh(path, first.refresh_token, { scope: "bogus" }), 400, "invalid_scope");
    const second = ok(await refresh(path, first.refresh_token));
    expect(second.scope).toBe("aisp");
    expect(second.refresh_count).toBe("1");
  });

  it("refresh token of another client -> invalid_grant", async () => {
    const first = ok(await exchange(path, await code()));
    await expectOAuthError(await refresh(path, first.refresh_token, {}, DEMO.strictApp), 400, "invalid_grant");
    await expectOAuthError(await refresh(path, first.refresh_token, {}, DEMO.paymentsApp), 400, "invalid_grant");
  });

  it("missing refresh_token -> invalid_request", async () => {
    await expectOAuthError(await refresh(path, undefined), 400, "invalid_request");
    await expectOAuthError(await refresh(path, ""), 400, "invalid_request");
  });

  it("unknown refresh token, or an access token in its place -> invalid_grant", async () => {
    await expectOAuthError(await refresh(path, "not-a-refresh-token-that-was-ever-issued-aaaa"), 400, "invalid_grant");
    const first = ok(await exchange(path, await code()));
    await expectOAuthError(await refresh(path, first.access_token), 400, "invalid_grant");
  });

  it("expired refresh token -> invalid_grant", async () => {
    const first = ok(await exchange(path, await code()));
    await server.prisma.accessToken.updateMany({ where: { refreshTokenHash: hashSecret(first.refresh_token) }, data: { refreshTokenExpiresAt: new Date(Date.now() - 1000) } });
    await expectOAuthError(await refresh(path, first.refresh_token), 400, "invalid_grant");
  });

  it("a refresh token of a user disabled since -> invalid_grant", async () => {
    const user = await createUser(server, { prefix: `erin-${path.length}`, passkey: true });
    const first = ok(await exchange(path, await code({ user })));
    await server.prisma.user.update({ where: { id: user.id }, data: { status: "disabled" } });
    await expectOAuthError(await refresh(path, first.refresh_token), 400, "invalid_grant");
  });

  it("the rfc6749 client's refresh answers in its profile", async () => {
    const { verifier, challenge } = pkcePair();
    const first = ok(await exchange(path, await code({ client: DEMO.strictApp, pkce: { challenge } }), { code_verifier: verifier }, DEMO.strictApp));
    const second = ok(await refresh(path, first.refresh_token, {}, DEMO.strictApp));
    expect(Object.keys(second).sort()).toEqual(AUTH_CODE_KEYS);
    expect(second.token_type).toBe("Bearer");
    expect(typeof second.expires_in).toBe("number");
    expect(second.refresh_count).toBe("1");
    expectEpochSeconds(second);
    expect(second.issued_at).toBeGreaterThanOrEqual(first.issued_at);
    await expectAccepted(second.access_token);
  });
});

describe("refresh scope is bounded by the original grant, not by the last narrowing (RFC 6749 §6)", () => {
  // RFC 6749 §6: "The requested scope MUST NOT include any scope not originally granted by
  // the resource owner, and if omitted is treated as equal to the scope originally granted
  // by the resource owner." Narrowing one refresh must not shrink the grant for good.
  it("after a narrowed refresh, an omitted scope is the originally granted one and the other granted scope can be asked again", async () => {
    const first = ok(await exchange("/token", await code({ scope: "aisp pisp" })));
    const narrowed = ok(await refresh("/token", first.refresh_token, { scope: "pisp" }));
    expect(narrowed.scope).toBe("pisp");
    const omitted = ok(await refresh("/token", narrowed.refresh_token));
    expect(omitted.scope).toBe("aisp pisp");
    const other = ok(await refresh("/token", omitted.refresh_token, { scope: "aisp" }));
    expect(other.scope).toBe("aisp");
  });
});

describe("a product revoked on the credential after consent gives no scope to a new token", () => {
  /** An apigee-profile app without PKCE, approved for PSD2-AISP-v1 and PSD2-PISP-v1, with the demo callback. */
  async function twoProductApp(): Promise<DemoClient & { credentialId: string }> {
    const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const products = await server.prisma.apiProduct.findMany({ where: { name: { in: ["PSD2-AISP-v1", "PSD2-PISP-v1"] } } });
    const consumerKey = `revoke-test-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const consumerSecret = `secret-${consumerKey}`;
    const app = await server.prisma.app.create({
      data: {
        name: consumerKey,
        developerId: developer.id,
        requirePkce: false,
        callbackUrls: { create: [{ url: DEMO.callbackUrl }] },
        credentials: { create: [{ consumerKey, consumerSecretHash: hashSecret(consumerSecret), products: { create: products.map((p) => ({ apiProductId: p.id })) } }] },
      },
      include: { credentials: true },
    });
    return { consumerKey, consumerSecret, credentialId: app.credentials[0]!.id };
  }

  /** Sets the status of PSD2-PISP-v1 on the client's credential. */
  async function setPisp(client: { credentialId: string }, status: string): Promise<void> {
    const pisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-PISP-v1" } });
    await server.prisma.credentialProduct.update({ where: { credentialId_apiProductId: { credentialId: client.credentialId, apiProductId: pisp.id } }, data: { status } });
  }

  it("code exchange: the revoked product's scope is left out, and asking for it is invalid_scope", async () => {
    const client = await twoProductApp();
    const value = await code({ client, scope: "aisp pisp" });
    await setPisp(client, "revoked");
    await expectOAuthError(await exchange("/token", value, { scope: "pisp" }, client), 400, "invalid_scope");
    const body = ok(await exchange("/token", value, {}, client));
    expect(body.scope).toBe("aisp");
    expect(body.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(body.access_token) } });
    expect(row.scope).toBe("aisp");
  });

  it("refresh: the revoked product's scope is left out, asking for it is invalid_scope, and it comes back once approved again", async () => {
    const client = await twoProductApp();
    const first = ok(await exchange("/token", await code({ client, scope: "aisp pisp" }), {}, client));
    expect(first.scope).toBe("aisp pisp");
    await setPisp(client, "revoked");
    await expectOAuthError(await refresh("/token", first.refresh_token, { scope: "pisp" }, client), 400, "invalid_scope");
    const second = ok(await refresh("/token", first.refresh_token, {}, client));
    expect(second.scope).toBe("aisp");
    expect(second.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
    await setPisp(client, "approved");
    const third = ok(await refresh("/token", second.refresh_token, {}, client));
    expect(third.scope).toBe("aisp pisp");
  });

  it("when no product of the grant is approved any more: invalid_grant for the code and the refresh token, nothing issued", async () => {
    const client = await twoProductApp();
    const tokens = ok(await exchange("/token", await code({ client, scope: "pisp" }), {}, client));
    const value = await code({ client, scope: "pisp" });
    await setPisp(client, "pending");
    const before = await server.prisma.accessToken.count({ where: { credentialId: client.credentialId } });
    await expectOAuthError(await exchange("/token", value, {}, client), 400, "invalid_grant");
    await expectOAuthError(await refresh("/token", tokens.refresh_token, {}, client), 400, "invalid_grant");
    expect(await server.prisma.accessToken.count({ where: { credentialId: client.credentialId } })).toBe(before);
  });
});

describe("both token paths are one endpoint", () => {
  it("a code from one path's flow is exchanged on the other and refreshed back on the first", async () => {
    const first = ok(await exchange("/token", await code()));
    const second = ok(await refresh("/oauth2/v1/token", first.refresh_token));
    expect(second.refresh_count).toBe("1");
    const third = ok(await refresh("/token", second.refresh_token));
    expect(third.refresh_count).toBe("2");
    await expectOAuthError(await refresh("/oauth2/v1/token", first.refresh_token), 400, "invalid_grant");
    await expectRefused(third.access_token);
  });

  it("a code replayed on the other path is still a replay", async () => {
    const value = await code();
    const first = ok(await exchange("/oauth2/v1/token", value));
    await expectOAuthError(await exchange("/token", value), 400, "invalid_grant");
    await expectRefused(first.access_token);
  });
});
