/**
 * What the server fetches, through the real token endpoint and gateway: a client's `jwks_uri`
 * (a URL the TPP chose) and an API's upstream (a URL an admin configured). Oversized answers
 * are refused or streamed, never held whole; a TPP's URL reaches no loopback or private
 * address unless OUTBOUND_ALLOW_PRIVATE_ADDRESSES is set, an upstream no link-local or
 * metadata address, and no redirect is followed. The "TPP" and the upstream are servers on
 * 127.0.0.1 of this test; the Tollgate servers are real, on a fresh database each.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../src/demo/fapi-key.js";
import { assertionFields, DpopKey } from "./support/fapi.js";
import { clientCredentialsToken, FORM, send, TOKEN_ENDPOINT, type Answer } from "./support/flow.js";
import { adminBearer } from "./support/graphql.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

/** 300 MB: far over the 128 MB heap `npm start` gives the server. */
const HUGE_BYTES = 300 * 1024 * 1024;

let tpp: Server;
let tppUrl: string;
/** The paths the TPP's server was asked for, in order. */
const fetched: string[] = [];
/** The bytes the upstream's huge answers wrote. */
let upstreamWritten = 0;

/** Writes `bytes` of JSON-looking filler to `res`, only as fast as it is read; stops when the reader goes. */
function stream(res: ServerResponse, bytes: number, count?: (n: number) => void): void {
  let left = bytes;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      left -= chunk.length;
      count?.(chunk.length);
      if (!res.write(chunk)) return;
    }
    if (left <= 0) res.end();
  };
  res.on("drain", pump);
  res.write('{"keys":[');
  pump();
}

beforeAll(async () => {
  tpp = createServer((req, res) => {
    const path = req.url ?? "";
    fetched.push(path);
    res.setHeader("Content-Type", "application/json");
    if (path.startsWith("/huge")) return stream(res, HUGE_BYTES);
    if (path.startsWith("/declared")) {
      res.writeHead(200, { "Content-Length": String(HUGE_BYTES) });
      return stream(res, HUGE_BYTES);
    }
    if (path.startsWith("/redirect")) return void res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/iam/" }).end();
    if (path.startsWith("/upstream-huge")) return stream(res, HUGE_BYTES, (n) => (upstreamWritten += n));
    res.end(JSON.stringify(DEMO_FAPI_PUBLIC_JWKS));
  });
  await new Promise<void>((resolve) => tpp.listen(0, "127.0.0.1", resolve));
  tppUrl = `http://127.0.0.1:${(tpp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  tpp.closeAllConnections();
  await new Promise<void>((resolve) => tpp.close(() => resolve()));
});

/** A Tollgate server with `env`, and how to point the fapi2 demo app's keys at a jwks_uri. */
async function tollgate(env: Record<string, string>): Promise<{ server: TestServer; useJwksUri: (uri: string) => Promise<void> }> {
  const { server } = await startIssuerServer(env);
  const admin = await adminBearer(server.url);
  const { apps } = await admin.data("{ apps(first: 50) { nodes { id name } } }");
  const appId = apps.nodes.find((a: { name: string }) => a.name === DEMO.fapiApp.name).id;
  return {
    server,
    useJwksUri: async (uri) => {
      await admin.data("mutation($id: ID!, $uri: String) { setAppKeys(appId: $id, jwks: null, jwksUri: $uri) { id } }", { id: appId, uri });
    },
  };
}

/** A client-credentials request of the fapi2 demo app: private_key_jwt with its key, and a DPoP proof. */
async function assertionToken(server: TestServer): Promise<Answer> {
  const dpop = await DpopKey.generate();
  const form = { grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(server.url)) };
  return send(new URL(TOKEN_ENDPOINT, server.url), {
    method: "POST",
    headers: { "Content-Type": FORM, Accept: "application/json", DPoP: await dpop.proof("POST", `${server.url}${TOKEN_ENDPOINT}`) },
    body: new URLSearchParams(form).toString(),
  });
}

/** Memory the process holds in its heap and in buffers, bytes. */
const held = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

/** Runs `work`, sampling {@link held} every 20 ms. @returns work's result and the most memory held above the start. */
async function peakDuring<T>(work: () => Promise<T>): Promise<{ result: T; grew: number }> {
  const start = held();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, held())), 20);
  try {
    const result = await work();
    return { result, grew: Math.max(peak, held()) - start };
  } finally {
    clearInterval(timer);
  }
}

/** Whether `answer` is the token endpoint's 401 invalid_client whose description matches `why`. */
function expectInvalidClient(answer: Answer, why: RegExp): void {
  expect(answer.status, answer.text).toBe(401);
  expect(answer.body.error).toBe("invalid_client");
  expect(answer.body.error_description).toMatch(why);
  expect(answer.headers.get("www-authenticate")).toBeTruthy();
}

describe("oversized answers from every URL the server fetches", () => {
  let server: TestServer;
  let useJwksUri: (uri: string) => Promise<void>;
  let apiToken: string;

  beforeAll(async () => {
    // The TPP's directory is on this machine: its jwks_uri is on 127.0.0.1.
    ({ server, useJwksUri } = await tollgate({ OUTBOUND_ALLOW_PRIVATE_ADDRESSES: "true" }));
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    await server.prisma.api.create({ data: { name: "big", upstreamUrl: `${tppUrl}/upstream-huge`, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } } });
    apiToken = await clientCredentialsToken(server.url, DEMO.app, "aisp");
  });
  afterAll(() => server?.close());

  it("a jwks_uri on 127.0.0.1 serves the app's keys when private addresses are allowed", async () => {
    await useJwksUri(`${tppUrl}/good/jwks.json`);
    const answer = await assertionToken(server);
    expect(answer.status, answer.text).toBe(200);
  });

  it("a jwks_uri answering 300 MB, streamed without Content-Length: invalid_client at once, the answer never held, the server answering", async () => {
    await useJwksUri(`${tppUrl}/huge/jwks.json`);
    const started = performance.now();
    const { result, grew } = await peakDuring(() => assertionToken(server));
    expectInvalidClient(result, /larger than 65536 bytes/);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(grew).toBeLessThan(48 * 1024 * 1024);
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
  });

  it("a jwks_uri declaring 300 MB: refused by its Content-Length", async () => {
    await useJwksUri(`${tppUrl}/declared/jwks.json`);
    const { result, grew } = await peakDuring(() => assertionToken(server));
    expectInvalidClient(result, /larger than 65536 bytes/);
    expect(grew).toBeLessThan(48 * 1024 * 1024);
  });

  it("a jwks_uri that failed is not fetched again within the cooldown", async () => {
    await useJwksUri(`${tppUrl}/huge/cooldown.json`);
    for (let i = 0; i < 3; i++) expectInvalidClient(await assertionToken(server), /larger than|not fetched again/);
    expect(fetched.filter((path) => path === "/huge/cooldown.json")).toHaveLength(1);
  });

  it("a jwks_uri redirecting to the metadata address: the redirect is not followed", async () => {
    await useJwksUri(`${tppUrl}/redirect/jwks.json`);
    expectInvalidClient(await assertionToken(server), /cannot be read/);
    expect(fetched.filter((path) => path === "/redirect/jwks.json")).toHaveLength(1);
  });

  it("an upstream answering 300 MB is streamed to the client, never held whole", async () => {
    upstreamWritten = 0;
    const res = await fetch(`${server.url}/big/`, { headers: { Authorization: `Bearer ${apiToken}` } });
    expect(res.status).toBe(200);
    // The client stops reading every 32 MiB: the upstream, which writes only as fast as it is
    // read, may then be ahead of the client by the buffers between them, never by the whole
    // answer (a gateway that held it would let the upstream write all 300 MB meanwhile).
    // Measured in bytes written, not in heap, which garbage collection timing would blur.
    const pauseEvery = 32 * 1024 * 1024;
    let received = 0;
    let nextPause = pauseEvery;
    let furthestAhead = 0;
    for await (const chunk of res.body!) {
      received += chunk.length;
      if (received >= nextPause) {
        nextPause += pauseEvery;
        await new Promise((resolve) => setTimeout(resolve, 100));
        furthestAhead = Math.max(furthestAhead, upstreamWritten - received);
      }
    }
    expect(received).toBeGreaterThanOrEqual(HUGE_BYTES);
    expect(upstreamWritten).toBeGreaterThanOrEqual(HUGE_BYTES);
    expect(furthestAhead).toBeLessThan(pauseEvery);
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("where the server's fetches connect", () => {
  let server: TestServer;
  let useJwksUri: (uri: string) => Promise<void>;
  let apiToken: string;

  beforeAll(async () => {
    // OUTBOUND_ALLOW_PRIVATE_ADDRESSES unset: a TPP's URL reaches the Internet only.
    ({ server, useJwksUri } = await tollgate({}));
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    // Stored directly: the admin API refuses such an upstream by its name, the connection by its address.
    await server.prisma.api.create({ data: { name: "metadata", upstreamUrl: "http://169.254.169.254/latest", requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } } });
    await server.prisma.api.create({ data: { name: "mapped", upstreamUrl: "http://[::ffff:169.254.169.254]/latest", requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } } });
    apiToken = await clientCredentialsToken(server.url, DEMO.app, "aisp");
  });
  afterAll(() => server?.close());

  it("a TPP's jwks_uri on a loopback address or a name resolving to one is never fetched", async () => {
    const before = fetched.length;
    for (const uri of [`${tppUrl}/good/loopback.json`, `${tppUrl.replace("127.0.0.1", "localhost")}/good/by-name.json`]) {
      await useJwksUri(uri);
      expectInvalidClient(await assertionToken(server), /cannot be used/);
    }
    expect(fetched).toHaveLength(before);
  });

  it("an upstream on the metadata address is never connected to: 502, whatever answers there", async () => {
    for (const path of ["/metadata/meta-data/iam/", "/mapped/meta-data/iam/"]) {
      const answer = await send(`${server.url}${path}`, { headers: { Authorization: `Bearer ${apiToken}` }, expect5xx: 502 });
      expect(answer.status, answer.text).toBe(502);
      expect(answer.body.error).toBe("bad_gateway");
    }
  });
});
