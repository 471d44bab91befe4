/**
 * HTTP suite for `x-fapi-interaction-id` (FAPI 1.0 Baseline §6.2.1 items 11–13; FAPI 2.0):
 * a caller's UUID is echoed, anything else replaced by a new UUID, on the OAuth endpoints
 * (node:http), the gateway and the Express app, answers and errors alike; the gateway forwards
 * the value it answered with; the audit events and the request log record it, the log line
 * also the authenticated client. Tracing is off here: a caller's W3C Trace Context reaches the
 * upstream unchanged (the tracing suite checks it with tracing on).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import {
  callApi,
  clientCredentialsToken,
  INTROSPECTION_ENDPOINT,
  REVOCATION_ENDPOINT,
  send,
  TOKEN_ENDPOINT,
  tokenRequest,
  type Answer,
} from "./support/flow.js";
import { captureLog } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

const HEADER = "x-fapi-interaction-id";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let server: TestServer;
let token: string;
let log: string[];

/** What the demo upstream's /echo/ received (server/src/demo/upstream.ts). */
const received = (answer: Answer): Record<string, string | undefined> => answer.body.request.headers;

/** Asserts that `answer` carries a new interaction id: a UUID, not `sent`. @returns it. */
function freshId(answer: Answer, sent?: string): string {
  const id = answer.headers.get(HEADER) ?? "";
  expect(id).toMatch(UUID);
  expect(id).not.toBe(sent);
  return id;
}

beforeAll(async () => {
  server = await startTestServer();
  log = captureLog(server.logger);
  const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
  await server.prisma.api.create({
    data: { name: "echo", upstreamUrl: `${server.demoUpstreamUrl}/echo`, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } },
  });
  token = await clientCredentialsToken(server.url, DEMO.app, "aisp");
});

afterAll(async () => {
  await server?.close();
});

describe("a caller's UUID is echoed", () => {
  it("on a token response, in either case as sent, and the token.issued audit event records it with the request id", async () => {
    const sent = randomUUID().toUpperCase();
    const answer = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope: "aisp" }, { headers: { [HEADER]: sent } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get(HEADER)).toBe(sent);
    const requestId = answer.headers.get("x-request-id");
    const events = await server.prisma.auditEvent.findMany({ where: { type: "token.issued", actor: DEMO.app.consumerKey } });
    const mine = events.map((e) => JSON.parse(e.details) as Record<string, unknown>).filter((d) => d.interaction_id === sent);
    expect(mine).toEqual([expect.objectContaining({ interaction_id: sent, request_id: requestId, grant_type: "client_credentials" })]);
  });

  it("on token endpoint errors: a wrong secret (401) and an unsupported grant type (400)", async () => {
    const sent = randomUUID();
    const wrong = await tokenRequest(server.url, TOKEN_ENDPOINT, { ...DEMO.app, consumerSecret: "wrong" }, { grant_type: "client_credentials" }, { headers: { [HEADER]: sent } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get(HEADER)).toBe(sent);
    const unsupported = await tokenRequest(server.url, "/token", DEMO.app, { grant_type: "password" }, { headers: { [HEADER]: sent } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe("unsupported_grant_type");
    expect(unsupported.headers.get(HEADER)).toBe(sent);
  });

  it("on PAR, revocation and introspection answers", async () => {
    for (const path of ["/oauth2/v1/par", REVOCATION_ENDPOINT, INTROSPECTION_ENDPOINT]) {
      const sent = randomUUID();
      const answer = await tokenRequest(server.url, path, DEMO.app, { token: "not-a-token" }, { headers: { [HEADER]: sent } });
      expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(500);
      expect(answer.headers.get(HEADER), path).toBe(sent);
    }
  });

  it("on a gateway answer, and the upstream receives it", async () => {
    const sent = randomUUID();
    const answer = await callApi(server.url, token, "/echo/x", { headers: { [HEADER]: sent } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get(HEADER)).toBe(sent);
    expect(received(answer)[HEADER]).toBe(sent);
  });

  it("on gateway errors: no token (401), an unknown API (404)", async () => {
    const sent = randomUUID();
    const unauthenticated = await send(`${server.url}/echo/x`, { headers: { [HEADER]: sent } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get(HEADER)).toBe(sent);
    const unknown = await callApi(server.url, token, "/no-such-api/x", { headers: { [HEADER]: sent } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get(HEADER)).toBe(sent);
  });

  it("on the Express app: metadata, and an interaction error", async () => {
    const sent = randomUUID();
    const metadata = await send(`${server.url}/.well-known/oauth-authorization-server`, { headers: { [HEADER]: sent } });
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get(HEADER)).toBe(sent);
    const missing = await send(`${server.url}/interaction/no-such-interaction`, { headers: { [HEADER]: sent } });
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.headers.get(HEADER)).toBe(sent);
  });
});

describe("anything else gets a new UUID", () => {
  const notUuids = ["not-a-uuid", `${randomUUID()}x`, randomUUID().replaceAll("-", ""), `{${randomUUID()}}`, "g".repeat(8) + "-0000-0000-0000-000000000000"];

  it("a missing one: each answer its own", async () => {
    const first = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" });
    const second = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" });
    expect(freshId(first)).not.toBe(freshId(second));
  });

  it.each(notUuids)("%j on the token endpoint and the Express app is replaced, never echoed", async (sent) => {
    const tokenAnswer = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" }, { headers: { [HEADER]: sent } });
    expect(tokenAnswer.status).toBe(200);
    freshId(tokenAnswer, sent);
    const metadata = await send(`${server.url}/.well-known/oauth-authorization-server`, { headers: { [HEADER]: sent } });
    freshId(metadata, sent);
  });

  it("two UUIDs (the field repeated) are replaced", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const headers = new Headers([[HEADER, a], [HEADER, b]]);
    const answer = await send(`${server.url}/.well-known/oauth-authorization-server`, { headers });
    const id = freshId(answer, a);
    expect(id).not.toBe(b);
  });

  it("the gateway forwards the value it answered with, not the caller's, also when spelt with _", async () => {
    const answer = await callApi(server.url, token, "/echo/x", { headers: { [HEADER]: "not-a-uuid", "x_fapi_interaction_id": "spoofed" } });
    expect(answer.status, answer.text).toBe(200);
    const id = freshId(answer, "not-a-uuid");
    expect(received(answer)[HEADER]).toBe(id);
    expect(received(answer).x_fapi_interaction_id).toBeUndefined();
    const none = await callApi(server.url, token, "/echo/x");
    expect(received(none)[HEADER]).toBe(freshId(none));
  });
});

describe("the request log", () => {
  /** The request log lines written since `from`, parsed. */
  const requestLines = (from: number) =>
    log
      .slice(from)
      .map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string })
      .filter((l) => l.msg === "request");

  it("names the interaction id and the authenticated client; no client_id when none authenticated", async () => {
    const from = log.length;
    const sent = randomUUID();
    const ok = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials" }, { headers: { [HEADER]: sent } });
    expect(ok.status).toBe(200);
    const anonymous = await send(`${server.url}/.well-known/oauth-authorization-server`);
    const anonymousId = anonymous.headers.get(HEADER);
    await vi.waitFor(() => expect(requestLines(from)).toHaveLength(2));
    const [tokenLine, metadataLine] = [sent, anonymousId].map((id) => requestLines(from).find((l) => l.interaction_id === id));
    expect(tokenLine).toMatchObject({ req: { id: ok.headers.get("x-request-id"), method: "POST", path: TOKEN_ENDPOINT }, res: { status: 200 }, client_id: DEMO.app.consumerKey });
    expect(metadataLine).toMatchObject({ req: { method: "GET", path: "/.well-known/oauth-authorization-server" }, res: { status: 200 } });
    expect(metadataLine).not.toHaveProperty("client_id");
    // Tracing is off: no trace id.
    expect(tokenLine).not.toHaveProperty("trace_id");
  });

  it("names the client of the token a gateway call presented", async () => {
    const from = log.length;
    const answer = await callApi(server.url, token, "/echo/x");
    expect(answer.status).toBe(200);
    await vi.waitFor(() => expect(requestLines(from)).toHaveLength(1));
    expect(requestLines(from)[0]).toMatchObject({ req: { method: "GET", path: "/echo/x" }, res: { status: 200 }, client_id: DEMO.app.consumerKey, interaction_id: answer.headers.get(HEADER) });
  });
});

describe("W3C Trace Context with tracing off", () => {
  it("a caller's traceparent and tracestate reach the upstream unchanged", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const tracestate = "vendor=opaque";
    const answer = await callApi(server.url, token, "/echo/x", { headers: { traceparent, tracestate } });
    expect(answer.status, answer.text).toBe(200);
    expect(received(answer).traceparent).toBe(traceparent);
    expect(received(answer).tracestate).toBe(tracestate);
  });
});
