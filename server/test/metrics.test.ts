/**
 * HTTP suite for the Prometheus metrics (docs/operations.md "Metrics"): served only on the separate
 * listener of METRICS_PORT, never on the public port, off by default; per-server counters
 * that move by exactly what was done; route labels that are templates, whatever the path.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { DEMO } from "../src/demo/seed.js";
import { basic, clientCredentialsToken, INTROSPECTION_ENDPOINT, request, TOKEN_ENDPOINT, tokenRequest, userTokens } from "./support/flow.js";
import { freePort } from "./support/free-port.js";
import { scrape, valueOf, type Sample } from "./support/prometheus.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ METRICS_PORT: String(await freePort()) });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const metrics = () => scrape(server.metricsUrl!);
const ISSUED = "tollgate_tokens_issued_total";
const REFUSALS = "tollgate_refusals_total";

describe("the metrics listener", () => {
  it("serves /metrics on 127.0.0.1 at METRICS_PORT, with the process metrics and event-loop lag, and nothing else", async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(server.metricsUrl!).port).not.toBe(new URL(server.url).port);
    const samples = await metrics();
    expect(samples.some((s) => s.name === "process_cpu_user_seconds_total")).toBe(true);
    expect(samples.some((s) => s.name === "nodejs_eventloop_lag_seconds")).toBe(true);
    expect(samples.some((s) => s.name === "http_server_active_requests")).toBe(true);
    const other = await fetch(new URL("/", server.metricsUrl!));
    expect(other.status).toBe(404);
    const post = await fetch(server.metricsUrl!, { method: "POST" });
    expect(post.status).toBe(404);
  });

  it("is not served on the public port: /metrics there is an unknown API (404)", async () => {
    const res = await request(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("# TYPE");
  });

  it("is off when METRICS_PORT is unset or 0", async () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "0" }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "9464" }).metrics).toEqual({ port: 9464, host: "127.0.0.1", clientIdLabel: false });
    const plain = await startTestServer();
    try {
      expect(plain.metricsUrl).toBeUndefined();
      expect((await request(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  }, 60_000);
});

describe("domain counters", () => {
  it("100 client credentials grants raise the issued-tokens counter of that grant by exactly 100", async () => {
    const labels = { grant_type: "client_credentials", profile: "apigee" };
    const before = valueOf(await metrics(), ISSUED, labels);
    for (let i = 0; i < 10; i++) {
      await Promise.all(Array.from({ length: 10 }, () => clientCredentialsToken(server.url, DEMO.app)));
    }
    const after = await metrics();
    expect(valueOf(after, ISSUED, labels) - before).toBe(100);
    // Without METRICS_CLIENT_ID_LABEL no series names a client.
    expect(after.filter((s) => s.name === ISSUED || s.name === REFUSALS).every((s) => !("client_id" in s.labels))).toBe(true);
    // The same requests in the HTTP histogram, under the endpoint's path.
    expect(valueOf(after, "http_server_request_duration_seconds_count", { http_route: TOKEN_ENDPOINT, http_request_method: "POST", http_response_status_code: "200" })).toBeGreaterThanOrEqual(100);
  });

  it("a refused call counts under its endpoint and reason", async () => {
    const before = await metrics();
    const bad = await tokenRequest(server.url, TOKEN_ENDPOINT, basic(DEMO.app.consumerKey, "wrong-secret"), { grant_type: "client_credentials" });
    expect(bad.status).toBe(401);
    const scope = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope: "no-such-scope" });
    expect(scope.status).toBe(400);
    const noToken = await request(`${server.url}/accounts/`);
    expect(noToken.status).toBe(401);
    const after = await metrics();
    const delta = (labels: Record<string, string>) => valueOf(after, REFUSALS, labels) - valueOf(before, REFUSALS, labels);
    expect(delta({ endpoint: "token", reason: "invalid_client" })).toBe(1);
    expect(delta({ endpoint: "token", reason: "invalid_scope" })).toBe(1);
    expect(delta({ endpoint: "gateway", reason: "no_token" })).toBe(1);
    expect(delta({ endpoint: "gateway", reason: "invalid_token" })).toBe(0);
  });

  it("gateway calls count by API and status, with the upstream's latency; introspections by active", async () => {
    // The PSU's token: account data needs the PSU.
    const token = (await userTokens(server.url, { scope: "aisp" })).tokens.access_token as string;
    const before = await metrics();
    const ok = await request(`${server.url}/accounts/`, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const active = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token });
    const inactive = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: `${token}x` });
    expect([active.body.active, inactive.body.active]).toEqual([true, false]);
    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta("tollgate_gateway_requests_total", { api: "accounts", http_response_status_code: "200" })).toBe(1);
    expect(delta("tollgate_gateway_upstream_duration_seconds_count", { api: "accounts" })).toBe(1);
    expect(delta("http_server_request_duration_seconds_count", { http_route: "/{api}/*", http_response_status_code: "200" })).toBe(1);
    expect(delta("tollgate_introspections_total", { active: "true" })).toBe(1);
    expect(delta("tollgate_introspections_total", { active: "false" })).toBe(1);
  });
});

describe("refresh token reuse", () => {
  it("a rotated refresh token presented again counts once, and refreshes and the reuse's refusal count as such", async () => {
    const { tokens } = await userTokens(server.url);
    const before = await metrics();
    const rotated = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: tokens.refresh_token as string });
    expect(rotated.status, rotated.text).toBe(200);
    const reused = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: tokens.refresh_token as string });
    expect(reused.status).toBe(400);
    const after = await metrics();
    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta("tollgate_refresh_token_reuse_total")).toBe(1);
    expect(delta(ISSUED, { grant_type: "refresh_token", profile: "apigee" })).toBe(1);
    expect(delta(REFUSALS, { endpoint: "token", reason: "invalid_grant" })).toBe(1);
  });
});

describe("http_route labels are templates", () => {
  it("random path parts never become label values", async () => {
    const random = randomBytes(8).toString("hex");
    await request(`${server.url}/interaction/${random}`);
    await request(`${server.url}/interaction/${random}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    await request(`${server.url}/nonexistent-${random}/x`);
    await request(`${server.url}/oauth2/${random}`);
    await request(`${server.url}/accounts-${random}`, { method: `X${random.slice(0, 6).toUpperCase()}` }).catch(() => undefined);
    const samples: Sample[] = await metrics();
    const values = samples.flatMap((s) => [s.name, ...Object.values(s.labels)]);
    expect(values.filter((v) => v.includes(random) || v.includes(random.slice(0, 6).toUpperCase()))).toEqual([]);
    const routes = new Set(samples.filter((s) => s.name === "http_server_request_duration_seconds_count").map((s) => s.labels.http_route));
    expect(routes).toContain("/interaction/:id");
    expect(routes).toContain("/interaction/:id/login");
    expect(routes).toContain("unmatched");
  });
});

describe("METRICS_CLIENT_ID_LABEL", () => {
  it("adds the client id to the per-client counters when on", async () => {
    const labelled = await startTestServer({ METRICS_PORT: String(await freePort()), METRICS_CLIENT_ID_LABEL: "true" });
    try {
      await clientCredentialsToken(labelled.url, DEMO.app);
      const bad = await tokenRequest(labelled.url, TOKEN_ENDPOINT, basic(`unknown-${randomBytes(4).toString("hex")}`, "x"), { grant_type: "client_credentials" });
      expect(bad.status).toBe(401);
      const samples = await scrape(labelled.metricsUrl!);
      expect(valueOf(samples, ISSUED, { grant_type: "client_credentials", client_id: DEMO.app.consumerKey })).toBe(1);
      // An unknown client id is never a label value: its refusal counts under "".
      expect(valueOf(samples, REFUSALS, { endpoint: "token", reason: "invalid_client", client_id: "" })).toBe(1);
      expect(samples.some((s) => s.labels.client_id?.startsWith("unknown-"))).toBe(false);
    } finally {
      await labelled.close();
    }
  }, 60_000);
});
