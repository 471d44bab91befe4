/**
 * Peer of `npm run bench`: a bare node:http reverse proxy, the floor our gateway is compared
 * with. Every request is forwarded as it is (method, path, headers, body) to UPSTREAM_URL
 * with `http.request` over a keep-alive Agent, and the answer is piped back: no checks at
 * all. Prints `listening on <url>` once it listens on 127.0.0.1 (any free port).
 * Env: UPSTREAM_URL (required, http://host:port).
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

const upstream = new URL(process.env.UPSTREAM_URL ?? "");
const agent = new Agent({ keepAlive: true });

const server = createServer((req, res) => {
  const out = request(
    { agent, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on("error", () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(out);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
