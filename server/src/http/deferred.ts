/**
 * A handler whose module is loaded by its first request, not at start. The admin API is the
 * one user: Apollo Server and graphql are about a quarter of what the server imports, and a
 * start that does not need them answers sooner (`npm start` is up in under 3 s). The first
 * admin request waits for the load, once; the ones after it do not.
 */
import type { RequestHandler } from "express";

/**
 * @param load - imports and builds the handler; called once, by the first request.
 * @returns a handler that passes each request to the loaded one. A failed load is passed to
 *   the error handler (a 500, logged) and tried again by the next request.
 */
export function deferredHandler(load: () => Promise<RequestHandler>): RequestHandler {
  let loading: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    loading.then((handler) => handler(req, res, next), next);
  };
}
