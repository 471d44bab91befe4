/**
 * Forwarding of a checked gateway call to its API's upstream, as an HTTP intermediary
 * (RFC 9110 §7.6): hop-by-hop fields are dropped both ways (§7.6.1), the caller's address
 * is added to `X-Forwarded-For`, and the answer is streamed back with the upstream's status.
 *
 * The HTTP client is undici (the Node.js project's, under Node's own fetch): a keep-alive
 * connection pool per upstream origin, the answer written straight into the caller's
 * response. http-proxy-3 over node:http cost half of the gateway's throughput (README, Performance).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Agent, errors } from "undici";
import { sendJson } from "../http/json.js";

/**
 * Fields that describe one connection, not the message (RFC 9110 §7.6.1, and RFC 9112 §6.1
 * `Transfer-Encoding`): never forwarded. `Host` is the upstream's own (set by the client),
 * and `Expect` was answered by this server already (node:http sends 100 Continue).
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
]);

/**
 * `headers` without the hop-by-hop fields, including those the `Connection` field names (§7.6.1).
 * @returns a new object; `headers` is not changed.
 */
export function endToEndHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const connection = headers.connection;
  const named = typeof connection === "string" ? connection.toLowerCase().split(",").map((s) => s.trim()) : [];
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

/** The `X-Forwarded-*` fields of a request arriving at this server, appended to any the caller sent (as http-proxy's `xfwd` did). */
function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const add = (name: string, value: string) => {
    const previous = req.headers[name];
    return typeof previous === "string" && previous !== "" ? `${previous},${value}` : value;
  };
  return {
    "x-forwarded-for": add("x-forwarded-for", req.socket.remoteAddress ?? ""),
    "x-forwarded-port": add("x-forwarded-port", String(req.socket.localPort ?? "")),
    "x-forwarded-proto": add("x-forwarded-proto", "http"),
    "x-forwarded-host": (req.headers["x-forwarded-host"] as string | undefined) ?? req.headers.host ?? "",
  };
}

/**
 * Builds the forwarder of the gateway (gateway/router.ts).
 * @param timeoutMs - how long the upstream may take to send its headers, and then between
 *   two pieces of its body, milliseconds.
 * @returns `forward(req, res, upstreamUrl, path)`: sends `req` (method, end-to-end headers,
 *   body streamed) to `upstreamUrl`'s origin at `upstreamUrl`'s path followed by `path`
 *   (which starts with "/" and may carry a query), and answers `res` with what comes back.
 *   It never throws: an upstream that cannot be reached or does not answer in time gets 502
 *   `bad_gateway` (JSON) if nothing was sent yet, and a cut connection otherwise.
 */
export function createForwarder(timeoutMs: number) {
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  return (req: IncomingMessage, res: ServerResponse, upstreamUrl: string, path: string): void => {
    const target = new URL(upstreamUrl);
    const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (!hasBody) req.resume();
    dispatcher.stream(
      {
        origin: target.origin,
        path: target.pathname.replace(/\/$/, "") + path,
        method: req.method as "GET",
        headers: { ...endToEndHeaders(req.headers), ...forwardedHeaders(req) },
        body: hasBody ? req : null,
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, endToEndHeaders(headers));
        return res;
      },
      (err) => {
        if (!err) return;
        if (res.headersSent) return void res.destroy();
        if (err instanceof errors.InvalidArgumentError) {
          sendJson(res, 400, { error: "invalid_request", error_description: "the request cannot be forwarded as sent" });
        } else {
          sendJson(res, 502, { error: "bad_gateway", error_description: "the upstream API did not answer" });
        }
      },
    );
  };
}
