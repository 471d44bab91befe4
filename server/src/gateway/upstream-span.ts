/**
 * The CLIENT span of a gateway call's upstream request (OpenTelemetry HTTP client semantic
 * conventions), active while gateway/forward.ts builds the forwarded fields, so that the
 * `traceparent` the upstream receives names it (W3C Trace Context §3.2).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_FULL } from "@opentelemetry/semantic-conventions";
import { tracer, tracingOn } from "../kernel/spans.js";
import type { ApiRoute } from "../stores/catalog.js";

/**
 * Runs `send` (which forwards `req` to `api`'s upstream and answers `res`) in a CLIENT span
 * when tracing is on, else just runs it. The span ends when `res` is done, with the status
 * the caller got (the upstream's, or the gateway's 502), ERROR for 5xx or a cut answer.
 * @param path - the forwarded path, starting with "/"; its query is left out of `url.full`.
 */
export function inUpstreamSpan(req: IncomingMessage, res: ServerResponse, api: ApiRoute, path: string, send: () => void): void {
  if (!tracingOn()) return send();
  const upstream = new URL(api.upstream.origin);
  const query = path.indexOf("?");
  const attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: req.method ?? "_OTHER",
    [ATTR_SERVER_ADDRESS]: upstream.hostname,
    [ATTR_SERVER_PORT]: Number(upstream.port || (upstream.protocol === "https:" ? 443 : 80)),
    [ATTR_URL_FULL]: api.upstream.origin + api.upstream.basePath + (query < 0 ? path : path.slice(0, query)),
  };
  tracer().startActiveSpan(req.method ?? "HTTP", { kind: SpanKind.CLIENT, attributes }, (span) => {
    res.once("close", () => {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    send();
  });
}
