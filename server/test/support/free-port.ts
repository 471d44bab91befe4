/**
 * A TCP port of 127.0.0.1 that nothing listens on, for what the tests start themselves (a
 * PostgreSQL cluster, a redis-server, a server on a chosen port) next to the machine's own.
 */
import { createServer } from "node:net";

/**
 * Asks the OS for a free port by listening on port 0 and closing again at once; another
 * process could take it in between, which the callers' start-up would report.
 * @returns the port number.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
