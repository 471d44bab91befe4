/**
 * The HTTP side of an oidc-provider peer: a node:http server on 127.0.0.1 (any free port,
 * keep-alive as the load generator keeps its connections) whose issuer is its own address,
 * answering 503 until the provider's handler is set.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Listens now. @returns the server, its issuer (`http://127.0.0.1:<port>`) and `serve(handler)` to start answering with the provider. */
export async function listenPeer(): Promise<{ server: Server; issuer: string; serve(handler: Handler): void }> {
  let handler: Handler = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(h) {
      handler = h;
    },
  };
}
