/**
 * The admin API's side of FAPI 2.0 (issue 15): an app's security profile (`securityProfile`
 * of setAppSettings) and its public signing keys (`setAppKeys`), the rules that hold them
 * together, and the DPoP binding the token list shows (`AccessToken.jkt`). Each change is
 * checked through the admin API and through the real token endpoint and gateway: a fapi2
 * app's settings, client assertions signed with the registered keys (RFC 7523 §2.2), a key
 * rotation that takes effect on the next request, and the audit log. A real server with the
 * demo seed on a fresh database (SQLite, or PostgreSQL with TEST_DATABASE=postgresql); nothing
 * is mocked.
 */
import { generateKeyPairSync } from "node:crypto";
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { CLIENT_ASSERTION_TYPE } from "../src/oauth/client-assertion.js";
import { DpopKey, assertionFields, clientAssertion, dpopCall, fapiTokens } from "./support/fapi.js";
import { basic, callApi, clientCredentialsToken, FORM, send, TOKEN_ENDPOINT, tokenRequest, type Answer, type DemoClient, type Json } from "./support/flow.js";
import { adminBearer, withAuthorization, withBearer, type GraphQLClient } from "./support/graphql.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;

/** The app fields these tests read. */
const APP_FIELDS = "id securityProfile tokenEndpointAuthMethods tokenResponseProfile requirePkce jwks jwksUri";
const SET_SETTINGS = `mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { ${APP_FIELDS} } }`;
const SET_KEYS = `mutation($id: ID!, $jwks: String, $jwksUri: String) { setAppKeys(appId: $id, jwks: $jwks, jwksUri: $jwksUri) { ${APP_FIELDS} } }`;

beforeAll(async () => {
  // The issuer is the server's real address, the audience of client assertions. A catalog
  // cache entry lives a minute here: a key rotation that reaches the token endpoint at once
  // shows that the write emptied the cache, not that the entry aged out.
  ({ server } = await startIssuerServer({ CATALOG_CACHE_TTL_MS: "60000" }));
  admin = await adminBearer(server.url);
  // Where a client credentials token may call (account data needs the PSU).
  await addOpenDataApi(server);
});
afterAll(() => server?.close());

/** A signing key pair of a TPP: the private key, and the public JWK (with `kid` and `alg`) to register. */
interface SigningKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A new ES256 key pair named `kid`. */
async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

/** The JSON text of a JWK Set of `keys`. */
const jwksOf = (...keys: JWK[]) => JSON.stringify({ keys });

/** An RSA key pair of `bits` as JWKs, made with node:crypto (jose would refuse to make a small one). */
function rsaJwks(bits: number): { publicJwk: JWK; privateJwk: JWK } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  return { publicJwk: publicKey.export({ format: "jwk" }) as JWK, privateJwk: privateKey.export({ format: "jwk" }) as JWK };
}

/**
 * A new app of the demo developer: the demo callback, the PSD2 products, and the given
 * settings (default: the apigee profile, PKCE off, client_secret_basic).
 */
async function newApp(name: string, settings: Record<string, unknown> = {}): Promise<{ appId: string; client: DemoClient }> {
  const { developers, apiProducts } = await admin.data("{ developers { nodes { id } } apiProducts { id name } }");
  const { createApp } = await admin.data(`mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret app { ${APP_FIELDS} } } }`, {
    input: {
      developerId: developers.nodes[0].id,
      name,
      callbackUrls: [DEMO.callbackUrl],
      apiProductIds: apiProducts.filter((p: { name: string }) => p.name.startsWith("PSD2-")).map((p: { id: string }) => p.id),
      requirePkce: false,
      ...settings,
    },
  });
  expect(createApp.app).toMatchObject({ securityProfile: "standard", jwks: null, jwksUri: null });
  return { appId: createApp.app.id, client: { consumerKey: createApp.consumerKey, consumerSecret: createApp.consumerSecret } };
}

async function app(id: string): Promise<Json> {
  return (await admin.data(`query($id: ID!) { app(id: $id) { ${APP_FIELDS} } }`, { id })).app;
}

const setSettings = async (id: string, input: Record<string, unknown>): Promise<Json> => (await admin.data(SET_SETTINGS, { id, input })).setAppSettings;
const setKeys = async (id: string, keys: { jwks?: string | null; jwksUri?: string | null }): Promise<Json> => (await admin.data(SET_KEYS, { id, ...keys })).setAppKeys;

/** The code and message of a refused call. */
async function refusal(query: string, variables: Record<string, unknown>): Promise<{ code: string | undefined; message: string }> {
  const { code, message } = await admin.failure(query, variables);
  return { code, message };
}

/** The admin.* audit events about `appId` (createApp's has none), oldest first: their type and arguments. */
async function auditOf(appId: string): Promise<Array<{ type: string; args: Json }>> {
  const { auditEvents } = await admin.data("{ auditEvents(first: 200) { nodes { type subject actor details } } }");
  return auditEvents.nodes
    .filter((e: Json) => e.subject === appId && e.type.startsWith("admin."))
    .reverse()
    .map((e: Json) => {
      expect(e.actor).toBe(`client:${DEMO.adminApp.consumerKey}`);
      return { type: e.type, args: JSON.parse(e.details).args };
    });
}

/** A client credentials request of `clientId` authenticated by a client assertion signed with `key` (kid in the header). */
async function assertionToken(clientId: string, key: SigningKey, headers: Record<string, string> = {}): Promise<Answer> {
  const form = { grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(server.url, { key: key.privateKey, header: { kid: key.publicJwk.kid } }, clientId)) };
  return send(new URL(TOKEN_ENDPOINT, server.url), { method: "POST", headers: { "Content-Type": FORM, Accept: "application/json", ...headers }, body: new URLSearchParams(form).toString() });
}

describe("the demo apps as the admin API shows them", () => {
  it("the fapi2 demo app: fapi2, private_key_jwt only, rfc6749, PKCE, and its public key; the other apps standard without keys", async () => {
    const { apps } = await admin.data(`{ apps(first: 50) { nodes { name ${APP_FIELDS} } } }`);
    const fapi = apps.nodes.find((a: Json) => a.name === DEMO.fapiApp.name);
    expect(fapi).toMatchObject({ securityProfile: "fapi2", tokenEndpointAuthMethods: ["private_key_jwt"], tokenResponseProfile: "rfc6749", requirePkce: true, jwksUri: null });
    const { keys } = JSON.parse(fapi.jwks);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kid: "demo-fapi-2026", kty: "EC", crv: "P-256", alg: "ES256" });
    expect(keys[0].d).toBeUndefined();
    const budgeting = apps.nodes.find((a: Json) => a.name === DEMO.app.name);
    expect(budgeting).toMatchObject({ securityProfile: "standard", jwks: null, jwksUri: null });
  });
});

describe("setAppSettings securityProfile", () => {
  it("refuses fapi2 for an app without keys, and changes nothing", async () => {
    const { appId } = await newApp("FAPI without keys");
    const before = await app(appId);
    const { code, message } = await refusal(SET_SETTINGS, { id: appId, input: { securityProfile: "fapi2" } });
    expect(code).toBe("BAD_USER_INPUT");
    expect(message).toMatch(/^securityProfile: a fapi2 app authenticates with private_key_jwt, which needs the app's public signing keys: register a JWK Set or a jwks_uri first/);
    expect(await app(appId)).toEqual(before);
    expect(await auditOf(appId)).toEqual([]);
  });

  it("with keys, switches to fapi2 with private_key_jwt, rfc6749 and PKCE in the same change: the secret stops working, a DPoP-bound assertion works", async () => {
    const { appId, client } = await newApp("FAPI switch");
    const key = await signingKey("switch-1");
    expect((await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "client_credentials" })).status).toBe(200);
    await setKeys(appId, { jwks: jwksOf(key.publicJwk) });
    expect(await setSettings(appId, { securityProfile: "fapi2" })).toMatchObject({
      securityProfile: "fapi2",
      tokenEndpointAuthMethods: ["private_key_jwt"],
      tokenResponseProfile: "rfc6749",
      requirePkce: true,
    });
    // The token endpoint follows at once: the consumer secret is refused, a client assertion
    // without a DPoP proof too (a fapi2 app's tokens are DPoP-bound), with a proof it works.
    const bySecret = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "client_credentials" });
    expect(bySecret).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect((await assertionToken(client.consumerKey, key)).status).toBe(400);
    const dpop = await DpopKey.generate();
    const bound = await assertionToken(client.consumerKey, key, { DPoP: await dpop.proof("POST", `${server.url}${TOKEN_ENDPOINT}`) });
    expect(bound.status, bound.text).toBe(200);
    expect(bound.body.token_type).toBe("DPoP");
    expect((await dpopCall(server.url, bound.body.access_token, dpop, OPEN_DATA)).status).toBe(200);
    expect((await callApi(server.url, bound.body.access_token, OPEN_DATA)).status).toBe(401);
  });

  it("keys and the switch in one request: setAppKeys then setAppSettings", async () => {
    const { appId } = await newApp("FAPI one request");
    const key = await signingKey("one-request");
    const both = await admin.data(
      `mutation($id: ID!, $jwks: String) {
        keys: setAppKeys(appId: $id, jwks: $jwks) { id }
        settings: setAppSettings(appId: $id, input: { securityProfile: fapi2 }) { ${APP_FIELDS} }
      }`,
      { id: appId, jwks: jwksOf(key.publicJwk) },
    );
    expect(both.settings).toMatchObject({ securityProfile: "fapi2", tokenEndpointAuthMethods: ["private_key_jwt"], tokenResponseProfile: "rfc6749", requirePkce: true });
  });

  it("while fapi2: other methods, the apigee profile, PKCE off and removing the keys are refused; back to standard keeps the settings, then they may change", async () => {
    const { appId } = await newApp("FAPI kept");
    const key = await signingKey("kept-1");
    await setKeys(appId, { jwks: jwksOf(key.publicJwk) });
    const fapi = await setSettings(appId, { securityProfile: "fapi2" });
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ tokenEndpointAuthMethods: ["client_secret_basic"] }, /^tokenEndpointAuthMethods: a fapi2 app authenticates with private_key_jwt or mutual TLS only/],
      [{ tokenEndpointAuthMethods: ["private_key_jwt", "client_secret_post"] }, /^tokenEndpointAuthMethods: a fapi2 app authenticates with private_key_jwt or mutual TLS only/],
      [{ tokenResponseProfile: "apigee" }, /^tokenResponseProfile: a fapi2 app gets RFC 6749 token responses/],
      [{ requirePkce: false }, /^requirePkce: a fapi2 app must use PKCE/],
      [{ securityProfile: "fapi2", requirePkce: false }, /^requirePkce: a fapi2 app must use PKCE/],
    ];
    for (const [input, message] of refusals) {
      expect(await refusal(SET_SETTINGS, { id: appId, input }), JSON.stringify(input)).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(message) });
    }
    expect(await refusal(SET_KEYS, { id: appId })).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(/^jwks: a fapi2 app authenticates with private_key_jwt/) });
    expect(await app(appId)).toEqual(fapi);

    // Back to standard: the settings stay as they were, and may change from then on.
    expect(await setSettings(appId, { securityProfile: "standard" })).toEqual({ ...fapi, securityProfile: "standard" });
    expect(await setSettings(appId, { tokenResponseProfile: "apigee", requirePkce: false, tokenEndpointAuthMethods: ["client_secret_basic"] })).toMatchObject({
      securityProfile: "standard",
      tokenResponseProfile: "apigee",
      requirePkce: false,
      tokenEndpointAuthMethods: ["client_secret_basic"],
    });
    // A standard app that no longer allows private_key_jwt may drop its keys.
    expect(await setKeys(appId, {})).toMatchObject({ jwks: null, jwksUri: null });
  });

  it("a standard app may allow private_key_jwt only with keys; a new app cannot start with it", async () => {
    const { appId } = await newApp("Standard private_key_jwt");
    expect(await refusal(SET_SETTINGS, { id: appId, input: { tokenEndpointAuthMethods: ["private_key_jwt"] } })).toEqual({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/^tokenEndpointAuthMethods: private_key_jwt needs the app's public signing keys/),
    });
    const { developers } = await admin.data("{ developers { nodes { id } } }");
    const created = await refusal("mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey } }", {
      input: { developerId: developers.nodes[0].id, name: "Born with private_key_jwt", tokenEndpointAuthMethods: ["private_key_jwt"] },
    });
    expect(created).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(/^tokenEndpointAuthMethods: private_key_jwt needs the app's public signing keys/) });
    const { apps } = await admin.data('{ apps(filter: { search: "Born with private_key_jwt" }) { nodes { id } } }');
    expect(apps.nodes).toEqual([]);

    await setKeys(appId, { jwks: jwksOf((await signingKey("standard-1")).publicJwk) });
    expect((await setSettings(appId, { tokenEndpointAuthMethods: ["client_secret_basic", "private_key_jwt"] })).tokenEndpointAuthMethods).toEqual([
      "client_secret_basic",
      "private_key_jwt",
    ]);
    expect(await refusal(SET_KEYS, { id: appId, jwks: null, jwksUri: null })).toEqual({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/^jwks: private_key_jwt needs the app's public signing keys/),
    });
  });
});

describe("setAppKeys", () => {
  it("keeps only the public members of an ES256 key and shows them as App.jwks", async () => {
    const { appId } = await newApp("Keys accepted");
    const key = await signingKey("accepted-1");
    const app = await setKeys(appId, { jwks: JSON.stringify({ keys: [{ ...key.publicJwk, key_ops: ["verify"], ext: true }] }) });
    expect(app.jwksUri).toBeNull();
    expect(JSON.parse(app.jwks)).toEqual({ keys: [key.publicJwk] });
  });

  it("refuses private keys, symmetric keys, bad JSON, RS256 and small RSA keys, and both a set and a URL, and changes nothing", async () => {
    const { appId } = await newApp("Keys refused");
    const registered = await signingKey("refused-0");
    await setKeys(appId, { jwks: jwksOf(registered.publicJwk) });
    const before = await app(appId);
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const rsa2048 = rsaJwks(2048);
    const refused: Array<[string, { jwks?: string; jwksUri?: string }, RegExp]> = [
      ["a private EC key", { jwks: jwksOf({ ...(await exportJWK(privateKey)), kid: "private" }) }, /^jwks: key 1 has a private member \(d\)/],
      ["a private RSA key", { jwks: jwksOf(rsa2048.privateJwk) }, /^jwks: key 1 has a private member/],
      ["a symmetric key", { jwks: jwksOf({ kty: "oct", k: "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0" }) }, /^jwks: key 1 has a private member \(k\)/],
      ["bad JSON", { jwks: '{"keys": [' }, /^jwks: the JWK Set is not valid JSON/],
      ["no keys array", { jwks: JSON.stringify(registered.publicJwk) }, /^jwks: the JWK Set must be a JSON object with a "keys" array/],
      ["an RSA key of 1024 bits", { jwks: jwksOf({ ...rsaJwks(1024).publicJwk, alg: "RS256" }) }, /^jwks: key 1 has an RSA modulus under 2048 bits/],
      ["an RS256 key", { jwks: jwksOf({ ...rsa2048.publicJwk, alg: "RS256" }) }, /^jwks: key 1 must have alg PS256, ES256, EdDSA when alg is present/],
      ["a set and a URL", { jwks: jwksOf(registered.publicJwk), jwksUri: "https://tpp.example/jwks.json" }, /^jwksUri: give a JWK Set \(jwks\) or a jwks_uri, not both/],
      ["a plain http URL", { jwksUri: "http://tpp.example/jwks.json" }, /^jwksUri: an absolute https URL \(http only on localhost\)/],
      ["a relative URL", { jwksUri: "/jwks.json" }, /^jwksUri: an absolute https URL/],
      ["a cloud metadata address", { jwksUri: "https://169.254.169.254/latest/jwks" }, /^jwksUri: link-local and cloud metadata addresses/],
    ];
    for (const [what, keys, message] of refused) {
      expect(await refusal(SET_KEYS, { id: appId, ...keys }), what).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(message) });
    }
    expect(await app(appId)).toEqual(before);
    expect((await auditOf(appId)).map((e) => e.type)).toEqual(["admin.setAppKeys"]);
    expect(await refusal(SET_KEYS, { id: "no-such-app", jwks: jwksOf(registered.publicJwk) })).toMatchObject({ code: "NOT_FOUND" });
  });

  it("takes a jwks_uri instead of a set (https, or http on localhost), and a set replaces it", async () => {
    const { appId } = await newApp("Keys by URL");
    expect(await setKeys(appId, { jwksUri: "https://tpp.example/.well-known/jwks.json" })).toMatchObject({ jwks: null, jwksUri: "https://tpp.example/.well-known/jwks.json" });
    expect(await setKeys(appId, { jwksUri: "http://localhost:8080/jwks.json" })).toMatchObject({ jwks: null, jwksUri: "http://localhost:8080/jwks.json" });
    const key = await signingKey("url-then-set");
    const replaced = await setKeys(appId, { jwks: jwksOf(key.publicJwk) });
    expect(replaced.jwksUri).toBeNull();
    expect(JSON.parse(replaced.jwks).keys.map((k: JWK) => k.kid)).toEqual(["url-then-set"]);
  });

  it("rotates at once: after the rotation the old key's assertions are refused and the new key's accepted; tokens issued before still work", async () => {
    const { appId, client } = await newApp("Key rotation");
    const [oldKey, newKey] = [await signingKey("rotation-old"), await signingKey("rotation-new")];
    await setKeys(appId, { jwks: jwksOf(oldKey.publicJwk) });
    await setSettings(appId, { tokenEndpointAuthMethods: ["private_key_jwt"] });

    // A standard app with private_key_jwt: no DPoP proof needed. This also caches the client.
    const before = await assertionToken(client.consumerKey, oldKey);
    expect(before.status, before.text).toBe(200);
    expect(before.body.token_type).toBe("BearerToken");
    expect((await assertionToken(client.consumerKey, newKey)).status).toBe(401);

    await setKeys(appId, { jwks: jwksOf(newKey.publicJwk) });
    const old = await assertionToken(client.consumerKey, oldKey);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe("invalid_client");
    // Even under the new key's kid, a signature by the old key does not verify.
    const forged = await clientAssertion(server.url, { key: oldKey.privateKey, header: { kid: newKey.publicJwk.kid } }, client.consumerKey);
    const forgedAnswer = await tokenRequest(server.url, TOKEN_ENDPOINT, null, {
      grant_type: "client_credentials",
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: forged,
    });
    expect(forgedAnswer.status).toBe(401);
    const after = await assertionToken(client.consumerKey, newKey);
    expect(after.status, after.text).toBe(200);

    // Rotating keys revokes nothing: the token issued with the old key still calls the API.
    expect((await callApi(server.url, before.body.access_token, OPEN_DATA)).status).toBe(200);
    // A set of two keys (the overlap of a rotation) accepts both.
    await setKeys(appId, { jwks: jwksOf(newKey.publicJwk, oldKey.publicJwk) });
    expect((await assertionToken(client.consumerKey, oldKey)).status).toBe(200);
    expect((await assertionToken(client.consumerKey, newKey)).status).toBe(200);
  });

  it("every change is audited as admin.<mutation> with its arguments; refused changes are not", async () => {
    const { appId } = await newApp("Keys audited");
    const key = await signingKey("audited-1");
    const jwks = jwksOf(key.publicJwk);
    await refusal(SET_SETTINGS, { id: appId, input: { securityProfile: "fapi2" } });
    await setKeys(appId, { jwks });
    await setSettings(appId, { securityProfile: "fapi2" });
    await refusal(SET_SETTINGS, { id: appId, input: { requirePkce: false } });
    await setSettings(appId, { securityProfile: "standard" });
    await setKeys(appId, { jwksUri: "https://tpp.example/jwks.json" });
    expect(await auditOf(appId)).toEqual([
      { type: "admin.setAppKeys", args: { appId, jwks } },
      { type: "admin.setAppSettings", args: { appId, input: { securityProfile: "fapi2" } } },
      { type: "admin.setAppSettings", args: { appId, input: { securityProfile: "standard" } } },
      { type: "admin.setAppKeys", args: { appId, jwksUri: "https://tpp.example/jwks.json" } },
    ]);
  });

  it("is for administrators only", async () => {
    const { appId } = await newApp("Keys guarded");
    const jwks = jwksOf((await signingKey("guarded")).publicJwk);
    const asAppSecret = withAuthorization(server.url, basic(DEMO.app.consumerKey, DEMO.app.consumerSecret));
    expect((await asAppSecret.post(SET_KEYS, { id: appId, jwks })).status).toBe(401);
    const asClient = withBearer(server.url, await clientCredentialsToken(server.url, DEMO.app, "aisp"));
    expect((await asClient.failure(SET_KEYS, { id: appId, jwks })).code).toBe("FORBIDDEN");
    expect((await app(appId)).jwks).toBeNull();
  });
});

describe("AccessToken.jkt", () => {
  it("shows the DPoP key thumbprint of a fapi2 app's token, and null for a bearer token", async () => {
    const dpop = await DpopKey.generate();
    const { access_token, token_type } = await fapiTokens(server.url, dpop);
    expect(token_type).toBe("DPoP");
    expect((await dpopCall(server.url, access_token, dpop)).status).toBe(200);
    await clientCredentialsToken(server.url, DEMO.app, "aisp");
    const { apps } = await admin.data(`{ apps(first: 50) { nodes { id name } } }`);
    const idOf = (name: string) => apps.nodes.find((a: Json) => a.name === name).id;
    const tokens = async (appId: string) => (await admin.data("query($appId: ID) { tokens(appId: $appId, first: 50) { nodes { grantType jkt } } }", { appId })).tokens.nodes;
    expect(await tokens(idOf(DEMO.fapiApp.name))).toContainEqual({ grantType: "authorization_code", jkt: dpop.jkt });
    const budgeting = await tokens(idOf(DEMO.app.name));
    expect(budgeting.length).toBeGreaterThan(0);
    expect(budgeting.every((t: Json) => t.jkt === null)).toBe(true);
  });
});
