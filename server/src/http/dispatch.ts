/**
 * The server's request listener. Machine-to-machine traffic — the token, revocation and
 * introspection endpoints and every gateway call — is served by plain node:http handler
 * chains (http/node.ts); everything a browser or an admin uses (sign-in and consent, the
 * admin API, the SPA, metadata) by the Express app (http/app.ts).
 */
import type { ServerResponse } from "node:http";
import bodyParser from "body-parser";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Database } from "../stores/index.js";
import { gateway } from "../gateway/router.js";
import type { ClientRequest } from "../oauth/client-request.js";
import { MethodNotAllowed } from "../kernel/errors.js";
import { introspectionEndpoint } from "../oauth/introspection.js";
import { revocationEndpoint } from "../oauth/revocation.js";
import { tokenEndpoint } from "../oauth/token-endpoint.js";
import { createApp } from "./app.js";
import type { LimiterFactory } from "../kernel/limiter.js";
import { requestLogger } from "./logger.js";
import { chain, clientIp, pathOf, type Middleware, type NodeRequest } from "./node.js";
import { isTollgatePath } from "../kernel/paths.js";
import { apiSecurityHeaders, oauthCors, oauthRateLimits } from "./security.js";

/**
 * Builds the listener for `http.createServer`.
 * @param limiters - makes the rate-limit and sign-in counters (per process or in Redis).
 */
export async function createRequestListener(config: Config, db: Database, logger: Logger, limiters: LimiterFactory) {
  const forward = gateway(db, config.realm, config.trustProxyHops);
  const app = await createApp(config, db, logger, limiters, forward);
  const log: Middleware = requestLogger(logger);

  // POST-only OAuth endpoints. Form bodies are read as text and parsed strictly by
  // oauth/form.ts (repeated parameters are errors).
  const formText = bodyParser.text({ type: "application/x-www-form-urlencoded", limit: config.formBodyLimitBytes }) as Middleware;
  const postOnly: Middleware = (req, _res, next) => next(req.method === "POST" ? undefined : new MethodNotAllowed(["POST"]));
  // The client's address and the path, worked out once for the rate limits, the handler and the audit log.
  const identify: Middleware = (req, _res, next) => {
    Object.assign(req, { ip: clientIp(req, config.trustProxyHops), path: pathOf(req) });
    next();
  };
  const ipOf = (req: NodeRequest) => (req as ClientRequest).ip;
  const limits = oauthRateLimits(config, limiters, ipOf);
  const steps = [log, apiSecurityHeaders(), oauthCors(config), postOnly, identify, ...limits.beforeBody, formText, ...limits.afterBody];
  const post = (handler: (req: ClientRequest, res: ServerResponse) => Promise<void>) =>
    chain(steps, (req, res) => handler(req as ClientRequest, res));
  const token = post(tokenEndpoint(db, config.realm));
  const oauthEndpoints = new Map([
    ["/oauth2/v1/token", token],
    ["/token", token],
    ["/oauth2/v1/revoke", post(revocationEndpoint(db, config.realm))],
    ["/oauth2/v1/introspect", post(introspectionEndpoint(db, config.realm, config.authUrl))],
  ]);
  const gatewayCall = chain([log], forward);

  return (req: NodeRequest, res: ServerResponse): void => {
    const path = pathOf(req);
    // Matched as Express would: case-insensitive, one trailing slash allowed.
    const endpoint = oauthEndpoints.get(path.toLowerCase().replace(/(.)\/$/, "$1"));
    if (endpoint) endpoint(req, res);
    else if (isTollgatePath(path)) app(req, res);
    else gatewayCall(req, res);
  };
}
