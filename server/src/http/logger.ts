/**
 * Request logging: one pino line per request with a request id, the FAPI interaction id,
 * method, path, status, duration, the authenticated client and the trace. Never the query
 * string, headers, body, secrets or tokens. The same middleware enters the request context
 * (kernel/request-context.ts) and, when tracing is on, the request's server span.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import { pino, type Logger } from "pino";
import { attachContext, INTERACTION_ID_HEADER, type RequestContext } from "../kernel/request-context.js";
import { tracer, tracingOn } from "../kernel/spans.js";
import { pathOf } from "./node.js";
import { REQUEST_ID_PATTERN } from "../kernel/limits.js";

/** The process logger (JSON lines on stdout). */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined });
}

const REQUEST_ID = REQUEST_ID_PATTERN;

/** RFC 4122 §3 UUID syntax (8-4-4-4-12 hex digits), in either case; the version and variant are not checked. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The interaction id of a request (FAPI 1.0 Baseline §6.2.1 items 11–13): the caller's
 * `x-fapi-interaction-id` when it is one UUID (RFC 4122 syntax, any case, kept as sent), else
 * a new random UUID (a value that is not a UUID, or a repeated field, is replaced, never echoed).
 */
export function interactionIdOf(sent: string | string[] | undefined): string {
  return typeof sent === "string" && UUID.test(sent) ? sent : randomUUID();
}

/** HTTP methods `http.request.method` names as they are; any other is `_OTHER` (OpenTelemetry HTTP semantic conventions). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/**
 * Starts the SERVER span of `req` (OpenTelemetry HTTP server semantic conventions), a child of
 * the caller's span when it sent a W3C `traceparent` (extracted by the registered propagator).
 * @returns the span and the context to run the request in.
 */
function startServerSpan(req: IncomingMessage): { span: Span; ctx: Context } {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : "_OTHER";
  const host = req.headers.host ?? "";
  const colon = host.lastIndexOf(":");
  const hasPort = colon > host.lastIndexOf("]") && /^[0-9]{1,5}$/.test(host.slice(colon + 1));
  const span = tracer().startSpan(
    method === "_OTHER" ? "HTTP" : method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: pathOf(req),
        ...(host ? { [ATTR_SERVER_ADDRESS]: hasPort ? host.slice(0, colon) : host } : {}),
        ...(hasPort ? { [ATTR_SERVER_PORT]: Number(host.slice(colon + 1)) } : {}),
        ...(req.socket.remoteAddress ? { [ATTR_CLIENT_ADDRESS]: req.socket.remoteAddress } : {}),
        ...(typeof req.headers["user-agent"] === "string" ? { [ATTR_USER_AGENT_ORIGINAL]: req.headers["user-agent"] } : {}),
      },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Ends the server span of a request whose connection is done: its status code, its route once known, ERROR for 5xx or no complete answer. */
function endServerSpan(span: Span, res: ServerResponse, request: RequestContext): void {
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
  if (request.route) {
    span.setAttribute(ATTR_HTTP_ROUTE, request.route);
    span.updateName(`${res.req.method ?? "HTTP"} ${request.route}`);
  }
  if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  else if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: "the connection closed before the answer was complete" });
  span.end();
}

/**
 * Connect-style middleware (Express and the node:http chains), first on every request:
 * - sets `req.id` (a caller's X-Request-Id if well-formed, else a new UUID) and echoes it;
 * - answers `x-fapi-interaction-id` ({@link interactionIdOf});
 * - sets `req.log` (for the error handler);
 * - runs the rest of the request in its {@link RequestContext} `{requestId, interactionId}`
 *   and, when tracing is on, in its SERVER span (ended when the connection is done);
 * - when the response finishes, at level info, logs
 *   `{"req":{"id","method","path"},"res":{"status"},"responseTime":<ms>,"interaction_id",`
 *   `"client_id"?,"trace_id"?,"msg":"request"}`: `client_id` once a client authenticated or a
 *   gateway call's token named one, `trace_id` (32 hex digits) when tracing is on.
 * Plain pino rather than pino-http: no child logger per request, and nothing at all to
 * do per request beyond the ids and the context when the level is above info and tracing is off.
 */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage & { id?: unknown; log?: Logger }, res: ServerResponse, next: () => void): void => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const interactionId = interactionIdOf(req.headers[INTERACTION_ID_HEADER]);
    req.id = id;
    req.log = logger;
    res.setHeader("X-Request-Id", id);
    res.setHeader(INTERACTION_ID_HEADER, interactionId);
    const request: RequestContext = { requestId: id, interactionId };
    const server = tracingOn() ? startServerSpan(req) : undefined;
    if (server) res.once("close", () => endServerSpan(server.span, res, request));
    if (logger.isLevelEnabled("info")) {
      const started = performance.now();
      res.once("finish", () => {
        const responseTime = Math.round(performance.now() - started);
        logger.info(
          {
            req: { id, method: req.method, path: pathOf(req) },
            res: { status: res.statusCode },
            responseTime,
            interaction_id: interactionId,
            ...(request.clientId !== undefined ? { client_id: request.clientId } : {}),
            ...(server ? { trace_id: server.span.spanContext().traceId } : {}),
          },
          "request",
        );
      });
    }
    attachContext(req, request);
    if (server) context.with(server.ctx, next);
    else next();
  };
}
