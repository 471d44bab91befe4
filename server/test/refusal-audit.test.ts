/**
 * HTTP suite for the refusal audit (README "Behaviour and decisions → Audit of refusals"):
 * refused token requests and gateway calls, and failed client authentications, are audited
 * as aggregated rows, one per (type, client, API, reason, minute) with a count, written on
 * flush; an unknown client id never becomes an aggregation key; the rows name the reason,
 * description, request and interaction ids and a token's id prefix, never a token.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { ID_LENGTH } from "../src/kernel/ids.js";
import { basic, clientCredentialsToken, REVOCATION_ENDPOINT, request, TOKEN_ENDPOINT, tokenRequest } from "./support/flow.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;

beforeAll(async () => {
  // No timed flush during the suite: each test flushes when it has sent its requests.
  server = await startTestServer({ AUDIT_REFUSAL_FLUSH_SECONDS: "60", TOKEN_RATE_LIMIT_PER_CLIENT: "0", TOKEN_RATE_LIMIT_PER_IP: "0" });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

interface Row {
  id: string;
  type: string;
  actor: string;
  subject: string;
  count: number;
  aggregateKey: string | null;
  reason: string | null;
  details: Record<string, unknown>;
}

/** The audit rows of `type` (and `actor`, when given), oldest first. */
async function rows(type: string, actor?: string): Promise<Row[]> {
  const found = await server.prisma.auditEvent.findMany({ where: { type, ...(actor !== undefined ? { actor } : {}) }, orderBy: { id: "asc" } });
  return found.map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
}

/** The time of a test that may first wait out a minute's end ({@link withinOneMinute}, up to 20 s), then send its burst. */
const WITHIN_MINUTE_TIMEOUT_MS = 60_000;

/** Waits, when needed, until at least `seconds` of the current UTC minute are left, so a burst stays within one minute's aggregate. */
async function withinOneMinute(seconds = 20): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Sends `n` requests made by `send`, `parallel` at a time. @returns their answers' X-Request-Id and x-fapi-interaction-id. */
async function burst(n: number, send: (i: number) => Promise<Response | { status: number; headers: Headers }>, parallel = 20): Promise<{ requestIds: Set<string>; interactionIds: Set<string> }> {
  const requestIds = new Set<string>();
  const interactionIds = new Set<string>();
  for (let i = 0; i < n; i += parallel) {
    const answers = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => send(i + j)));
    for (const a of answers) {
      requestIds.add(a.headers.get("x-request-id") ?? "");
      interactionIds.add(a.headers.get("x-fapi-interaction-id") ?? "");
    }
  }
  return { requestIds, interactionIds };
}

/** A POST to the token endpoint with a raw Authorization value: its status and headers. */
async function tokenCall(authorization: string, form: Record<string, string>): Promise<{ status: number; headers: Headers }> {
  const res = await fetch(`${server.url}${TOKEN_ENDPOINT}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: authorization },
    body: new URLSearchParams(form).toString(),
  });
  await res.arrayBuffer();
  return { status: res.status, headers: res.headers };
}

describe("failed client authentications", { timeout: WITHIN_MINUTE_TIMEOUT_MS }, () => {
  it("200 wrong secrets of a registered client within a minute: one row with count 200 after a flush, none before", async () => {
    await withinOneMinute();
    const before = await rows("client.authentication_failed", DEMO.app.consumerKey);
    const statuses: number[] = [];
    const seen = await burst(200, async () => {
      const answer = await tokenCall(basic(DEMO.app.consumerKey, `wrong-${randomBytes(4).toString("hex")}`), { grant_type: "client_credentials" });
      statuses.push(answer.status);
      return answer;
    });
    expect(new Set(statuses)).toEqual(new Set([401]));
    // Nothing is written per request.
    expect(await rows("client.authentication_failed", DEMO.app.consumerKey)).toEqual(before);
    await server.flushCounts();
    const after = await rows("client.authentication_failed", DEMO.app.consumerKey);
    expect(after.length - before.length).toBe(1);
    const row = after.at(-1)!;
    expect(row.count).toBe(200);
    expect(row.aggregateKey).toMatch(new RegExp(`^client\\.authentication_failed\\|${DEMO.app.consumerKey}\\|\\|invalid_client\\|\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d$`));
    expect(row.details).toMatchObject({ reason: "invalid_client", description: "invalid consumer key or secret", endpoint: TOKEN_ENDPOINT });
    expect(seen.requestIds).toContain(row.details.request_id);
    expect(seen.interactionIds).toContain(row.details.interaction_id);
    expect(row.reason).toBe("invalid_client");
    // The console dashboard counts occurrences, not rows, per client and reason.
    const counted = await server.db.audit.countRefusals(new Date(Date.now() - 3_600_000), new Date(Date.now() + 1000), 100);
    expect(counted.find((c) => c.type === "client.authentication_failed" && c.clientId === DEMO.app.consumerKey)).toMatchObject({ api: "", reason: "invalid_client" });
    expect(counted.find((c) => c.type === "client.authentication_failed" && c.clientId === DEMO.app.consumerKey)!.count).toBeGreaterThanOrEqual(200);
    // A second flush with nothing new writes nothing.
    await server.flushCounts();
    expect(await rows("client.authentication_failed", DEMO.app.consumerKey)).toEqual(after);
  });

  it("unknown client ids aggregate under \"\": no row names any of them", async () => {
    await withinOneMinute();
    const before = await rows("client.authentication_failed", "");
    const ids = Array.from({ length: 50 }, () => `made-up-${randomBytes(6).toString("hex")}`);
    await burst(50, (i) => tokenCall(basic(ids[i]!, "secret"), { grant_type: "client_credentials" }));
    await server.flushCounts();
    const after = await rows("client.authentication_failed", "");
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)!.count).toBe(50);
    const all = await server.prisma.auditEvent.findMany();
    const text = JSON.stringify(all);
    expect(ids.filter((id) => text.includes(id))).toEqual([]);
  });

  it("revocation and introspection endpoints aggregate failed client authentications too", async () => {
    await withinOneMinute();
    const before = (await rows("client.authentication_failed", DEMO.strictApp.consumerKey)).reduce((n, r) => n + r.count, 0);
    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(server.url, REVOCATION_ENDPOINT, basic(DEMO.strictApp.consumerKey, "wrong"), { token: "x" });
      expect(res.status).toBe(401);
    }
    await server.flushCounts();
    const after = (await rows("client.authentication_failed", DEMO.strictApp.consumerKey)).reduce((n, r) => n + r.count, 0);
    expect(after - before).toBe(3);
  });
});

describe("refused token requests", { timeout: WITHIN_MINUTE_TIMEOUT_MS }, () => {
  it("an invalid grant is audited with the client, the reason and the presented refresh token's id prefix, never the token", async () => {
    await withinOneMinute();
    const fakeId = `c${"0".repeat(8)}${randomBytes(8).toString("hex")}`.slice(0, ID_LENGTH);
    const secretPart = randomBytes(32).toString("base64url");
    const res = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: fakeId + secretPart });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    const scope = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope: "no-such-scope" });
    expect(scope.status).toBe(400);
    await server.flushCounts();
    const refused = await rows("token.refused", DEMO.app.consumerKey);
    const grant = refused.find((r) => r.details.reason === "invalid_grant")!;
    expect(grant).toBeDefined();
    expect(grant.details.token_id_prefix).toBe(fakeId.slice(0, 13));
    expect(JSON.stringify(grant)).not.toContain(secretPart);
    expect(JSON.stringify(grant)).not.toContain(fakeId);
    expect(refused.some((r) => r.details.reason === "invalid_scope")).toBe(true);
  });
});

describe("refused gateway calls", { timeout: WITHIN_MINUTE_TIMEOUT_MS }, () => {
  it("no token, a bad token, a revoked token, insufficient scope and an unknown API are audited with the API and reason", async () => {
    await withinOneMinute();
    const payments = await clientCredentialsToken(server.url, DEMO.paymentsApp);
    const revoked = await clientCredentialsToken(server.url, DEMO.app);
    expect((await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, { token: revoked })).status).toBe(200);
    const unknownApi = `nonexistent-${randomBytes(5).toString("hex")}`;
    const calls: [string, Record<string, string>, number][] = [
      ["/accounts/", {}, 401],
      ["/accounts/", { Authorization: "Bearer made-up-token" }, 401],
      ["/accounts/", { Authorization: `Bearer ${revoked}` }, 401],
      ["/accounts/", { Authorization: `Bearer ${payments}` }, 403],
      [`/${unknownApi}/x`, { Authorization: `Bearer ${payments}` }, 404],
    ];
    for (const [path, headers, status] of calls) expect((await request(`${server.url}${path}`, { headers })).status).toBe(status);
    await server.flushCounts();
    const refused = await rows("gateway.refused");
    const find = (reason: string, actor: string, api: string) => refused.find((r) => r.details.reason === reason && r.actor === actor && r.subject === api);
    expect(find("no_token", "", "accounts")).toBeDefined();
    expect(find("invalid_token", "", "accounts")).toBeDefined();
    // A revoked token still proves whose it was: its client, and its id prefix.
    const revokedRow = find("invalid_token", DEMO.app.consumerKey, "accounts");
    expect(revokedRow?.details).toMatchObject({ api: "accounts", token_id_prefix: revoked.slice(0, 13) });
    expect(JSON.stringify(revokedRow)).not.toContain(revoked);
    const scopeRow = find("insufficient_scope", DEMO.paymentsApp.consumerKey, "accounts");
    expect(scopeRow?.details.description).toContain("accounts");
    // An unknown API is no aggregation key: the row has no API.
    expect(find("not_found", "", "")).toBeDefined();
    expect(JSON.stringify(refused.map((r) => [r.subject, r.aggregateKey]))).not.toContain(unknownApi);
  });
});

describe("the store's upsert", () => {
  it("adds the counts of one key from several writers (instances) into one row", async () => {
    const key = `token.refused|${DEMO.app.consumerKey}||test_reason|${randomBytes(4).toString("hex")}`;
    const event = { type: "token.refused" as const, actor: DEMO.app.consumerKey, at: new Date(), aggregateKey: key, reason: "test_reason", details: { reason: "test_reason" } };
    await Promise.all([server.db.audit.recordAggregate({ ...event, count: 3 }), server.db.audit.recordAggregate({ ...event, count: 4 })]);
    await server.db.audit.recordAggregate({ ...event, count: 5 });
    const found = await server.prisma.auditEvent.findMany({ where: { aggregateKey: key } });
    expect(found.map((r) => r.count)).toEqual([12]);
  });
});
