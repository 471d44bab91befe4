/**
 * The Express application: OAuth endpoints, health check, the SPA's pages, then the
 * gateway for every other path, and the one error handler.
 */
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import { gateway } from "../gateway/router.js";
import { adminRouter } from "../admin/graphql.js";
import { interactionRouter } from "../interaction/router.js";
import { sessions } from "../interaction/session.js";
import { MethodNotAllowed } from "../oauth/errors.js";
import { tokenEndpoint } from "../oauth/token-endpoint.js";
import { errorHandler } from "./error-handler.js";
import { requestLogger } from "./logger.js";
import { spa } from "./spa.js";

/** Builds the application over an open database. */
export async function createApp(config: Config, db: Db, logger: Logger): Promise<Express> {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxyHops);
  app.set("query parser", "simple");
  app.use(requestLogger(logger));

  // Form bodies are read as text and parsed strictly by oauth/form.ts (repeated parameters are errors).
  const formText = express.text({ type: "application/x-www-form-urlencoded", limit: config.formBodyLimitBytes });
  const token = tokenEndpoint(db, config.realm);
  for (const path of ["/oauth2/v1/token", "/token"]) {
    app.post(path, formText, token);
    app.all(path, () => {
      throw new MethodNotAllowed(["POST"]);
    });
  }

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  const session = sessions(config, db);
  app.use(interactionRouter(config, db, session));
  app.use(await adminRouter(db, config.realm, session, logger));
  app.use(spa());
  app.use(gateway(db, config.realm));
  app.use(errorHandler);
  return app;
}
