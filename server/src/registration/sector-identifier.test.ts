import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboundRefused } from "../kernel/outbound.js";
import { RegistrationError } from "./errors.js";
import { checkSectorIdentifier, sectorFetch, type SectorFetch } from "./sector-identifier.js";

const SECTOR = "https://tpp.example/sector.json";
const REDIRECTS = ["https://tpp.example/cb", "https://app.tpp.example/cb"];

/** A fetch answering `body` with `status`, whatever the URL; records the URLs asked for. */
function answering(body: string, status = 200): SectorFetch & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(async (uri: string) => {
    asked.push(uri);
    return new Response(status === 204 ? null : body, { status, headers: { "Content-Type": "application/json" } });
  }, { asked });
}

/** A fetch failing with `error`. */
const failing = (error: unknown): SectorFetch => async () => {
  throw error;
};

async function refusal(check: Promise<void>): Promise<RegistrationError> {
  const error = await check.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the sector_identifier_uri was accepted").toBeInstanceOf(RegistrationError);
  expect((error as RegistrationError).error).toBe("invalid_client_metadata");
  expect((error as RegistrationError).status).toBe(400);
  return error as RegistrationError;
}

describe("checkSectorIdentifier (OpenID Connect Registration section 5)", () => {
  it("accepts a JSON array of URLs listing every redirect URI, and fetches the URI given", async () => {
    const fetch = answering(JSON.stringify([...REDIRECTS, "https://other.tpp.example/cb"]));
    await checkSectorIdentifier(SECTOR, REDIRECTS, fetch);
    expect(fetch.asked).toEqual([SECTOR]);
    // No redirect URI (client credentials only): nothing to list.
    await checkSectorIdentifier(SECTOR, [], answering("[]"));
  });

  it("refuses a document that does not list a redirect URI exactly, naming it", async () => {
    const missing = await refusal(checkSectorIdentifier(SECTOR, REDIRECTS, answering(JSON.stringify([REDIRECTS[0]]))));
    expect(missing.message).toMatch(/^sector_identifier_uri does not list redirect_uri https:\/\/app\.tpp\.example\/cb/);
    // Exact strings, as the authorization endpoint matches them: no trailing slash, case or default port added.
    for (const listed of ["https://app.tpp.example/cb/", "https://APP.tpp.example/cb", "https://app.tpp.example:443/cb"]) {
      await refusal(checkSectorIdentifier(SECTOR, REDIRECTS, answering(JSON.stringify([REDIRECTS[0], listed]))));
    }
  });

  it("refuses a document that is not a JSON array of URLs", async () => {
    for (const body of ["{", "", "not json", '{"redirect_uris":["https://tpp.example/cb"]}', '"https://tpp.example/cb"', "[1]", '["https://tpp.example/cb", null]', '["/cb"]', "null"]) {
      const error = await refusal(checkSectorIdentifier(SECTOR, [], answering(body)));
      expect(error.message, body).toMatch(/^sector_identifier_uri is not a JSON array of URLs/);
    }
  });

  it("refuses an answer other than 200, even with a valid array", async () => {
    for (const status of [201, 204, 302, 404, 500, 503]) {
      const error = await refusal(checkSectorIdentifier(SECTOR, REDIRECTS, answering(JSON.stringify(REDIRECTS), status)));
      expect(error.message).toBe(`sector_identifier_uri could not be fetched: it answered HTTP ${status}, not 200`);
    }
  });

  it("turns every failure of the fetch into invalid_client_metadata, never a server error", async () => {
    const cases: [unknown, RegExp][] = [
      [new OutboundRefused("127.0.0.1 is an address this server may not connect to"), /could not be fetched: 127\.0\.0\.1 is an address this server may not connect to$/],
      [new OutboundRefused("the answer of https://tpp.example is larger than 65536 bytes"), /could not be fetched: the answer of .* is larger than 65536 bytes$/],
      [new DOMException("The operation was aborted due to timeout", "TimeoutError"), /could not be fetched: it did not answer in time$/],
      [Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }), /could not be fetched: the connection failed \(ECONNREFUSED\)$/],
      [Object.assign(new TypeError("fetch failed"), { cause: { code: "<script>" } }), /could not be fetched: the connection failed$/],
      [new Error("anything"), /could not be fetched: the connection failed$/],
      ["a string", /could not be fetched: the connection failed$/],
      [null, /could not be fetched: the connection failed$/],
    ];
    for (const [error, description] of cases) expect((await refusal(checkSectorIdentifier(SECTOR, REDIRECTS, failing(error)))).message).toMatch(description);
    // A body that fails while it is read.
    const broken: SectorFetch = async () => ({ status: 200, text: () => Promise.reject(new TypeError("terminated")) }) as unknown as Response;
    expect((await refusal(checkSectorIdentifier(SECTOR, REDIRECTS, broken))).message).toMatch(/could not be fetched/);
  });
});

describe("sectorFetch: kernel/outbound.ts under the address policy of TPP URLs", () => {
  /** A TCP server that accepts connections and never says anything (not even a TLS handshake). */
  let silent: Server;
  let silentPort: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("under the public policy, refuses a loopback or private address before connecting", async () => {
    for (const uri of [`https://127.0.0.1:${silentPort}/sector.json`, "https://10.0.0.1/sector.json", "https://[::1]/sector.json"]) {
      const error = await refusal(checkSectorIdentifier(uri, [], sectorFetch("public")));
      expect(error.message).toMatch(/^sector_identifier_uri could not be fetched: .* is an address this server may not connect to$/);
    }
  });

  it("under the internal policy, refuses a link-local address still", async () => {
    const error = await refusal(checkSectorIdentifier("https://169.254.169.254/sector.json", [], sectorFetch("internal")));
    expect(error.message).toMatch(/may not connect to/);
  });

  it("gives up on a server that does not answer, within its time", async () => {
    const started = performance.now();
    const error = await refusal(checkSectorIdentifier(`https://127.0.0.1:${silentPort}/sector.json`, [], sectorFetch("internal", 300)));
    expect(error.message).toBe("sector_identifier_uri could not be fetched: it did not answer in time");
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("refuses a port nothing listens on", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await refusal(checkSectorIdentifier(`https://127.0.0.1:${port}/sector.json`, [], sectorFetch("internal")));
    expect(error.message).toMatch(/^sector_identifier_uri could not be fetched: the connection failed/);
  });
});
