/**
 * The admin GraphQL endpoint `POST /graphql` (Apollo Server 5 on Express 5): the SDL in
 * schema.graphql, resolvers per domain, Apollo's CSRF prevention, a depth limit, a cost
 * limit, schema introspection for admins only, and errors reduced to `extensions.code`.
 */
import { readFileSync } from "node:fs";
import { ApolloServer, type ApolloServerOptionsWithTypeDefs, type ApolloServerPlugin } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import { expressMiddleware } from "@as-integrations/express5";
import express, { Router, type RequestHandler } from "express";
import depthLimit from "graphql-depth-limit";
import { GraphQLError, NoSchemaIntrospectionCustomRule, getNullableType, isListType, validate, type GraphQLFormattedError } from "graphql";
import { getComplexity, simpleEstimator, type ComplexityEstimator } from "graphql-query-complexity";
import type { Logger } from "pino";
import type { Db } from "../db/client.js";
import { gqlError, isAdmin, resolveActor, type AdminContext } from "./context.js";
import { buildResolvers } from "./resolvers/index.js";

/** Deepest selection accepted. */
const MAX_DEPTH = 8;
/** Highest estimated cost accepted: 1 per field, lists times `first` (or 5 when unbounded). */
const MAX_COST = 20_000;

/** Lists cost their children times `first`, or times 5 without it. */
const listEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (typeof args.first === "number") return 1 + childComplexity * args.first;
  if (isListType(getNullableType(field.type))) return 1 + childComplexity * 5;
  return undefined;
};

const limits: ApolloServerPlugin<AdminContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, document, schema, contextValue }) {
        if (!isAdmin(contextValue.actor) && validate(schema, document, [NoSchemaIntrospectionCustomRule]).length > 0) {
          throw gqlError("FORBIDDEN", "schema introspection is for administrators", 403);
        }
        const cost = getComplexity({
          schema,
          query: document,
          variables: request.variables,
          operationName: request.operationName,
          estimators: [listEstimator, simpleEstimator({ defaultComplexity: 1 })],
        });
        if (cost > MAX_COST) throw gqlError("BAD_USER_INPUT", `query too costly (${cost} > ${MAX_COST}); ask for fewer items`, 400);
      },
    };
  },
};

/** Prisma error codes that are the caller's fault, with their GraphQL code. */
const PRISMA_CODES: Record<string, [code: string, message: string]> = {
  P2002: ["CONFLICT", "a record with this unique value already exists"],
  P2025: ["NOT_FOUND", "no record with this id"],
  P2003: ["BAD_USER_INPUT", "a referenced record does not exist"],
};

function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error) as { code?: unknown } | undefined;
    const prisma = typeof original?.code === "string" ? PRISMA_CODES[original.code] : undefined;
    if (prisma) return { message: prisma[1], path: formatted.path, extensions: { code: prisma[0] } };
    if (formatted.extensions?.code === "INTERNAL_SERVER_ERROR") {
      logger.error({ err: original }, "admin API error");
      return { message: "internal error", path: formatted.path, extensions: { code: "INTERNAL_SERVER_ERROR" } };
    }
    return formatted;
  };
}

/**
 * Builds the router serving `/graphql`.
 * @param session - the session middleware shared with the sign-in pages.
 */
export async function adminRouter(db: Db, realm: string, session: RequestHandler, logger: Logger): Promise<Router> {
  const server = new ApolloServer<AdminContext>({
    typeDefs: readFileSync(new URL("./schema.graphql", import.meta.url), "utf8"),
    resolvers: buildResolvers() as ApolloServerOptionsWithTypeDefs<AdminContext>["resolvers"],
    csrfPrevention: true,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    validationRules: [depthLimit(MAX_DEPTH)],
    plugins: [limits],
    formatError: formatError(logger),
  });
  await server.start();
  const router = Router();
  router.use(
    "/graphql",
    session,
    (_req, res, next) => {
      res.set("Cache-Control", "no-store");
      next();
    },
    express.json({ limit: "100kb" }),
    expressMiddleware(server, {
      context: async ({ req }) => {
        try {
          return { db, actor: await resolveActor(db, req, realm) };
        } catch (err) {
          if (err instanceof GraphQLError) throw new GraphQLError(err.message, { extensions: { ...err.extensions, http: { status: 401 } } });
          throw err;
        }
      },
    }),
  );
  return router;
}
