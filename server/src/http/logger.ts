/**
 * Request logging: one pino line per request with a request id, method, path, status and
 * duration. Never the query string, headers, body, secrets or tokens.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type Logger } from "pino";
import { pathOf } from "./node.js";

/** The process logger (JSON lines on stdout). */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined });
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Connect-style middleware (Express and the node:http chains): sets `req.id` (a caller's
 * X-Request-Id if well-formed, else a new UUID) and echoes it, sets `req.log` (for the
 * error handler), and when the response finishes logs
 * `{"req":{"id","method","path"},"res":{"status"},"responseTime":<ms>,"msg":"request"}`.
 * Plain pino rather than pino-http: no child logger per request, and nothing at all to
 * do per request beyond the id when the level is above info.
 */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage & { id?: unknown; log?: Logger }, res: ServerResponse, next: () => void): void => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    req.log = logger;
    res.setHeader("X-Request-Id", id);
    if (logger.isLevelEnabled("info")) {
      const started = performance.now();
      res.once("finish", () => {
        const responseTime = Math.round(performance.now() - started);
        logger.info({ req: { id, method: req.method, path: pathOf(req) }, res: { status: res.statusCode }, responseTime }, "request");
      });
    }
    next();
  };
}
