/**
 * Request logging: one pino line per request with a request id, method, path, status and
 * duration. Never the query string, headers, body, secrets or tokens.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type Logger } from "pino";
import { pinoHttp } from "pino-http";

/** The process logger (JSON lines on stdout). */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined });
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Express middleware: assigns `req.id` (a caller's X-Request-Id if well-formed), echoes it, logs the request once. */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split("?")[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
  });
}
