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
import { accessTokenVerifier } from "../oauth/access-token-jwt.js";
import type { ClientRequest, EndpointContext } from "../oauth/client-request.js";
import { dpopNonces } from "../oauth/dpop-nonce.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { parEndpoint } from "../oauth/par.js";
import { idTokenHints } from "../oauth/id-token.js";
import { MethodNotAllowed } from "../kernel/errors.js";
import { introspectionEndpoint } from "../oauth/introspection.js";
import { revocationEndpoint } from "../oauth/revocation.js";
import { tokenEndpoint } from "../oauth/token-endpoint.js";
import { createApp } from "./app.js";
import type { LimiterFactory } from "../kernel/limiter.js";
import { requestLogger } from "./logger.js";
import type { Metrics } from "../kernel/metrics.js";
import { routeMetrics } from "./metrics.js";
import type { RefusalAudit } from "./refusal-audit.js";
import { refusalObserver, type RefusalEndpoint } from "./refusals.js";
import { gatewayObserver, type TrafficRecorder } from "./traffic.js";
import { clientCertificates } from "./client-certificates.js";
import type { MtlsSettings } from "../oauth/client-auth.js";
import type { RegistrationEndpointSettings } from "../registration/endpoint.js";
import type { OpenIdProvider } from "../oauth/id-token.js";
import type { Federation } from "../federation/upstream.js";
import { contextOf } from "../kernel/request-context.js";
import { chain, clientIp, pathOf, type Middleware, type NodeRequest } from "./node.js";
import { isTollgatePath, PAR_PATH, TOKEN_PATH } from "../kernel/paths.js";
import { apiSecurityHeaders, oauthCors, oauthRateLimits } from "./security.js";

/** The OAuth endpoint a path names, matched as Express would: case-insensitive, one trailing slash allowed. */
const endpointKey = (path: string): string => path.toLowerCase().replace(/(.)\/$/, "$1");

/** What observes the requests besides the log: the metrics (when METRICS_PORT is set), the refusal audit and the gateway traffic. */
export interface RequestObservers {
  metrics: Metrics | undefined;
  refusals: RefusalAudit;
  traffic: TrafficRecorder;
}

/**
 * Builds the listener for `http.createServer` and `https.createServer` (the mutual-TLS listener).
 * @param limiters - makes the rate-limit and sign-in counters (per process or in Redis).
 * @param observers - the metrics (undefined: none are recorded), the refusal audit and the gateway traffic.
 * @param mtls - what client certificates are checked against (RFC 8705 §2).
 * @param registration - the dynamic client registration endpoint's settings; undefined: off.
 * @param op - the OpenID Provider's keys (the JWK Set, ID tokens) and subject identifiers.
 * @param federation - signs PSUs in at the bank's identity providers (federation/upstream.ts).
 */
export function createRequestListener(
  config: Config,
  db: Database,
  logger: Logger,
  limiters: LimiterFactory,
  observers: RequestObservers,
  mtls: MtlsSettings,
  registration: RegistrationEndpointSettings | undefined,
  op: OpenIdProvider,
  federation: Federation,
) {
  const { metrics, refusals, traffic } = observers;
  const dpop: DpopSettings = {
    replays: db.replays,
    nonces: config.dpopNonces && dpopNonces(config.dpopNonces.secret),
    listeners: { main: config.baseUrl, tls: config.tls?.baseUrl },
  };
  const forward = gateway(db, { realm: config.realm, trustedHops: config.trustProxyHops, baseUrl: config.baseUrl, dpop, metrics, upstreamTimeoutMs: config.upstreamTimeoutMs, verifyJwt: accessTokenVerifier(op.keyring, config.authUrl) });
  const app = createApp(config, db, logger, limiters, forward, dpop, metrics, registration, op, federation);
  const log: Middleware = requestLogger(logger);
  const certificates = clientCertificates(config.clientCertificates);

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
  const limits = oauthRateLimits(config, limiters, ipOf, metrics);
  // Closed CORS (no CORS_ORIGINS) writes no header: the cors step would only call next.
  const cors = config.corsOrigins.length > 0 ? [oauthCors(config)] : [];
  const steps = [apiSecurityHeaders(), ...cors, postOnly, identify, certificates, ...limits.beforeBody, formText, ...limits.afterBody];
  /** The chain of one endpoint: its route is its path (the metrics' http_route), its name the refusals' endpoint label. */
  const post = (route: string, name: RefusalEndpoint, handler: (req: ClientRequest, res: ServerResponse) => Promise<void>) =>
    chain([log, ...(metrics ? [routeMetrics(metrics, route)] : []), ...steps], (req, res) => {
      const request = contextOf(req);
      // The endpoint's path is its route (the server span's http.route).
      if (request) request.route = route;
      return handler(req as ClientRequest, res);
    }, refusalObserver(name, refusals, metrics));
  const endpoint = (path: string): EndpointContext => ({
    realm: config.realm,
    issuer: config.authUrl,
    url: `${config.baseUrl}${path}`,
    baseUrl: config.baseUrl,
    mtls,
    tppAddresses: config.tppAddresses,
  });
  const oauthEndpoints = new Map([
    [TOKEN_PATH, post(TOKEN_PATH, "token", tokenEndpoint(db, endpoint(TOKEN_PATH), dpop, op, config.sca.reauthenticationDays, metrics))],
    // The same endpoint; a DPoP proof's htu names the URL the client called.
    ["/token", post("/token", "token", tokenEndpoint(db, endpoint("/token"), dpop, op, config.sca.reauthenticationDays, metrics))],
    [PAR_PATH, post(PAR_PATH, "par", parEndpoint(db, endpoint(PAR_PATH), dpop, idTokenHints(op.keyring, config.authUrl)))],
    ["/oauth2/v1/revoke", post("/oauth2/v1/revoke", "revoke", revocationEndpoint(db, endpoint("/oauth2/v1/revoke"), metrics))],
    ["/oauth2/v1/introspect", post("/oauth2/v1/introspect", "introspect", introspectionEndpoint(db, endpoint("/oauth2/v1/introspect"), op.keyring, metrics))],
  ]);
  const gatewayCall = chain([log, gatewayObserver(traffic, metrics), certificates], forward, refusalObserver("gateway", refusals, metrics));

  return (req: NodeRequest, res: ServerResponse): void => {
    const path = pathOf(req);
    const endpoint = oauthEndpoints.get(endpointKey(path));
    if (endpoint) endpoint(req, res);
    else if (isTollgatePath(path)) app(req, res);
    else gatewayCall(req, res);
  };
}
