/**
 * The console's searches in the admin API (issue 19), against the running server: the audit
 * page's `auditEvents` filtered by a client's consumer key, a username, an API, the outcome
 * and a time range, over the events the suite's own requests wrote; and the global search box
 * (`search`): an app by consumer key, a user by username, a token by its id prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { callApi, clientCredentialsToken, tokenRequest, TOKEN_ENDPOINT, type Json } from "./support/flow.js";
import { adminBearer, firstError, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;
let started: Date;
/** The access token the suite got for the budgeting app (its first 25 characters are its row id). */
let issuedToken: string;

const EVENTS = `query($f: String, $u: String, $api: String, $o: AuditOutcome, $from: DateTime, $to: DateTime, $type: String) {
  auditEvents(clientId: $f, username: $u, api: $api, outcome: $o, from: $from, to: $to, type: $type, first: 200) { nodes { type actor subject details count at } }
}`;

async function search(filter: Record<string, string>): Promise<Json[]> {
  return (await admin.data(EVENTS, filter)).auditEvents.nodes as Json[];
}

beforeAll(async () => {
  server = await startTestServer();
  started = new Date();
  admin = await adminBearer(server.url);
  // A token for the budgeting app, then a wrong secret for it; a refused gateway call; alice signs in.
  issuedToken = await clientCredentialsToken(server.url, DEMO.app);
  await tokenRequest(server.url, TOKEN_ENDPOINT, { ...DEMO.app, consumerSecret: "wrong-secret" }, { grant_type: "client_credentials" });
  await callApi(server.url, "not-a-token", "/accounts/");
  await signIn(server.url, DEMO.user);
  await server.flushCounts();
});
afterAll(() => server?.close());

describe("auditEvents filters", () => {
  it("a client's events: its tokens and its refusals, and with outcome failure only the refusals", async () => {
    const events = await search({ f: DEMO.app.consumerKey });
    const types = new Set(events.map((e) => e.type));
    expect(types).toEqual(new Set(["token.issued", "client.authentication_failed"]));
    const failures = await search({ f: DEMO.app.consumerKey, o: "failure" });
    expect(failures.map((e) => e.type)).toEqual(["client.authentication_failed"]);
    expect(JSON.parse(failures[0].details)).toMatchObject({ reason: "invalid_client" });
    expect((await search({ f: DEMO.app.consumerKey, o: "success" })).every((e) => e.type === "token.issued")).toBe(true);
  });

  it("an API's refused calls, a user's events by username, an unknown username has none", async () => {
    const refused = await search({ api: "accounts" });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.type === "gateway.refused" && e.subject === "accounts")).toBe(true);
    const alice = await search({ u: DEMO.user.username });
    expect(alice.map((e) => e.type)).toContain("sca.succeeded");
    expect(alice.every((e) => String(e.actor).startsWith("user:") || e.subject !== "")).toBe(true);
    expect(await search({ u: "nobody-of-that-name" })).toEqual([]);
  });

  it("a time range [from, to), and a date-time that is not one is a validation error", async () => {
    expect(await search({ to: started.toISOString(), type: "token.issued" })).toEqual([]);
    const since = await search({ from: started.toISOString(), type: "token.issued" });
    expect(since.length).toBeGreaterThan(0);
    expect(since.every((e) => new Date(e.at) >= started)).toBe(true);
    const bad = await admin.post(EVENTS, { from: "yesterday" });
    expect(bad.status).toBe(400);
    expect(firstError(bad).message).toMatch(/DateTime must be an ISO 8601 date-time/);
  });
});

describe("search (the console's search box)", () => {
  const SEARCH = "query($t: String!) { search(text: $t) { apps { name } users { username } tokens { id } } }";

  it("finds an app by consumer key, a user by username, a token by its id prefix", async () => {
    expect((await admin.data(SEARCH, { t: DEMO.paymentsApp.consumerKey })).search.apps).toEqual([{ name: DEMO.paymentsApp.name }]);
    expect((await admin.data(SEARCH, { t: DEMO.user.username })).search.users).toContainEqual({ username: DEMO.user.username });
    const prefix = issuedToken.slice(0, 10);
    const found = (await admin.data(SEARCH, { t: prefix })).search;
    expect(found.tokens.map((t: Json) => t.id)).toContain(issuedToken.slice(0, 25));
    // Not an id prefix: no token is looked up.
    expect((await admin.data(SEARCH, { t: "Acme" })).search.tokens).toEqual([]);
  });

  it("an empty text is a validation error, and only an admin may search", async () => {
    expect(firstError(await admin.post(SEARCH, { t: "  " })).message).toMatch(/text/);
    const user = withSession(await signIn(server.url, DEMO.user));
    const refused = await user.post(SEARCH, { t: "alice" });
    expect(refused.body.data).toBeNull();
    expect(firstError(refused).code).toBe("FORBIDDEN");
  });
});
