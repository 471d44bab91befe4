/**
 * Changing an existing app's client settings through the admin API (issue 13, item 13):
 * `setAppSettings` changes the token response profile, the PKCE requirement, the
 * introspection permission, the client authentication methods and the OpenID Connect settings
 * (ID token signing algorithm, subject type, sector identifier URI, post-logout redirect URIs,
 * nonce requirement) and the signed request object requirement (RFC 9101); each change takes effect on the next request and is audited. Real server,
 * real database, real HTTP.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FAPI_PUBLIC_JWKS } from "../src/demo/fapi-key.js";
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

const SETTINGS = "id tokenResponseProfile requirePkce canIntrospect tokenEndpointAuthMethods idTokenSignedResponseAlg introspectionSignedResponseAlg authorizationSignedResponseAlg subjectType sectorIdentifierUri postLogoutRedirectUris requireNonce requireSignedRequestObject";

/** A new app's settings, as createApp leaves them. */
const DEFAULTS = {
  tokenResponseProfile: "apigee",
  requirePkce: true,
  canIntrospect: false,
  tokenEndpointAuthMethods: ["client_secret_basic"],
  idTokenSignedResponseAlg: "PS256",
  introspectionSignedResponseAlg: "PS256",
  authorizationSignedResponseAlg: "PS256",
  subjectType: "public",
  sectorIdentifierUri: null,
  postLogoutRedirectUris: [],
  requireNonce: false,
  requireSignedRequestObject: false,
};

/** Post-logout redirect URIs an app may register: https, and http on localhost, as callback URLs. */
const SIGNED_OUT = "https://tpp.example/signed-out";
const BYE = "http://localhost:8080/bye?from=bank";

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

/** The last setAppSettings audit event: who, on which app, with what input. */
async function lastSettingsEvent(): Promise<{ actor: string; subject: string; input: Json }> {
  const { auditEvents } = await admin.data('{ auditEvents(type: "admin.setAppSettings", first: 1) { nodes { actor subject details } } }');
  const [event] = auditEvents.nodes;
  return { actor: event.actor, subject: event.subject, input: JSON.parse(event.details).args.input };
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
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input: { idTokenSignedResponseAlg: "ES256" } });
    // No wait for a cache: the admin write empties the token endpoint's view of the app.
    expect(await idTokenAlg()).toBe("ES256");

    // A change of another setting keeps it.
    expect((await setSettings(appId, { canIntrospect: true })).idTokenSignedResponseAlg).toBe("ES256");
    expect((await setSettings(appId, { idTokenSignedResponseAlg: "PS256" })).idTokenSignedResponseAlg).toBe("PS256");
    expect(await idTokenAlg()).toBe("PS256");
  });

  it("switches the introspection response algorithm (RFC 9701 §6): PS256 by default, ES256 for the next signed introspection response, and back", async () => {
    const { appId, client } = await newApp("Signed introspection settings app");
    await setSettings(appId, { canIntrospect: true });
    /** The `alg` of a signed introspection response to the app, checked against the server's JWK Set. */
    const introspectionAlg = async () => {
      const answer = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, client, { token: "unknown" }, { headers: { Accept: "application/token-introspection+jwt" } });
      const jwks = (await send(new URL(JWKS_PATH, server.url))).body as JSONWebKeySet;
      const { alg } = decodeProtectedHeader(answer.text);
      await jwtVerify(answer.text, createLocalJWKSet(jwks), { algorithms: [alg!], audience: client.consumerKey, typ: "token-introspection+jwt" });
      return alg;
    };
    expect(await introspectionAlg()).toBe("PS256");

    expect(await setSettings(appId, { introspectionSignedResponseAlg: "ES256" })).toEqual({ id: appId, ...DEFAULTS, canIntrospect: true, introspectionSignedResponseAlg: "ES256" });
    const { app } = await admin.data("query($id: ID!) { app(id: $id) { introspectionSignedResponseAlg } }", { id: appId });
    expect(app.introspectionSignedResponseAlg).toBe("ES256");
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input: { introspectionSignedResponseAlg: "ES256" } });
    expect(await introspectionAlg()).toBe("ES256");

    expect((await setSettings(appId, { idTokenSignedResponseAlg: "ES256" })).introspectionSignedResponseAlg).toBe("ES256");
    expect((await setSettings(appId, { introspectionSignedResponseAlg: "PS256" })).introspectionSignedResponseAlg).toBe("PS256");
    expect(await introspectionAlg()).toBe("PS256");
  });

  it("switches the authorization response algorithm (JARM section 3): PS256 by default, ES256 for the next signed response, and back", async () => {
    const { appId, client } = await newApp("Signed authorization response settings app");
    /** The `alg` of a signed authorization response to the app (prompt=none without a session: login_required), checked against the server's JWK Set. */
    const responseAlg = async () => {
      const query = new URLSearchParams({ client_id: client.consumerKey, redirect_uri: DEMO.callbackUrl, response_type: "code", response_mode: "jwt", scope: "aisp", state: "s", prompt: "none", code_challenge: pkcePair().challenge, code_challenge_method: "S256" });
      const answer = await fetch(`${server.url}/authorize?${query}`, { redirect: "manual" });
      const response = new URL(answer.headers.get("location")!).searchParams.get("response")!;
      const jwks = (await send(new URL(JWKS_PATH, server.url))).body as JSONWebKeySet;
      const { alg } = decodeProtectedHeader(response);
      await jwtVerify(response, createLocalJWKSet(jwks), { algorithms: [alg!], audience: client.consumerKey });
      return alg;
    };
    expect(await responseAlg()).toBe("PS256");

    expect(await setSettings(appId, { authorizationSignedResponseAlg: "ES256" })).toEqual({ id: appId, ...DEFAULTS, authorizationSignedResponseAlg: "ES256" });
    const { app } = await admin.data("query($id: ID!) { app(id: $id) { authorizationSignedResponseAlg } }", { id: appId });
    expect(app.authorizationSignedResponseAlg).toBe("ES256");
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input: { authorizationSignedResponseAlg: "ES256" } });
    expect(await responseAlg()).toBe("ES256");

    expect((await setSettings(appId, { idTokenSignedResponseAlg: "ES256" })).authorizationSignedResponseAlg).toBe("ES256");
    expect((await setSettings(appId, { authorizationSignedResponseAlg: "PS256" })).authorizationSignedResponseAlg).toBe("PS256");
    expect(await responseAlg()).toBe("PS256");
  });

  it("requires a nonce with openid (OpenID Connect Core §3.1.2.1): without one the next request is refused to the callback, with one the ID token carries it, without openid none is needed; and off again", async () => {
    const { appId, client } = await newApp("Nonce settings app");
    const pkce = pkcePair();
    /** Where /authorize sends the browser for a request of the app with `scope` and `extra`. */
    const authorize = async (scope: string, extra: Record<string, string> = {}) => {
      const params = authorizeParams(client, { scope, state: "s-nonce", code_challenge: pkce.challenge, code_challenge_method: "S256", ...extra });
      return (await request(new URL(authorizePath(params), server.url))).headers.get("location")!;
    };
    expect(await authorize("openid aisp")).toMatch(/^\/login\?interaction=/);

    expect(await setSettings(appId, { requireNonce: true })).toEqual({ id: appId, ...DEFAULTS, requireNonce: true });
    expect((await admin.data("query($id: ID!) { app(id: $id) { requireNonce } }", { id: appId })).app.requireNonce).toBe(true);
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input: { requireNonce: true } });
    const refused = new URL(await authorize("openid aisp"));
    expect(`${refused.origin}${refused.pathname}`).toBe(DEMO.callbackUrl);
    expect(Object.fromEntries(refused.searchParams)).toMatchObject({ error: "invalid_request", error_description: "nonce is required for this client", state: "s-nonce" });
    expect(await authorize("aisp")).toMatch(/^\/login\?interaction=/);
    const nonce = "n-0S6_WzA2Mj";
    const { tokens } = await userTokens(server.url, { client, scope: "openid aisp", pkce, extra: { nonce } });
    expect(decodeJwt(tokens.id_token).nonce).toBe(nonce);

    // A change of another setting keeps it; then off, and openid needs no nonce again.
    expect((await setSettings(appId, { canIntrospect: true })).requireNonce).toBe(true);
    expect((await setSettings(appId, { requireNonce: false })).requireNonce).toBe(false);
    expect(await authorize("openid aisp")).toMatch(/^\/login\?interaction=/);
  });

  it("requires signed request objects (RFC 9101 section 10.5) only with the app's keys: read back, audited, the next plain request refused; the keys stay while it is on; and off again", async () => {
    const { appId, client } = await newApp("Signed request object settings app");
    const mutation = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id } }";
    const setKeys = "mutation($id: ID!, $jwks: String) { setAppKeys(appId: $id, jwks: $jwks) { id } }";
    const pkce = pkcePair();
    /** Where /authorize sends the browser for a plain (unsigned) request of the app. */
    const authorize = async () => {
      const params = authorizeParams(client, { scope: "aisp", state: "s-jar", code_challenge: pkce.challenge, code_challenge_method: "S256" });
      return (await request(new URL(authorizePath(params), server.url))).headers.get("location")!;
    };
    // No keys to verify request objects with: refused, naming the field, nothing changed.
    const keyless = await admin.failure(mutation, { id: appId, input: { requireSignedRequestObject: true } });
    expect({ code: keyless.code, message: keyless.message }).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(/^requireSignedRequestObject: .*setAppKeys/) });
    expect(await setSettings(appId, {})).toEqual({ id: appId, ...DEFAULTS });

    await admin.data(setKeys, { id: appId, jwks: JSON.stringify(DEMO_FAPI_PUBLIC_JWKS) });
    expect(await authorize()).toMatch(/^\/login\?interaction=/);
    expect(await setSettings(appId, { requireSignedRequestObject: true })).toEqual({ id: appId, ...DEFAULTS, requireSignedRequestObject: true });
    expect((await admin.data("query($id: ID!) { app(id: $id) { requireSignedRequestObject } }", { id: appId })).app.requireSignedRequestObject).toBe(true);
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input: { requireSignedRequestObject: true } });
    const refused = new URL(await authorize());
    expect(`${refused.origin}${refused.pathname}`).toBe(DEMO.callbackUrl);
    expect(Object.fromEntries(refused.searchParams)).toMatchObject({ error: "invalid_request", error_description: expect.stringMatching(/signed request object/), state: "s-jar" });

    // The keys cannot be removed while it is on; a change of another setting keeps it; then off, and the keys may go.
    const removal = await admin.failure(setKeys, { id: appId, jwks: null });
    expect({ code: removal.code, message: removal.message }).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(/^requireSignedRequestObject: /) });
    expect((await setSettings(appId, { canIntrospect: true })).requireSignedRequestObject).toBe(true);
    expect((await setSettings(appId, { requireSignedRequestObject: false })).requireSignedRequestObject).toBe(false);
    expect(await authorize()).toMatch(/^\/login\?interaction=/);
    await admin.data(setKeys, { id: appId, jwks: null });
  });

  it("sets the subject identifiers, sector identifier URI and post-logout redirect URIs: read back, audited, followed by the next ID token and the logout endpoint; null and [] remove them", async () => {
    const { appId, client } = await newApp("Subject settings app");
    const user = (await server.db.users.byUsername(DEMO.user.username))!;
    const sub = async () => decodeJwt((await userTokens(server.url, { client, scope: "openid aisp", pkce: pkcePair() })).tokens.id_token).sub;
    /** Where the logout endpoint sends a browser without a session, for the app and `uri`. */
    const logout = async (uri: string) => {
      const answer = await request(new URL(`/oauth2/v1/logout?${new URLSearchParams({ client_id: client.consumerKey, post_logout_redirect_uri: uri, state: "s1" })}`, server.url));
      return { status: answer.status, location: answer.headers.get("location") };
    };
    expect(await sub()).toBe(user.id);
    expect((await logout(SIGNED_OUT)).status).toBe(400);

    const input = { subjectType: "pairwise", sectorIdentifierUri: "https://tpp.example/sector.json", postLogoutRedirectUris: [SIGNED_OUT, BYE] };
    expect(await setSettings(appId, input)).toEqual({ id: appId, ...DEFAULTS, ...input });
    const { app } = await admin.data("query($id: ID!) { app(id: $id) { subjectType sectorIdentifierUri postLogoutRedirectUris } }", { id: appId });
    expect(app).toEqual(input);
    expect(await lastSettingsEvent()).toEqual({ actor: `client:${DEMO.adminApp.consumerKey}`, subject: appId, input });
    // No wait for a cache: the next ID token has the sector's sub, the logout endpoint the new URIs.
    const pairwise = await sub();
    expect(pairwise).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pairwise).not.toBe(user.id);
    expect(await logout(SIGNED_OUT)).toEqual({ status: 302, location: `${SIGNED_OUT}?state=s1` });
    expect(await logout(BYE)).toEqual({ status: 302, location: `${BYE}&state=s1` });

    // Another sector, another sub; then back to public, with no sector and no URIs (an empty sector URI removes it too).
    expect((await setSettings(appId, { sectorIdentifierUri: "https://other.example/sector.json" })).sectorIdentifierUri).toBe("https://other.example/sector.json");
    expect(await sub()).not.toBe(pairwise);
    expect((await setSettings(appId, { sectorIdentifierUri: "" })).sectorIdentifierUri).toBeNull();
    expect(await setSettings(appId, { subjectType: "public", sectorIdentifierUri: null, postLogoutRedirectUris: [] })).toEqual({ id: appId, ...DEFAULTS });
    expect(await sub()).toBe(user.id);
    expect((await logout(SIGNED_OUT)).status).toBe(400);
  });

  it("refuses a subject type, sector identifier URI, post-logout redirect URIs or nonce requirement that would not do, and changes nothing", async () => {
    const { appId } = await newApp("Refused OpenID settings app");
    const before = await setSettings(appId, { postLogoutRedirectUris: [SIGNED_OUT] });
    const mutation = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id } }";
    // Values outside the schema's types (the SubjectType enum, Boolean, strings): 400 BAD_USER_INPUT before any resolver runs.
    for (const input of [{ subjectType: "ppid" }, { subjectType: "PAIRWISE" }, { requireNonce: "yes" }, { postLogoutRedirectUris: [1] }]) {
      const failure = await admin.failure(mutation, { id: appId, input });
      expect({ status: failure.status, code: failure.code }, JSON.stringify(input)).toEqual({ status: 400, code: "BAD_USER_INPUT" });
    }
    // Values the admin API checks: BAD_USER_INPUT naming the field, the whole input refused.
    for (const [input, message] of [
      [{ sectorIdentifierUri: "http://tpp.example/sector.json" }, /^sectorIdentifierUri: must be an https URL$/],
      [{ sectorIdentifierUri: "https://tpp.example/sector.json#x" }, /^sectorIdentifierUri: must be without a fragment$/],
      [{ sectorIdentifierUri: "https://169.254.169.254/sector.json" }, /^sectorIdentifierUri: must be on neither a link-local nor a cloud metadata address$/],
      [{ postLogoutRedirectUris: ["https://tpp.example/signed-out#done"] }, /^postLogoutRedirectUris\.0: an absolute https URL \(http only on localhost\), without a fragment$/],
      [{ postLogoutRedirectUris: [SIGNED_OUT, "http://tpp.example/signed-out"] }, /^postLogoutRedirectUris\.1: an absolute https URL/],
      [{ postLogoutRedirectUris: ["javascript:alert(1)"] }, /^postLogoutRedirectUris\.0: /],
      [{ postLogoutRedirectUris: ["https://tpp.example/signed out"] }, /^postLogoutRedirectUris\.0: RFC 3986 characters only/],
      [{ postLogoutRedirectUris: [SIGNED_OUT, SIGNED_OUT] }, /^postLogoutRedirectUris: duplicate URI$/],
      [{ postLogoutRedirectUris: Array.from({ length: 21 }, (_, i) => `${SIGNED_OUT}/${i}`) }, /^postLogoutRedirectUris: /],
      [{ subjectType: "pairwise", requireNonce: true, postLogoutRedirectUris: ["/signed-out"] }, /^postLogoutRedirectUris\.0: /],
    ] as const) {
      const failure = await admin.failure(mutation, { id: appId, input });
      expect({ code: failure.code, message: failure.message }, JSON.stringify(input)).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(message) });
    }
    expect(await setSettings(appId, {})).toEqual(before);
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
    for (const alg of ["RS256", "none"]) expect((await admin.failure(mutation, { id: appId, input: { introspectionSignedResponseAlg: alg } })).status).toBe(400);
    for (const alg of ["RS256", "none"]) expect((await admin.failure(mutation, { id: appId, input: { authorizationSignedResponseAlg: alg } })).status).toBe(400);
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
