/**
 * The audit search of the admin API (issue 19, the console's audit page): `auditEvents`
 * filtered by a client's consumer key, a username, an API, the outcome and a time range,
 * against the running server and the events its own requests wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { callApi, clientCredentialsToken, tokenRequest, TOKEN_ENDPOINT, type Json } from "./support/flow.js";
import { adminBearer, firstError, signIn, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;
let started: Date;

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
  await clientCredentialsToken(server.url, DEMO.app);
  await tokenRequest(server.url, TOKEN_ENDPOINT, { ...DEMO.app, consumerSecret: "wrong-secret" }, { grant_type: "client_credentials" });
  await callApi(server.url, "not-a-token", "/accounts/");
  await signIn(server.url, DEMO.user);
  await server.flushRefusals();
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
