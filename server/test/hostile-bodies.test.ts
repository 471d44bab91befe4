/**
 * Request bodies that end the server if anything in answering them throws: oversized (by
 * Content-Length and streamed without one), aborted mid-body and half sent, on every node:http
 * chain and the Express endpoints that read bodies, with and without a token, while another
 * client keeps getting answers. An error that escaped would be an unhandled rejection, which
 * fails this run; a server that died would stop answering the other client.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYMENT_BODY_LIMIT_BYTES } from "../src/gateway/consent-check.js";
import { psd2ConsentTokens } from "./support/flow.js";
import { send, type RawRequest } from "./support/hostile.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let paymentToken: string;

const payment = {
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount: "10.00" },
  creditorName: "ACME GmbH",
  creditorAccount: { iban: "FR1420041010050500013M02606" },
};

beforeAll(async () => {
  server = await startTestServer();
  const flow = await psd2ConsentTokens(server.url, [payment]);
  paymentToken = flow.access_token as string;
});
afterAll(() => server?.close());

/** The endpoints that read a body, and the fields they need. */
const ENDPOINTS: { name: string; path: string; headers: (token: boolean) => [string, string][] }[] = [
  ...["/oauth2/v1/token", "/oauth2/v1/par", "/oauth2/v1/revoke", "/oauth2/v1/introspect"].map((path) => ({
    name: path,
    path,
    headers: (): [string, string][] => [["Content-Type", "application/x-www-form-urlencoded"]],
  })),
  {
    name: "gateway payment",
    path: "/payments/",
    headers: (token) => [["Content-Type", "application/json"], ...(token ? ([["Authorization", `Bearer ${paymentToken}`]] as [string, string][]) : [])],
  },
  {
    name: "gateway streamed body",
    path: "/accounts/",
    headers: (token) => [["Content-Type", "application/json"], ...(token ? ([["Authorization", `Bearer ${paymentToken}`]] as [string, string][]) : [])],
  },
  { name: "registration", path: "/oauth2/v1/register", headers: () => [["Content-Type", "application/json"]] },
  { name: "Berlin Group consents", path: "/psd2/v1/consents", headers: () => [["Content-Type", "application/json"]] },
];

/** Sends the head and `sent` bytes of a body declared `declared` long, then aborts (destroy) or half-closes (end). */
function partial(path: string, headers: [string, string][], declared: number, sent: number, how: "abort" | "half-close"): Promise<void> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, ...headers.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${declared}`, "", ""].join("\r\n");
      socket.write(head);
      socket.write(Buffer.alloc(sent, 0x7b));
      setTimeout(() => (how === "abort" ? socket.destroy() : socket.end()), 30);
    });
    socket.on("error", () => {});
    socket.on("data", () => {});
    socket.on("close", () => resolve());
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, 3000);
  });
}

/** Keeps another client asking /healthz until stopped; every answer must be 200. */
function bystander() {
  let stop = false;
  let answered = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (!stop) {
      try {
        const res = await fetch(`${server.url}/healthz`);
        if (res.status === 200) answered += 1;
        else failures.push(`status ${res.status}`);
        await res.arrayBuffer();
      } catch (err) {
        failures.push(String(err));
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async done() {
      stop = true;
      await loop;
      return { answered, failures };
    },
  };
}

describe("bodies that used to end the server", () => {
  it("a payment body over the limit, with a payment consent's token, is a 413 and the server keeps answering", async () => {
    const other = bystander();
    const body = Buffer.alloc(PAYMENT_BODY_LIMIT_BYTES + 6 * 1024, 0x20);
    // Streamed, without Content-Length: the bound is met while reading.
    const streamed: RawRequest = {
      method: "POST",
      target: "/payments/",
      headers: [["Authorization", `Bearer ${paymentToken}`], ["Content-Type", "application/json"], ["Transfer-Encoding", "chunked"]],
      contentLength: false,
      body: Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]),
    };
    const declared: RawRequest = { method: "POST", target: "/payments/", headers: [["Authorization", `Bearer ${paymentToken}`], ["Content-Type", "application/json"]], body };
    for (const req of [streamed, declared, streamed]) {
      const res = await send(server.url, req);
      expect(res.status, res.text).toBe(413);
      expect(JSON.parse(res.text)).toMatchObject({ error: "invalid_request" });
      expect(res.headers.connection?.[0]).toBe("close");
    }
    const { answered, failures } = await other.done();
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  for (const endpoint of ENDPOINTS) {
    for (const token of [true, false]) {
      it(`${endpoint.name}, ${token ? "with" : "without"} a token: oversized, aborted and half-sent bodies leave the server answering`, async () => {
        const other = bystander();
        const headers = endpoint.headers(token);
        const oversized = await send(server.url, { method: "POST", target: endpoint.path, headers, body: Buffer.alloc(2 * 1024 * 1024, 0x7b) });
        // A 4xx in the RFC's format: 413 where the endpoint reads the body, or an earlier refusal (no token, no client).
        expect(oversized.status, oversized.text).toBeGreaterThanOrEqual(400);
        expect(oversized.status, oversized.text).toBeLessThan(500);
        await partial(endpoint.path, headers, 4096, 100, "abort");
        await partial(endpoint.path, headers, 4096, 100, "half-close");
        await partial(endpoint.path, headers, PAYMENT_BODY_LIMIT_BYTES * 4, PAYMENT_BODY_LIMIT_BYTES + 1024, "abort");
        const { answered, failures } = await other.done();
        expect(failures).toEqual([]);
        expect(answered).toBeGreaterThan(0);
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      });
    }
  }
});
