/**
 * The Express application for Tollgate's browser and admin surface: security headers,
 * authorization server metadata, the sign-in and consent flow, the admin API, the SPA's
 * pages, and the one error handler. The token, revocation and introspection endpoints and
 * the gateway are node:http handlers (http/dispatch.ts).
 */
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Database } from "../stores/index.js";
import { interactionRouter } from "../interaction/router.js";
import { SignInThrottle } from "../interaction/throttle.js";
import { DELEGATION_PATH } from "../interaction/delegation.js";
import { demoAccountDirectory } from "../demo/accounts.js";
import { berlinGroupRouter } from "../gateway/berlin-group-api.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { BrowserSessions } from "../interaction/session.js";
import { metadataEndpoint } from "../oauth/metadata.js";
import { jwksEndpoint } from "../keys/jwks-endpoint.js";
import type { OpenIdProvider } from "../oauth/id-token.js";
import type { Federation } from "../federation/upstream.js";
import { errorHandler } from "./error-handler.js";
import { requestLogger } from "./logger.js";
import type { Metrics } from "../kernel/metrics.js";
import { expressMetrics } from "./metrics.js";
import type { Handler } from "./node.js";
import type { LimiterFactory } from "../kernel/limiter.js";
import { oauthCors, securityHeaders } from "./security.js";
import { spa } from "./spa.js";
import { registrationRouter, type RegistrationEndpointSettings } from "../registration/endpoint.js";
import { JWKS_PATH, REGISTRATION_PATH, USERINFO_PATH } from "../kernel/paths.js";
import { userInfoEndpoint } from "../oidc/userinfo.js";
import { idTokenHints } from "../oauth/id-token.js";
import { clientCertificates } from "./client-certificates.js";
import { deferredHandler } from "./deferred.js";

/**
 * Builds the application over an open database.
 * @param limiters - makes the rate-limit and sign-in counters (per process or in Redis).
 * @param fallback - answers what no route here serves (the gateway, whose errors say why).
 * @param dpop - DPoP proof checks of the Berlin Group consent API's DPoP-bound tokens.
 * @param metrics - times each request under its route template; undefined: nothing recorded.
 * @param registration - the dynamic client registration endpoint's settings; undefined: registration is off.
 * @param op - the OpenID Provider's keys (the JWK Set at JWKS_PATH, their rotation in the admin API) and subject identifiers.
 * @param federation - signs PSUs in at the bank's identity providers (federation/upstream.ts).
 */
export function createApp(
  config: Config,
  db: Database,
  logger: Logger,
  limiters: LimiterFactory,
  fallback: Handler,
  dpop: DpopSettings,
  metrics: Metrics | undefined,
  registration: RegistrationEndpointSettings | undefined,
  op: OpenIdProvider,
  federation: Federation,
): Express {
  const { keyring, subjects } = op;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxyHops);
  app.set("query parser", "simple");
  app.use(requestLogger(logger));
  if (metrics) app.use(expressMetrics(metrics));
  app.use(securityHeaders(config));
  app.get("/.well-known/oauth-authorization-server", oauthCors(config), metadataEndpoint(config, db.catalog, registration !== undefined));
  // OpenID Connect Discovery 1.0 §4: the same document as RFC 8414's, which holds every member §3 requires.
  app.get("/.well-known/openid-configuration", oauthCors(config), metadataEndpoint(config, db.catalog, registration !== undefined));
  app.get(JWKS_PATH, oauthCors(config), jwksEndpoint(keyring, config.keys.jwksMaxAgeSeconds));
  const userInfo = userInfoEndpoint(db, { realm: config.realm, baseUrl: config.baseUrl, dpop, subjects });
  app.get(USERINFO_PATH, oauthCors(config), userInfo);
  app.post(USERINFO_PATH, oauthCors(config), userInfo);

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  const sessions = new BrowserSessions(config, db.sessions);
  // The demo bank's accounts: a bank plugs its core banking in here (consents/accounts.ts).
  // The bank's application may call the delegation API over mutual TLS, with a certificate-bound token (RFC 8705 §3).
  if (config.delegation) app.use(DELEGATION_PATH, clientCertificates(config.clientCertificates));
  // One sign-in throttle for the sign-in pages and the console, which shows and ends a user's block.
  const throttle = new SignInThrottle(limiters, config.signIn.maxFailuresPerUser, config.signIn.maxFailuresPerIp, config.signIn.windowSeconds, metrics);
  app.use(interactionRouter(config, db, sessions, limiters, throttle, demoAccountDirectory, { hints: idTokenHints(keyring, config.authUrl), subjects, keyring }, federation, metrics));
  app.use(
    "/psd2/v1",
    berlinGroupRouter(db, { realm: config.realm, baseUrl: config.baseUrl, metadataUrl: `${config.authUrl}/.well-known/oauth-authorization-server`, dpop }),
  );
  if (registration) app.use(REGISTRATION_PATH, clientCertificates(config.clientCertificates), registrationRouter(db, registration, config.tppAddresses));
  app.use(
    "/graphql",
    deferredHandler(() => import("../admin/graphql.js").then(({ adminRouter }) => adminRouter(db, config.realm, sessions.middleware, logger, config, keyring, federation, throttle, metrics))),
  );
  app.use(spa(config.brand));
  app.use((req, res, next) => {
    fallback(req, res).catch(next);
  });
  app.use(errorHandler);
  return app;
}
