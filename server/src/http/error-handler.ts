/**
 * The one place where errors become HTTP responses. OAuthError subclasses are shown as
 * they are; body-parser failures become `invalid_request`; anything else is logged with the
 * request id and answered with a generic `server_error` (no stack trace, no internals).
 */
import type { ErrorRequestHandler } from "express";
import { AuthorizationErrorRedirect, InvalidAuthorizationRequest, OAuthError } from "../oauth/errors.js";

/** body-parser errors carry a `type` and a client-error `status`. */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === "object" && err !== null && typeof (err as BodyParserError).type === "string" && typeof (err as BodyParserError).status === "number";
}

function toOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  if (isBodyParserError(err) && err.status >= 400 && err.status < 500) {
    const description =
      err.type === "entity.too.large" ? "request body too large" : err.type === "charset.unsupported" ? "unsupported charset" : "malformed request body";
    return new OAuthError("invalid_request", description, err.status === 413 ? 413 : 400);
  }
  return undefined;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

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

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.set("Cache-Control", "no-store");
  if (err instanceof AuthorizationErrorRedirect) {
    res.redirect(302, err.location);
    return;
  }
  const known = toOAuthError(err);
  if (!known) req.log.error({ err }, "unhandled error");
  const error = known ?? new OAuthError("server_error", `internal error (request id ${String(req.id)})`, 500);
  res.status(error.status).set(error.headers);
  if (error instanceof InvalidAuthorizationRequest) {
    res.set(PAGE_HEADERS).type("html").send(errorPage(error));
    return;
  }
  res.json(error.toJSON());
};
