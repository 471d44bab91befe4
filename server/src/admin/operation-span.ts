/**
 * One span per GraphQL operation of the admin API (OpenTelemetry GraphQL semantic
 * conventions): an Apollo Server plugin, a child of the request's server span, named
 * `<graphql.operation.type> <graphql.operation.name>` once the operation is resolved, failed
 * when the answer carries errors. Nothing is done when tracing is off.
 */
import type { ApolloServerPlugin } from "@apollo/server";
import { SpanStatusCode } from "@opentelemetry/api";
import { tracer, tracingOn } from "../kernel/spans.js";

/** `graphql.operation.type` and `graphql.operation.name` (semantic conventions, development status: copied rather than imported from the incubating entry). */
const ATTR_GRAPHQL_OPERATION_TYPE = "graphql.operation.type";
const ATTR_GRAPHQL_OPERATION_NAME = "graphql.operation.name";

/** The plugin; typed for any context, so it fits every Apollo server. */
export const operationSpans: ApolloServerPlugin<object> = {
  async requestDidStart() {
    if (!tracingOn()) return;
    const span = tracer().startSpan("GraphQL Operation");
    return {
      async didResolveOperation({ operation, operationName }) {
        if (!operation) return;
        span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, operation.operation);
        if (operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operationName);
        span.updateName(operationName ? `${operation.operation} ${operationName}` : operation.operation);
      },
      async didEncounterErrors({ errors }) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]?.message });
      },
      async willSendResponse() {
        span.end();
      },
    };
  },
};
