/**
 * HTTP suite for the admin GraphQL API (server/src/admin): every mutation with its effect
 * checked through a query and, where there is one, through the real endpoints (token
 * endpoint, /authorize, gateway, /session/login); the queries (pagination, filters, me,
 * consents, dashboard); and the audit log. A real server with the demo seed, a fresh
 * SQLite file, real HTTP; nothing is mocked. Access rules are in admin-auth.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { buildSchema, getNamedType, isObjectType } from "graphql";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  AUDIT_REQUEST_FIELDS,
  Browser,
  authorizePath,
  callApi,
  clientCredentialsToken,
  expectOAuthError,
  pkcePair,
  obtainCode,
  randomState,
  signInInteraction,
  TOKEN_ENDPOINT,
  tokenRequest,
  userTokens,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import {
  adminBearer,
  anonymous,
  sessionLogin,
  sessionSignIn,
  signIn,
  withSession,
  type GraphQLClient,
} from "./support/graphql.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { enrolPasskey, startTestServer, type TestServer } from "./support/server.js";


let server: TestServer;
/** The automation app's admin bearer token. */
let admin: GraphQLClient;
/** The demo administrator's session. */
let adminBySession: GraphQLClient;
let alice: GraphQLClient;
let nobody: GraphQLClient;
let aliceId: string;
/** The demo developer and organization. */
let developerId: string;
let organizationId: string;
/** API product ids by name. */
const productIds: Record<string, string> = {};

/** What createApp hands out. */
interface IssuedApp extends DemoClient {
  appId: string;
  credentialId: string;
  name: string;
}

const CREATE_APP = `mutation($input: CreateAppInput!) {
  createApp(input: $input) {
    app { id name status }
    credential { id consumerKey status products { status product { name } } }
    consumerKey
    consumerSecret
  }
}`;

/** Creates an app of the demo developer (unless told) approved for the named products. */
async function createApp(name: string, products: string[] = ["PSD2-AISP-v1"], extra: Record<string, unknown> = {}): Promise<IssuedApp> {
  const { createApp: issued } = await admin.data(CREATE_APP, {
    input: { developerId, name, apiProductIds: products.map((p) => productIds[p]), ...extra },
  });
  return { appId: issued.app.id, credentialId: issued.credential.id, consumerKey: issued.consumerKey, consumerSecret: issued.consumerSecret, name };
}

/** A client credentials token of `client`. */
const token = (client: DemoClient, scope?: string) => clientCredentialsToken(server.url, client, scope);

/** A client credentials token request, whatever its outcome. */
const tokenAnswer = (client: DemoClient) => tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "client_credentials" });

/** The gateway's status for a GET with this bearer token. */
const gateway = async (accessToken: string, apiPath = OPEN_DATA) => (await callApi(server.url, accessToken, apiPath)).status;

/** A user's token response from the real authorization code flow (with PKCE), as `client`. */
async function tokensOf(user: { username: string; password: string }, client: DemoClient = DEMO.app): Promise<Json> {
  return (await userTokens(server.url, { client, user, pkce: pkcePair() })).tokens;
}

const refresh = (client: DemoClient, refreshToken: string) => tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "refresh_token", refresh_token: refreshToken });

/**
 * Creates a user through the admin API; its audit event holds the password redacted. With
 * `passkey`, the user also gets a software passkey: a second factor, which the PSD2 scopes'
 * strong customer authentication needs.
 */
async function newUser(username: string, role = "user", o: { passkey?: boolean } = {}): Promise<{ id: string; username: string; password: string }> {
  const password = `${username}-password-${randomState()}`;
  const { createUser } = await admin.data("mutation($input: CreateUserInput!) { createUser(input: $input) { id username role status } }", {
    input: { username, password, role },
  });
  expect(createUser).toMatchObject({ username, role, status: "active" });
  const [event] = await server.prisma.auditEvent.findMany({ where: { type: "admin.createUser", details: { contains: `"username":"${username}"` } } });
  expect(JSON.parse(event!.details)).toEqual({ args: { input: { username, password: "[redacted]", role } }, ...AUDIT_REQUEST_FIELDS });
  if (o.passkey) await enrolPasskey(server, username);
  return { id: createUser.id, username, password };
}

/** A new organization of this name. @returns its id. */
async function newOrganization(name: string): Promise<string> {
  return (await admin.data("mutation($n: String!) { createOrganization(input: { name: $n }) { id } }", { n: name })).createOrganization.id;
}

/** The error code of a call that must fail. */
async function code(client: GraphQLClient, query: string, variables?: Record<string, unknown>): Promise<string | undefined> {
  return (await client.failure(query, variables)).code;
}

const APP = "query($id: ID!) { app(id: $id) { id name status callbackUrls accessTokenLifetimeSeconds refreshTokenLifetimeSeconds credentials { id consumerKey status expiresAt products { status product { name } } } } }";

/**
 * Every page of a connection field, `size` at a time (a page of nested lists must stay
 * under the cost limit). @param query - takes $first and $after. @returns each page's data as JSON text.
 */
async function allPages(query: string, field: string, size: number): Promise<string[]> {
  const texts: string[] = [];
  let after: string | null = null;
  for (;;) {
    const data: Json = await admin.data(query, { first: size, after });
    texts.push(JSON.stringify(data));
    if (!data[field].pageInfo.hasNextPage) return texts;
    after = data[field].pageInfo.endCursor;
  }
}

const ALL_APPS = `query($first: Int, $after: String) { apps(first: $first, after: $after) {
  nodes { id name status callbackUrls accessTokenLifetimeSeconds refreshTokenLifetimeSeconds tokenResponseProfile requirePkce canIntrospect createdAt
    developer { id email } credentials { id consumerKey status expiresAt createdAt products { status product { id name scopes } } } }
  pageInfo { endCursor hasNextPage } } }`;
const ALL_TOKENS = `query($first: Int, $after: String) { tokens(liveOnly: false, first: $first, after: $after) {
  nodes { id app { name } clientId user { username } grantType scopes products issuedAt expiresAt status refreshTokenStatus refreshTokenExpiresAt refreshCount }
  pageInfo { endCursor hasNextPage } } }`;
const ALL_AUDIT = "query($first: Int, $after: String) { auditEvents(first: $first, after: $after) { nodes { id at type actor subject details } pageInfo { endCursor hasNextPage } } }";

async function app(id: string): Promise<Json> {
  return (await admin.data(APP, { id })).app;
}

beforeAll(async () => {
  server = await startTestServer();
  nobody = anonymous(server.url);
  admin = await adminBearer(server.url);
  adminBySession = withSession(await signIn(server.url, DEMO.admin));
  alice = withSession(await signIn(server.url, DEMO.user));
  aliceId = (await alice.data("{ me { id } }")).me.id;
  const { apiProducts } = await admin.data("{ apiProducts { id name } }");
  for (const p of apiProducts) productIds[p.name] = p.id;
  // Where a client credentials token may call: account data needs the PSU.
  await addOpenDataApi(server);
  const { developers } = await admin.data("{ developers { nodes { id email organization { id } } } }");
  const demo = developers.nodes.find((d: Json) => d.email === DEMO.developerEmail);
  developerId = demo.id;
  organizationId = demo.organization.id;
});

afterAll(async () => {
  await server?.close();
});

describe("organizations", () => {
  it("createOrganization: organization(id) and organizations list it; displayName defaults to the name", async () => {
    const { createOrganization: org } = await admin.data('mutation { createOrganization(input: { name: "Northwind Payments" }) { id name displayName createdAt developers { id } } }');
    expect(org).toMatchObject({ name: "Northwind Payments", displayName: "Northwind Payments", developers: [] });
    expect(Date.parse(org.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const { organization } = await admin.data("query($id: ID!) { organization(id: $id) { name displayName } }", { id: org.id });
    expect(organization).toEqual({ name: "Northwind Payments", displayName: "Northwind Payments" });
    const { organizations } = await admin.data("{ organizations(first: 200) { nodes { id name } } }");
    expect(organizations.nodes).toContainEqual({ id: org.id, name: "Northwind Payments" });

    const named = await admin.data('mutation { createOrganization(input: { name: "Contoso", displayName: "Contoso Bank AG" }) { displayName } }');
    expect(named.createOrganization.displayName).toBe("Contoso Bank AG");
  });

  it("createOrganization: a blank or too long name is BAD_USER_INPUT, a taken name CONFLICT", async () => {
    expect(await code(admin, 'mutation { createOrganization(input: { name: "   " }) { id } }')).toBe("BAD_USER_INPUT");
    expect(await code(admin, "mutation($n: String!) { createOrganization(input: { name: $n }) { id } }", { n: "x".repeat(101) })).toBe("BAD_USER_INPUT");
    expect(await code(admin, "mutation($n: String!) { createOrganization(input: { name: $n }) { id } }", { n: DEMO.organization })).toBe("CONFLICT");
    expect(await server.prisma.organization.count({ where: { name: DEMO.organization } })).toBe(1);
  });

  it("updateOrganization changes name and displayName; an unknown id is NOT_FOUND", async () => {
    const { createOrganization: org } = await admin.data('mutation { createOrganization(input: { name: "Fabrikam" }) { id } }');
    const { updateOrganization } = await admin.data('mutation($id: ID!) { updateOrganization(id: $id, input: { name: "Fabrikam Ltd", displayName: "Fabrikam" }) { id name displayName } }', {
      id: org.id,
    });
    expect(updateOrganization).toEqual({ id: org.id, name: "Fabrikam Ltd", displayName: "Fabrikam" });
    expect((await admin.data("query($id: ID!) { organization(id: $id) { name displayName } }", { id: org.id })).organization).toEqual({
      name: "Fabrikam Ltd",
      displayName: "Fabrikam",
    });
    expect(await code(admin, 'mutation { updateOrganization(id: "no-such-org", input: { name: "x" }) { id } }')).toBe("NOT_FOUND");
    expect(await code(admin, 'mutation($id: ID!) { updateOrganization(id: $id, input: { name: "" }) { id } }', { id: org.id })).toBe("BAD_USER_INPUT");
  });

  it("deleteOrganization is CONFLICT while it has developers, then removes it; an unknown id is NOT_FOUND", async () => {
    const { createOrganization: org } = await admin.data('mutation { createOrganization(input: { name: "Short-lived Org" }) { id } }');
    const { createDeveloper: dev } = await admin.data('mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "temp@short-lived.example" }) { id } }', {
      o: org.id,
    });
    expect(await code(admin, "mutation($id: ID!) { deleteOrganization(id: $id) }", { id: org.id })).toBe("CONFLICT");
    expect((await admin.data("query($id: ID!) { organization(id: $id) { developers { id } } }", { id: org.id })).organization.developers).toEqual([{ id: dev.id }]);

    expect((await admin.data("mutation($id: ID!) { deleteDeveloper(id: $id) }", { id: dev.id })).deleteDeveloper).toBe(dev.id);
    expect((await admin.data("mutation($id: ID!) { deleteOrganization(id: $id) }", { id: org.id })).deleteOrganization).toBe(org.id);
    expect((await admin.data("query($id: ID!) { organization(id: $id) { id } }", { id: org.id })).organization).toBeNull();
    expect(await code(admin, "mutation($id: ID!) { deleteOrganization(id: $id) }", { id: org.id })).toBe("NOT_FOUND");
  });
});

describe("developers", () => {
  it("createDeveloper: Organization.developers and Developer.organization link both ways; developers(organizationId) lists it", async () => {
    const orgId = await newOrganization("Developer Org");
    const { createDeveloper: dev } = await admin.data(
      'mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "ada@developer-org.example", firstName: "Ada", lastName: "Lovelace" }) { id email firstName lastName organization { id name } apps { id } } }',
      { o: orgId },
    );
    expect(dev).toMatchObject({ email: "ada@developer-org.example", firstName: "Ada", lastName: "Lovelace", organization: { id: orgId, name: "Developer Org" }, apps: [] });
    expect((await admin.data("query($id: ID!) { organization(id: $id) { developers { id email } } }", { id: orgId })).organization.developers).toEqual([
      { id: dev.id, email: "ada@developer-org.example" },
    ]);
    const { developers } = await admin.data("query($o: ID) { developers(organizationId: $o) { nodes { id } pageInfo { hasNextPage } } }", { o: orgId });
    expect(developers).toEqual({ nodes: [{ id: dev.id }], pageInfo: { hasNextPage: false } });
  });

  it("createDeveloper: an invalid email is BAD_USER_INPUT, an unknown organization BAD_USER_INPUT, a taken email CONFLICT", async () => {
    const orgId = await newOrganization("Refusing Developer Org");
    for (const email of ["not-an-email", "a@", "@example.com", "two words@example.com", ""]) {
      const error = await admin.failure("mutation($o: ID!, $e: String!) { createDeveloper(input: { organizationId: $o, email: $e }) { id } }", { o: orgId, e: email });
      expect(error.code, email).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^email: /);
    }
    expect(await code(admin, 'mutation { createDeveloper(input: { organizationId: "no-such-org", email: "ghost@example.com" }) { id } }')).toBe("BAD_USER_INPUT");
    expect(await code(admin, "mutation($o: ID!, $e: String!) { createDeveloper(input: { organizationId: $o, email: $e }) { id } }", { o: orgId, e: DEMO.developerEmail })).toBe(
      "CONFLICT",
    );
    expect(await server.prisma.developer.count({ where: { organizationId: orgId } })).toBe(0);
  });

  it("updateDeveloper changes email and names; an invalid email is BAD_USER_INPUT and changes nothing", async () => {
    const orgId = await newOrganization("Updating Developer Org");
    const { createDeveloper: dev } = await admin.data('mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "grace@developer-org.example" }) { id } }', { o: orgId });
    const { updateDeveloper } = await admin.data(
      'mutation($id: ID!) { updateDeveloper(id: $id, input: { email: "grace.hopper@developer-org.example", firstName: "Grace", lastName: "Hopper" }) { email firstName lastName } }',
      { id: dev.id },
    );
    expect(updateDeveloper).toEqual({ email: "grace.hopper@developer-org.example", firstName: "Grace", lastName: "Hopper" });
    expect(await code(admin, 'mutation($id: ID!) { updateDeveloper(id: $id, input: { email: "nope" }) { id } }', { id: dev.id })).toBe("BAD_USER_INPUT");
    const { developers } = await admin.data("query($o: ID) { developers(organizationId: $o) { nodes { id email } } }", { o: orgId });
    expect(developers.nodes).toContainEqual({ id: dev.id, email: "grace.hopper@developer-org.example" });
    expect(await code(admin, 'mutation { updateDeveloper(id: "no-such-developer", input: { firstName: "x" }) { id } }')).toBe("NOT_FOUND");
  });

  it("deleteDeveloper is CONFLICT while the developer has apps; without apps it is removed", async () => {
    const orgId = await newOrganization("Deleting Developer Org");
    const { createDeveloper: dev } = await admin.data('mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "owner@developer-org.example" }) { id } }', { o: orgId });
    const created = await createApp("Owned App", [], { developerId: dev.id });
    expect((await admin.data("query($id: ID!) { app(id: $id) { developer { id email } } }", { id: created.appId })).app.developer).toEqual({
      id: dev.id,
      email: "owner@developer-org.example",
    });
    expect(await code(admin, "mutation($id: ID!) { deleteDeveloper(id: $id) }", { id: dev.id })).toBe("CONFLICT");
    const { developers } = await admin.data("query($o: ID) { developers(organizationId: $o) { nodes { id apps { name } } } }", { o: orgId });
    expect(developers.nodes).toContainEqual({ id: dev.id, apps: [{ name: "Owned App" }] });

    const { createDeveloper: free } = await admin.data('mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "leaver@developer-org.example" }) { id } }', { o: orgId });
    expect((await admin.data("mutation($id: ID!) { deleteDeveloper(id: $id) }", { id: free.id })).deleteDeveloper).toBe(free.id);
    const after = await admin.data("query($o: ID) { developers(organizationId: $o, first: 200) { nodes { id } } }", { o: orgId });
    expect(after.developers.nodes.map((d: Json) => d.id)).not.toContain(free.id);
    expect(await code(admin, "mutation($id: ID!) { deleteDeveloper(id: $id) }", { id: free.id })).toBe("NOT_FOUND");
  });
});

describe("APIs and API products", () => {
  const CREATE_API = "mutation($input: CreateApiInput!) { createApi(input: $input) { id name upstreamUrl requiredScopes products { name } } }";
  const CREATE_PRODUCT = "mutation($input: CreateApiProductInput!) { createApiProduct(input: $input) { id name displayName description scopes apis { name } } }";

  it.each(["admin", "login", "token", "oauth2", "authorize", "graphql", "session", "interaction", "consent", "account", "error", "healthz", "assets"])(
    "createApi refuses the reserved name %s (BAD_USER_INPUT)",
    async (name) => {
      const error = await admin.failure(CREATE_API, { input: { name, upstreamUrl: "https://upstream.example" } });
      expect(error.code).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^name: .*reserved/);
      expect(await server.prisma.api.findUnique({ where: { name } })).toBeNull();
    },
  );

  it("createApi refuses bad names, bad upstream URLs and bad scopes (BAD_USER_INPUT) and a taken name (CONFLICT)", async () => {
    for (const name of ["Ledger", "led ger", "led/ger", ".well-known", "-ledger", "", "x".repeat(64)]) {
      expect(await code(admin, CREATE_API, { input: { name, upstreamUrl: "https://upstream.example" } }), name).toBe("BAD_USER_INPUT");
    }
    for (const upstreamUrl of ["not a url", "upstream.example/v1", "ftp://upstream.example", "javascript:alert(1)", "file:///etc/passwd", ""]) {
      const error = await admin.failure(CREATE_API, { input: { name: "bad-upstream", upstreamUrl } });
      expect(error.code, upstreamUrl).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^upstreamUrl: /);
    }
    for (const requiredScopes of [["two words"], ["dup", "dup"], [""], ['quote"d'], ["back\\slash"]]) {
      const error = await admin.failure(CREATE_API, { input: { name: "bad-scopes", upstreamUrl: "https://upstream.example", requiredScopes } });
      expect(error.code, JSON.stringify(requiredScopes)).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^requiredScopes/);
    }
    expect(await code(admin, CREATE_API, { input: { name: "accounts", upstreamUrl: "https://upstream.example" } })).toBe("CONFLICT");
    expect(await server.prisma.api.count({ where: { name: { in: ["bad-upstream", "bad-scopes"] } } })).toBe(0);
  });

  // BUG (issue 13): an admin could point the gateway at the cloud metadata service and hand the instance's credentials to callers.
  it("createApi and updateApi refuse link-local and cloud metadata upstreams, however spelled (BAD_USER_INPUT)", async () => {
    const { createApi: api } = await admin.data(CREATE_API, { input: { name: "metadata-probe", upstreamUrl: "https://upstream.example/v1" } });
    for (const upstreamUrl of [
      "http://169.254.169.254/latest/meta-data/",
      "http://169.254.170.2/v2/credentials",
      "https://169.254.0.1/",
      "http://169.254.169.254./",
      "http://0xA9FEA9FE/",
      "http://2852039166/",
      "http://0251.0376.0251.0376/",
      "http://169.254.43518/",
      "http://[fe80::1]/",
      "http://[febf:ffff::1]:8080/",
      "http://[fd00:ec2::254]/latest/meta-data/",
      "http://[fd00:ec2:0:0::254]/",
      "http://100.100.100.200/latest/meta-data/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://METADATA.Google.Internal./computeMetadata/v1/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[::ffff:100.100.100.200]/",
    ]) {
      for (const [what, query, variables] of [
        ["createApi", CREATE_API, { input: { name: "metadata", upstreamUrl } }],
        ["updateApi", "mutation($id: ID!, $u: String!) { updateApi(id: $id, input: { upstreamUrl: $u }) { id } }", { id: api.id, u: upstreamUrl }],
      ] as const) {
        const error = await admin.failure(query, variables);
        expect(error.code, `${what} ${upstreamUrl}`).toBe("BAD_USER_INPUT");
        expect(error.message, `${what} ${upstreamUrl}`).toMatch(/^upstreamUrl: link-local and cloud metadata addresses .* are refused; set ALLOW_LINK_LOCAL_UPSTREAMS=true to allow them$/);
      }
    }
    expect(await server.prisma.api.findUnique({ where: { name: "metadata" } })).toBeNull();
    expect((await server.prisma.api.findUniqueOrThrow({ where: { id: api.id } })).upstreamUrl).toBe("https://upstream.example/v1");
    // Neighbours of those addresses, loopback (the demo upstream) and private networks stay allowed.
    for (const upstreamUrl of [
      "http://169.253.255.255/",
      "http://169.255.0.1/",
      "http://[fec0::1]/",
      "http://[fd00:ec2::255]/",
      "http://100.100.100.201/",
      "http://metadata.google.internal.example/",
      "http://127.0.0.1:8080/",
      "http://10.0.0.1/",
    ]) {
      const updated = await admin.data("mutation($id: ID!, $u: String!) { updateApi(id: $id, input: { upstreamUrl: $u }) { upstreamUrl } }", { id: api.id, u: upstreamUrl });
      expect(updated.updateApi.upstreamUrl).toBe(upstreamUrl);
    }
    await admin.data("mutation($id: ID!) { deleteApi(id: $id) }", { id: api.id });
  });

  it("with ALLOW_LINK_LOCAL_UPSTREAMS=true, createApi and updateApi accept link-local and metadata upstreams", async () => {
    const allowing = await startTestServer({ ALLOW_LINK_LOCAL_UPSTREAMS: "true" });
    try {
      const client = await adminBearer(allowing.url);
      const { createApi: api } = await client.data(CREATE_API, { input: { name: "metadata", upstreamUrl: "http://169.254.169.254/latest/" } });
      expect(api.upstreamUrl).toBe("http://169.254.169.254/latest/");
      for (const upstreamUrl of ["http://[fd00:ec2::254]/", "http://metadata.google.internal/", "http://[::ffff:169.254.169.254]/"]) {
        const { updateApi } = await client.data("mutation($id: ID!, $u: String!) { updateApi(id: $id, input: { upstreamUrl: $u }) { upstreamUrl } }", { id: api.id, u: upstreamUrl });
        expect(updateApi.upstreamUrl).toBe(upstreamUrl);
      }
      // The other checks still apply.
      expect((await client.failure(CREATE_API, { input: { name: "ftp", upstreamUrl: "ftp://169.254.169.254/" } })).message).toMatch(/^upstreamUrl: an absolute http\(s\) URL$/);
    } finally {
      await allowing.close();
    }
  });

  it("createApiProduct refuses names with spaces, bad or duplicate scopes (BAD_USER_INPUT) and a taken name (CONFLICT)", async () => {
    for (const name of ["Two Words", "", "-leading", "x".repeat(101), "slash/name"]) {
      expect(await code(admin, CREATE_PRODUCT, { input: { name } }), name).toBe("BAD_USER_INPUT");
    }
    for (const scopes of [["read write"], ["read", "read"], [""]]) {
      const error = await admin.failure(CREATE_PRODUCT, { input: { name: "Bad-Scopes", scopes } });
      expect(error.code, JSON.stringify(scopes)).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^scopes/);
    }
    expect(await code(admin, CREATE_PRODUCT, { input: { name: "PSD2-AISP-v1" } })).toBe("CONFLICT");
    expect(await code(admin, CREATE_PRODUCT, { input: { name: "Dangling-Apis", apiIds: ["no-such-api"] } })).toBe("BAD_USER_INPUT");
    expect(await server.prisma.apiProduct.count({ where: { name: { in: ["Bad-Scopes", "Dangling-Apis"] } } })).toBe(0);
  });

  it("accessTokenFormat: opaque unless set, set to jwt and back on create and update, read back and audited; other values refused", async () => {
    const { createApiProduct: product } = await admin.data('mutation { createApiProduct(input: { name: "Format-v1" }) { id accessTokenFormat } }');
    expect(product.accessTokenFormat).toBe("opaque");
    const readBack = async () => (await admin.data("{ apiProducts { id accessTokenFormat } }")).apiProducts.find((p: Json) => p.id === product.id).accessTokenFormat;
    const update = "mutation($id: ID!, $format: AccessTokenFormat) { updateApiProduct(id: $id, input: { accessTokenFormat: $format }) { accessTokenFormat } }";
    const formats = ["jwt", "opaque", "jwt"];
    for (const format of formats) {
      expect((await admin.data(update, { id: product.id, format })).updateApiProduct.accessTokenFormat).toBe(format);
      expect(await readBack()).toBe(format);
    }
    const events = await server.prisma.auditEvent.findMany({ where: { type: "admin.updateApiProduct", subject: product.id } });
    expect(events.map((e) => JSON.parse(e.details).args).sort((a, b) => a.input.accessTokenFormat.localeCompare(b.input.accessTokenFormat))).toEqual(
      formats.sort().map((format) => ({ id: product.id, input: { accessTokenFormat: format } })),
    );
    // Another change leaves it as it is.
    await admin.data('mutation($id: ID!) { updateApiProduct(id: $id, input: { description: "Formats" }) { id } }', { id: product.id });
    expect(await readBack()).toBe("jwt");

    const create = "mutation($format: AccessTokenFormat) { createApiProduct(input: { name: \"Bad-Format\", accessTokenFormat: $format }) { id } }";
    for (const format of ["JWT", "pem", ""]) {
      expect(await code(admin, update, { id: product.id, format }), format).toBe("BAD_USER_INPUT");
      expect(await code(admin, create, { format }), format).toBe("BAD_USER_INPUT");
    }
    expect(await code(admin, "mutation($id: ID!) { updateApiProduct(id: $id, input: { accessTokenFormat: pem }) { id } }", { id: product.id })).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(await readBack()).toBe("jwt");
    expect(await server.prisma.apiProduct.count({ where: { name: "Bad-Format" } })).toBe(0);

    const { createApiProduct: jwtProduct } = await admin.data('mutation { createApiProduct(input: { name: "Format-Jwt-v1", accessTokenFormat: jwt }) { id accessTokenFormat } }');
    expect(jwtProduct.accessTokenFormat).toBe("jwt");
    const [created] = await server.prisma.auditEvent.findMany({ where: { type: "admin.createApiProduct", details: { contains: "Format-Jwt-v1" } } });
    expect(JSON.parse(created!.details).args).toEqual({ input: { name: "Format-Jwt-v1", accessTokenFormat: "jwt" } });
    for (const p of [product, jwtProduct]) await admin.data("mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: p.id });
  });

  it("a product switched to jwt gives the demo app RFC 9068 JWT access tokens (typ at+jwt) for its scopes at once, and opaque ones once switched back", async () => {
    const update = "mutation($id: ID!, $format: AccessTokenFormat!) { updateApiProduct(id: $id, input: { accessTokenFormat: $format }) { id } }";
    const aisp = { id: productIds["PSD2-AISP-v1"] };
    await admin.data(update, { ...aisp, format: "jwt" });
    try {
      const jwt = await token(DEMO.app, "aisp");
      expect(jwt.split(".")).toHaveLength(3);
      expect(decodeProtectedHeader(jwt).typ).toBe("at+jwt");
    } finally {
      await admin.data(update, { ...aisp, format: "opaque" });
    }
    expect(await token(DEMO.app, "aisp")).not.toContain(".");
  });

  it("an API and a product created here serve a new app at the gateway; updates and deletes take effect at once", async () => {
    const { createApi: api } = await admin.data(CREATE_API, {
      input: { name: "ledger", upstreamUrl: server.demoUpstreamUrl, requiredScopes: ["ledger.read"] },
    });
    expect(api).toMatchObject({ name: "ledger", upstreamUrl: server.demoUpstreamUrl, requiredScopes: ["ledger.read"], products: [] });
    const { createApiProduct: product } = await admin.data(CREATE_PRODUCT, {
      input: {
        name: "Ledger-v1",
        description: "Ledger access",
        scopes: ["ledger.read", "ledger.export"],
        scopeDescriptions: [
          { name: "ledger.read", description: "Read your ledger" },
          { name: "ledger.export", description: "Export your ledger" },
        ],
        apiIds: [api.id],
      },
    });
    expect(product).toMatchObject({ name: "Ledger-v1", displayName: "Ledger-v1", description: "Ledger access", scopes: ["ledger.read", "ledger.export"], apis: [{ name: "ledger" }] });
    expect((await admin.data("{ apis { name products { name } } }")).apis).toContainEqual({ name: "ledger", products: [{ name: "Ledger-v1" }] });

    const reader = await createApp("Ledger Reader", [], { apiProductIds: [product.id] });
    const issued = await tokenAnswer(reader);
    expect(issued.body).toMatchObject({ scope: "ledger.read ledger.export", api_product_list_json: ["Ledger-v1"] });
    const bearer = issued.body.access_token as string;
    expect(await gateway(bearer, "/ledger/")).toBe(200);
    expect(await gateway(bearer, "/accounts/")).toBe(403);

    // Rename: the gateway path moves with it.
    const renamed = await admin.data('mutation($id: ID!) { updateApi(id: $id, input: { name: "ledger-v2" }) { name upstreamUrl } }', { id: api.id });
    expect(renamed.updateApi).toEqual({ name: "ledger-v2", upstreamUrl: server.demoUpstreamUrl });
    expect(await gateway(bearer, "/ledger/")).toBe(404);
    expect(await gateway(bearer, "/ledger-v2/")).toBe(200);
    expect(await code(admin, 'mutation($id: ID!) { updateApi(id: $id, input: { name: "token" }) { id } }', { id: api.id })).toBe("BAD_USER_INPUT");
    expect(await code(admin, 'mutation($id: ID!) { updateApi(id: $id, input: { upstreamUrl: "gopher://x" }) { id } }', { id: api.id })).toBe("BAD_USER_INPUT");

    // A scope the token lacks.
    await admin.data('mutation($id: ID!) { updateApi(id: $id, input: { requiredScopes: ["ledger.write"] }) { id } }', { id: api.id });
    expect(await gateway(bearer, "/ledger-v2/")).toBe(403);
    await admin.data('mutation($id: ID!) { updateApi(id: $id, input: { requiredScopes: ["ledger.read"] }) { id } }', { id: api.id });
    expect(await gateway(bearer, "/ledger-v2/")).toBe(200);

    // The product no longer grants the API, then again.
    const emptied = await admin.data("mutation($id: ID!) { updateApiProduct(id: $id, input: { apiIds: [] }) { apis { name } } }", { id: product.id });
    expect(emptied.updateApiProduct.apis).toEqual([]);
    expect(await gateway(bearer, "/ledger-v2/")).toBe(403);
    const restored = await admin.data(
      'mutation($id: ID!, $api: ID!) { updateApiProduct(id: $id, input: { apiIds: [$api], displayName: "Ledger", description: "Read the ledger" }) { name displayName description apis { name } } }',
      { id: product.id, api: api.id },
    );
    expect(restored.updateApiProduct).toEqual({ name: "Ledger-v1", displayName: "Ledger", description: "Read the ledger", apis: [{ name: "ledger-v2" }] });
    expect(await gateway(bearer, "/ledger-v2/")).toBe(200);
    expect(await code(admin, 'mutation($id: ID!) { updateApiProduct(id: $id, input: { scopes: ["a", "a"] }) { id } }', { id: product.id })).toBe("BAD_USER_INPUT");
    expect(await code(admin, 'mutation($id: ID!) { updateApiProduct(id: $id, input: { name: "PSD2-PISP-v1" }) { id } }', { id: product.id })).toBe("CONFLICT");

    // Delete the API: the path is gone.
    expect((await admin.data("mutation($id: ID!) { deleteApi(id: $id) }", { id: api.id })).deleteApi).toBe(api.id);
    expect(await gateway(bearer, "/ledger-v2/")).toBe(404);
    expect((await admin.data("{ apis { name } }")).apis.map((a: Json) => a.name)).not.toContain("ledger-v2");
    expect((await admin.data("{ apiProducts { name apis { name } } }")).apiProducts).toContainEqual({ name: "Ledger-v1", apis: [] });
    expect(await code(admin, "mutation($id: ID!) { deleteApi(id: $id) }", { id: api.id })).toBe("NOT_FOUND");

    // Delete the product: gone from the list and from the app's credential.
    expect((await admin.data("mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: product.id })).deleteApiProduct).toBe(product.id);
    expect((await admin.data("{ apiProducts { name } }")).apiProducts.map((p: Json) => p.name)).not.toContain("Ledger-v1");
    expect((await app(reader.appId)).credentials[0].products).toEqual([]);
    expect(await code(admin, "mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: product.id })).toBe("NOT_FOUND");
  });
});

describe("apps and credentials", () => {
  it("createApp returns the consumer key and secret once; the pair works at the token endpoint", async () => {
    const { createApp: issued } = await admin.data(CREATE_APP, {
      input: { developerId, name: "Fresh App", apiProductIds: [productIds["PSD2-AISP-v1"]], callbackUrls: ["https://fresh.example/cb"] },
    });
    expect(issued.consumerKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(issued.consumerSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued.credential).toEqual({
      id: expect.any(String),
      consumerKey: issued.consumerKey,
      status: "approved",
      products: [{ status: "approved", product: { name: "PSD2-AISP-v1" } }],
    });
    expect(issued.app).toMatchObject({ name: "Fresh App", status: "approved" });

    const answer = await tokenAnswer({ consumerKey: issued.consumerKey, consumerSecret: issued.consumerSecret });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ client_id: issued.consumerKey, application_name: "Fresh App", api_product_list_json: ["PSD2-AISP-v1"] });
    expect(await gateway(answer.body.access_token)).toBe(200);
    expect((await tokenAnswer({ consumerKey: issued.consumerKey, consumerSecret: `${issued.consumerSecret}x` })).status).toBe(401);

    const fetched = await app(issued.app.id);
    expect(fetched).toMatchObject({ name: "Fresh App", callbackUrls: ["https://fresh.example/cb"], accessTokenLifetimeSeconds: 3600, refreshTokenLifetimeSeconds: 7_776_000 });
    expect(fetched.credentials).toEqual([
      { id: issued.credential.id, consumerKey: issued.consumerKey, status: "approved", expiresAt: null, products: [{ status: "approved", product: { name: "PSD2-AISP-v1" } }] },
    ]);
  });

  it("no query can reach the consumer secret; the database keeps only its SHA-256 (64 hex)", async () => {
    const created = await createApp("Secret Keeper");
    await token(created);
    const answers = [
      JSON.stringify(await admin.data(APP, { id: created.appId })),
      (await allPages(ALL_APPS, "apps", 10)).join("\n"),
      JSON.stringify(await admin.data("query($id: ID) { tokens(appId: $id, liveOnly: false) { nodes { id clientId app { name } } } }", { id: created.appId })),
    ];
    for (const text of answers) {
      expect(text).toContain(created.consumerKey);
      expect(text).not.toContain(created.consumerSecret);
      expect(text).not.toContain(hashSecret(created.consumerSecret));
    }
    // Only the mutations hand out an IssuedCredential.
    const schema = buildSchema(readFileSync(new URL("../src/admin/schema.graphql", import.meta.url), "utf8"));
    const holders = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .flatMap((t) => Object.values(t.getFields()).filter((f) => getNamedType(f.type).name === "IssuedCredential").map((f) => `${t.name}.${f.name}`));
    expect(holders.sort()).toEqual(["Mutation.createApp", "Mutation.rotateCredential"]);

    const row = await server.prisma.credential.findUniqueOrThrow({ where: { id: created.credentialId } });
    expect(row.consumerSecretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.consumerSecretHash).toBe(hashSecret(created.consumerSecret));
    expect(JSON.stringify(row)).not.toContain(created.consumerSecret);
    // Nowhere in the database files either.
    for (const file of readdirSync(server.dir)) {
      expect(readFileSync(path.join(server.dir, file)).includes(created.consumerSecret), file).toBe(false);
    }
  });

  it("createApp refuses bad input (BAD_USER_INPUT), an unknown developer (NOT_FOUND), a taken name for the developer (CONFLICT)", async () => {
    const base = { developerId, name: "Refused App" };
    const bad: [string, Record<string, unknown>][] = [
      ["blank name", { name: " " }],
      ["http callback on another host", { callbackUrls: ["http://refused.example/cb"] }],
      ["callback with a fragment", { callbackUrls: ["https://refused.example/cb#x"] }],
      ["relative callback", { callbackUrls: ["/cb"] }],
      ["access token lifetime too short", { accessTokenLifetimeSeconds: 59 }],
      ["access token lifetime too long", { accessTokenLifetimeSeconds: 86_401 }],
      ["refresh token lifetime too short", { refreshTokenLifetimeSeconds: 59 }],
      ["refresh token lifetime over 400 days", { refreshTokenLifetimeSeconds: 34_560_001 }],
      ["unknown API product", { apiProductIds: ["no-such-product"] }],
    ];
    for (const [what, input] of bad) expect(await code(admin, CREATE_APP, { input: { ...base, ...input } }), what).toBe("BAD_USER_INPUT");
    expect(await code(admin, CREATE_APP, { input: { ...base, developerId: "no-such-developer" } })).toBe("NOT_FOUND");
    expect(await code(admin, CREATE_APP, { input: { ...base, name: DEMO.app.name } })).toBe("CONFLICT");
    expect(await server.prisma.app.count({ where: { name: "Refused App" } })).toBe(0);
  });

  describe("callback URLs", () => {
    const url = "https://callback-app.example/cb";

    /** GET /authorize for `cbApp` with this redirect_uri, from a fresh browser. */
    async function authorize(cbApp: IssuedApp, redirectUri: string): Promise<Response> {
      return new Browser(server.url).fetch(
        authorizePath({
          client_id: cbApp.consumerKey,
          response_type: "code",
          scope: "aisp",
          redirect_uri: redirectUri,
          state: randomState(),
          code_challenge: pkcePair().challenge,
          code_challenge_method: "S256",
        }),
      );
    }

    it("addCallbackUrl refuses http on a non-loopback host, fragments, relative and non-http URLs (BAD_USER_INPUT)", async () => {
      const cbApp = await createApp("Callback App (refusals)");
      for (const bad of [
        "http://callback-app.example/cb",
        "http://localhost.evil.example/cb",
        "http://10.0.0.1/cb",
        "https://callback-app.example/cb#section",
        "/cb",
        "callback-app.example/cb",
        "javascript:alert(1)",
        "custom-scheme:/cb",
        "",
      ]) {
        const error = await admin.failure("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { id } }", { a: cbApp.appId, u: bad });
        expect(error.code, bad).toBe("BAD_USER_INPUT");
      }
      expect((await app(cbApp.appId)).callbackUrls).toEqual([]);
      expect(await code(admin, 'mutation { addCallbackUrl(appId: "no-such-app", url: "https://x.example/cb") { id } }')).toBe("NOT_FOUND");
    });

    it("addCallbackUrl / removeCallbackUrl: /authorize accepts the redirect_uri only while it is registered", async () => {
      const cbApp = await createApp("Callback App (add and remove)");
      expect((await authorize(cbApp, url)).status).toBe(400);

      const added = await admin.data("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { callbackUrls } }", { a: cbApp.appId, u: url });
      expect(added.addCallbackUrl.callbackUrls).toEqual([url]);
      // Adding it again changes nothing; loopback http is allowed.
      await admin.data("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { id } }", { a: cbApp.appId, u: url });
      for (const loopback of ["http://localhost:9000/cb", "http://127.0.0.1:9000/cb", "http://[::1]:9000/cb"]) {
        await admin.data("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { id } }", { a: cbApp.appId, u: loopback });
      }
      expect((await app(cbApp.appId)).callbackUrls.sort()).toEqual([url, "http://localhost:9000/cb", "http://127.0.0.1:9000/cb", "http://[::1]:9000/cb"].sort());

      const accepted = await authorize(cbApp, url);
      expect(accepted.status).toBe(302);
      expect(accepted.headers.get("location")).toMatch(/^\/login\?interaction=/);
      expect((await authorize(cbApp, "http://localhost:9000/cb")).status).toBe(302);

      const removed = await admin.data("mutation($a: ID!, $u: String!) { removeCallbackUrl(appId: $a, url: $u) { callbackUrls } }", { a: cbApp.appId, u: url });
      expect(removed.removeCallbackUrl.callbackUrls).not.toContain(url);
      const refused = await authorize(cbApp, url);
      expect(refused.status).toBe(400);
      expect(refused.headers.get("location")).toBeNull();
      expect(await refused.text()).toMatch(/redirect_uri does not match/);
      expect((await authorize(cbApp, "http://localhost:9000/cb")).status).toBe(302);
    });

    // BUG (issue 13): the URL parser drops surrounding spaces and encodes inner ones, so such URLs were accepted and stored as given.
    it("addCallbackUrl and createApp refuse URLs with spaces, control or other non-RFC 3986 characters (BAD_USER_INPUT)", async () => {
      const cbApp = await createApp("Callback App (characters)");
      const ADD = "mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { id } }";
      for (const bad of [
        "https://callback-app.example/c b",
        " https://callback-app.example/cb",
        "https://callback-app.example/cb ",
        "https://callback-app.example/cb\t",
        "https://callback-app.example/\ncb",
        "https://callback-app.example/cb\r\n",
        "https://callback-app.example/cb\u0000",
        "https://callback-app.example/cb\u007f",
        "https://callback-app.example/cb\u00a0",
        "https://callback-app.example/caf\u00e9",
        "https://callback-app.example/<cb>",
        'https://callback-app.example/"cb"',
        "https://callback-app.example/cb?a={b}",
        "https://callback-app.example/c%zzb",
      ]) {
        const error = await admin.failure(ADD, { a: cbApp.appId, u: bad });
        expect(error.code, JSON.stringify(bad)).toBe("BAD_USER_INPUT");
        expect(error.message, JSON.stringify(bad)).toBe("url: RFC 3986 characters only: no spaces, control or non-ASCII characters (percent-encode them)");
      }
      expect((await app(cbApp.appId)).callbackUrls).toEqual([]);
      const error = await admin.failure(CREATE_APP, { input: { developerId, name: "Spaced Callback", callbackUrls: ["https://ok.example/cb", "https://spaced.example/c b"] } });
      expect(error).toMatchObject({ code: "BAD_USER_INPUT", message: expect.stringMatching(/^callbackUrls\.1: RFC 3986 characters only/) });
      expect(await server.prisma.app.count({ where: { name: "Spaced Callback" } })).toBe(0);

      // Percent-encoded, the same URLs are fine.
      const encoded = "https://callback-app.example/c%20b?a=%7Bb%7D";
      expect((await admin.data("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { callbackUrls } }", { a: cbApp.appId, u: encoded })).addCallbackUrl.callbackUrls).toEqual([encoded]);
    });

    // BUG: v.callbackUrl (server/src/admin/validation.ts) checks `new URL(u).hash === ""`, which is also true for an empty fragment.
    it("addCallbackUrl refuses a URL with an empty fragment (RFC 6749 §3.1.2: no fragment component)", async () => {
      const cbApp = await createApp("Callback App (empty fragment)");
      const error = await admin.failure("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { callbackUrls } }", {
        a: cbApp.appId,
        u: "https://callback-app.example/cb#",
      });
      expect(error.code).toBe("BAD_USER_INPUT");
    });
  });

  it("setAppStatus revoked: the gateway refuses the app's token (401), the token endpoint answers 401; approved again, tokens are issued", async () => {
    const a = await createApp("Revocable App");
    const bearer = await token(a);
    expect(await gateway(bearer)).toBe(200);

    const { setAppStatus } = await admin.data("mutation($id: ID!) { setAppStatus(appId: $id, status: revoked) { id status } }", { id: a.appId });
    expect(setAppStatus).toEqual({ id: a.appId, status: "revoked" });
    expect((await app(a.appId)).status).toBe("revoked");
    expect(await gateway(bearer)).toBe(401);
    const refused = await tokenAnswer(a);
    await expectOAuthError(refused, 401, "invalid_client");

    await admin.data("mutation($id: ID!) { setAppStatus(appId: $id, status: approved) { status } }", { id: a.appId });
    expect((await tokenAnswer(a)).status).toBe(200);
    expect(await code(admin, 'mutation { setAppStatus(appId: "no-such-app", status: revoked) { id } }')).toBe("NOT_FOUND");
  });

  it("setTokenLifetimes: a new token's expires_in follows; out of range is BAD_USER_INPUT and changes nothing", async () => {
    const a = await createApp("Lifetime App");
    const set = await admin.data(
      "mutation($id: ID!) { setTokenLifetimes(appId: $id, input: { accessTokenLifetimeSeconds: 120, refreshTokenLifetimeSeconds: 7200 }) { accessTokenLifetimeSeconds refreshTokenLifetimeSeconds } }",
      { id: a.appId },
    );
    expect(set.setTokenLifetimes).toEqual({ accessTokenLifetimeSeconds: 120, refreshTokenLifetimeSeconds: 7200 });
    const short = await tokenAnswer(a);
    expect(Number(short.body.expires_in)).toBeGreaterThanOrEqual(119);
    expect(Number(short.body.expires_in)).toBeLessThanOrEqual(120);
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(short.body.access_token) } });
    expect(row.expiresAt.getTime() - row.issuedAt.getTime()).toBe(120_000);

    await admin.data("mutation($id: ID!) { setTokenLifetimes(appId: $id, input: { accessTokenLifetimeSeconds: 86400 }) { id } }", { id: a.appId });
    expect(Number((await tokenAnswer(a)).body.expires_in)).toBeGreaterThanOrEqual(86_399);

    for (const input of [
      { accessTokenLifetimeSeconds: 59 },
      { accessTokenLifetimeSeconds: 86_401 },
      { accessTokenLifetimeSeconds: 0 },
      { accessTokenLifetimeSeconds: -60 },
      { refreshTokenLifetimeSeconds: 59 },
      { refreshTokenLifetimeSeconds: 34_560_001 },
    ]) {
      const error = await admin.failure("mutation($id: ID!, $input: TokenLifetimesInput!) { setTokenLifetimes(appId: $id, input: $input) { id } }", { id: a.appId, input });
      expect(error.code, JSON.stringify(input)).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/LifetimeSeconds: /);
    }
    expect(await app(a.appId)).toMatchObject({ accessTokenLifetimeSeconds: 86_400, refreshTokenLifetimeSeconds: 7200 });
    expect(await code(admin, 'mutation { setTokenLifetimes(appId: "no-such-app", input: { accessTokenLifetimeSeconds: 600 }) { id } }')).toBe("NOT_FOUND");
  });

  it("setTokenLifetimes: a user token's refresh_token_expires_in follows the refresh lifetime", async () => {
    const a = await createApp("Refresh Lifetime App", ["PSD2-AISP-v1"], { callbackUrls: [DEMO.callbackUrl] });
    await admin.data("mutation($id: ID!) { setTokenLifetimes(appId: $id, input: { refreshTokenLifetimeSeconds: 3600, accessTokenLifetimeSeconds: 300 }) { id } }", {
      id: a.appId,
    });
    const body = await tokensOf(DEMO.user, a);
    expect(Number(body.refresh_token_expires_in)).toBeGreaterThanOrEqual(3599);
    expect(Number(body.refresh_token_expires_in)).toBeLessThanOrEqual(3600);
    expect(Number(body.expires_in)).toBeLessThanOrEqual(300);
  });

  it("setCredentialProductStatus: revoking PSD2-AISP-v1 makes the gateway answer 403 for its APIs; approving it again restores access", async () => {
    const a = await createApp("Product Status App");
    const bearer = await token(a);
    expect(await gateway(bearer)).toBe(200);
    const SET = "mutation($c: ID!, $p: ID!, $s: ProductStatus!) { setCredentialProductStatus(credentialId: $c, apiProductId: $p, status: $s) { id status products { status product { name } } } }";

    const revoked = await admin.data(SET, { c: a.credentialId, p: productIds["PSD2-AISP-v1"], s: "revoked" });
    expect(revoked.setCredentialProductStatus).toEqual({ id: a.credentialId, status: "approved", products: [{ status: "revoked", product: { name: "PSD2-AISP-v1" } }] });
    const res = await callApi(server.url, bearer, OPEN_DATA);
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(/insufficient_scope/);
    const fresh = await tokenAnswer(a);
    expect(fresh.body.api_product_list_json).toEqual([]);
    expect(await gateway(fresh.body.access_token)).toBe(403);

    await admin.data(SET, { c: a.credentialId, p: productIds["PSD2-AISP-v1"], s: "pending" });
    expect(await gateway(bearer)).toBe(403);
    await admin.data(SET, { c: a.credentialId, p: productIds["PSD2-AISP-v1"], s: "approved" });
    expect(await gateway(bearer)).toBe(200);

    // A product not on the credential yet is added.
    const added = await admin.data(SET, { c: a.credentialId, p: productIds["PSD2-PISP-v1"], s: "approved" });
    expect(added.setCredentialProductStatus.products).toEqual([
      { status: "approved", product: { name: "PSD2-AISP-v1" } },
      { status: "approved", product: { name: "PSD2-PISP-v1" } },
    ]);
    expect((await tokenAnswer(a)).body.scope.split(" ").sort()).toEqual(["aisp", "extended_transaction_history", "pisp"]);

    expect(await code(admin, SET, { c: "no-such-credential", p: productIds["PSD2-AISP-v1"], s: "revoked" })).toBe("NOT_FOUND");
    expect(await code(admin, SET, { c: a.credentialId, p: "no-such-product", s: "revoked" })).toBe("BAD_USER_INPUT");
  });

  const ROTATE = "mutation($c: ID!, $g: Int) { rotateCredential(credentialId: $c, graceSeconds: $g) { app { id } credential { id consumerKey status expiresAt products { status product { name } } } consumerKey consumerSecret } }";

  it("rotateCredential with graceSeconds 0: the old secret is refused at once, the new one works, with the same products", async () => {
    const a = await createApp("Rotating App", ["PSD2-AISP-v1", "PSD2-PISP-v1"]);
    const oldBearer = await token(a);
    const { rotateCredential: r } = await admin.data(ROTATE, { c: a.credentialId, g: 0 });
    expect(r.app.id).toBe(a.appId);
    expect(r.consumerKey).not.toBe(a.consumerKey);
    expect(r.credential).toMatchObject({ consumerKey: r.consumerKey, status: "approved", expiresAt: null });
    expect(r.credential.products.map((p: Json) => [p.product.name, p.status])).toEqual([
      ["PSD2-AISP-v1", "approved"],
      ["PSD2-PISP-v1", "approved"],
    ]);

    expect((await tokenAnswer(a)).status).toBe(401);
    const fresh = await tokenAnswer({ consumerKey: r.consumerKey, consumerSecret: r.consumerSecret });
    expect(fresh.status).toBe(200);
    expect(await gateway(fresh.body.access_token)).toBe(200);
    expect(await gateway(oldBearer)).toBe(401);

    const { credentials } = await app(a.appId);
    expect(credentials.map((c: Json) => [c.consumerKey, c.status])).toEqual([
      [a.consumerKey, "revoked"],
      [r.consumerKey, "approved"],
    ]);
    expect((await server.prisma.credential.findUniqueOrThrow({ where: { id: r.credential.id } })).consumerSecretHash).toBe(hashSecret(r.consumerSecret));
  });

  it("rotateCredential with a grace period: old and new secrets both work until then; revokeCredential ends the old one", async () => {
    const a = await createApp("Graceful App");
    const oldBearer = await token(a);
    const before = Date.now();
    const { rotateCredential: r } = await admin.data(ROTATE, { c: a.credentialId, g: 600 });

    expect((await tokenAnswer(a)).status).toBe(200);
    const fresh = await tokenAnswer({ consumerKey: r.consumerKey, consumerSecret: r.consumerSecret });
    expect(fresh.status).toBe(200);
    expect(await gateway(oldBearer)).toBe(200);
    expect(await gateway(fresh.body.access_token)).toBe(200);
    const old = (await app(a.appId)).credentials.find((c: Json) => c.id === a.credentialId);
    expect(old.status).toBe("approved");
    expect(Date.parse(old.expiresAt)).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(Date.parse(old.expiresAt)).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    // revokeCredential: the old credential's token is refused at the gateway, its secret at the token endpoint.
    const { revokeCredential } = await admin.data("mutation($c: ID!) { revokeCredential(credentialId: $c) { id status } }", { c: a.credentialId });
    expect(revokeCredential).toEqual({ id: a.credentialId, status: "revoked" });
    expect(await gateway(oldBearer)).toBe(401);
    expect((await tokenAnswer(a)).status).toBe(401);
    expect(await gateway(fresh.body.access_token)).toBe(200);
    expect((await app(a.appId)).credentials.map((c: Json) => c.status)).toEqual(["revoked", "approved"]);
  });

  it("rotateCredential refuses a revoked credential (CONFLICT), a grace out of range (BAD_USER_INPUT), an unknown id (NOT_FOUND)", async () => {
    const a = await createApp("Rotation Refusals App");
    for (const g of [-1, 2_592_001]) {
      const error = await admin.failure(ROTATE, { c: a.credentialId, g });
      expect(error.code, String(g)).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^graceSeconds: /);
    }
    expect((await app(a.appId)).credentials).toHaveLength(1);
    await admin.data("mutation($c: ID!) { revokeCredential(credentialId: $c) { id } }", { c: a.credentialId });
    expect(await code(admin, ROTATE, { c: a.credentialId, g: 0 })).toBe("CONFLICT");
    expect(await code(admin, ROTATE, { c: "no-such-credential", g: 0 })).toBe("NOT_FOUND");
    expect(await code(admin, 'mutation { revokeCredential(credentialId: "no-such-credential") { id } }')).toBe("NOT_FOUND");
  });

  it("setAppIntrospection lets the app call the introspection endpoint, and stops it", async () => {
    const a = await createApp("Resource Server");
    const introspect = async () =>
      (await tokenRequest(server.url, "/oauth2/v1/introspect", a, { token: await token(DEMO.app) })).status;
    expect(await introspect()).toBe(403);
    expect((await admin.data("mutation($id: ID!) { setAppIntrospection(appId: $id, allowed: true) { canIntrospect } }", { id: a.appId })).setAppIntrospection).toEqual({
      canIntrospect: true,
    });
    expect(await introspect()).toBe(200);
    await admin.data("mutation($id: ID!) { setAppIntrospection(appId: $id, allowed: false) { id } }", { id: a.appId });
    expect(await introspect()).toBe(403);
  });
});

describe("tokens", () => {
  const TOKENS = "query($app: ID, $user: ID, $status: Status, $live: Boolean, $first: Int, $after: String) { tokens(appId: $app, userId: $user, status: $status, liveOnly: $live, first: $first, after: $after) { nodes { id status grantType clientId scopes products refreshTokenStatus user { username } app { id name } } pageInfo { endCursor hasNextPage } } }";
  it("revokeToken: the token is refused at the gateway (401); it is listed as revoked, no longer live", async () => {
    const revokeApp = await createApp("Token Revoke App");
    const first = await token(revokeApp);
    const kept = await token(revokeApp);
    const firstId = (await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(first) } })).id;
    const keptId = (await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(kept) } })).id;
    const live = (await admin.data(TOKENS, { app: revokeApp.appId })).tokens.nodes;
    expect(live.map((t: Json) => t.id)).toEqual([keptId, firstId]);
    expect(live[0]).toMatchObject({ status: "approved", grantType: "client_credentials", clientId: revokeApp.consumerKey, user: null, app: { name: "Token Revoke App" } });

    expect(await gateway(first)).toBe(200); // used once before its revocation
    const { revokeToken } = await admin.data("mutation($id: ID!) { revokeToken(id: $id) { id status } }", { id: firstId });
    expect(revokeToken).toEqual({ id: firstId, status: "revoked" });
    expect(await gateway(first)).toBe(401);
    expect(await gateway(kept)).toBe(200);
    expect((await admin.data(TOKENS, { app: revokeApp.appId })).tokens.nodes.map((t: Json) => t.id)).toEqual([keptId]);
    expect((await admin.data(TOKENS, { app: revokeApp.appId, live: false, status: "revoked" })).tokens.nodes.map((t: Json) => t.id)).toEqual([firstId]);
    expect((await admin.data(TOKENS, { app: revokeApp.appId, live: false })).tokens.nodes).toHaveLength(2);
    expect(await code(admin, 'mutation { revokeToken(id: "no-such-token") { id } }')).toBe("NOT_FOUND");
  });

  // BUG: listTokens (server/src/tokens/management.ts) lets liveOnly's status "approved" overwrite the status filter.
  it("tokens(status: revoked) lists only revoked tokens, also with the default liveOnly", async () => {
    const a = await createApp("Token Status App");
    await token(a);
    const revoked = (await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(await token(a)) } })).id;
    await admin.data("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: revoked });
    // Live and revoked: none, although the app has a live token.
    expect((await admin.data(TOKENS, { app: a.appId, status: "revoked" })).tokens.nodes).toEqual([]);
    const { nodes } = (await admin.data(TOKENS, { app: a.appId, status: "revoked", live: false })).tokens;
    expect(nodes.map((t: Json) => [t.id, t.status])).toEqual([[revoked, "revoked"]]);
  });

  it("revokeTokens(appId) revokes every live token of the app and returns how many", async () => {
    const kept = await token(await createApp("Bulk Revoke Bystander App"));
    const a = await createApp("Bulk Revoke App");
    const bearers = [await token(a), await token(a), await token(a)];
    expect((await admin.data(TOKENS, { app: a.appId })).tokens.nodes).toHaveLength(3);
    for (const b of bearers) expect(await gateway(b)).toBe(200); // used once before their revocation
    expect((await admin.data("mutation($id: ID) { revokeTokens(appId: $id) }", { id: a.appId })).revokeTokens).toBe(3);
    for (const b of bearers) expect(await gateway(b)).toBe(401);
    expect((await admin.data(TOKENS, { app: a.appId })).tokens.nodes).toEqual([]);
    expect((await admin.data(TOKENS, { app: a.appId, live: false, status: "revoked" })).tokens.nodes).toHaveLength(3);
    expect((await admin.data("mutation($id: ID) { revokeTokens(appId: $id) }", { id: a.appId })).revokeTokens).toBe(0);
    // Other apps keep theirs.
    expect(await gateway(kept)).toBe(200);
  });

  it("revokeTokens needs appId or userId (BAD_USER_INPUT)", async () => {
    expect(await code(admin, "mutation { revokeTokens }")).toBe("BAD_USER_INPUT");
  });

  it("tokens(userId) lists a user's tokens; revokeTokens(userId) revokes them all and returns how many", async () => {
    const bob = await newUser("bob", "user", { passkey: true });
    const viaApp = await tokensOf(bob, DEMO.app);
    const viaStrict = await tokensOf(bob, DEMO.strictApp);
    const { nodes } = (await admin.data(TOKENS, { user: bob.id })).tokens;
    expect(nodes).toHaveLength(2);
    for (const t of nodes) {
      expect(t).toMatchObject({ status: "approved", grantType: "authorization_code", refreshTokenStatus: "approved", user: { username: "bob" }, scopes: ["aisp"], products: ["PSD2-AISP-v1"] });
    }
    expect(nodes.map((t: Json) => t.app.name).sort()).toEqual([DEMO.app.name, DEMO.strictApp.name].sort());
    expect(await gateway(viaApp.access_token)).toBe(200);

    expect((await admin.data("mutation($id: ID) { revokeTokens(userId: $id) }", { id: bob.id })).revokeTokens).toBe(2);
    expect(await gateway(viaApp.access_token)).toBe(401);
    expect(await gateway(viaStrict.access_token)).toBe(401);
    await expectOAuthError(await refresh(DEMO.app, viaApp.refresh_token), 400, "invalid_grant");
    expect((await admin.data(TOKENS, { user: bob.id })).tokens.nodes).toEqual([]);
    expect((await admin.data("mutation($id: ID) { revokeTokens(userId: $id) }", { id: bob.id })).revokeTokens).toBe(0);
  });

  it("tokens pages newest first with first/after, without duplicates", async () => {
    const a = await createApp("Token Pages App");
    for (let i = 0; i < 5; i++) await token(a);
    const all = (await admin.data(TOKENS, { app: a.appId, first: 200 })).tokens.nodes.map((t: Json) => t.id);
    expect(all).toHaveLength(5);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Json = (await admin.data(TOKENS, { app: a.appId, first: 2, after })).tokens;
      seen.push(...page.nodes.map((t: Json) => t.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all);
    const rows = await server.prisma.accessToken.findMany({ where: { appId: a.appId }, orderBy: { issuedAt: "desc" } });
    expect(new Set(seen)).toEqual(new Set(rows.map((r) => r.id)));
  });
});

describe("users", () => {
  it("createUser refuses a weak password or a bad username (BAD_USER_INPUT) and a taken username (CONFLICT)", async () => {
    const CREATE = "mutation($input: CreateUserInput!) { createUser(input: $input) { id } }";
    for (const password of ["short", "elevenchars", ""]) {
      const error = await admin.failure(CREATE, { input: { username: "weak-user", password } });
      expect(error.code, password).toBe("BAD_USER_INPUT");
      expect(error.message).toMatch(/^password: /);
      expect(error.message).not.toContain(password || "\u0000");
    }
    for (const username of ["ab", "has space", "slash/name", "x".repeat(101), ""]) {
      expect(await code(admin, CREATE, { input: { username, password: "a-long-enough-password" } }), username).toBe("BAD_USER_INPUT");
    }
    expect(await code(admin, CREATE, { input: { username: "alice", password: "a-long-enough-password" } })).toBe("CONFLICT");
    expect(await server.prisma.user.count({ where: { username: "weak-user" } })).toBe(0);
  });

  it("createUser: the new user is listed and can sign in through /session/login", async () => {
    const dana = await newUser("dana.customer");
    const { users } = await admin.data('{ users(search: "dana") { nodes { id username role status createdAt } } }');
    expect(users.nodes).toEqual([{ id: dana.id, username: "dana.customer", role: "user", status: "active", createdAt: expect.any(String) }]);
    const browser = new Browser(server.url);
    const login = await sessionLogin(browser, dana);
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual({ username: "dana.customer", role: "user" });
    expect((await withSession(browser).data("{ me { id username role } }")).me).toEqual({ id: dana.id, username: "dana.customer", role: "user" });
    // The stored password is an argon2id hash.
    const row = await server.prisma.user.findUniqueOrThrow({ where: { id: dana.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain(dana.password);
  });

  it("setUserStatus disabled: sign-in is refused, the user's tokens are revoked, the open session no longer counts; active again, sign-in works", async () => {
    const carol = await newUser("carol", "user", { passkey: true });
    const carolBrowser = await signIn(server.url, carol);
    const carolSession = withSession(carolBrowser);
    expect((await carolSession.data("{ me { username } }")).me).toEqual({ username: "carol" });
    const tokens = await tokensOf(carol, DEMO.app);
    expect(await gateway(tokens.access_token)).toBe(200);

    const { setUserStatus } = await admin.data("mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id status } }", { id: carol.id });
    expect(setUserStatus).toEqual({ id: carol.id, status: "disabled" });
    expect((await admin.data('{ users(search: "carol") { nodes { status } } }')).users.nodes).toEqual([{ status: "disabled" }]);
    expect((await sessionLogin(new Browser(server.url), carol)).status).toBe(401);
    expect(await gateway(tokens.access_token)).toBe(401);
    await expectOAuthError(await refresh(DEMO.app, tokens.refresh_token), 400, "invalid_grant");
    expect((await admin.data("query($id: ID) { tokens(userId: $id) { nodes { id } } }", { id: carol.id })).tokens.nodes).toEqual([]);
    expect(await carolSession.data("{ me { username } }")).toEqual({ me: null });

    await admin.data("mutation($id: ID!) { setUserStatus(userId: $id, status: active) { status } }", { id: carol.id });
    // Her password, then her passkey.
    const again = await sessionSignIn(new Browser(server.url), carol);
    expect(again.status, again.text).toBe(200);
    expect(again.body.user).toEqual({ username: "carol", role: "user" });
    // Re-enabling does not bring revoked tokens back.
    expect(await gateway(tokens.access_token)).toBe(401);
  });

  it("setUserStatus refuses an unknown user (NOT_FOUND) and an administrator disabling themselves (CONFLICT)", async () => {
    expect(await code(admin, 'mutation { setUserStatus(userId: "no-such-user", status: disabled) { id } }')).toBe("NOT_FOUND");
    const me = (await adminBySession.data("{ me { id } }")).me.id;
    expect(await code(adminBySession, "mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id } }", { id: me })).toBe("CONFLICT");
    expect((await adminBySession.data("{ me { username } }")).me.username).toBe("admin");
  });
});

describe("consents", () => {
  const CONSENTS = "query($user: ID, $app: ID) { consents(userId: $user, appId: $app) { id scopes createdAt updatedAt app { id name } user { id username } } }";

  it("revokeConsent: listed by consents(userId); afterwards the refresh token gets invalid_grant and the access token 401", async () => {
    const tokens = await tokensOf(DEMO.user, DEMO.app);
    expect(await gateway(tokens.access_token)).toBe(200);
    const mine = (await admin.data(CONSENTS, { user: aliceId })).consents;
    const consent = mine.find((c: Json) => c.app.name === DEMO.app.name);
    expect(consent).toMatchObject({ scopes: ["aisp"], user: { id: aliceId, username: "alice" } });
    expect((await admin.data(CONSENTS, { app: consent.app.id })).consents.map((c: Json) => c.id)).toContain(consent.id);

    expect((await admin.data("mutation($id: ID!) { revokeConsent(id: $id) }", { id: consent.id })).revokeConsent).toBe(consent.id);
    expect(await gateway(tokens.access_token)).toBe(401);
    await expectOAuthError(await refresh(DEMO.app, tokens.refresh_token), 400, "invalid_grant");
    expect((await admin.data(CONSENTS, { user: aliceId })).consents.map((c: Json) => c.id)).not.toContain(consent.id);
    expect(await code(admin, "mutation($id: ID!) { revokeConsent(id: $id) }", { id: consent.id })).toBe("NOT_FOUND");
    expect(await code(admin, 'mutation { revokeConsent(id: "no-such-consent") }')).toBe("NOT_FOUND");

    // The next authorization asks alice for consent again.
    const browser = new Browser(server.url);
    const start = await browser.fetch(authorizePath({ client_id: DEMO.app.consumerKey, response_type: "code", scope: "aisp", redirect_uri: DEMO.callbackUrl, state: randomState() }));
    const id = new URL(start.headers.get("location")!, server.url).searchParams.get("interaction")!;
    const view = (await (await browser.fetch(`/interaction/${id}`)).json()) as Json;
    const login = await signInInteraction(browser, id, view.csrfToken);
    expect(((await login.json()) as Json).stage).toBe("consent");
  });

  it("myConsents and revokeMyConsent: alice sees and revokes only her own; another user's consent id is NOT_FOUND", async () => {
    const erin = await newUser("erin", "user", { passkey: true });
    const aliceTokens = await tokensOf(DEMO.user, DEMO.strictApp);
    const erinTokens = await tokensOf(erin, DEMO.strictApp);
    const MY = "{ myConsents { id appName scopes { name } } }";

    const mine = (await alice.data(MY)).myConsents;
    const alicesConsents = (await admin.data(CONSENTS, { user: aliceId })).consents;
    expect(mine.map((c: Json) => c.id).sort()).toEqual(alicesConsents.map((c: Json) => c.id).sort());
    const own = mine.find((c: Json) => c.appName === DEMO.strictApp.name);
    expect(own.scopes).toEqual([{ name: "aisp" }]);
    const erinConsent = (await admin.data(CONSENTS, { user: erin.id })).consents[0];
    expect(mine.map((c: Json) => c.id)).not.toContain(erinConsent.id);

    const REVOKE = "mutation($id: ID!) { revokeMyConsent(id: $id) }";
    expect(await code(alice, REVOKE, { id: erinConsent.id })).toBe("NOT_FOUND");
    expect((await admin.data(CONSENTS, { user: erin.id })).consents.map((c: Json) => c.id)).toEqual([erinConsent.id]);
    expect(await gateway(erinTokens.access_token)).toBe(200);

    expect((await alice.data(REVOKE, { id: own.id })).revokeMyConsent).toBe(own.id);
    expect((await alice.data(MY)).myConsents.map((c: Json) => c.id)).not.toContain(own.id);
    expect(await gateway(aliceTokens.access_token)).toBe(401);
    await expectOAuthError(await refresh(DEMO.strictApp, aliceTokens.refresh_token), 400, "invalid_grant");
    expect(await gateway(erinTokens.access_token)).toBe(200);
    expect(await code(alice, REVOKE, { id: own.id })).toBe("NOT_FOUND");
    expect(await code(nobody, REVOKE, { id: erinConsent.id })).toBe("UNAUTHENTICATED");
  });

  // BUG (issue 13 M2): myConsents returned the admin type Consent, so alice could read the app's credentials, products, APIs and developers.
  it("myConsents holds only what the Account page shows: app and organization names, scopes with descriptions, when granted and last used", async () => {
    const frances = await newUser("consenting-frances", "user", { passkey: true });
    const { createOrganization: org } = await admin.data('mutation { createOrganization(input: { name: "frances-bank-legal", displayName: "Frances Bank" }) { id } }');
    const { createDeveloper: dev } = await admin.data("mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: \"dev@frances.example\" }) { id } }", { o: org.id });
    const client = await createApp("Frances Budget", ["PSD2-AISP-v1"], { developerId: dev.id, callbackUrls: [DEMO.callbackUrl] });
    const MY = "{ myConsents { id appName organizationName scopes { name description } grantedAt lastUsedAt } }";
    const mine = async () => (await withSession(await signIn(server.url, frances)).data(MY)).myConsents;

    // Consent given, code not yet exchanged: no token, so never used.
    const pkce = pkcePair();
    const { code: authCode } = await obtainCode(server.url, { client, user: frances, scope: "aisp", pkce });
    const [consent] = (await admin.data(CONSENTS, { user: frances.id })).consents;
    const aisp = await server.prisma.scope.findUniqueOrThrow({ where: { name: "aisp" } });
    expect(aisp.description).not.toBe("aisp");
    expect(await mine()).toEqual([
      { id: consent.id, appName: "Frances Budget", organizationName: "Frances Bank", scopes: [{ name: "aisp", description: aisp.description }], grantedAt: consent.updatedAt, lastUsedAt: null },
    ]);

    // The code exchange, then a refresh: last used when the newest token was issued.
    const exchanged = await tokenRequest(server.url, TOKEN_ENDPOINT, client, { grant_type: "authorization_code", code: authCode, redirect_uri: DEMO.callbackUrl, code_verifier: pkce.verifier });
    expect(exchanged.status).toBe(200);
    const TOKENS = "query($u: ID, $a: ID) { tokens(userId: $u, appId: $a, liveOnly: false) { nodes { issuedAt } } }";
    const issued = async () => (await admin.data(TOKENS, { u: frances.id, a: client.appId })).tokens.nodes.map((t: Json) => t.issuedAt);
    const [first] = await issued();
    expect((await mine())[0].lastUsedAt).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await refresh(client, exchanged.body.refresh_token)).status).toBe(200);
    const [newest] = await issued();
    expect(newest > first).toBe(true);
    expect((await mine())[0]).toMatchObject({ lastUsedAt: newest, grantedAt: consent.updatedAt });

    // The admin type's fields are not there to ask for.
    const francesClient = withSession(await signIn(server.url, frances));
    for (const field of ["app { id }", "app { credentials { consumerKey } }", "user { id }", "scopes", "createdAt"]) {
      const answer = await francesClient.post(`{ myConsents { ${field} } }`);
      expect(answer.status, field).toBe(400);
      expect(answer.body.errors[0].extensions.code, field).toBe("GRAPHQL_VALIDATION_FAILED");
    }
  });
});

describe("queries", () => {
  const APPS = "query($first: Int, $after: String, $filter: AppFilter) { apps(first: $first, after: $after, filter: $filter) { nodes { id name status } pageInfo { endCursor hasNextPage } } }";

  async function appNames(filter: Record<string, unknown>): Promise<string[]> {
    return (await admin.data(APPS, { first: 200, filter })).apps.nodes.map((a: Json) => a.name).sort();
  }

  it("apps(first: 1) pages through every app with after: endCursor until hasNextPage is false, without duplicates", async () => {
    for (let i = 1; i <= 7; i++) await createApp(`Paging App ${i}`, []);
    const all = (await admin.data(APPS, { first: 200 })).apps;
    expect(all.pageInfo.hasNextPage).toBe(false);
    expect(all.nodes.length).toBeGreaterThan(10);
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i <= all.nodes.length; i++) {
      const page: Json = (await admin.data(APPS, { first: 1, after })).apps;
      expect(page.nodes).toHaveLength(1);
      seen.push(page.nodes[0].id);
      expect(page.pageInfo.endCursor).toBe(page.nodes[0].id);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(all.nodes.map((a: Json) => a.id));
  });

  it("organizations, developers and users page the same way", async () => {
    for (let i = 1; i <= 3; i++) {
      const org = await newOrganization(`Paging Org ${i}`);
      await admin.data("mutation($o: ID!, $e: String!) { createDeveloper(input: { organizationId: $o, email: $e }) { id } }", { o: org, e: `dev@paging-${i}.example` });
      await newUser(`paging-user-${i}`);
    }
    for (const field of ["organizations", "developers", "users"]) {
      const query = `query($first: Int, $after: String) { ${field}(first: $first, after: $after) { nodes { id } pageInfo { endCursor hasNextPage } } }`;
      const all = (await admin.data(query, { first: 200 }))[field].nodes.map((n: Json) => n.id);
      expect(all.length, field).toBeGreaterThan(2);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: Json = (await admin.data(query, { first: 2, after }))[field];
        seen.push(...page.nodes.map((n: Json) => n.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(seen, field).toEqual(all);
    }
  });

  it("apps(filter: {search}) is a case-insensitive substring of the name", async () => {
    expect(await appNames({ search: "acme budg" })).toEqual([DEMO.app.name, DEMO.strictApp.name].sort());
    expect(await appNames({ search: "ACME" })).toEqual([DEMO.app.name, DEMO.strictApp.name, DEMO.paymentsApp.name, DEMO.fapiApp.name].sort());
    expect(await appNames({ search: "(RFC 6749)" })).toEqual([DEMO.strictApp.name]);
    expect(await appNames({ search: "no app is called this" })).toEqual([]);
  });

  it("apps(filter: {search}) also matches a consumer key of the app's credentials, current or revoked", async () => {
    expect(await appNames({ search: DEMO.paymentsApp.consumerKey })).toEqual([DEMO.paymentsApp.name]);
    expect(await appNames({ search: "BUDGETING-KEY" })).toEqual([DEMO.app.name]);
    const app = await createApp("Key Search App", []);
    const rotated = await admin.data("mutation($c: ID!) { rotateCredential(credentialId: $c) { consumerKey } }", { c: app.credentialId });
    await admin.data("mutation($c: ID!) { revokeCredential(credentialId: $c) { status } }", { c: app.credentialId });
    expect(await appNames({ search: app.consumerKey })).toEqual(["Key Search App"]);
    expect(await appNames({ search: rotated.rotateCredential.consumerKey })).toEqual(["Key Search App"]);
  });

  // BUG: listApps passes the search to Prisma `contains` (SQLite LIKE) without escaping % and _.
  it("apps(filter: {search}) treats % and _ literally", async () => {
    expect(await appNames({ search: "%" })).toEqual([]);
    expect(await appNames({ search: "Acme_Budgeting" })).toEqual([]);
  });

  it("apps(filter) by developerId, organizationId and status", async () => {
    const { createOrganization: org } = await admin.data('mutation { createOrganization(input: { name: "Filter Org" }) { id } }');
    const { createDeveloper: dev } = await admin.data('mutation($o: ID!) { createDeveloper(input: { organizationId: $o, email: "filter@filter-org.example" }) { id } }', { o: org.id });
    const one = await createApp("Filter One", [], { developerId: dev.id });
    await createApp("Filter Two", [], { developerId: dev.id });
    expect(await appNames({ developerId: dev.id })).toEqual(["Filter One", "Filter Two"]);
    expect(await appNames({ organizationId: org.id })).toEqual(["Filter One", "Filter Two"]);
    expect(await appNames({ organizationId: organizationId, search: "Filter" })).toEqual([]);
    await admin.data("mutation($id: ID!) { setAppStatus(appId: $id, status: revoked) { id } }", { id: one.appId });
    expect(await appNames({ developerId: dev.id, status: "revoked" })).toEqual(["Filter One"]);
    expect(await appNames({ developerId: dev.id, status: "approved" })).toEqual(["Filter Two"]);
    const revoked = (await admin.data(APPS, { first: 200, filter: { status: "revoked" } })).apps.nodes;
    expect(revoked.map((a: Json) => a.name)).toContain("Filter One");
    for (const a of revoked) expect(a.status).toBe("revoked");
  });

  it("me: alice, the administrator, null for nobody and for a bearer client", async () => {
    expect((await alice.data("{ me { id username role } }")).me).toEqual({ id: aliceId, username: "alice", role: "user" });
    expect((await adminBySession.data("{ me { username role } }")).me).toEqual({ username: "admin", role: "admin" });
    expect(await nobody.data("{ me { id } }")).toEqual({ me: null });
    expect(await admin.data("{ me { id } }")).toEqual({ me: null });
  });
});

describe("audit log", () => {
  it("admin mutations record an event with the actor (session or bearer) and the subject", async () => {
    await adminBySession.data('mutation { createOrganization(input: { name: "Audited By Session" }) { id } }');
    const bySession = await server.prisma.auditEvent.findMany({ where: { type: "admin.createOrganization", details: { contains: "Audited By Session" } } });
    expect(bySession).toHaveLength(1);
    expect(bySession[0]).toMatchObject({ actor: "admin:admin" });
    expect(JSON.parse(bySession[0]!.details)).toEqual({ args: { input: { name: "Audited By Session" } }, ...AUDIT_REQUEST_FIELDS });

    const a = await createApp("Audited App");
    await admin.data("mutation($id: ID!) { setAppStatus(appId: $id, status: revoked) { id } }", { id: a.appId });
    const byBearer = await server.prisma.auditEvent.findMany({ where: { type: "admin.setAppStatus", subject: a.appId } });
    expect(byBearer).toHaveLength(1);
    expect(byBearer[0]).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}` });
    expect(JSON.parse(byBearer[0]!.details).args).toEqual({ appId: a.appId, status: "revoked" });
    expect(Date.now() - byBearer[0]!.at.getTime()).toBeLessThan(60_000);
  });

  it("every admin mutation records one event naming the administrator", async () => {
    const earlier = new Set((await server.prisma.auditEvent.findMany({ select: { id: true } })).map((e) => e.id));
    const run = (query: string, variables?: Record<string, unknown>) => admin.data(query, variables);
    const org = await newOrganization("Audit Tour Org");
    await run('mutation($id: ID!) { updateOrganization(id: $id, input: { displayName: "Audit Tour" }) { id } }', { id: org });
    const developer = { o: org, e: "tour@audit-tour.example" };
    const { createDeveloper: dev } = await run("mutation($o: ID!, $e: String!) { createDeveloper(input: { organizationId: $o, email: $e }) { id } }", developer);
    await run('mutation($id: ID!) { updateDeveloper(id: $id, input: { firstName: "Tour" }) { id } }', { id: dev.id });
    const { createApi: api } = await run('mutation { createApi(input: { name: "audit-tour", upstreamUrl: "https://upstream.example" }) { id } }');
    await run('mutation($id: ID!) { updateApi(id: $id, input: { requiredScopes: ["aisp"] }) { id } }', { id: api.id });
    const { createApiProduct: product } = await run('mutation { createApiProduct(input: { name: "Audit-Tour-v1" }) { id } }');
    await run("mutation($id: ID!, $api: ID!) { updateApiProduct(id: $id, input: { apiIds: [$api] }) { id } }", { id: product.id, api: api.id });
    const a = await createApp("Audit Tour App", ["PSD2-AISP-v1"], { developerId: dev.id });
    const callback = { a: a.appId, u: "https://audit-tour.example/cb" };
    await run("mutation($a: ID!, $u: String!) { addCallbackUrl(appId: $a, url: $u) { id } }", callback);
    await run("mutation($a: ID!, $u: String!) { removeCallbackUrl(appId: $a, url: $u) { id } }", callback);
    await run("mutation($id: ID!) { setAppStatus(appId: $id, status: approved) { id } }", { id: a.appId });
    await run("mutation($id: ID!) { setTokenLifetimes(appId: $id, input: { accessTokenLifetimeSeconds: 600 }) { id } }", { id: a.appId });
    await run("mutation($c: ID!, $p: ID!) { setCredentialProductStatus(credentialId: $c, apiProductId: $p, status: approved) { id } }", { c: a.credentialId, p: product.id });
    const tokenId = (await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(await token(a)) } })).id;
    await run("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: tokenId });
    await run("mutation($id: ID) { revokeTokens(appId: $id) }", { id: a.appId });
    await run("mutation($c: ID!) { rotateCredential(credentialId: $c, graceSeconds: 600) { consumerKey } }", { c: a.credentialId });
    await run("mutation($c: ID!) { revokeCredential(credentialId: $c) { id } }", { c: a.credentialId });
    const user = await newUser("audit-tour-user", "user", { passkey: true });
    await tokensOf(user);
    const [consent] = (await run("query($u: ID) { consents(userId: $u) { id } }", { u: user.id })).consents;
    await run("mutation($id: ID!) { revokeConsent(id: $id) }", { id: consent.id });
    await run("mutation($id: ID!) { setUserStatus(userId: $id, status: disabled) { id } }", { id: user.id });
    await run("mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: product.id });
    await run("mutation($id: ID!) { deleteApi(id: $id) }", { id: api.id });
    // A developer without apps and an organization without developers, to delete.
    const { createDeveloper: leaver } = await run("mutation($o: ID!, $e: String!) { createDeveloper(input: { organizationId: $o, email: $e }) { id } }", { ...developer, e: "leaver@audit-tour.example" });
    await run("mutation($id: ID!) { deleteDeveloper(id: $id) }", { id: leaver.id });
    await run("mutation($id: ID!) { deleteOrganization(id: $id) }", { id: await newOrganization("Audit Tour Empty Org") });

    const events = (await server.prisma.auditEvent.findMany({ where: { type: { startsWith: "admin." } } })).filter((e) => !earlier.has(e.id));
    expect(events.map((e) => e.type.replace(/^admin\./, "")).sort()).toEqual(
      [
        "createOrganization", "createOrganization", "updateOrganization", "deleteOrganization", "createDeveloper", "createDeveloper", "updateDeveloper", "deleteDeveloper",
        "createApi", "updateApi", "deleteApi", "createApiProduct", "updateApiProduct", "deleteApiProduct",
        "createApp", "addCallbackUrl", "removeCallbackUrl", "setAppStatus", "setTokenLifetimes", "setCredentialProductStatus",
        "rotateCredential", "revokeCredential", "revokeToken", "revokeTokens", "createUser", "setUserStatus", "revokeConsent",
      ].sort(),
    );
    expect(new Set(events.map((e) => e.actor))).toEqual(new Set([`client:${DEMO.adminApp.consumerKey}`]));
  });

  it("a createUser entry never contains the password", async () => {
    const password = "audit-me-not-password-42";
    await admin.data("mutation($p: String!) { createUser(input: { username: \"frank\", password: $p }) { id } }", { p: password });
    const [entry] = await server.prisma.auditEvent.findMany({ where: { type: "admin.createUser", details: { contains: "frank" } } });
    expect(entry).toBeDefined();
    expect(entry!.details).not.toContain(password);
    expect(JSON.parse(entry!.details)).toEqual({ args: { input: { username: "frank", password: "[redacted]" } }, ...AUDIT_REQUEST_FIELDS });
    expect(JSON.stringify(await server.prisma.auditEvent.findMany())).not.toContain(password);
  });

  it("no audit entry and no query answer contains a consumer secret or token value", async () => {
    // One of each: consumer secrets from createApp and rotateCredential, a client credentials
    // token, a user's access and refresh tokens, and their rotation; one token revoked by id.
    const a = await createApp("Secret Keeper (audit)", ["PSD2-AISP-v1"], { callbackUrls: [DEMO.callbackUrl] });
    const { rotateCredential: r } = await admin.data("mutation($c: ID!) { rotateCredential(credentialId: $c, graceSeconds: 600) { consumerSecret } }", { c: a.credentialId });
    const cc = await token(a);
    const user = await tokensOf(DEMO.user, a);
    const refreshed = await refresh(a, user.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    const ccId = (await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(cc) } })).id;
    await admin.data("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: ccId });
    const secrets = [a.consumerSecret, r.consumerSecret, cc, user.access_token, user.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token];

    const everything = JSON.stringify(await server.prisma.auditEvent.findMany());
    const answers = [
      ...(await allPages(ALL_APPS, "apps", 10)),
      ...(await allPages(ALL_TOKENS, "tokens", 100)),
      ...(await allPages(ALL_AUDIT, "auditEvents", 200)),
      JSON.stringify(await admin.data("{ consents { id scopes app { name } user { username } } }")),
      JSON.stringify(await admin.data("{ users(first: 200) { nodes { id username role status } } }")),
    ];
    expect(answers.join("\n")).toContain("Secret Keeper (audit)");
    expect(everything).toContain(ccId);
    for (const s of secrets) {
      for (const text of [everything, ...answers]) {
        expect(text.includes(s)).toBe(false);
        expect(text.includes(hashSecret(s))).toBe(false);
      }
    }
  });

  it("queries and refused mutations record nothing", async () => {
    const count = () => server.prisma.auditEvent.count({ where: { type: { startsWith: "admin." } } });
    const before = await count();
    await admin.data("{ apps { nodes { id } } organizations { nodes { id } } dashboard { failures { count } } }");
    expect(await code(admin, 'mutation { createOrganization(input: { name: "" }) { id } }')).toBe("BAD_USER_INPUT");
    expect(await code(alice, 'mutation { createOrganization(input: { name: "by alice" }) { id } }')).toBe("FORBIDDEN");
    expect(await count()).toBe(before);
  });

  it("auditEvents lists events newest first, filtered by type and actor", async () => {
    for (const name of ["Listed First", "Listed Second"]) {
      await adminBySession.data("mutation($n: String!) { createOrganization(input: { name: $n }) { id } }", { n: name });
      await admin.data("mutation($n: String!) { createOrganization(input: { name: $n }) { id } }", { n: `${name} by bearer` });
    }
    const { auditEvents } = await admin.data('{ auditEvents(type: "admin.createOrganization", actor: "admin:admin") { nodes { type actor details at } } }');
    for (const e of auditEvents.nodes) expect(e).toMatchObject({ type: "admin.createOrganization", actor: "admin:admin" });
    const names = auditEvents.nodes.map((e: Json) => JSON.parse(e.details).args.input.name);
    expect(names).not.toContain("Listed First by bearer");
    expect(names.indexOf("Listed Second")).toBeLessThan(names.indexOf("Listed First"));
    expect(names.indexOf("Listed Second")).toBeGreaterThanOrEqual(0);
    const times = auditEvents.nodes.map((e: Json) => Date.parse(e.at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });
});
