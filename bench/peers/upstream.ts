/**
 * Peer of `npm run bench`: a bare node:http upstream that answers every GET with one small
 * static JSON (keep-alive), the API behind both our gateway and the bare proxy. Anything but
 * GET gets 405. Prints `listening on <url>` once it listens on 127.0.0.1 (any free port).
 * Env: none.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const BODY = JSON.stringify({ accounts: [{ resourceId: "acc-001", currency: "EUR", name: "Main current account" }] });

const server = createServer((req, res) => {
  req.resume();
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET" }).end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) }).end(BODY);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
