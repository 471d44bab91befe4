/**
 * The one place where errors become HTTP responses. OAuthError subclasses are shown as
 * they are; client errors raised by Express and its parsers (bad encodings, bodies too
 * large, missing static files) become `invalid_request` / `not_found` with a fixed
 * description; anything else is logged with the request id and answered with a generic
 * `server_error` (no stack trace, no internals).
 *
 * A dependency outage arrives here already classified: the database layer turns a
 * connection-level driver failure into {@link ServiceUnavailable} (db/unavailable.ts), a
 * 503 `temporarily_unavailable` with `Retry-After`, shown like any OAuthError and logged at
 * `warn` with its cause. Driver errors are not recognised here by their text: this layer
 * never sees the drivers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { sendJson } from "../kernel/json.js";
import { AuthorizationErrorRedirect, InvalidAuthorizationRequest, UnknownPath, OAuthError, ServiceUnavailable } from "../kernel/errors.js";
import { escapeHtml } from "../kernel/text.js";
import { sendAuthorizationRedirect } from "../oauth/form-post.js";

/** Errors from Express, body-parser or serve-static carry a client-error `status` (or `statusCode`). */
function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const code = typeof status === "number" ? status : statusCode;
  return typeof code === "number" && code >= 400 && code < 500 ? code : undefined;
}

function toOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  const status = clientErrorStatus(err);
  if (status === undefined) return undefined;
  if (status === 404) return new UnknownPath("not found");
  if (status === 413) return new OAuthError("invalid_request", "request body too large", 413);
  const type = (err as { type?: unknown }).type;
  return new OAuthError("invalid_request", type === "charset.unsupported" ? "unsupported charset" : "malformed request", 400);
}


/** The page shown for an authorization request that must not be redirected (RFC 6749 §4.1.2.1). */
function errorPage(error: OAuthError): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head><body><main><h1>Authorization error</h1><p>The application sent an invalid authorization request, so you cannot continue to it from here.</p><p><code>${escapeHtml(error.error)}</code>: ${escapeHtml(error.message)}</p></main></body></html>`;
}

/** Headers of the error page: it cannot be framed and loads nothing. */
const PAGE_HEADERS = {
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/**
 * Answers `err` on `res` in plain node:http terms, so both the Express app and the
 * node:http endpoints (http/node.ts) use it. A response already under way is cut off.
 */
export function sendError(err: unknown, req: IncomingMessage & { id?: unknown; log?: Logger }, res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof AuthorizationErrorRedirect) {
    sendAuthorizationRedirect(res, err.redirect);
    return;
  }
  const known = toOAuthError(err);
  if (!known) req.log?.error({ err, reqId: req.id }, "unhandled error");
  else if (known instanceof ServiceUnavailable) req.log?.warn({ err: known.cause, reqId: req.id }, "dependency unavailable");
  const error = known ?? new OAuthError("server_error", `internal error (request id ${String(req.id)})`, 500);
  const headers = { ...error.headers, "Cache-Control": "no-store" };
  if (error instanceof InvalidAuthorizationRequest) {
    const page = errorPage(error);
    res.writeHead(error.status, { ...headers, ...PAGE_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(page) });
    res.end(page);
    return;
  }
  sendJson(res, error.status, error.toJSON(), headers);
}

/** The Express app's error handler: {@link sendError}. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => sendError(err, req, res);
