/**
 * The console's operations views in the admin API (issue 19), against the running server:
 * the dashboard over a range (tokens issued per app, gateway traffic per API and client by
 * outcome, refusals per client with their reasons); the tokens page's filters (state,
 * consumer key) and who revoked each token; scope descriptions managed with their scopes;
 * the developer search.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { callApi, clientCredentialsToken, pkcePair, REVOCATION_ENDPOINT, TOKEN_ENDPOINT, tokenRequest, userTokens, type Json } from "./support/flow.js";
import { adminBearer, adminSession, firstError, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
/** The admin API as the demo's admin client (actor client:demo-admin-key) and as the signed-in admin (actor admin:admin). */
let bearer: GraphQLClient;
let console_: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer();
  bearer = await adminBearer(server.url);
  console_ = await adminSession(server.url);
});
afterAll(() => server?.close());

/** The row id of an access token: its first 25 characters (oauth/tokens.ts). */
const rowId = (accessToken: string) => accessToken.slice(0, 25);

const RANGES = { HOUR: [12, 300], DAY: [24, 3_600], WEEK: [28, 21_600], MONTH: [30, 86_400] } as const;

describe("dashboard(range)", () => {
  const DASHBOARD = `query($r: DashboardRange) { dashboard(range: $r) {
    range from to bucketSeconds
    tokensIssued { start appName clientId count }
    traffic { start api clientId ok clientErrors serverErrors }
    failures { type clientId api reason count }
  } }`;

  it("each range has its buckets, aligned on their width and ending now", async () => {
    for (const [range, [buckets, seconds]] of Object.entries(RANGES)) {
      const before = Date.now();
      const d = (await bearer.data(DASHBOARD, { r: range })).dashboard;
      expect(d).toMatchObject({ range, bucketSeconds: seconds });
      const from = Date.parse(d.from);
      expect(from % (seconds * 1000)).toBe(0);
      // The current bucket is the last: from + (buckets - 1) widths <= now < from + buckets widths.
      expect(from + (buckets - 1) * seconds * 1000).toBeLessThanOrEqual(before);
      expect(from + buckets * seconds * 1000).toBeGreaterThan(Date.parse(d.to));
      expect(Date.parse(d.to)).toBeGreaterThanOrEqual(before);
    }
    expect((await bearer.data(DASHBOARD)).dashboard.range).toBe("DAY");
  });

  it("counts the tokens issued per app, the gateway calls per API, client and outcome, and the refusals per client and reason exactly", async () => {
    const sum = (rows: Json[], pick: (r: Json) => number) => rows.reduce((n, r) => n + pick(r), 0);
    const read = async () => {
      await server.flushCounts();
      return (await bearer.data(DASHBOARD, { r: "DAY" })).dashboard;
    };
    const before = await read();
    const OK = 3;
    const WRONG_SECRET = 2;
    await clientCredentialsToken(server.url, DEMO.paymentsApp);
    // The PSU's token (account data needs the PSU), of DEMO.app.
    const token = (await userTokens(server.url, { scope: "aisp" })).tokens.access_token as string;
    for (let i = 0; i < OK; i++) expect((await callApi(server.url, token, "/accounts/")).status).toBe(200);
    expect((await callApi(server.url, "not-a-token", "/accounts/")).status).toBe(401);
    for (let i = 0; i < WRONG_SECRET; i++) {
      expect((await tokenRequest(server.url, TOKEN_ENDPOINT, { ...DEMO.paymentsApp, consumerSecret: "wrong" }, { grant_type: "client_credentials" })).status).toBe(401);
    }
    const after = await read();

    const issued = (d: Json) => sum(d.tokensIssued.filter((b: Json) => b.appName === DEMO.paymentsApp.name), (b) => b.count);
    expect(issued(after) - issued(before)).toBe(1);
    expect(after.tokensIssued.find((b: Json) => b.appName === DEMO.paymentsApp.name).clientId).toBe(DEMO.paymentsApp.consumerKey);

    const calls = (d: Json, clientId: string, field: string) => sum(d.traffic.filter((b: Json) => b.api === "accounts" && b.clientId === clientId), (b) => b[field]);
    expect(calls(after, DEMO.app.consumerKey, "ok") - calls(before, DEMO.app.consumerKey, "ok")).toBe(OK);
    expect(calls(after, DEMO.app.consumerKey, "clientErrors") - calls(before, DEMO.app.consumerKey, "clientErrors")).toBe(0);
    // A call without a valid token is nobody's: client "".
    expect(calls(after, "", "clientErrors") - calls(before, "", "clientErrors")).toBe(1);
    for (const b of after.traffic) expect(Date.parse(b.start) % 3_600_000).toBe(0);

    const failures = (d: Json, type: string, clientId: string, reason: string) =>
      d.failures.find((f: Json) => f.type === type && f.clientId === clientId && f.reason === reason)?.count ?? 0;
    const refusedAuth = ["client.authentication_failed", DEMO.paymentsApp.consumerKey, "invalid_client"] as const;
    expect(failures(after, ...refusedAuth) - failures(before, ...refusedAuth)).toBe(WRONG_SECRET);
    expect(after.failures).toContainEqual(expect.objectContaining({ type: "gateway.refused", clientId: "", api: "accounts", reason: "invalid_token" }));
    // Most first.
    const counts = after.failures.map((f: Json) => f.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    // The audit log narrows to a reason: the dashboard's failure rows link there.
    const events = (
      await bearer.data("query($c: String, $r: String) { auditEvents(clientId: $c, reason: $r, first: 50) { nodes { type details count } } }", {
        c: DEMO.paymentsApp.consumerKey,
        r: "invalid_client",
      })
    ).auditEvents.nodes;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e: Json) => e.type === "client.authentication_failed" && JSON.parse(e.details).reason === "invalid_client")).toBe(true);
    expect((await bearer.data('{ auditEvents(reason: "no_such_reason") { nodes { id } } }')).auditEvents.nodes).toEqual([]);
  });
});

describe("tokens(state, clientId) and who revoked a token", () => {
  const TOKENS = `query($state: TokenState, $c: String) { tokens(state: $state, clientId: $c, first: 200) { nodes { id clientId state status revokedAt revokedBy } } }`;
  const tokens = async (vars: Record<string, string>): Promise<Json[]> => (await bearer.data(TOKENS, vars)).tokens.nodes;
  const byId = async (id: string): Promise<Json> => (await tokens({})).concat(await tokens({ state: "REVOKED" }), await tokens({ state: "EXPIRED" })).find((t) => t.id === id);

  it("LIVE, REVOKED and EXPIRED tokens, of one consumer key", async () => {
    const live = rowId(await clientCredentialsToken(server.url, DEMO.strictApp));
    const expired = rowId(await clientCredentialsToken(server.url, DEMO.strictApp));
    await server.prisma.accessToken.update({ where: { id: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const revoked = rowId(await clientCredentialsToken(server.url, DEMO.strictApp));
    await bearer.data("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: revoked });

    const ids = async (state: string) => (await tokens({ state, c: DEMO.strictApp.consumerKey })).map((t) => t.id);
    expect(await ids("LIVE")).toContain(live);
    expect(await ids("LIVE")).not.toContain(expired);
    expect(await ids("EXPIRED")).toEqual(expect.arrayContaining([expired]));
    expect(await ids("EXPIRED")).not.toContain(live);
    expect(await ids("REVOKED")).toContain(revoked);
    for (const state of ["LIVE", "EXPIRED", "REVOKED"]) {
      const rows = await tokens({ state, c: DEMO.strictApp.consumerKey });
      expect(rows.every((t) => t.state === state && t.clientId === DEMO.strictApp.consumerKey)).toBe(true);
    }
    expect(await tokens({ c: "no-such-consumer-key" })).toEqual([]);
    // An unknown state is a validation error.
    expect((await bearer.post(TOKENS, { state: "GONE" })).status).toBe(400);
  });

  it("records who revoked: the admin (console or admin client), the client (RFC 7009), the system on refresh token reuse", async () => {
    const started = Date.now();
    const byConsole = rowId(await clientCredentialsToken(server.url, DEMO.app));
    await console_.data("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: byConsole });
    expect(await byId(byConsole)).toMatchObject({ state: "REVOKED", revokedBy: "admin:admin" });
    expect(Date.parse((await byId(byConsole)).revokedAt)).toBeGreaterThanOrEqual(started - 1000);

    const byAdminClient = rowId(await clientCredentialsToken(server.url, DEMO.app));
    await bearer.data("mutation($id: ID!) { revokeToken(id: $id) { id } }", { id: byAdminClient });
    expect((await byId(byAdminClient)).revokedBy).toBe(`client:${DEMO.adminApp.consumerKey}`);

    const value = await clientCredentialsToken(server.url, DEMO.app);
    expect((await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, { token: value })).status).toBe(200);
    expect((await byId(rowId(value))).revokedBy).toBe(`client:${DEMO.app.consumerKey}`);

    const { tokens: first } = await userTokens(server.url, { pkce: pkcePair() });
    const rotate = (refreshToken: string) => tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: refreshToken });
    expect((await rotate(first.refresh_token)).status).toBe(200);
    expect((await byId(rowId(first.access_token))).state).toBe("LIVE");
    expect((await rotate(first.refresh_token)).status).toBe(400);
    expect(await byId(rowId(first.access_token))).toMatchObject({ state: "REVOKED", revokedBy: "system:refresh_token_reuse" });

    // A live token names no revocation.
    const fresh = rowId(await clientCredentialsToken(server.url, DEMO.app));
    expect(await byId(fresh)).toMatchObject({ state: "LIVE", revokedAt: null, revokedBy: null });
  });
});

describe("scope descriptions, managed with their scopes", () => {
  const CREATE = `mutation($input: CreateApiProductInput!) { createApiProduct(input: $input) { id scopes scopeDescriptions { name description } } }`;
  const UPDATE = `mutation($id: ID!, $input: UpdateApiProductInput!) { updateApiProduct(id: $id, input: $input) { scopes scopeDescriptions { name description } } }`;
  const productNames = async () => (await bearer.data("{ apiProducts { name } }")).apiProducts.map((p: Json) => p.name);

  it("a new scope needs a description for end users; without one nothing is created or changed", async () => {
    const refused = await bearer.post(CREATE, { input: { name: "Ledger-v1", scopes: ["ledger.read", "aisp"] } });
    expect(firstError(refused)).toMatchObject({ code: "BAD_USER_INPUT" });
    expect(firstError(refused).message).toBe('scopeDescriptions: "ledger.read" needs a description for end users');
    expect(await productNames()).not.toContain("Ledger-v1");

    for (const scopeDescriptions of [[{ name: "ledger.read", description: "  " }], [{ name: "other", description: "Read the ledger" }]]) {
      const bad = await bearer.post(CREATE, { input: { name: "Ledger-v1", scopes: ["ledger.read"], scopeDescriptions } });
      expect(firstError(bad).code).toBe("BAD_USER_INPUT");
    }
    expect(await productNames()).not.toContain("Ledger-v1");

    const { createApiProduct: product } = await bearer.data(CREATE, {
      input: { name: "Ledger-v1", scopes: ["ledger.read", "aisp"], scopeDescriptions: [{ name: "ledger.read", description: "Read your ledger" }] },
    });
    // An existing scope keeps its description.
    expect(product.scopeDescriptions).toEqual([
      { name: "ledger.read", description: "Read your ledger" },
      { name: "aisp", description: "Read your account details, balances and transactions" },
    ]);
    expect((await bearer.data("{ scopes { name description } }")).scopes).toContainEqual({ name: "ledger.read", description: "Read your ledger" });

    const widened = await bearer.post(UPDATE, { id: product.id, input: { scopes: ["ledger.read", "ledger.write"] } });
    expect(firstError(widened).message).toBe('scopeDescriptions: "ledger.write" needs a description for end users');
    expect((await bearer.data("{ apiProducts { id scopes } }")).apiProducts.find((p: Json) => p.id === product.id).scopes).toEqual(["ledger.read", "aisp"]);
    const { updateApiProduct } = await bearer.data(UPDATE, {
      id: product.id,
      input: { scopes: ["ledger.read", "ledger.write"], scopeDescriptions: [{ name: "ledger.write", description: "Change your ledger" }] },
    });
    expect(updateApiProduct.scopeDescriptions.map((s: Json) => s.description)).toEqual(["Read your ledger", "Change your ledger"]);
  });

  it("setScopeDescription changes what end users read, is audited, and knows only offered scopes", async () => {
    const SET = `mutation($input: ScopeDescriptionInput!) { setScopeDescription(input: $input) { name description } }`;
    const text = "Read your balances, accounts and transactions";
    expect((await console_.data(SET, { input: { name: "aisp", description: text } })).setScopeDescription).toEqual({ name: "aisp", description: text });
    const [described] = await server.db.consents.describeScopes(["aisp"]);
    expect(described).toEqual({ name: "aisp", description: text });
    const audited = (await bearer.data('{ auditEvents(type: "admin.setScopeDescription") { nodes { actor details } } }')).auditEvents.nodes;
    expect(audited[0]).toMatchObject({ actor: "admin:admin" });
    expect(firstError(await console_.post(SET, { input: { name: "nobody.offers.this", description: "x" } })).code).toBe("NOT_FOUND");
    expect(firstError(await console_.post(SET, { input: { name: "aisp", description: "" } })).code).toBe("BAD_USER_INPUT");
  });
});

describe("developers(search) and developer(id)", () => {
  it("finds developers by a substring of their email or names, any case", async () => {
    const DEVELOPERS = "query($s: String) { developers(search: $s, first: 100) { nodes { email } } }";
    const emails = async (s: string) => (await bearer.data(DEVELOPERS, { s })).developers.nodes.map((d: Json) => d.email);
    expect(await emails("DANA")).toEqual([DEMO.developerEmail]);
    expect(await emails("acme-fintech")).toContain(DEMO.developerEmail);
    expect(await emails("%")).toEqual([]);
    expect((await bearer.post(DEVELOPERS, { s: "x".repeat(101) })).status).toBe(200);
    expect(firstError(await bearer.post(DEVELOPERS, { s: "x".repeat(101) })).code).toBe("BAD_USER_INPUT");
  });

  it("developer(id): one developer with their organization, null when unknown", async () => {
    const DEVELOPER = "query($id: ID!) { developer(id: $id) { email organization { name } } }";
    const { nodes } = (await bearer.data('{ developers(search: "dana") { nodes { id } } }')).developers;
    expect((await bearer.data(DEVELOPER, { id: nodes[0].id })).developer).toEqual({ email: DEMO.developerEmail, organization: { name: DEMO.organization } });
    expect((await bearer.data(DEVELOPER, { id: "no-such-developer" })).developer).toBeNull();
  });
});
