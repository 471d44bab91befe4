/**
 * Against a running server that holds registrations for the bank's approval
 * (REGISTRATION_REQUIRES_APPROVAL) and serves metrics (METRICS_PORT): one registration per
 * organization and software (decisions.md "Dynamic client registration"), refused when repeated,
 * also when sent at once, and free again once deleted (RFC 7592 §2.3); the 201 answer of a
 * pending registration; the console's queue of pending registrations and its count; and the
 * dashboard's clients named by their apps and its latency quantiles per API, from real gateway
 * calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { histogramQuantile } from "../src/kernel/histogram-quantile.js";
import { PENDING_APPROVAL_NOTE } from "../src/registration/client-information.js";
import { REGISTERED_ALREADY } from "../src/registration/clients.js";
import { DEMO } from "../src/demo/seed.js";
import { callApi, clientCredentialsToken, send } from "./support/flow.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { scrape } from "./support/prometheus.js";
import { newSoftwareId, newSoftwareStatement } from "./support/registration.js";
import { freePort } from "./support/free-port.js";
import type { TestServer } from "./support/server.js";

const REGISTER = "/oauth2/v1/register";

let server: TestServer;
let admin: GraphQLClient;

beforeAll(async () => {
  ({ server } = await startIssuerServer({ REGISTRATION_REQUIRES_APPROVAL: "true", METRICS_PORT: String(await freePort()) }));
  admin = await adminBearer(server.url);
}, 60_000);
afterAll(() => server?.close());

/** A registration (RFC 7591) of `softwareId` for the organization `orgId` of the demo directory. */
async function register(softwareId: string, orgId = "org-queue") {
  const statement = await newSoftwareStatement({ claims: { software_id: softwareId, org_id: orgId, org_name: `Queue ${orgId}` } });
  return send(`${server.url}${REGISTER}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ software_statement: statement, token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"] }),
  });
}

/** The apps of the database registered for `softwareId`, any organization. */
const appsOf = (softwareId: string) => server.prisma.app.findMany({ where: { softwareId }, select: { id: true, status: true } });

describe("one registration per organization and software_id", () => {
  it("a second registration of the software is 400 invalid_client_metadata pointing at RFC 7592; another organization may register it", async () => {
    const softwareId = newSoftwareId();
    const first = await register(softwareId);
    expect(first.status, first.text).toBe(201);
    const second = await register(softwareId);
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: "invalid_client_metadata", error_description: REGISTERED_ALREADY });
    expect(second.body.error_description).toMatch(/registration_client_uri .* registration access token \(RFC 7592\)/);
    expect(await appsOf(softwareId)).toHaveLength(1);
    expect((await register(softwareId, "org-queue-other")).status).toBe(201);
    expect(await appsOf(softwareId)).toHaveLength(2);
  });

  it("after an RFC 7592 deletion the organization may register the software again", async () => {
    const softwareId = newSoftwareId();
    const first = (await register(softwareId)).body;
    const deleted = await send(first.registration_client_uri, { method: "DELETE", headers: { Authorization: `Bearer ${first.registration_access_token}` } });
    expect(deleted.status).toBe(204);
    const again = await register(softwareId);
    expect(again.status, again.text).toBe(201);
    expect(again.body.client_id).not.toBe(first.client_id);
  });

  it("a registration an admin rejects (revokes) frees the software; approved again while another holds it is CONFLICT", async () => {
    const softwareId = newSoftwareId();
    const first = (await register(softwareId)).body;
    const [rejected] = await server.prisma.app.findMany({ where: { softwareId }, select: { id: true } });
    const setStatus = (id: string, status: string) => admin.post("mutation($id: ID!, $s: Status!) { setAppStatus(appId: $id, status: $s) { status } }", { id, s: status });
    expect((await setStatus(rejected!.id, "revoked")).body.data.setAppStatus.status).toBe("revoked");
    const second = await register(softwareId);
    expect(second.status, second.text).toBe(201);
    expect(second.body.client_id).not.toBe(first.client_id);
    const conflict = await setStatus(rejected!.id, "approved");
    expect(conflict.body.errors[0]).toMatchObject({ extensions: { code: "CONFLICT" }, message: expect.stringMatching(/holds this software id now/) });
    expect((await server.prisma.app.findUniqueOrThrow({ where: { id: rejected!.id }, select: { status: true } })).status).toBe("revoked");
    // Once the newer one is revoked, the first may be approved again, and takes the software back.
    const [newer] = await server.prisma.app.findMany({ where: { softwareId }, select: { id: true } });
    await setStatus(newer!.id, "revoked");
    expect((await setStatus(rejected!.id, "approved")).body.data.setAppStatus.status).toBe("approved");
    expect(await appsOf(softwareId)).toEqual([{ id: rejected!.id, status: "approved" }]);
  });

  it("five registrations of one software at once: exactly one is 201, the others 400, and one app is stored", async () => {
    const softwareId = newSoftwareId();
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => register(softwareId, "org-queue-race")));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const refused of answers.filter((a) => a.status === 400)) expect(refused.body).toEqual({ error: "invalid_client_metadata", error_description: REGISTERED_ALREADY });
    expect(await appsOf(softwareId)).toHaveLength(1);
  });

  it("the database holds it too: a second app of the organization with that software_id is refused by the unique index", async () => {
    const softwareId = newSoftwareId();
    const registered = (await register(softwareId)).body;
    const app = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: registered.client_id }, select: { app: true } });
    await expect(
      server.prisma.app.create({ data: { name: `copy ${softwareId}`, developerId: app.app.developerId, softwareId, registeredOrganizationId: app.app.registeredOrganizationId } }),
    ).rejects.toMatchObject({ code: "P2002" });
  });
});

describe("a registration waiting for the bank's approval", () => {
  it("its 201 answer says so (status pending, status_description); a read says so until an admin approves it", async () => {
    const answer = await register(newSoftwareId());
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ status: "pending", status_description: PENDING_APPROVAL_NOTE });
    expect(answer.body.status_description).toMatch(/awaits the bank's approval/);
    const read = () => send(answer.body.registration_client_uri, { headers: { Authorization: `Bearer ${answer.body.registration_access_token}` } });
    expect((await read()).body).toMatchObject({ status: "pending", status_description: PENDING_APPROVAL_NOTE });
    const { apps } = await admin.data('query($s: String) { apps(filter: { search: $s }) { nodes { id } } }', { s: answer.body.client_id });
    await admin.data('mutation($id: ID!) { setAppStatus(appId: $id, status: approved) { status } }', { id: apps.nodes[0].id });
    const approved = (await read()).body;
    expect(approved.status).toBe("approved");
    expect(approved).not.toHaveProperty("status_description");
  });
});

describe("the queue of pending registrations (admin API)", () => {
  const QUEUE = `query($after: String) {
    pendingRegistrationCount
    pendingRegistrations(first: 100, after: $after) { nodes { id name status createdAt registration { softwareId } } pageInfo { hasNextPage endCursor } }
  }`;

  it("lists the pending registrations oldest first with their count; approving or rejecting one takes it off the queue", async () => {
    const softwareIds = [newSoftwareId(), newSoftwareId()];
    for (const id of softwareIds) expect((await register(id)).status).toBe(201);
    const before = await admin.data(QUEUE);
    const queued = before.pendingRegistrations.nodes as { id: string; status: string; createdAt: string; registration: { softwareId: string } }[];
    expect(before.pendingRegistrationCount).toBe(queued.length);
    expect(queued.every((a) => a.status === "pending")).toBe(true);
    expect(queued.map((a) => a.createdAt)).toEqual([...queued.map((a) => a.createdAt)].sort());
    const mine = softwareIds.map((id) => queued.find((a) => a.registration.softwareId === id)!);
    expect(mine.every(Boolean)).toBe(true);
    // An app an admin created is never pending.
    expect(await server.prisma.app.count({ where: { status: "pending", registration: null } })).toBe(0);

    await admin.data('mutation($id: ID!) { setAppStatus(appId: $id, status: approved) { status } }', { id: mine[0]!.id });
    await admin.data('mutation($id: ID!) { setAppStatus(appId: $id, status: revoked) { status } }', { id: mine[1]!.id });
    const after = await admin.data(QUEUE);
    expect(after.pendingRegistrationCount).toBe(before.pendingRegistrationCount - 2);
    expect(after.pendingRegistrations.nodes.map((a: { id: string }) => a.id)).not.toContain(mine[0]!.id);
    expect(after.pendingRegistrations.nodes.map((a: { id: string }) => a.id)).not.toContain(mine[1]!.id);
  });

  it("refuses a page size out of bounds as BAD_USER_INPUT", async () => {
    const answer = await admin.post("{ pendingRegistrations(first: 100000) { nodes { id } } }");
    expect(answer.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });
});

describe("the dashboard", () => {
  const DASHBOARD = `{ dashboard(range: HOUR) {
    traffic { clientId appName appId ok clientErrors }
    failures { clientId appName appId reason }
    tokensIssued { clientId appName appId }
    latency { since apis { api count p50Seconds p95Seconds p99Seconds } }
  } }`;

  it("names each client's app beside its consumer key, in the traffic, the refusals and the tokens issued", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app);
    expect((await callApi(server.url, token, "/products/")).status).toBe(200);
    expect((await callApi(server.url, token, "/accounts/")).status).toBe(403);
    await server.flushCounts();
    const { dashboard } = await admin.data(DASHBOARD);
    const appId = (await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: DEMO.app.consumerKey }, select: { appId: true } })).appId;
    const named = { clientId: DEMO.app.consumerKey, appName: DEMO.app.name, appId };
    expect(dashboard.traffic).toContainEqual(expect.objectContaining(named));
    expect(dashboard.failures).toContainEqual(expect.objectContaining({ ...named, reason: "insufficient_scope" }));
    expect(dashboard.tokensIssued).toContainEqual(named);
    // A call without a valid token has no client, and so no app.
    expect((await send(`${server.url}/products/`)).status).toBe(401);
    await server.flushCounts();
    const anonymous = (await admin.data(DASHBOARD)).dashboard.traffic.filter((t: { clientId: string }) => t.clientId === "");
    expect(anonymous.every((t: { appName: unknown; appId: unknown }) => t.appName === null && t.appId === null)).toBe(true);
  });

  it("gives p50, p95 and p99 of each API's upstream latency, in seconds, from the histogram the metrics listener serves", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app);
    for (let i = 0; i < 20; i++) expect((await callApi(server.url, token, "/products/")).status).toBe(200);
    const { dashboard } = await admin.data(DASHBOARD);
    const products = dashboard.latency.apis.find((a: { api: string }) => a.api === "products");
    // The same histogram, scraped as Prometheus would: its count and buckets (le in seconds).
    const samples = await scrape(server.metricsUrl!);
    const series = samples.filter((s) => s.labels.api === "products");
    const count = series.find((s) => s.name === "tollgate_gateway_upstream_duration_seconds_count")!.value;
    expect(products.count).toBe(count);
    expect(count).toBeGreaterThanOrEqual(20);
    const buckets = series
      .filter((s) => s.name === "tollgate_gateway_upstream_duration_seconds_bucket")
      .map((s) => ({ upperBound: s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le), cumulativeCount: s.value }))
      .sort((a, b) => a.upperBound - b.upperBound);
    for (const [q, field] of [
      [0.5, "p50Seconds"],
      [0.95, "p95Seconds"],
      [0.99, "p99Seconds"],
    ] as const) {
      expect(products[field]).toBeCloseTo(histogramQuantile(q, buckets), 12);
      // Inside the bucket that holds the rank q × count: above the bound below it, at most its own.
      const b = buckets.findIndex((bucket) => bucket.cumulativeCount >= q * count);
      expect(products[field]).toBeGreaterThan(b === 0 ? 0 : buckets[b - 1]!.upperBound);
      expect(products[field]).toBeLessThanOrEqual(buckets[b]!.upperBound);
    }
    expect(products.p50Seconds).toBeLessThanOrEqual(products.p95Seconds);
    expect(products.p95Seconds).toBeLessThanOrEqual(products.p99Seconds);
    // A local upstream answers in well under a second.
    expect(products.p99Seconds).toBeLessThan(1);
    expect(Date.parse(dashboard.latency.since)).toBeLessThanOrEqual(Date.now());
  });

  it("has no latency figures when metrics are off", async () => {
    const { server: plain } = await startIssuerServer();
    try {
      const { dashboard } = await (await adminBearer(plain.url)).data("{ dashboard { latency { since } } }");
      expect(dashboard.latency).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
