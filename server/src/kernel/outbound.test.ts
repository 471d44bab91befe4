/**
 * kernel/outbound.ts on real sockets: a local server on 127.0.0.1 stands for the Internet
 * (policy "internal") or for an address a TPP's URL must not reach (policy "public").
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isForbiddenAddress } from "./addresses.js";
import { fetchBounded, guardedAgent, OUTBOUND_BODY_LIMIT_BYTES, OutboundRefused } from "./outbound.js";

let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? "");
    if (req.url === "/redirect") {
      res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end();
    } else if (req.url === "/declared") {
      // A Content-Length over the bound: refused before a byte of the body is read.
      res.writeHead(200, { "Content-Length": String(OUTBOUND_BODY_LIMIT_BYTES + 1) });
      res.write("{");
    } else if (req.url === "/streamed") {
      // No Content-Length: the bound is met while reading. The answer never ends by itself.
      res.writeHead(200, { "Content-Type": "application/json" });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pump);
      pump();
    } else {
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"keys":[]}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("isForbiddenAddress", () => {
  it("public: refuses loopback, private, shared, link-local, metadata, multicast and IPv4-mapped forms; allows the Internet", () => {
    for (const address of ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "100.64.0.1", "0.0.0.0", "169.254.169.254", "100.100.100.200", "224.0.0.1", "::1", "::", "fd12::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "[::1]", "not an address"]) {
      expect(isForbiddenAddress(address, "public"), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "2606:2800:220:1::1", "172.32.0.1"]) expect(isForbiddenAddress(address, "public"), address).toBe(false);
  });

  it("internal: allows loopback and private addresses, never link-local or metadata ones", () => {
    for (const address of ["127.0.0.1", "10.0.0.1", "::1", "fd12::1"]) expect(isForbiddenAddress(address, "internal"), address).toBe(false);
    for (const address of ["169.254.169.254", "fe80::1", "fd00:ec2::254", "::ffff:169.254.169.254", "100.100.100.200"]) expect(isForbiddenAddress(address, "internal"), address).toBe(true);
  });
});

describe("guardedAgent: the address checked where it connects", () => {
  /** What an undici request through `policy`'s agent gets: its status, or the error's cause. */
  async function through(url: string, policy: "public" | "internal"): Promise<number | unknown> {
    const agent = guardedAgent(policy);
    try {
      const res = await request(url, { dispatcher: agent });
      await res.body.text();
      return res.statusCode;
    } catch (error) {
      return error;
    } finally {
      await agent.close();
    }
  }

  it("connects an internal agent to loopback, by address and by name", async () => {
    expect(await through(`http://127.0.0.1:${port}/agent`, "internal")).toBe(200);
    expect(await through(`http://localhost:${port}/agent`, "internal")).toBe(200);
  });

  it("never connects a public agent to loopback: a literal address, an IPv4-mapped one, or a name that resolves to one", async () => {
    const before = seen.length;
    for (const url of [`http://127.0.0.1:${port}/agent`, `http://[::ffff:127.0.0.1]:${port}/agent`, `http://localhost:${port}/agent`]) {
      expect(await through(url, "public"), url).toBeInstanceOf(OutboundRefused);
    }
    expect(seen).toHaveLength(before);
  });

  it("never connects an internal agent to a link-local or metadata address", async () => {
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[fe80::1]/"]) {
      expect(await through(url, "internal"), url).toBeInstanceOf(OutboundRefused);
    }
  });
});

describe("fetchBounded", () => {
  it("returns the answer read whole", async () => {
    const res = await fetchBounded(`http://127.0.0.1:${port}/jwks.json`, {}, "internal");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keys: [] });
  });

  it("follows no redirect: a 3xx is the answer, its Location never fetched", async () => {
    const res = await fetchBounded(`http://127.0.0.1:${port}/redirect`, {}, "internal");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
  });

  it("refuses an answer over the bound by its Content-Length, and while streaming one without", async () => {
    await expect(fetchBounded(`http://127.0.0.1:${port}/declared`, {}, "internal")).rejects.toThrow(/larger than 65536 bytes/);
    const heap = process.memoryUsage().heapUsed;
    await expect(fetchBounded(`http://127.0.0.1:${port}/streamed`, {}, "internal")).rejects.toThrow(OutboundRefused);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(16 * 1024 * 1024);
  });

  it("refuses a forbidden address, literal or resolved, before anything is sent", async () => {
    const before = seen.length;
    await expect(fetchBounded(`http://127.0.0.1:${port}/jwks.json`, {}, "public")).rejects.toThrow(/may not connect to/);
    await expect(fetchBounded(`http://localhost:${port}/jwks.json`, {}, "public")).rejects.toThrow(/resolves to no address/);
    await expect(fetchBounded("http://169.254.169.254/jwks.json", {}, "internal")).rejects.toThrow(OutboundRefused);
    expect(seen).toHaveLength(before);
  });
});
