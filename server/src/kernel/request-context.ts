/**
 * What is known about the request being served, for the code that observes it rather than
 * serves it (the request log, audit events, refusal records, metrics, traces): one
 * AsyncLocalStorage entered by the request log (http/logger.ts) for every request.
 *
 * It lives in the kernel because every layer reads it: the audit store (db/) adds the ids to
 * its events, client authentication (oauth/) and the gateway set the client id, http/ enters it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestContext {
  /** The request id (X-Request-Id). */
  readonly requestId: string;
  /** The FAPI interaction id (`x-fapi-interaction-id`, a UUID): the caller's, or a new one. */
  readonly interactionId: string;
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

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it starts) with `context` as the current request's. */
export function runInRequest<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The current request's context, or undefined outside a request (startup, purge jobs). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
