/**
 * What is known about the request being served, for the code that observes it rather than
 * serves it (the request log, audit events, refusal records, metrics, traces). The request log
 * (http/logger.ts) attaches it to every request object; the code that has the request reads it
 * with {@link contextOf} and hands the ids on ({@link RequestIds}) where an audit event is written.
 *
 * Carried on the request, not in an AsyncLocalStorage. On Node 24 an AsyncLocalStorage would
 * cost nothing measurable (it no longer hooks every promise, docs/performance.md), but every
 * reader of the context already holds the request, and passing it keeps what reads the
 * context visible in the signatures.
 *
 * It lives in the kernel because every layer reads it: the audit store (db/) adds the ids to
 * its events, client authentication (oauth/) and the gateway set the client id, http/ attaches it.
 */
import type { IncomingMessage } from "node:http";

/** The ids of a request, as audit events record them. */
export interface RequestIds {
  /** The request id (X-Request-Id). */
  readonly requestId: string;
  /** The FAPI interaction id (`x-fapi-interaction-id`, a UUID): the caller's, or a new one. */
  readonly interactionId: string;
}

export interface RequestContext extends RequestIds {
  /** The client id of an authenticated client, or of the token a gateway call presented; set once known. */
  clientId?: string;
  /** The gateway API the request is for; set once known. */
  api?: string;
  /** The route template that served the request (`http.route` of its server span, e.g. `/oauth2/v1/token`); set once known. */
  route?: string;
}

/**
 * The field carrying a request's interaction id both ways: answered to the caller, forwarded to
 * the upstream (FAPI 1.0 Baseline §6.2.1 items 11–13, FAPI 2.0 Security Profile).
 */
export const INTERACTION_ID_HEADER = "x-fapi-interaction-id";

const CONTEXT = Symbol("tollgate.requestContext");

type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** Attaches `context` to `req` (the request log does, first thing on every request). */
export function attachContext(req: IncomingMessage, context: RequestContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The context of `req`, or undefined for a request the request log has not seen. */
export function contextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}
