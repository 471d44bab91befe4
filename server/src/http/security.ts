/**
 * Security middleware for Tollgate's own responses (never for proxied API responses):
 * helmet headers with a strict CSP (fewer on the machine-to-machine JSON endpoints), CORS
 * closed unless origins are allowed, and the per-client / per-IP rate limits of the OAuth
 * endpoints.
 */
import cors from "cors";
import helmet from "helmet";
import type { ServerResponse } from "node:http";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import { CLIENT_ASSERTION_TYPE, unverifiedAssertionIssuer } from "../oauth/client-assertion.js";
import { parseBasicCredentials } from "../oauth/client-auth.js";
import { consumeRateLimit, type LimiterFactory } from "../kernel/limiter.js";
import type { Metrics } from "../kernel/metrics.js";
import { pathOf, type Middleware, type NodeRequest } from "./node.js";
import { isTollgatePath } from "../kernel/paths.js";

/** The CSP's img-src: this origin and data: URLs, and the origin of the brand's logo when it is a URL rather than a path on this origin. */
function imageSources(brand: Config["brand"]): string[] {
  const { logoUrl } = brand;
  const logoOrigin = logoUrl === undefined || logoUrl.startsWith("/") ? [] : [new URL(logoUrl).origin];
  return ["'self'", "data:", ...logoOrigin];
}

/** helmet with a CSP that allows only same-origin scripts, styles and calls (images also from the brand's logo origin), and no framing. */
export function securityHeaders(config: Config): Middleware {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: imageSources(config.brand),
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
  return (req, res, next) => (isTollgatePath(pathOf(req)) ? headers(req, res, next) : next());
}

/**
 * The security headers of the machine-to-machine JSON endpoints (token, revocation,
 * introspection), as the OWASP REST Security Cheat Sheet lists them for API responses: a
 * CSP that allows nothing and no framing, X-Frame-Options DENY, nosniff and HSTS
 * (`Cache-Control: no-store` comes from the endpoints). Their answers are read by HTTP
 * clients, not rendered, so helmet's document-only headers (cross-origin isolation, DNS
 * prefetch, download options, Flash policies, the XSS auditor, referrer policy) have
 * nothing to act on there, and writing those eight headers cost about a seventh of an
 * introspection's instructions (docs/performance.md). helmet works the headers out once
 * ({@link fixedHeaders}): they do not depend on the request.
 */
export function apiSecurityHeaders(): Middleware {
  return fixedHeaders(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: "deny" },
      crossOriginOpenerPolicy: false,
      crossOriginResourcePolicy: false,
      originAgentCluster: false,
      referrerPolicy: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    }),
  );
}

/**
 * The headers that `headers` (connect-style middleware that only sets and removes response
 * headers, the same for every request, such as helmet without nonces) writes, worked out once
 * by running it on a recording response; each request then gets them in one loop rather than
 * through the middleware's chain of steps.
 * @throws Error when `headers` reads the request, fails, or does not call `next` at once.
 */
export function fixedHeaders(headers: Middleware): Middleware {
  const set: [string, string | number | readonly string[]][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  const noRequest = new Proxy({}, { get: (_target, key) => { throw new Error(`fixedHeaders: the middleware reads the request (${String(key)})`); } });
  let done = false;
  headers(noRequest as NodeRequest, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  if (!done) throw new Error("fixedHeaders: the middleware did not call next at once");
  return (_req, res, next) => {
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

/** CORS for the OAuth endpoints: only the configured origins; none by default. */
export function oauthCors(config: Config): Middleware {
  return cors({ origin: config.corsOrigins.length > 0 ? config.corsOrigins : false, methods: ["GET", "POST"], maxAge: 600 });
}

/**
 * Middleware counting one event per request under `key(req)` (skipped when undefined); over
 * the limit, 429 with Retry-After, and `refused` is told.
 */
function limitBy(limiter: RateLimiterAbstract, key: (req: NodeRequest) => string | undefined, refused: (() => void) | undefined): Middleware {
  return (req, _res, next) => {
    const k = key(req);
    if (k === undefined) return next();
    consumeRateLimit(limiter, k, refused).then(() => next(), next);
  };
}

/**
 * The client a form body already read as text names: its `client_id` (client_secret_post,
 * or beside a client assertion), else the `iss` of its client assertion (private_key_jwt may
 * leave `client_id` out, RFC 7523 §3), read without verifying anything and not at all past
 * the JWT length limit (oauth/client-assertion.ts). Undefined when it names none.
 */
function bodyClientId(req: NodeRequest): string | undefined {
  const { body } = req as NodeRequest & { body?: unknown };
  if (typeof body !== "string") return undefined;
  const form = new URLSearchParams(body);
  const clientId = form.get("client_id");
  if (clientId) return clientId;
  const assertion = form.get("client_assertion");
  return assertion && form.get("client_assertion_type") === CLIENT_ASSERTION_TYPE ? unverifiedAssertionIssuer(assertion) : undefined;
}

/**
 * Rate limits of the token, revocation and introspection endpoints, each in requests per
 * minute (0: off): per client id, counted whether or not it authenticates, and per client IP.
 * @returns the steps to run before the form body is read (per client id of HTTP Basic
 *   credentials, per IP) and after it (per `client_id` of the body, or the `iss` of a client
 *   assertion without one, when no Basic credentials named a client), so that each request
 *   counts once against each limit.
 * @param metrics - counts refusals per limiter (`oauth-client`, `oauth-ip`); undefined: not counted.
 */
export function oauthRateLimits(
  config: Config,
  limiters: LimiterFactory,
  ip: (req: NodeRequest) => string,
  metrics?: Metrics,
): { beforeBody: Middleware[]; afterBody: Middleware[] } {
  const refused = (name: string) => metrics && (() => metrics.rateLimited(name));
  const { perClient, perIp } = config.tokenRateLimit;
  const beforeBody: Middleware[] = [];
  const afterBody: Middleware[] = [];
  if (perClient > 0) {
    const limiter = limiters("oauth-client", perClient, 60);
    const basicId = (req: NodeRequest) => parseBasicCredentials(req.headers.authorization)?.id;
    beforeBody.push(limitBy(limiter, basicId, refused("oauth-client")));
    afterBody.push(limitBy(limiter, (req) => (basicId(req) === undefined ? bodyClientId(req) : undefined), refused("oauth-client")));
  }
  if (perIp > 0) beforeBody.push(limitBy(limiters("oauth-ip", perIp, 60), ip, refused("oauth-ip")));
  return { beforeBody, afterBody };
}
