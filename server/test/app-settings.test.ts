/**
 * Changing an existing app's client settings through the admin API (issue 13, item 13):
 * `setAppSettings` changes the token response profile, the PKCE requirement, the
 * introspection permission, the client authentication methods and the ID token signing
 * algorithm; each change takes effect on the next request and is audited. Real server, real
 * database, real HTTP.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { JWKS_PATH } from "../src/kernel/paths.js";
import {
  authorizeParams,
  authorizePath,
  basic,
  INTROSPECTION_ENDPOINT,
  pkcePair,
  request,
  send,
  TOKEN_ENDPOINT,
  tokenRequest,
  userTokens,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import { adminBearer, withAuthorization, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;

const SETTINGS = "id tokenResponseProfile requirePkce canIntrospect tokenEndpointAuthMethods idTokenSignedResponseAlg";

/** A new app's settings, as createApp leaves them. */
const DEFAULTS = { tokenResponseProfile: "apigee", requirePkce: true, canIntrospect: false, tokenEndpointAuthMethods: ["client_secret_basic"], idTokenSignedResponseAlg: "PS256" };

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
});
afterAll(() => server?.close());

/** A new app of the demo developer (demo callback, the PSD2 products), checked to start with the default settings. */
async function newApp(name: string): Promise<{ appId: string; client: DemoClient }> {
  const { developers, apiProducts } = await admin.data("{ developers { nodes { id } } apiProducts { id name } }");
  const { createApp } = await admin.data(`mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret app { ${SETTINGS} } } }`, {
    input: {
      developerId: developers.nodes[0].id,
      name,
      callbackUrls: [DEMO.callbackUrl],
      apiProductIds: apiProducts.filter((p: { name: string }) => p.name.startsWith("PSD2-")).map((p: { id: string }) => p.id),
    },
  });
  const appId = createApp.app.id;
  expect(createApp.app).toEqual({ id: appId, ...DEFAULTS });
  return { appId, client: { consumerKey: createApp.consumerKey, consumerSecret: createApp.consumerSecret } };
}

async function setSettings(appId: string, input: Record<string, unknown>): Promise<Json> {
  return (await admin.data(`mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { ${SETTINGS} } }`, { id: appId, input })).setAppSettings;
}

/** A client credentials request of `client` with HTTP Basic. */
const basicCredentials = (client: DemoClient) => tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "client_credentials" });

/** A client credentials request of `client` with the secret in the form body (client_secret_post). */
const postCredentials = (client: DemoClient) =>
  tokenRequest(server.url, TOKEN_ENDPOINT, null, { grant_type: "client_credentials", client_id: client.consumerKey, client_secret: client.consumerSecret });

describe("setAppSettings", () => {
  it("switches the token response profile: the next token answer has the rfc6749 shape, then the apigee shape again", async () => {
    const { appId, client } = await newApp("Profile settings app");
    expect((await setSettings(appId, { tokenResponseProfile: "rfc6749" })).tokenResponseProfile).toBe("rfc6749");
    const strict = await basicCredentials(client);
    expect(strict.body.token_type).toBe("Bearer");
    expect(typeof strict.body.expires_in).toBe("number");
    await setSettings(appId, { tokenResponseProfile: "apigee" });
    const apigee = await basicCredentials(client);
    expect(apigee.body.token_type).toBe("BearerToken");
    expect(typeof apigee.body.expires_in).toBe("string");
  });

  it("turns the PKCE requirement off and on for the next authorization request", async () => {
    const { appId, client } = await newApp("PKCE settings app");
    const withoutPkce = () => request(new URL(authorizePath(authorizeParams(client)), server.url));
    const refused = await withoutPkce();
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    await setSettings(appId, { requirePkce: false });
    expect((await withoutPkce()).headers.get("location")).toMatch(/^\/login\?interaction=/);
    await setSettings(appId, { requirePkce: true });
    expect(new URL((await withoutPkce()).headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("allows and stops introspection", async () => {
    const { appId, client } = await newApp("Introspection settings app");
    const introspect = () => tokenRequest(server.url, INTROSPECTION_ENDPOINT, client, { token: "unknown" });
    expect((await introspect()).status).toBe(403);
    await setSettings(appId, { canIntrospect: true });
    expect(await introspect()).toMatchObject({ status: 200, body: { active: false } });
    await setSettings(appId, { canIntrospect: false });
    expect((await introspect()).status).toBe(403);
  });

  it("changes the client authentication methods: client_secret_post only refuses Basic, and back", async () => {
    const { appId, client } = await newApp("Authentication settings app");
    expect((await postCredentials(client)).status).toBe(401);
    const set = await setSettings(appId, { tokenEndpointAuthMethods: ["client_secret_post"] });
    expect(set.tokenEndpointAuthMethods).toEqual(["client_secret_post"]);
    expect((await postCredentials(client)).status).toBe(200);
    expect((await basicCredentials(client)).status).toBe(401);
    await setSettings(appId, { tokenEndpointAuthMethods: ["client_secret_basic", "client_secret_post"] });
    expect((await postCredentials(client)).status).toBe(200);
    expect((await basicCredentials(client)).status).toBe(200);
    await setSettings(appId, { tokenEndpointAuthMethods: ["client_secret_basic"] });
    expect((await postCredentials(client)).status).toBe(401);
  });

  it("switches the ID token signing algorithm: PS256 by default, ES256 for the next ID token, and back", async () => {
    const { appId, client } = await newApp("ID token settings app");
    /** The `alg` of the ID token of a new sign-in of the app, checked against the server's JWK Set. */
    const idTokenAlg = async () => {
      const { tokens } = await userTokens(server.url, { client, scope: "openid aisp", pkce: pkcePair() });
      const jwks = (await send(new URL(JWKS_PATH, server.url))).body as JSONWebKeySet;
      const { alg } = decodeProtectedHeader(tokens.id_token);
      await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), { algorithms: [alg!], audience: client.consumerKey });
      return alg;
    };
    expect(await idTokenAlg()).toBe("PS256");

    expect(await setSettings(appId, { idTokenSignedResponseAlg: "ES256" })).toEqual({ id: appId, ...DEFAULTS, idTokenSignedResponseAlg: "ES256" });
    const { app } = await admin.data("query($id: ID!) { app(id: $id) { idTokenSignedResponseAlg } }", { id: appId });
    expect(app.idTokenSignedResponseAlg).toBe("ES256");
    const { auditEvents } = await admin.data('{ auditEvents(type: "admin.setAppSettings", first: 1) { nodes { actor subject details } } }');
    const [event] = auditEvents.nodes;
    expect(event).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId });
    expect(JSON.parse(event.details).args.input).toEqual({ idTokenSignedResponseAlg: "ES256" });
    // No wait for a cache: the admin write empties the token endpoint's view of the app.
    expect(await idTokenAlg()).toBe("ES256");

    // A change of another setting keeps it.
    expect((await setSettings(appId, { canIntrospect: true })).idTokenSignedResponseAlg).toBe("ES256");
    expect((await setSettings(appId, { idTokenSignedResponseAlg: "PS256" })).idTokenSignedResponseAlg).toBe("PS256");
    expect(await idTokenAlg()).toBe("PS256");
  });

  it("keeps what is left out, and refuses no method, a repeated method, an unknown method and an unknown app", async () => {
    const { appId } = await newApp("Refused settings app");
    const before = await setSettings(appId, {});
    expect(before).toEqual({ id: appId, ...DEFAULTS });
    const mutation = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id } }";
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: [] } })).code).toBe("BAD_USER_INPUT");
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: ["client_secret_post", "client_secret_post"] } })).code).toBe("BAD_USER_INPUT");
    // private_key_jwt needs the app's public keys first (setAppKeys).
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: ["private_key_jwt"] } })).code).toBe("BAD_USER_INPUT");
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: ["client_secret_jwt"] } })).status).toBe(400);
    // RS256 is not offered (FAPI 2.0 Security Profile section 5.4.1), nor is an unsigned ID token.
    for (const alg of ["RS256", "none"]) expect((await admin.failure(mutation, { id: appId, input: { idTokenSignedResponseAlg: alg } })).status).toBe(400);
    expect((await admin.failure(mutation, { id: "no-such-app", input: { requirePkce: false } })).code).toBe("NOT_FOUND");
    expect(await setSettings(appId, {})).toEqual(before);
  });

  it("is audited with who changed what", async () => {
    const { appId } = await newApp("Audited settings app");
    await setSettings(appId, { requirePkce: true, tokenEndpointAuthMethods: ["client_secret_basic"] });
    const { auditEvents } = await admin.data('{ auditEvents(type: "admin.setAppSettings", first: 1) { nodes { actor subject details } } }');
    const [event] = auditEvents.nodes;
    expect(event.actor).toBe(`client:${DEMO.adminApp.consumerKey}`);
    expect(event.subject).toBe(appId);
    expect(JSON.parse(event.details).args.input).toEqual({ requirePkce: true, tokenEndpointAuthMethods: ["client_secret_basic"] });
  });

  it("is for administrators only", async () => {
    const { appId } = await newApp("Guarded settings app");
    const asApp = withAuthorization(server.url, basic(DEMO.app.consumerKey, DEMO.app.consumerSecret));
    const answer = await asApp.post(`mutation { setAppSettings(appId: "${appId}", input: { requirePkce: false }) { id } }`);
    expect(answer.status).toBe(401);
    expect((await setSettings(appId, {})).requirePkce).toBe(true);
  });
});
