/**
 * The server's request listener. Machine-to-machine traffic — the token, PAR, revocation
 * and introspection endpoints and every gateway call — is served by plain node:http handler
 * chains (http/node.ts); everything a browser or an admin uses (sign-in and consent, the
 * admin API, the SPA, metadata) by the Express app (http/app.ts).
 */
import type { ServerResponse } from "node:http";
import bodyParser from "body-parser";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Database } from "../stores/index.js";
import { gateway } from "../gateway/router.js";
import type { ClientRequest, EndpointContext } from "../oauth/client-request.js";
import { dpopNonces } from "../oauth/dpop-nonce.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { parEndpoint } from "../oauth/par.js";
import { MethodNotAllowed } from "../kernel/errors.js";
import { introspectionEndpoint } from "../oauth/introspection.js";
import { revocationEndpoint } from "../oauth/revocation.js";
import { tokenEndpoint } from "../oauth/token-endpoint.js";
import { createApp } from "./app.js";
import type { LimiterFactory } from "../kernel/limiter.js";
import { requestLogger } from "./logger.js";
import { chain, clientIp, pathOf, type Middleware, type NodeRequest } from "./node.js";
import { isTollgatePath, PAR_PATH, TOKEN_PATH } from "../kernel/paths.js";
import { apiSecurityHeaders, oauthCors, oauthRateLimits } from "./security.js";

/**
 * Builds the listener for `http.createServer`.
 * @param limiters - makes the rate-limit and sign-in counters (per process or in Redis).
 */
export async function createRequestListener(config: Config, db: Database, logger: Logger, limiters: LimiterFactory) {
  const dpop: DpopSettings = { replays: db.replays, nonces: config.dpopNonces && dpopNonces(config.dpopNonces.secret) };
  const forward = gateway(db, { realm: config.realm, trustedHops: config.trustProxyHops, baseUrl: config.baseUrl, dpop });
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
  const endpoint = (path: string): EndpointContext => ({
    realm: config.realm,
    issuer: config.authUrl,
    url: `${config.baseUrl}${path}`,
    audiences: [...new Set([config.authUrl, `${config.baseUrl}${TOKEN_PATH}`, `${config.baseUrl}${path}`])],
  });
  const oauthEndpoints = new Map([
    [TOKEN_PATH, post(tokenEndpoint(db, endpoint(TOKEN_PATH), dpop, config.sca.reauthenticationDays))],
    // The same endpoint; a DPoP proof's htu names the URL the client called.
    ["/token", post(tokenEndpoint(db, endpoint("/token"), dpop, config.sca.reauthenticationDays))],
    [PAR_PATH, post(parEndpoint(db, endpoint(PAR_PATH), dpop))],
    ["/oauth2/v1/revoke", post(revocationEndpoint(db, endpoint("/oauth2/v1/revoke")))],
    ["/oauth2/v1/introspect", post(introspectionEndpoint(db, endpoint("/oauth2/v1/introspect")))],
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
