/**
 * HTTP suite for tracing (OpenTelemetry, OTLP/HTTP JSON; W3C Trace Context): a server started
 * with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans to a collector of this suite (node:http,
 * POST /v1/traces). A caller's `traceparent` makes the server span a child of the caller's;
 * the token endpoint has client authentication, grant and database spans under it; a gateway
 * call has its access check and upstream call, and the upstream receives the upstream call's
 * Trace Context; a GraphQL operation is a span; the request log line names the trace.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { flushTracing } from "../src/observability/tracing.js";
import { callApi, clientCredentialsToken, TOKEN_ENDPOINT, tokenRequest, type Answer } from "./support/flow.js";
import { adminBearer, captureLog } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** An OTLP attribute value (OTLP JSON encoding: 64-bit integers may come as strings). */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
/** A span as OTLP/HTTP JSON carries it (trace and span ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
}
interface ExportRequest {
  resourceSpans: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** OTLP span kinds. */
const SERVER = 2;
const CLIENT = 3;

let collector: Server;
/** Every export request the collector received. */
const exports: ExportRequest[] = [];
let server: TestServer;
let log: string[];

/** The value of attribute `key` of `span` (a number for integers), undefined when absent. */
function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
}

/** Exports what has ended, then every span the collector holds of trace `traceId`. */
async function spansOf(traceId: string): Promise<OtlpSpan[]> {
  await flushTracing();
  return exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))).filter((s) => s.traceId === traceId);
}

/** Waits until trace `traceId` holds a span matching `match` (the server span ends when the connection is done, just after the answer). @returns that span. */
async function spanOf(traceId: string, match: (s: OtlpSpan) => boolean): Promise<OtlpSpan> {
  let found: OtlpSpan | undefined;
  await vi.waitFor(async () => {
    found = (await spansOf(traceId)).find(match);
    expect(found).toBeDefined();
  });
  return found!;
}

/** A new W3C trace and parent span id, and their `traceparent` (version 00, sampled). */
function caller(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const parentId = randomBytes(8).toString("hex");
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = Buffer.concat(chunks);
        exports.push(JSON.parse((req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body).toString("utf8")) as ExportRequest);
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()));
  server = await startTestServer({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_SERVICE_NAME: "tollgate-test",
  });
  log = captureLog(server.logger);
  const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
  await server.prisma.api.create({
    data: { name: "echo", upstreamUrl: `${server.demoUpstreamUrl}/echo`, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } },
  });
});

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
});

describe("the token endpoint", () => {
  let trace: ReturnType<typeof caller>;
  let answer: Answer;
  let spans: OtlpSpan[];
  let serverSpan: OtlpSpan;

  beforeAll(async () => {
    trace = caller();
    answer = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope: "aisp" }, { headers: { traceparent: trace.traceparent } });
    expect(answer.status, answer.text).toBe(200);
    serverSpan = await spanOf(trace.traceId, (s) => s.kind === SERVER);
    spans = await spansOf(trace.traceId);
  });

  it("answers in a SERVER span that is a child of the caller's span, with the HTTP semantic attributes", () => {
    expect(serverSpan.parentSpanId).toBe(trace.parentId);
    expect(serverSpan.name).toBe(`POST ${TOKEN_ENDPOINT}`);
    expect(attr(serverSpan, "http.request.method")).toBe("POST");
    expect(attr(serverSpan, "http.route")).toBe(TOKEN_ENDPOINT);
    expect(attr(serverSpan, "url.path")).toBe(TOKEN_ENDPOINT);
    expect(attr(serverSpan, "http.response.status_code")).toBe(200);
    expect(attr(serverSpan, "server.address")).toBe("127.0.0.1");
  });

  it("exports with the resource's service.name from OTEL_SERVICE_NAME", () => {
    const resources = exports.flatMap((e) => e.resourceSpans).filter((r) => r.scopeSpans.some((s) => s.spans.some((sp) => sp.traceId === trace.traceId)));
    expect(resources.length).toBeGreaterThan(0);
    for (const r of resources) expect(r.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue).toBe("tollgate-test");
  });

  it("has client authentication and grant spans under the server span, and database spans under them", () => {
    const auth = spans.find((s) => s.name === "client authentication");
    const grant = spans.find((s) => s.name === "grant client_credentials");
    expect(auth?.parentSpanId).toBe(serverSpan.spanId);
    expect(grant?.parentSpanId).toBe(serverSpan.spanId);
    expect(attr(grant!, "tollgate.grant_type")).toBe("client_credentials");
    const system = process.env.TEST_DATABASE === "postgresql" ? "postgresql" : "sqlite";
    const insert = spans.find((s) => s.name === "insert tokens");
    expect(insert?.parentSpanId).toBe(grant!.spanId);
    expect(attr(insert!, "db.system.name")).toBe(system);
    expect(attr(insert!, "db.collection.name")).toBe("tokens");
    expect(attr(insert!, "db.operation.name")).toBe("insert");
    const underAuth = spans.filter((s) => s.parentSpanId === auth!.spanId);
    expect(underAuth.length).toBeGreaterThan(0);
    for (const s of underAuth) expect(attr(s, "db.collection.name")).toBe("clients");
    // The token.issued audit event is stored with the token, in one transaction: inside "insert tokens", no span of its own.
    expect(spans.filter((s) => s.traceId === serverSpan.traceId && s.name === "record audit")).toEqual([]);
  });

  it("names the trace in the request log line", async () => {
    const from = log.length;
    const another = caller();
    const again = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" }, { headers: { traceparent: another.traceparent } });
    expect(again.status).toBe(200);
    let line: Record<string, unknown> | undefined;
    await vi.waitFor(() => {
      line = log.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "request");
      expect(line).toBeDefined();
    });
    expect(line).toMatchObject({ trace_id: another.traceId, client_id: DEMO.app.consumerKey, interaction_id: again.headers.get("x-fapi-interaction-id") });
  });

  it("a failed client authentication fails its span; a malformed traceparent starts a new trace", async () => {
    const failed = caller();
    const wrong = await tokenRequest(server.url, TOKEN_ENDPOINT, { ...DEMO.app, consumerSecret: "wrong" }, { grant_type: "client_credentials" }, { headers: { traceparent: failed.traceparent } });
    expect(wrong.status).toBe(401);
    const auth = await spanOf(failed.traceId, (s) => s.name === "client authentication");
    expect(auth.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(attr(await spanOf(failed.traceId, (s) => s.kind === SERVER), "http.response.status_code")).toBe(401);
    const malformed = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" }, { headers: { traceparent: "00-zz-yy-01" } });
    expect(malformed.status).toBe(200);
    const from = log.length;
    const ok = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" }, { headers: { traceparent: `00-${"0".repeat(32)}-${"0".repeat(16)}-01` } });
    expect(ok.status).toBe(200);
    let traceId = "";
    await vi.waitFor(() => {
      const line = log.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "request");
      traceId = String(line?.trace_id);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    });
    expect(traceId).not.toBe("0".repeat(32));
    const root = await spanOf(traceId, (s) => s.kind === SERVER);
    expect(root.parentSpanId ?? "").toBe("");
  });
});

describe("the gateway", () => {
  it("has an access check span and an upstream CLIENT span, whose Trace Context the upstream receives in place of the caller's", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
    const trace = caller();
    const answer = await callApi(server.url, token, "/echo/a?q=1", { headers: { traceparent: trace.traceparent, tracestate: "vendor=opaque" } });
    expect(answer.status, answer.text).toBe(200);
    const upstreamSpan = await spanOf(trace.traceId, (s) => s.kind === CLIENT);
    const serverSpan = await spanOf(trace.traceId, (s) => s.kind === SERVER);
    const check = (await spansOf(trace.traceId)).find((s) => s.name === "gateway access check");
    expect(serverSpan.parentSpanId).toBe(trace.parentId);
    expect(serverSpan.name).toBe("GET /echo/{path}");
    expect(check?.parentSpanId).toBe(serverSpan.spanId);
    expect(attr(check!, "tollgate.api")).toBe("echo");
    expect(upstreamSpan.parentSpanId).toBe(serverSpan.spanId);
    expect(attr(upstreamSpan, "http.response.status_code")).toBe(200);
    expect(attr(upstreamSpan, "url.full")).toBe(`${server.demoUpstreamUrl}/echo/a`);
    const received = answer.body.request.headers as Record<string, string | undefined>;
    expect(received.traceparent).toBe(`00-${trace.traceId}-${upstreamSpan.spanId}-01`);
    // The caller's tracestate is the trace's (W3C Trace Context §3.3): carried on by the propagator.
    expect(received.tracestate).toBe("vendor=opaque");
  });

  it("an upstream call without a caller's traceparent gets one of a new trace", async () => {
    const token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
    const answer = await callApi(server.url, token, "/echo/b");
    expect(answer.status, answer.text).toBe(200);
    const received = answer.body.request.headers as Record<string, string | undefined>;
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(received.traceparent ?? "") ?? [];
    expect(traceId).toBeDefined();
    const upstreamSpan = await spanOf(traceId!, (s) => s.kind === CLIENT);
    expect(upstreamSpan.spanId).toBe(spanId);
  });
});

describe("the admin API", () => {
  it("has one span per GraphQL operation, named by its type and name", async () => {
    const admin = await adminBearer(server.url);
    const trace = caller();
    const answer = await admin.post("query Probe { __typename }", undefined, { traceparent: trace.traceparent });
    expect(answer.status, answer.text).toBe(200);
    const operation = await spanOf(trace.traceId, (s) => s.name === "query Probe");
    const serverSpan = await spanOf(trace.traceId, (s) => s.kind === SERVER);
    expect(operation.parentSpanId).toBe(serverSpan.spanId);
    expect(attr(operation, "graphql.operation.type")).toBe("query");
    expect(attr(operation, "graphql.operation.name")).toBe("Probe");
  });
});
