/**
 * Security middleware for Tollgate's own responses (never for proxied API responses):
 * helmet headers with a strict CSP, CORS closed unless origins are allowed, and the
 * per-client / per-IP rate limits of the OAuth endpoints.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import cors from "cors";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import helmet from "helmet";
import type { Config } from "../config.js";
import { parseBasicCredentials } from "../oauth/client-auth.js";
import { OAuthError } from "../oauth/errors.js";
import { isTollgatePath } from "./paths.js";

/** helmet with a CSP that allows only same-origin scripts, styles and calls, and no framing. */
export function securityHeaders(): RequestHandler {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
  });
  return (req: Request, res: Response, next: NextFunction) => (isTollgatePath(req.path) ? headers(req, res, next) : next());
}

/** CORS for the OAuth endpoints: only the configured origins; none by default. */
export function oauthCors(config: Config): RequestHandler {
  return cors({ origin: config.corsOrigins.length > 0 ? config.corsOrigins : false, methods: ["GET", "POST"], maxAge: 600 });
}

/** 429 with Retry-After (seconds), in the RFC 6749 error format. */
function tooManyRequests(req: Request): OAuthError {
  const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
  const retryAfter = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
  return new OAuthError("too_many_requests", "rate limit exceeded; retry later", 429, { "Retry-After": String(retryAfter) });
}

/**
 * Rate limits of the token, revocation and introspection endpoints: per client id (from
 * the Basic header, counted whether or not it authenticates) and per client IP, each in
 * requests per minute; a limit of 0 is off.
 */
export function oauthRateLimits(config: Config): RequestHandler[] {
  const limiter = (limit: number, key: (req: Request) => string | undefined) =>
    rateLimit({
      windowMs: 60_000,
      limit,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      skip: (req) => key(req) === undefined,
      keyGenerator: (req) => key(req)!,
      handler: (req, _res, next) => next(tooManyRequests(req)),
    });
  const limits: RequestHandler[] = [];
  if (config.tokenRateLimit.perClient > 0) {
    limits.push(limiter(config.tokenRateLimit.perClient, (req) => {
      const id = parseBasicCredentials(req.headers.authorization)?.id;
      return id === undefined ? undefined : `client:${id}`;
    }));
  }
  if (config.tokenRateLimit.perIp > 0) limits.push(limiter(config.tokenRateLimit.perIp, (req) => `ip:${ipKeyGenerator(req.ip ?? "unknown")}`));
  return limits;
}
