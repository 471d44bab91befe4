/**
 * Forwarding of a checked gateway call to its API's upstream, as an HTTP intermediary
 * (RFC 9110 §7.6): hop-by-hop fields are dropped both ways (§7.6.1), so are the caller's
 * credentials for the gateway (`Authorization`, `Cookie`), the gateway's own fields are set
 * (any copy the caller sent dropped), the caller's address is added to `X-Forwarded-For`,
 * and the answer is streamed back with the upstream's status.
 *
 * The HTTP client is undici (the Node.js project's, under Node's own fetch): a keep-alive
 * connection pool per upstream origin, the answer written straight into the caller's
 * response. http-proxy-3 over node:http cost half of the gateway's throughput (README, Performance).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Agent, errors } from "undici";
import { sendJson } from "../http/json.js";
import type { ApiRoute } from "../products/repository.js";

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

/** The caller's credentials for the gateway itself, never the upstream's business. */
const CALLER_CREDENTIALS = new Set(["authorization", "cookie"]);

/**
 * `headers` without the hop-by-hop fields, including those the `Connection` field names
 * (§7.6.1), and without any for which `drop(name)` is true.
 * @returns a new object; `headers` is not changed.
 */
export function endToEndHeaders(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
  drop: (name: string) => boolean = () => false,
): Record<string, string | string[]> {
  const connection = headers.connection;
  const named = typeof connection === "string" ? connection.toLowerCase().split(",").map((s) => s.trim()) : [];
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.includes(name) && !drop(name)) out[name] = value;
  }
  return out;
}

/** Adds the `X-Forwarded-*` fields of `req` to `out`, appended to any the caller sent (as http-proxy's `xfwd` did). */
function addForwarded(out: Record<string, string | string[]>, req: IncomingMessage): void {
  const add = (name: string, value: string) => {
    const previous = req.headers[name];
    out[name] = typeof previous === "string" && previous !== "" ? `${previous},${value}` : value;
  };
  add("x-forwarded-for", req.socket.remoteAddress ?? "");
  add("x-forwarded-port", String(req.socket.localPort ?? ""));
  add("x-forwarded-proto", "http");
  out["x-forwarded-host"] = (req.headers["x-forwarded-host"] as string | undefined) ?? req.headers.host ?? "";
}

/**
 * Builds the forwarder of the gateway (gateway/router.ts).
 * @param timeoutMs - how long the upstream may take to send its headers, and then between
 *   two pieces of its body, milliseconds.
 * @returns `forward(req, res, upstream, path, set)`: sends `req` (method, end-to-end
 *   headers, body streamed) to `upstream`'s origin at its base path followed by `path`
 *   (which starts with "/" and may carry a query), with the fields of `set` (lowercase
 *   names; undefined: none), and answers `res` with what comes back. A caller's field named
 *   in `set`, also spelt with `_` for `-` as CGI-style upstreams read it, is dropped.
 *   It never throws: an upstream that cannot be reached or does not answer in time gets 502
 *   `bad_gateway` (JSON) if nothing was sent yet, and a cut connection otherwise.
 */
export function createForwarder(timeoutMs: number) {
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  return (req: IncomingMessage, res: ServerResponse, upstream: ApiRoute["upstream"], path: string, set: Record<string, string | undefined>): void => {
    const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (!hasBody) req.resume();
    const headers = endToEndHeaders(req.headers, (name) => CALLER_CREDENTIALS.has(name) || name.replace(/_/g, "-") in set);
    addForwarded(headers, req);
    for (const name in set) if (set[name] !== undefined) headers[name] = set[name];
    dispatcher.stream(
      {
        origin: upstream.origin,
        path: upstream.basePath + path,
        method: req.method as "GET",
        headers,
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
