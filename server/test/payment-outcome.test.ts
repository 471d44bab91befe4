/**
 * A payment's real outcome: what became of a payment at the bank's side decides the consent's
 * state, the Berlin Group transaction status the TPP reads, the PSU's Account page and what
 * support sees, for every way an upstream can fail: unreachable (nothing sent), a 4xx or 5xx
 * (rejected), no answer in time or an answer cut after its status line. Each case runs against
 * a recording upstream (support/echo-upstream.ts) behind the seeded `payments` API and asserts
 * what the upstream received and executed. Also: a payment consent's lifetime, and the demo's
 * upstream URLs refreshed on a restart.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { startEchoUpstream, type EchoUpstream } from "./support/echo-upstream.js";
import { callApi, clientCredentialsToken, psd2ConsentTokens, request, type Json } from "./support/flow.js";
import { adminBearer, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

const CREDITOR = "FR1420041010050500013M02606";
const payment = { type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "10.00" }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } };
const BODY = JSON.stringify({ instructedAmount: { currency: "EUR", amount: "10.00" }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } });
/** How long the test server's gateway waits for an upstream, milliseconds. */
const UPSTREAM_TIMEOUT_MS = 800;
/** The test server's payment consent lifetime, seconds. */
const LIFETIME_SECONDS = 600;

let server: TestServer;
let upstream: EchoUpstream;
let admin: GraphQLClient;
let psu: GraphQLClient;
let tpp: string;

/** The `payments` API's upstream. */
async function pointPaymentsAt(url: string): Promise<void> {
  await server.prisma.api.update({ where: { name: "payments" }, data: { upstreamUrl: url } });
}

beforeAll(async () => {
  server = await startTestServer({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), PAYMENT_CONSENT_LIFETIME_SECONDS: String(LIFETIME_SECONDS) });
  upstream = await startEchoUpstream();
  await pointPaymentsAt(upstream.url);
  admin = await adminBearer(server.url);
  psu = withSession(await signIn(server.url, DEMO.user));
  tpp = await clientCredentialsToken(server.url, DEMO.strictApp);
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});
beforeEach(async () => {
  upstream.reset();
  await pointPaymentsAt(upstream.url);
});

/** A PSU's access token for one approved payment, and the consent's id. */
async function approvedPayment(): Promise<{ token: string; consentId: string }> {
  const flow = await psd2ConsentTokens(server.url, [payment]);
  const [consent] = (await admin.data(`{ psd2Consents(clientId: "${DEMO.strictApp.consumerKey}") { id } }`)).psd2Consents as Json[];
  return { token: flow.access_token as string, consentId: consent.id as string };
}

/** POSTs `body` as the payment, with `requestId` as its X-Request-ID when given; `expect5xx`: the 5xx this payment expects. */
function pay(token: string, o: { body?: string; requestId?: string; expect5xx?: number } = {}) {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...(o.requestId ? { "X-Request-ID": o.requestId } : {}) };
  return callApi(server.url, token, "/payments/", { method: "POST", body: o.body ?? BODY, headers, expect5xx: o.expect5xx });
}

/** The consent as support sees it (admin API), as the PSU sees it (Account page) and its Berlin Group transaction status (TPP). */
async function seen(consentId: string): Promise<{ support: Json; psu: Json; tpp: string }> {
  const all = (await admin.data(`{ psd2Consents(clientId: "${DEMO.strictApp.consumerKey}") { id status transactionStatus statusReason } }`)).psd2Consents as Json[];
  const mine = (await psu.data("{ myPsd2Consents { id status } }")).myPsd2Consents as Json[];
  const status = await callApi(server.url, tpp, `/psd2/v1/payments/sepa-credit-transfers/${consentId}/status`);
  expect(status.status, status.text).toBe(200);
  return { support: all.find((c) => c.id === consentId), psu: mine.find((c) => c.id === consentId), tpp: status.body.transactionStatus as string };
}

/** A 127.0.0.1 URL where nothing listens. */
async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe("a payment's outcome at the upstream", () => {
  it("reports the status the upstream answered (ACCP), never an invented ACSC, and the PSU sees the consent used", async () => {
    const { token, consentId } = await approvedPayment();
    expect((await seen(consentId)).tpp).toBe("ACTC");
    const paid = await pay(token);
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toEqual({ paymentId: "pay-1", transactionStatus: "ACCP" });
    expect(upstream.payments).toBe(1);
    expect(await seen(consentId)).toEqual({
      support: { id: consentId, status: "consumed", transactionStatus: "ACCP", statusReason: null },
      psu: { id: consentId, status: "consumed" },
      tpp: "ACCP",
    });
    expect((await pay(token)).status).toBe(403);
    expect(upstream.payments).toBe(1);
  });

  it("an upstream that refuses the connection: 502, nothing was sent, the consent stays valid and the payment can be made afterwards", async () => {
    const { token, consentId } = await approvedPayment();
    await pointPaymentsAt(await closedPort());
    const failed = await pay(token, { expect5xx: 502 });
    expect(failed.status, failed.text).toBe(502);
    expect(failed.body.error).toBe("bad_gateway");
    expect(await seen(consentId)).toEqual({ support: { id: consentId, status: "valid", transactionStatus: null, statusReason: null }, psu: { id: consentId, status: "valid" }, tpp: "ACTC" });

    await pointPaymentsAt(upstream.url);
    const paid = await pay(token);
    expect(paid.status, paid.text).toBe(201);
    expect(upstream.payments).toBe(1);
    expect((await seen(consentId)).support.status).toBe("consumed");
  });

  it("a TLS handshake that fails (an https upstream URL on a plain HTTP port): nothing was sent, the consent stays valid", async () => {
    const { token, consentId } = await approvedPayment();
    await pointPaymentsAt(upstream.url.replace("http:", "https:"));
    const failed = await pay(token, { expect5xx: 502 });
    expect(failed.status, failed.text).toBe(502);
    expect(failed.body.error_description).toMatch(/not sent/);
    expect(upstream.received).toEqual([]);
    expect((await seen(consentId)).support.status).toBe("valid");
  });

  it.each([
    ["a 422 RJCT", "reject" as const, 422, "FORMAT_ERROR: rejected by the test upstream"],
    ["a 500", "fail" as const, 500, "upstream failure"],
  ])("%s is a rejection: the TPP gets the upstream's answer, RJCT with the reason, the consent says so, and the retry is refused", async (_what, behaviour, status, reason) => {
    const { token, consentId } = await approvedPayment();
    upstream.behave(behaviour);
    const rejected = await pay(token, { expect5xx: status });
    expect(rejected.status, rejected.text).toBe(status);
    expect(upstream.payments).toBe(0);
    expect(await seen(consentId)).toEqual({
      support: { id: consentId, status: "paymentRejected", transactionStatus: "RJCT", statusReason: reason },
      psu: { id: consentId, status: "paymentRejected" },
      tpp: "RJCT",
    });
    upstream.behave("ok");
    const again = await pay(token);
    expect(again.status).toBe(403);
    expect(again.headers.get("www-authenticate")).toContain('error="consent_invalid"');
    expect(upstream.received).toHaveLength(1);
    expect(upstream.payments).toBe(0);
  });

  it("a timeout after sending: outcome unknown (PDNG); only the same X-Request-ID with the same bytes is forwarded once more, and the upstream's answer decides", async () => {
    const { token, consentId } = await approvedPayment();
    const requestId = randomUUID();
    upstream.behave("hang");
    const timedOut = await pay(token, { requestId, expect5xx: 502 });
    expect(timedOut.status, timedOut.text).toBe(502);
    expect(upstream.received).toHaveLength(1);
    expect(await seen(consentId)).toEqual({ support: { id: consentId, status: "outcomeUnknown", transactionStatus: null, statusReason: null }, psu: { id: consentId, status: "outcomeUnknown" }, tpp: "PDNG" });

    upstream.behave("ok");
    for (const other of [{ requestId: randomUUID() }, {}, { requestId, body: ` ${BODY}` }]) {
      const refused = await pay(token, other);
      expect(refused.status, `${JSON.stringify(other)}: ${refused.text}`).toBe(403);
      expect(refused.headers.get("www-authenticate")).toContain('error="consent_invalid"');
    }
    expect(upstream.received).toHaveLength(1);

    const retried = await pay(token, { requestId });
    expect(retried.status, retried.text).toBe(201);
    expect(upstream.received.map((r) => r.headers["x-request-id"])).toEqual([requestId, requestId]);
    expect(upstream.received[1]!.body.equals(upstream.received[0]!.body)).toBe(true);
    expect(await seen(consentId)).toEqual({ support: { id: consentId, status: "consumed", transactionStatus: "ACCP", statusReason: null }, psu: { id: consentId, status: "consumed" }, tpp: "ACCP" });
    expect((await pay(token, { requestId })).status).toBe(403);
    expect(upstream.received).toHaveLength(2);
  });

  it("an unknown outcome is forwarded once more, not twice: a retry that times out again leaves it unknown and refuses the next", async () => {
    const { token, consentId } = await approvedPayment();
    const requestId = randomUUID();
    upstream.behave("hang");
    expect((await pay(token, { requestId, expect5xx: 502 })).status).toBe(502);
    expect((await pay(token, { requestId, expect5xx: 502 })).status).toBe(502);
    expect(upstream.received).toHaveLength(2);
    upstream.behave("ok");
    expect((await pay(token, { requestId })).status).toBe(403);
    expect(upstream.received).toHaveLength(2);
    expect((await seen(consentId)).support.status).toBe("outcomeUnknown");
  });

  it("12 raced retries of an unknown outcome are forwarded once", async () => {
    const { token } = await approvedPayment();
    const requestId = randomUUID();
    upstream.behave("hang");
    expect((await pay(token, { requestId, expect5xx: 502 })).status).toBe(502);
    upstream.reset();
    const answers = await Promise.all(Array.from({ length: 12 }, () => pay(token, { requestId })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(11);
    expect(upstream.received).toHaveLength(1);
    expect(upstream.payments).toBe(1);
  });

  it("a connection cut after the status line: the upstream's 201 decides (consumed), its status unread is reported as received (RCVD), and nothing is paid twice", async () => {
    const { token, consentId } = await approvedPayment();
    upstream.behave("drop-after-headers");
    const cut = await pay(token, { requestId: randomUUID(), expect5xx: 502 });
    expect(cut.status, cut.text).toBe(502);
    expect(upstream.payments).toBe(1);
    expect(await seen(consentId)).toEqual({ support: { id: consentId, status: "consumed", transactionStatus: null, statusReason: null }, psu: { id: consentId, status: "consumed" }, tpp: "RCVD" });
    upstream.behave("ok");
    expect((await pay(token)).status).toBe(403);
    expect(upstream.payments).toBe(1);
  });
});

describe("a payment consent's lifetime", () => {
  it("ends PAYMENT_CONSENT_LIFETIME_SECONDS after the PSU's approval: then it is expired and the payment refused", async () => {
    const before = Date.now();
    const { token, consentId } = await approvedPayment();
    const row = await server.prisma.psd2Consent.findUniqueOrThrow({ where: { id: consentId } });
    expect(row.validUntil!.getTime()).toBeGreaterThanOrEqual(before + LIFETIME_SECONDS * 1000);
    expect(row.validUntil!.getTime()).toBeLessThanOrEqual(Date.now() + LIFETIME_SECONDS * 1000);

    await server.prisma.psd2Consent.update({ where: { id: consentId }, data: { validUntil: new Date(Date.now() - 1000) } });
    const refused = await pay(token);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="consent_invalid"');
    expect(upstream.received).toEqual([]);
    const { support, psu: mine, tpp: status } = await seen(consentId);
    expect([support.status, mine.status, status]).toEqual(["expired", "expired", "CANC"]);
  });
});

describe("the demo's upstreams after a restart", () => {
  it("a restart with SEED_DEMO points the seeded payments and accounts APIs at the demo upstreams it started", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tollgate-restart-"));
    const env = { DATABASE_URL: `file:${path.join(dir, "restart.db")}` };
    try {
      const first = await startTestServer(env);
      await first.close();
      const second = await startTestServer(env);
      try {
        expect(second.seeded).toBe(false);
        const accounts = await second.prisma.api.findUniqueOrThrow({ where: { name: "accounts" } });
        expect(accounts.upstreamUrl).toBe(second.demoUpstreamUrl);
        const token = await clientCredentialsToken(second.url, DEMO.paymentsApp, "pisp");
        const read = await callApi(second.url, token, "/payments/pay-unknown");
        // The demo payments API's own answer, not the gateway's 502 for an upstream gone with the first start.
        expect(read.status, read.text).toBe(404);
        expect(read.body.error).toBe("not_found");
        expect((await request(`${second.url}/payments/`, { method: "GET" })).status).toBe(401);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
