/**
 * Security middleware for Tollgate's own responses (never for proxied API responses):
 * helmet headers with a strict CSP, CORS closed unless origins are allowed, and the
 * per-client / per-IP rate limits of the OAuth endpoints.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import cors from "cors";
import helmet from "helmet";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import { parseBasicCredentials } from "../oauth/client-auth.js";
import { OAuthError } from "../oauth/errors.js";
import type { LimiterFactory } from "./limiter.js";
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

/** Middleware counting one event per request under `key(req)` (skipped when undefined); over the limit, 429 with Retry-After. */
function limitBy(limiter: RateLimiterAbstract, key: (req: Request) => string | undefined): RequestHandler {
  return async (req, _res, next) => {
    const k = key(req);
    if (k === undefined) return next();
    try {
      await limiter.consume(k);
      next();
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return next(err);
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      next(new OAuthError("too_many_requests", "rate limit exceeded; retry later", 429, { "Retry-After": String(retryAfter) }));
    }
  };
}

/**
 * Rate limits of the token, revocation and introspection endpoints: per client id (from
 * the Basic header, counted whether or not it authenticates) and per client IP, each in
 * requests per minute; a limit of 0 is off.
 */
export function oauthRateLimits(config: Config, limiters: LimiterFactory): RequestHandler[] {
  const limits: RequestHandler[] = [];
  const { perClient, perIp } = config.tokenRateLimit;
  if (perClient > 0) limits.push(limitBy(limiters("oauth-client", perClient, 60), (req) => parseBasicCredentials(req.headers.authorization)?.id));
  if (perIp > 0) limits.push(limitBy(limiters("oauth-ip", perIp, 60), (req) => req.ip ?? "unknown"));
  return limits;
}
