/**
 * The Express application: security headers on Tollgate's own paths, the OAuth endpoints
 * (token, revocation, introspection, metadata), the sign-in and consent flow, the admin
 * API, the SPA's pages, then the gateway for every other path, and the one error handler.
 */
import express, { type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import { adminRouter } from "../admin/graphql.js";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import { gateway } from "../gateway/router.js";
import { interactionRouter } from "../interaction/router.js";
import { sessions } from "../interaction/session.js";
import { MethodNotAllowed } from "../oauth/errors.js";
import { introspectionEndpoint } from "../oauth/introspection.js";
import { metadataEndpoint } from "../oauth/metadata.js";
import { revocationEndpoint } from "../oauth/revocation.js";
import { tokenEndpoint } from "../oauth/token-endpoint.js";
import { errorHandler } from "./error-handler.js";
import { requestLogger } from "./logger.js";
import type { LimiterFactory } from "./limiter.js";
import { oauthCors, oauthRateLimits, securityHeaders } from "./security.js";
import { spa } from "./spa.js";

/**
 * Builds the application over an open database.
 * @param limiters - makes the rate-limit and sign-in counters (per process or in Redis).
 */
export async function createApp(config: Config, db: Db, logger: Logger, limiters: LimiterFactory): Promise<Express> {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxyHops);
  app.set("query parser", "simple");
  app.use(requestLogger(logger));
  app.use(securityHeaders());

  // POST-only OAuth endpoints. Form bodies are read as text and parsed strictly by
  // oauth/form.ts (repeated parameters are errors).
  const corsPolicy = oauthCors(config);
  const formText = express.text({ type: "application/x-www-form-urlencoded", limit: config.formBodyLimitBytes });
  const limits = oauthRateLimits(config, limiters);
  const postEndpoints: [string[], RequestHandler][] = [
    [["/oauth2/v1/token", "/token"], tokenEndpoint(db, config.realm)],
    [["/oauth2/v1/revoke"], revocationEndpoint(db, config.realm)],
    [["/oauth2/v1/introspect"], introspectionEndpoint(db, config.realm, config.authUrl)],
  ];
  for (const [paths, handler] of postEndpoints) {
    app.use(paths, corsPolicy);
    app.post(paths, ...limits, formText, handler);
    app.all(paths, () => {
      throw new MethodNotAllowed(["POST"]);
    });
  }
  app.get("/.well-known/oauth-authorization-server", corsPolicy, metadataEndpoint(config, db));

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  const session = sessions(config, db);
  app.use(interactionRouter(config, db, session, limiters));
  app.use(await adminRouter(db, config.realm, session, logger));
  app.use(spa());
  app.use(gateway(db, config.realm));
  app.use(errorHandler);
  return app;
}
