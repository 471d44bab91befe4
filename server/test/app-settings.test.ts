/**
 * Changing an existing app's client settings through the admin API (issue 13, item 13):
 * `setAppSettings` changes the token response profile, the PKCE requirement, the
 * introspection permission and the client authentication methods; each change takes effect
 * on the next request and is audited. Real server, real database, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { FORM, authorizeParams, authorizePath, basic, formEncode, tokenRequest, type DemoClient, type Json } from "./support/flow.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;
let appId: string;
let client: DemoClient;

const SETTINGS = "id tokenResponseProfile requirePkce canIntrospect tokenEndpointAuthMethods";

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
  const { developers, apiProducts } = await admin.data("{ developers { nodes { id } } apiProducts { id name } }");
  const { createApp } = await admin.data(
    `mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret app { ${SETTINGS} } } }`,
    {
      input: {
        developerId: developers.nodes[0].id,
        name: "Settings test app",
        callbackUrls: [DEMO.callbackUrl],
        apiProductIds: apiProducts.filter((p: { name: string }) => p.name.startsWith("PSD2-")).map((p: { id: string }) => p.id),
      },
    },
  );
  appId = createApp.app.id;
  client = { consumerKey: createApp.consumerKey, consumerSecret: createApp.consumerSecret };
  expect(createApp.app).toEqual({ id: appId, tokenResponseProfile: "apigee", requirePkce: true, canIntrospect: false, tokenEndpointAuthMethods: ["client_secret_basic"] });
});
afterAll(() => server?.close());

async function setSettings(input: Record<string, unknown>): Promise<Json> {
  return (await admin.data(`mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { ${SETTINGS} } }`, { id: appId, input })).setAppSettings;
}

/** A client credentials request with the secret in the form body (client_secret_post). */
async function postCredentials(): Promise<{ status: number; body: Json }> {
  const body = `grant_type=client_credentials&client_id=${formEncode(client.consumerKey)}&client_secret=${formEncode(client.consumerSecret)}`;
  const res = await fetch(new URL("/oauth2/v1/token", server.url), { method: "POST", headers: { "Content-Type": FORM }, body });
  return { status: res.status, body: await res.json() };
}

describe("setAppSettings", () => {
  it("switches the token response profile: the next token answer has the rfc6749 shape, then the apigee shape again", async () => {
    expect((await setSettings({ tokenResponseProfile: "rfc6749" })).tokenResponseProfile).toBe("rfc6749");
    const strict = await tokenRequest(server.url, "/oauth2/v1/token", client, { grant_type: "client_credentials" });
    expect(strict.body.token_type).toBe("Bearer");
    expect(typeof strict.body.expires_in).toBe("number");
    await setSettings({ tokenResponseProfile: "apigee" });
    const apigee = await tokenRequest(server.url, "/oauth2/v1/token", client, { grant_type: "client_credentials" });
    expect(apigee.body.token_type).toBe("BearerToken");
    expect(typeof apigee.body.expires_in).toBe("string");
  });

  it("turns the PKCE requirement off and on for the next authorization request", async () => {
    const withoutPkce = () => fetch(new URL(authorizePath(authorizeParams(client)), server.url), { redirect: "manual" });
    const refused = await withoutPkce();
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    await setSettings({ requirePkce: false });
    expect((await withoutPkce()).headers.get("location")).toMatch(/^\/login\?interaction=/);
    await setSettings({ requirePkce: true });
    expect(new URL((await withoutPkce()).headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("allows and stops introspection", async () => {
    const introspect = () => tokenRequest(server.url, "/oauth2/v1/introspect", client, { token: "unknown" });
    expect((await introspect()).status).toBe(403);
    await setSettings({ canIntrospect: true });
    expect(await introspect()).toMatchObject({ status: 200, body: { active: false } });
    await setSettings({ canIntrospect: false });
    expect((await introspect()).status).toBe(403);
  });

  it("changes the client authentication methods: client_secret_post only refuses Basic, and back", async () => {
    expect((await postCredentials()).status).toBe(401);
    const set = await setSettings({ tokenEndpointAuthMethods: ["client_secret_post"] });
    expect(set.tokenEndpointAuthMethods).toEqual(["client_secret_post"]);
    expect((await postCredentials()).status).toBe(200);
    expect((await tokenRequest(server.url, "/oauth2/v1/token", client, { grant_type: "client_credentials" })).status).toBe(401);
    await setSettings({ tokenEndpointAuthMethods: ["client_secret_basic", "client_secret_post"] });
    expect((await postCredentials()).status).toBe(200);
    expect((await tokenRequest(server.url, "/oauth2/v1/token", client, { grant_type: "client_credentials" })).status).toBe(200);
    await setSettings({ tokenEndpointAuthMethods: ["client_secret_basic"] });
  });

  it("keeps what is left out, and refuses no method, a repeated method, an unknown method and an unknown app", async () => {
    const before = await setSettings({});
    expect(before).toEqual({ id: appId, tokenResponseProfile: "apigee", requirePkce: true, canIntrospect: false, tokenEndpointAuthMethods: ["client_secret_basic"] });
    const mutation = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id } }";
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: [] } })).code).toBe("BAD_USER_INPUT");
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: ["client_secret_post", "client_secret_post"] } })).code).toBe("BAD_USER_INPUT");
    expect((await admin.failure(mutation, { id: appId, input: { tokenEndpointAuthMethods: ["private_key_jwt"] } })).status).toBe(400);
    expect((await admin.failure(mutation, { id: "no-such-app", input: { requirePkce: false } })).code).toBe("NOT_FOUND");
    expect(await setSettings({})).toEqual(before);
  });

  it("is audited with who changed what", async () => {
    await setSettings({ requirePkce: true, tokenEndpointAuthMethods: ["client_secret_basic"] });
    const { auditEvents } = await admin.data('{ auditEvents(type: "admin.setAppSettings", first: 1) { nodes { actor subject details } } }');
    const [event] = auditEvents.nodes;
    expect(event.actor).toBe(`client:${DEMO.adminApp.consumerKey}`);
    expect(event.subject).toBe(appId);
    expect(JSON.parse(event.details).args.input).toEqual({ requirePkce: true, tokenEndpointAuthMethods: ["client_secret_basic"] });
  });

  it("is for administrators only", async () => {
    const res = await fetch(new URL("/graphql", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: basic(DEMO.app) },
      body: JSON.stringify({ query: `mutation { setAppSettings(appId: "${appId}", input: { requirePkce: false }) { id } }` }),
    });
    expect(res.status).toBe(401);
    expect((await setSettings({})).requirePkce).toBe(true);
  });
});
