/**
 * The HTTP side of the Prometheus metrics (kernel/metrics.ts): the middleware that times
 * each request under its route template, and the separate listener that serves `/metrics`.
 *
 * `http_route` is always a template or a fixed value, never the raw path, so that a caller
 * cannot create series: the OAuth endpoint's path ("/oauth2/v1/token"), the Express route
 * that served the request ("/interaction/:id/login"), "/{api}/*" for a gateway call to a
 * registered API (the API is the `api` label of `tollgate_gateway_requests_total`), and
 * "unmatched" for everything else (an unknown API, an unknown path of ours).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Request } from "express";
import type { Metrics } from "../kernel/metrics.js";
import type { Middleware } from "./node.js";

/** `http_route` of a request no route served. */
export const UNMATCHED_ROUTE = "unmatched";

/** `http_route` of a gateway call to a registered API. */
export const GATEWAY_ROUTE = "/{api}/*";

/**
 * Middleware timing each request of a node:http chain whose route is known beforehand.
 * @param route - the route template, e.g. "/oauth2/v1/token".
 */
export function routeMetrics(metrics: Metrics, route: string): Middleware {
  return (req, res, next) => {
    const method = metrics.requestStarted(req.method);
    const started = performance.now();
    // "close" comes after "finish", and also when the caller hangs up first: the active count always goes down.
    res.once("close", () => metrics.requestFinished(method, route, res.statusCode, (performance.now() - started) / 1000));
    next();
  };
}

/**
 * The route template of a request Express served: the mount path of its router and the
 * path of its route (several paths of one route joined with "|"); the mount path and "/*"
 * for a static file; else {@link UNMATCHED_ROUTE}.
 */
function expressRoute(req: Request): string {
  const path: unknown = req.route?.path;
  if (typeof path === "string") return req.baseUrl + path;
  if (Array.isArray(path)) return path.map((p) => req.baseUrl + String(p)).join("|");
  return req.baseUrl ? `${req.baseUrl}/*` : UNMATCHED_ROUTE;
}

/** Express middleware timing each request under the route that served it (read when the response is done). */
export function expressMetrics(metrics: Metrics) {
  return (req: Request, res: ServerResponse, next: () => void): void => {
    const method = metrics.requestStarted(req.method);
    const started = performance.now();
    res.once("close", () => metrics.requestFinished(method, expressRoute(req), res.statusCode, (performance.now() - started) / 1000));
    next();
  };
}

/** The running metrics listener. */
export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the listener of `GET /metrics` (the Prometheus text exposition format of
 * `metrics.registry`) on `host`:`port`, apart from the public port. Anything else gets 404.
 * @throws when the port cannot be bound.
 */
export async function startMetricsListener(metrics: Metrics, port: number, host: string): Promise<MetricsListener> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      () => res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("metrics unavailable\n"),
    );
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
