/**
 * HTTP suite for the admin API's strong customer authentication settings (issue 16): an API
 * product's `requiresSca`, an API's step-up requirement (`requiredAcr`, `maxAgeSeconds`,
 * RFC 9470) with its effect at the gateway at once, a user's sign-in factors (`User.factors`,
 * never key material) and `resetUserFactors` with its `factor.reset` audit event. A real
 * server with the demo seed on a fresh database, GraphQL over real HTTP; nothing is mocked.
 * Factors are put in through the running server's own store, as enrolment would.
 */
import { buildClientSchema, getIntrospectionQuery, isObjectType, type IntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACR_PASSWORD, ACR_SCA } from "../src/kernel/acr.js";
import { DEMO } from "../src/demo/seed.js";
import type { NewFactor } from "../src/stores/factors.js";
import { AUDIT_REQUEST_FIELDS, callApi, clientCredentialsToken, expectOAuthError, INTROSPECTION_ENDPOINT, json, randomState, tokenRequest, TOKEN_ENDPOINT, userTokens, type Json } from "./support/flow.js";
import { adminBearer, anonymous, signIn, withBearer, withSession, type GraphQLClient } from "./support/graphql.js";
import { enrolPasskey, startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
/** The automation app's admin bearer token. */
let admin: GraphQLClient;
/** The demo administrator's session. */
let adminBySession: GraphQLClient;
/** A signed-in end user without factors (role user). */
let endUser: GraphQLClient;
let nobody: GraphQLClient;
let developerId: string;

const PRODUCT_FIELDS = "id name requiresSca";
const API_FIELDS = "id name requiredAcr maxAgeSeconds passCookies requiredScopes";
const CREATE_PRODUCT = `mutation($input: CreateApiProductInput!) { createApiProduct(input: $input) { ${PRODUCT_FIELDS} } }`;
const UPDATE_PRODUCT = `mutation($id: ID!, $input: UpdateApiProductInput!) { updateApiProduct(id: $id, input: $input) { ${PRODUCT_FIELDS} } }`;
const CREATE_API = `mutation($input: CreateApiInput!) { createApi(input: $input) { ${API_FIELDS} } }`;
const UPDATE_API = `mutation($id: ID!, $input: UpdateApiInput!) { updateApi(id: $id, input: $input) { ${API_FIELDS} } }`;
const FACTOR_FIELDS = "id type name createdAt lastUsedAt";
const USER_FACTORS = `query($id: ID!) { user(id: $id) { id username factors { ${FACTOR_FIELDS} } } }`;
const RESET = `mutation($userId: ID!) { resetUserFactors(userId: $userId) { id username factors { id } } }`;

/** A TOTP key (RFC 6238), base32: public test material. */
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

/** Creates a user (role user) through the admin API. */
async function newUser(prefix: string): Promise<{ id: string; username: string; password: string }> {
  const username = `${prefix}-${randomState().replace(/[^A-Za-z0-9]/g, "").slice(0, 8).toLowerCase()}`;
  const password = `${username}-password-${randomState()}`;
  const { createUser } = await admin.data("mutation($input: CreateUserInput!) { createUser(input: $input) { id } }", { input: { username, password } });
  return { id: createUser.id, username, password };
}

/** Inserts a factor for `userId` through the running server's factor store, as enrolment would. */
function addFactor(userId: string, type: "totp" | "webauthn", name: string, at = new Date()) {
  const factor: NewFactor =
    type === "totp"
      ? { type, userId, name, secret: TOTP_SECRET, lastTimeStep: 0 }
      : { type, userId, name, credentialId: randomState(), publicKey: "pQECAyYgASFYIA", counter: 0, deviceType: "multiDevice", transports: ["internal", "hybrid"] };
  return server.db.factors.insert(factor, at);
}

/** The `factor.reset` audit events about `userId`, oldest first. */
async function resetEvents(userId: string) {
  return server.prisma.auditEvent.findMany({ where: { type: "factor.reset", subject: userId }, orderBy: { at: "asc" } });
}

/** The first error of a call that must fail: its code and message. */
async function failure(client: GraphQLClient, query: string, variables?: Record<string, unknown>): Promise<{ code: string | undefined; message: string }> {
  const { code, message } = await client.failure(query, variables);
  return { code, message };
}

beforeAll(async () => {
  server = await startTestServer();
  nobody = anonymous(server.url);
  admin = await adminBearer(server.url);
  adminBySession = withSession(await signIn(server.url, DEMO.admin));
  const plain = await newUser("sca-plain");
  endUser = withSession(await signIn(server.url, plain));
  const { developers } = await admin.data("{ developers { nodes { id email } } }");
  developerId = developers.nodes.find((d: Json) => d.email === DEMO.developerEmail).id;
});

afterAll(async () => {
  await server?.close();
});

describe("ApiProduct.requiresSca", () => {
  it("is false unless set at creation, is changed by updateApiProduct, and kept when an update leaves it out", async () => {
    const { createApiProduct: plain } = await admin.data(CREATE_PRODUCT, { input: { name: "Sca-Off-v1", scopes: ["aisp"] } });
    expect(plain.requiresSca).toBe(false);
    const { createApiProduct: strong } = await admin.data(CREATE_PRODUCT, { input: { name: "Sca-On-v1", scopes: ["pisp"], requiresSca: true } });
    expect(strong.requiresSca).toBe(true);

    const { apiProducts } = await admin.data("{ apiProducts { name requiresSca } }");
    expect(apiProducts).toContainEqual({ name: "Sca-Off-v1", requiresSca: false });
    expect(apiProducts).toContainEqual({ name: "Sca-On-v1", requiresSca: true });

    expect((await admin.data(UPDATE_PRODUCT, { id: plain.id, input: { requiresSca: true } })).updateApiProduct.requiresSca).toBe(true);
    expect((await admin.data(UPDATE_PRODUCT, { id: plain.id, input: { description: "kept" } })).updateApiProduct.requiresSca).toBe(true);
    expect((await admin.data(UPDATE_PRODUCT, { id: plain.id, input: { requiresSca: null } })).updateApiProduct.requiresSca).toBe(true);
    expect((await admin.data(UPDATE_PRODUCT, { id: plain.id, input: { requiresSca: false } })).updateApiProduct.requiresSca).toBe(false);
    expect((await server.prisma.apiProduct.findUniqueOrThrow({ where: { id: strong.id } })).requiresSca).toBe(true);
  });

  it("a non-Boolean is refused by the schema, and nothing changes", async () => {
    const { createApiProduct: p } = await admin.data(CREATE_PRODUCT, { input: { name: "Sca-Typed-v1" } });
    const answer = await admin.post(UPDATE_PRODUCT, { id: p.id, input: { requiresSca: "yes" } });
    expect(answer.body.errors?.[0]?.extensions?.code, answer.text).toBe("BAD_USER_INPUT");
    expect((await server.prisma.apiProduct.findUniqueOrThrow({ where: { id: p.id } })).requiresSca).toBe(false);
  });
});

describe("Api.requiredAcr and Api.maxAgeSeconds (RFC 9470 step-up)", () => {
  it("are null unless set; set at creation, changed, kept when left out, cleared by null (and requiredAcr by \"\")", async () => {
    const upstreamUrl = server.demoUpstreamUrl!;
    const { createApi: open } = await admin.data(CREATE_API, { input: { name: "stepup-open", upstreamUrl } });
    expect(open).toMatchObject({ requiredAcr: null, maxAgeSeconds: null });
    expect(await server.prisma.api.findUniqueOrThrow({ where: { id: open.id } })).toMatchObject({ requiredAcr: "", maxAgeSeconds: null });

    const { createApi: api } = await admin.data(CREATE_API, { input: { name: "stepup-strict", upstreamUrl, requiredAcr: ACR_SCA, maxAgeSeconds: 300 } });
    expect(api).toMatchObject({ requiredAcr: ACR_SCA, maxAgeSeconds: 300 });
    expect((await admin.data("{ apis { name requiredAcr maxAgeSeconds } }")).apis).toContainEqual({ name: "stepup-strict", requiredAcr: ACR_SCA, maxAgeSeconds: 300 });

    const update = async (input: Json) => (await admin.data(UPDATE_API, { id: api.id, input })).updateApi;
    expect(await update({ passCookies: true })).toMatchObject({ requiredAcr: ACR_SCA, maxAgeSeconds: 300, passCookies: true });
    expect(await update({ requiredAcr: ACR_PASSWORD })).toMatchObject({ requiredAcr: ACR_PASSWORD, maxAgeSeconds: 300 });
    expect(await update({ maxAgeSeconds: 1 })).toMatchObject({ requiredAcr: ACR_PASSWORD, maxAgeSeconds: 1 });
    expect(await update({ maxAgeSeconds: 31_536_000 })).toMatchObject({ maxAgeSeconds: 31_536_000 });
    expect(await update({ maxAgeSeconds: null })).toMatchObject({ requiredAcr: ACR_PASSWORD, maxAgeSeconds: null });
    expect(await update({ requiredAcr: "" })).toMatchObject({ requiredAcr: null, maxAgeSeconds: null });
    expect(await update({ requiredAcr: ACR_SCA })).toMatchObject({ requiredAcr: ACR_SCA });
    expect(await update({ requiredAcr: null })).toMatchObject({ requiredAcr: null });
    expect(await server.prisma.api.findUniqueOrThrow({ where: { id: api.id } })).toMatchObject({ requiredAcr: "", maxAgeSeconds: null });

    // createApi takes null and "" as "none" too.
    const { createApi: blank } = await admin.data(CREATE_API, { input: { name: "stepup-blank", upstreamUrl, requiredAcr: "", maxAgeSeconds: null } });
    expect(blank).toMatchObject({ requiredAcr: null, maxAgeSeconds: null });
  });

  it("refuses an acr Tollgate does not assign and a max age outside 1..31536000 seconds with BAD_USER_INPUT naming the field; nothing is written", async () => {
    const upstreamUrl = server.demoUpstreamUrl!;
    const { createApi: api } = await admin.data(CREATE_API, { input: { name: "stepup-checked", upstreamUrl, requiredAcr: ACR_PASSWORD, maxAgeSeconds: 60 } });
    for (const requiredAcr of ["urn:other:gold", "URN:TOLLGATE:SCA", " urn:tollgate:sca", "urn:tollgate:pwd urn:tollgate:sca", "pwd"]) {
      for (const [query, variables] of [
        [UPDATE_API, { id: api.id, input: { requiredAcr } }],
        [CREATE_API, { input: { name: "stepup-refused", upstreamUrl, requiredAcr } }],
      ] as const) {
        const error = await failure(admin, query, variables);
        expect(error.code, requiredAcr).toBe("BAD_USER_INPUT");
        expect(error.message).toBe("requiredAcr: one of urn:tollgate:pwd, urn:tollgate:sca, or empty for none");
      }
    }
    for (const maxAgeSeconds of [0, -1, 31_536_001]) {
      for (const [query, variables] of [
        [UPDATE_API, { id: api.id, input: { maxAgeSeconds } }],
        [CREATE_API, { input: { name: "stepup-refused", upstreamUrl, maxAgeSeconds } }],
      ] as const) {
        const error = await failure(admin, query, variables);
        expect(error.code, String(maxAgeSeconds)).toBe("BAD_USER_INPUT");
        expect(error.message).toMatch(/^maxAgeSeconds: /);
      }
    }
    // Not an integer: GraphQL's Int refuses it before the resolver.
    expect((await failure(admin, UPDATE_API, { id: api.id, input: { maxAgeSeconds: 1.5 } })).code).toBe("BAD_USER_INPUT");
    expect(await server.prisma.api.findUniqueOrThrow({ where: { id: api.id } })).toMatchObject({ requiredAcr: ACR_PASSWORD, maxAgeSeconds: 60 });
    expect(await server.prisma.api.count({ where: { name: "stepup-refused" } })).toBe(0);
  });

  it("the gateway applies a change at once (catalog cache): a client credentials token, with no user authentication, is refused while the API requires an acr or a max age", async () => {
    const { createApi: api } = await admin.data(CREATE_API, { input: { name: "stepup-live", upstreamUrl: server.demoUpstreamUrl, requiredScopes: ["stepup.read"] } });
    const { createApiProduct: product } = await admin.data(CREATE_PRODUCT, {
      input: { name: "Stepup-Live-v1", scopes: ["stepup.read"], scopeDescriptions: [{ name: "stepup.read", description: "Read with a fresh sign-in" }], apiIds: [api.id] },
    });
    const { createApp } = await admin.data("mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret } }", {
      input: { developerId, name: "Step-up probe", apiProductIds: [product.id] },
    });
    const token = await clientCredentialsToken(server.url, createApp);
    const call = () => callApi(server.url, token, "/stepup-live/");

    expect((await call()).status).toBe(200);
    await admin.data(UPDATE_API, { id: api.id, input: { requiredAcr: ACR_PASSWORD } });
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer realm="tollgate", error="insufficient_user_authentication", error_description="this access token carries no user authentication; this API requires a password sign-in", acr_values="urn:tollgate:pwd", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"',
    );
    await admin.data(UPDATE_API, { id: api.id, input: { requiredAcr: null, maxAgeSeconds: 3600 } });
    const old = await call();
    expect(old.status).toBe(401);
    expect(old.headers.get("www-authenticate")).toMatch(/error="insufficient_user_authentication", .*, max_age="3600", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"$/);
    expect(old.headers.get("www-authenticate")).not.toContain("acr_values");
    await admin.data(UPDATE_API, { id: api.id, input: { maxAgeSeconds: null } });
    expect((await call()).status).toBe(200);
  });
});

describe("User.factors", () => {
  it("lists the user's factors oldest first with id, type, name and times, and nothing else (no key material in the schema)", async () => {
    const user = await newUser("sca-factors");
    expect((await admin.data(USER_FACTORS, { id: user.id })).user).toEqual({ id: user.id, username: user.username, factors: [] });
    const phone = await addFactor(user.id, "totp", "Phone", new Date("2026-11-20T09:00:00.000Z"));
    const key = await addFactor(user.id, "webauthn", "Laptop passkey", new Date("2026-11-21T09:00:00.000Z"));
    await server.db.factors.acceptTimeStep(phone.id, 99, new Date("2026-11-22T09:00:00.000Z"));

    const { user: read } = await admin.data(USER_FACTORS, { id: user.id });
    expect(read.factors).toEqual([
      { id: phone.id, type: "totp", name: "Phone", createdAt: "2026-11-20T09:00:00.000Z", lastUsedAt: "2026-11-22T09:00:00.000Z" },
      { id: key.id, type: "webauthn", name: "Laptop passkey", createdAt: "2026-11-21T09:00:00.000Z", lastUsedAt: null },
    ]);
    // The same through the users list, and as the administrator's session.
    const { users } = await adminBySession.data(`query($s: String) { users(search: $s) { nodes { username factors { id type } } } }`, { s: user.username });
    expect(users.nodes).toEqual([{ username: user.username, factors: [{ id: phone.id, type: "totp" }, { id: key.id, type: "webauthn" }] }]);

    const { __schema } = (await admin.data(getIntrospectionQuery())) as IntrospectionQuery;
    const schema = buildClientSchema({ __schema });
    const factorType = schema.getType("UserFactor");
    expect(isObjectType(factorType) && Object.keys(factorType.getFields()).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "type"]);
    expect((await failure(admin, `query($id: ID!) { user(id: $id) { factors { secret } } }`, { id: user.id })).code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  it("user(id) is null for an unknown id", async () => {
    expect(await admin.data(USER_FACTORS, { id: "no-such-user" })).toEqual({ user: null });
  });
});

describe("resetUserFactors", () => {
  it("deletes every factor of the user, only theirs, and records factor.reset with the administrator, the user and the count", async () => {
    const user = await newUser("sca-reset");
    const other = await newUser("sca-keep");
    await addFactor(user.id, "totp", "Phone");
    await addFactor(user.id, "webauthn", "Passkey");
    const kept = await addFactor(other.id, "totp", "Other phone");

    const { resetUserFactors } = await adminBySession.data(RESET, { userId: user.id });
    expect(resetUserFactors).toEqual({ id: user.id, username: user.username, factors: [] });
    expect(await server.db.factors.list(user.id)).toEqual([]);
    expect((await server.db.factors.list(other.id)).map((f) => f.id)).toEqual([kept.id]);

    const [event, ...more] = await resetEvents(user.id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: "factor.reset", actor: "admin:admin", subject: user.id });
    expect(JSON.parse(event!.details)).toEqual({ count: 2, ...AUDIT_REQUEST_FIELDS });
    // The audit log shows it through the admin API too.
    const { auditEvents } = await admin.data('{ auditEvents(type: "factor.reset") { nodes { type actor subject details } } }');
    expect(auditEvents.nodes).toContainEqual({ type: "factor.reset", actor: "admin:admin", subject: user.id, details: event!.details });

    // Again, as the automation client: nothing left to delete, still recorded.
    expect((await admin.data(RESET, { userId: user.id })).resetUserFactors.factors).toEqual([]);
    const events = await resetEvents(user.id);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}` });
    expect(JSON.parse(events[1]!.details)).toEqual({ count: 0, ...AUDIT_REQUEST_FIELDS });
  });

  it("ends the user's browser sessions and revokes their tokens in the same change; another user's stay", async () => {
    /** A user with a passkey, signed in to the console, holding tokens of the demo app. */
    async function live(prefix: string) {
      const user = await newUser(prefix);
      await enrolPasskey(server, user.username);
      const browser = await signIn(server.url, user);
      const session = withSession(browser);
      const { tokens } = await userTokens(server.url, { user });
      expect((await session.data("{ me { username } }")).me).toEqual({ username: user.username });
      return { user, browser, session, tokens };
    }
    const reset = await live("sca-lost-phone");
    const other = await live("sca-other");

    await admin.data(RESET, { userId: reset.user.id });

    expect((await reset.session.data("{ me { username } }")).me).toBeNull();
    expect((await json(await reset.browser.fetch("/session"))).user).toBeNull();
    const introspected = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: reset.tokens.access_token });
    expect(introspected.body).toEqual({ active: false });
    expect((await callApi(server.url, reset.tokens.access_token)).status).toBe(401);
    await expectOAuthError(await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: reset.tokens.refresh_token }), 400, "invalid_grant");

    expect((await other.session.data("{ me { username } }")).me).toEqual({ username: other.user.username });
    expect((await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: other.tokens.access_token })).body).toMatchObject({ active: true });
    const [event] = await resetEvents(reset.user.id);
    expect(JSON.parse(event!.details)).toEqual({ count: 1, ...AUDIT_REQUEST_FIELDS });
  });

  it("an unknown user is NOT_FOUND, with no audit event", async () => {
    const before = await server.prisma.auditEvent.count({ where: { type: "factor.reset" } });
    expect(await failure(admin, RESET, { userId: "no-such-user" })).toEqual({ code: "NOT_FOUND", message: "no user with this id" });
    expect(await server.prisma.auditEvent.count({ where: { type: "factor.reset" } })).toBe(before);
  });

  it.each([
    { who: "no credentials", client: () => nobody, code: "UNAUTHENTICATED" },
    { who: "an end user's session", client: () => endUser, code: "FORBIDDEN" },
  ])("is refused to $who ($code), deleting nothing and recording nothing; User.factors and user(id) are refused too", async ({ client, code }) => {
    const user = await newUser("sca-guarded");
    const factor = await addFactor(user.id, "totp", "Phone");
    expect((await failure(client(), RESET, { userId: user.id })).code).toBe(code);
    expect((await server.db.factors.list(user.id)).map((f) => f.id)).toEqual([factor.id]);
    expect(await resetEvents(user.id)).toEqual([]);
    expect((await failure(client(), USER_FACTORS, { id: user.id })).code).toBe(code);
    expect((await failure(client(), "{ users { nodes { factors { id } } } }")).code).toBe(code);
  });

  it("is refused to a client credentials token without the admin scope", async () => {
    const user = await newUser("sca-app");
    await addFactor(user.id, "totp", "Phone");
    const app = withBearer(server.url, await clientCredentialsToken(server.url, DEMO.app));
    expect((await failure(app, RESET, { userId: user.id })).code).toBe("FORBIDDEN");
    expect(await server.db.factors.list(user.id)).toHaveLength(1);
  });
});
