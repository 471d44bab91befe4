/**
 * A recording upstream for the gateway's hostile suites: it keeps every request it received
 * (method, target, fields and the body's exact bytes) and counts the payments it made, and it
 * can be told how to fail, so a test can prove what the bank's side saw and did.
 *
 * - `POST` is a payment: answered 201 `{"paymentId","transactionStatus":"ACCP"}` and counted
 *   in `payments`, unless the behaviour says otherwise;
 * - any other method is answered 200 with `{"method","url"}`.
 *
 * Behaviours (`upstream.behave(...)`, for the requests that follow):
 * - `ok`: the answers above;
 * - `reject`: 422 `{"transactionStatus":"RJCT","tppMessages":[…]}` (nothing paid);
 * - `fail`: 500 (nothing paid);
 * - `hang`: reads the request, never answers (the gateway's timeout decides);
 * - `drop-after-headers`: a POST is paid and counted, then the connection is cut after the
 *   status line and fields, before the body.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the upstream received it. */
export interface Received {
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body's exact bytes. */
  body: Buffer;
}

/** How the upstream answers the requests that follow. */
export type Behaviour = "ok" | "reject" | "fail" | "hang" | "drop-after-headers";

/** A running recording upstream on 127.0.0.1. */
export interface EchoUpstream {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received, in order. */
  received: Received[];
  /** Payments made (POSTs it executed), whatever the gateway's caller was told. */
  readonly payments: number;
  behave(behaviour: Behaviour): void;
  /** Forgets what was received and the payments made, and goes back to `ok`. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a recording upstream on a free 127.0.0.1 port. */
export async function startEchoUpstream(): Promise<EchoUpstream> {
  const received: Received[] = [];
  let payments = 0;
  let behaviour: Behaviour = "ok";
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      const json = (status: number, body: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      switch (behaviour) {
        case "hang":
          return;
        case "reject":
          return json(422, { transactionStatus: "RJCT", tppMessages: [{ category: "ERROR", code: "FORMAT_ERROR", text: "rejected by the test upstream" }] });
        case "fail":
          return json(500, { error: "upstream failure" });
        case "drop-after-headers":
          if (req.method === "POST") payments += 1;
          res.writeHead(201, { "Content-Type": "application/json", "Content-Length": "1000" });
          res.flushHeaders();
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        case "ok":
          if (req.method !== "POST") return json(200, { method: req.method, url: req.url });
          payments += 1;
          return json(201, { paymentId: `pay-${payments}`, transactionStatus: "ACCP" });
      }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    get payments() {
      return payments;
    },
    behave: (b) => void (behaviour = b),
    reset: () => {
      received.length = 0;
      payments = 0;
      behaviour = "ok";
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
