/**
 * The one place where errors become HTTP responses. OAuthError subclasses are shown as
 * they are; body-parser failures become `invalid_request`; anything else is logged with the
 * request id and answered with a generic `server_error` (no stack trace, no internals).
 */
import type { ErrorRequestHandler } from "express";
import { OAuthError } from "../oauth/errors.js";

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

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const known = toOAuthError(err);
  if (!known) req.log.error({ err }, "unhandled error");
  const error = known ?? new OAuthError("server_error", `internal error (request id ${String(req.id)})`, 500);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(error.status).set(error.headers).set("Cache-Control", "no-store").json(error.toJSON());
};
