/**
 * The admin GraphQL endpoint `POST /graphql` (Apollo Server 5 on Express 5): the SDL in
 * schema.graphql, resolvers per domain, Apollo's CSRF prevention, the document rules of
 * limits.ts (tokens, depth, aliases, directives, cost), schema introspection for admins
 * only, and errors reduced to `extensions.code` (the domain errors of the use cases and
 * stores mapped here, in one place). A malformed document or malformed
 * variables get a 4xx GraphQL error and never reach the error log; a body that is not JSON
 * or is over {@link MAX_BODY_BYTES} is refused before GraphQL, by the app's error handler
 * (400 or 413 `invalid_request`, as on every endpoint).
 */
import { contextOf } from "../kernel/request-context.js";
import { readFileSync } from "node:fs";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import { expressMiddleware } from "@as-integrations/express5";
import express, { Router, type RequestHandler } from "express";
import { GraphQLError, NoSchemaIntrospectionCustomRule, getVariableValues, validate, type GraphQLFormattedError } from "graphql";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Federation } from "../federation/upstream.js";
import type { Keyring } from "../keys/keyring.js";
import { JWKS_PATH } from "../kernel/paths.js";
import { rotationSettings } from "../keys/setup.js";
import { Conflict, NotFound, UnknownReference } from "../kernel/domain-errors.js";
import type { Database } from "../stores/index.js";
import { gqlError, resolveActor, staffRoleOf, type AdminContext } from "./context.js";
import { MAX_BODY_BYTES, MAX_COST, MAX_TOKENS, documentLimits, knownOperationTypes, operationCost } from "./limits.js";
import { buildResolvers } from "./resolvers/index.js";
import { operationSpans } from "./operation-span.js";
import type { Metrics } from "../kernel/metrics.js";

/**
 * graphql-js validation: stop at the 10th error (each error's locations are computed from the
 * source, and the answer carries them all), and no "Did you mean ...?" suggestions, which
 * would show field names to callers who may not introspect the schema.
 */
const VALIDATION_OPTIONS = { maxErrors: 10, hideSuggestions: true };

/**
 * Checks that need the caller or the variables, after validation and before execution:
 * introspection (admins only, else 403), the variables' values (else 400 BAD_USER_INPUT, the
 * answer graphql-js would give at execution) and the cost (else 400 BAD_USER_INPUT).
 */
const limits: ApolloServerPlugin<AdminContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, document, operation, schema, contextValue }) {
        if (!operation) return; // Apollo answers 400 for an unknown operationName itself.
        if (staffRoleOf(contextValue.actor, contextValue.requireSca) === null && validate(schema, document, [NoSchemaIntrospectionCustomRule]).length > 0) {
          throw gqlError("FORBIDDEN", "schema introspection is for the console's staff", 403);
        }
        const variables = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {}, { maxErrors: 1 });
        if (variables.errors) throw gqlError("BAD_USER_INPUT", variables.errors[0]!.message, 400);
        let cost: number;
        try {
          cost = operationCost(schema, document, operation, variables.coerced);
        } catch (err) {
          if (err instanceof GraphQLError) throw gqlError("BAD_USER_INPUT", err.message, 400);
          throw err;
        }
        if (cost > MAX_COST) throw gqlError("BAD_USER_INPUT", `query too costly (${cost} > ${MAX_COST}); ask for fewer items`, 400);
      },
    };
  },
};

/** The GraphQL code of a domain error (kernel/domain-errors.ts), or undefined for any other error. */
function domainCode(err: unknown): "NOT_FOUND" | "CONFLICT" | "BAD_USER_INPUT" | undefined {
  if (err instanceof NotFound) return "NOT_FOUND";
  if (err instanceof Conflict) return "CONFLICT";
  if (err instanceof UnknownReference) return "BAD_USER_INPUT";
  return undefined;
}

/**
 * Errors as callers see them: a domain error with its message and GraphQL code, GraphQL
 * errors as they are, anything else logged and answered as "internal error" without detail.
 */
function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const code = domainCode(original);
    if (code && original instanceof Error) return { message: original.message, path: formatted.path, extensions: { code } };
    if (formatted.extensions?.code === "INTERNAL_SERVER_ERROR") {
      logger.error({ err: original }, "admin API error");
      return { message: "internal error", path: formatted.path, extensions: { code: "INTERNAL_SERVER_ERROR" } };
    }
    return formatted;
  };
}

/**
 * Builds the router of the admin API, mounted at `/graphql` (http/app.ts loads it on the first request).
 * @param session - the session middleware shared with the sign-in pages.
 * @param config - `allowLinkLocalUpstreams`: ALLOW_LINK_LOCAL_UPSTREAMS; `adminRequireSca`: ADMIN_REQUIRE_SCA; `keys`: the signing keys' rotation settings;
 *   `authUrl`: AUTH_URL, where Tollgate's JWK Set is.
 * @param keyring - this server's signing keys, which admins may rotate.
 * @param federation - the sign-in at the bank's identity providers: seals their client secrets, names the redirect URI.
 * @param throttle - the sign-in throttle, whose blocks the console shows and ends.
 * @param metrics - this server's Prometheus metrics, for the dashboard's latency figures; undefined when off.
 */
export async function adminRouter(
  db: Database,
  realm: string,
  session: RequestHandler,
  logger: Logger,
  config: Pick<Config, "allowLinkLocalUpstreams" | "keys" | "authUrl" | "adminRequireSca" | "temporaryPasswordHours">,
  keyring: Keyring,
  federation: Federation,
  throttle: AdminContext["throttle"],
  metrics?: Metrics,
): Promise<Router> {
  const { allowLinkLocalUpstreams } = config;
  const rotation = rotationSettings(config);
  const jwksUri = `${config.authUrl}${JWKS_PATH}`;
  const server = new ApolloServer<AdminContext>({
    typeDefs: readFileSync(new URL("./schema.graphql", import.meta.url), "utf8"),
    resolvers: buildResolvers(),
    csrfPrevention: true,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    parseOptions: { maxTokens: MAX_TOKENS },
    validationRules: [knownOperationTypes, documentLimits],
    validationOptions: VALIDATION_OPTIONS,
    plugins: [limits, operationSpans],
    formatError: formatError(logger),
    // Apollo's own messages go to the process log, at its level (they went to the console).
    logger,
  });
  await server.start();
  const router = Router();
  router.use(
    session,
    (_req, res, next) => {
      res.set("Cache-Control", "no-store");
      next();
    },
    express.json({ limit: MAX_BODY_BYTES }),
    expressMiddleware(server, {
      context: async ({ req }) => {
        try {
          return { db, actor: await resolveActor(db, req, realm), requireSca: config.adminRequireSca, request: contextOf(req), allowLinkLocalUpstreams, keyring, rotation, federation, jwksUri, throttle, temporaryPasswordHours: config.temporaryPasswordHours, metrics };
        } catch (err) {
          if (err instanceof GraphQLError) throw new GraphQLError(err.message, { extensions: { ...err.extensions, http: { status: 401 } } });
          throw err;
        }
      },
    }),
  );
  return router;
}
