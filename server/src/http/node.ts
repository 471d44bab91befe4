/**
 * Plain node:http plumbing for the machine-to-machine endpoints (http/dispatch.ts): chains
 * of connect-style middleware (helmet, cors, body-parser and our request log all are), the
 * client's address and the request path (JSON answers: kernel/json.ts). No Express here: its routing and response helpers
 * cost more CPU than a whole token issuance (see docs/performance.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import proxyaddr from "proxy-addr";
import type { Logger } from "pino";
import { sendError } from "./error-handler.js";

/** A request after the chain's steps: `body` from body-parser, `id` from the request log (http/logger.ts). */
export type NodeRequest = IncomingMessage & { body?: unknown; id?: unknown };

export type Middleware = (req: NodeRequest, res: ServerResponse, next: (err?: unknown) => void) => void;
export type Handler = (req: NodeRequest, res: ServerResponse) => Promise<void>;

/**
 * Runs `steps` in order, then `handler`. An error passed to `next`, thrown, or rejected
 * by the handler becomes the error response of http/error-handler.ts.
 * @param observe - told every such error first (the refusal audit and metrics, http/refusals.ts).
 */
export function chain(
  steps: readonly Middleware[],
  handler: Handler,
  observe?: (err: unknown, req: NodeRequest) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let i = 0;
    // An error while answering an error never escapes: an observer that throws is logged and
    // the answer still goes out; an answer that cannot be written cuts the connection.
    const fail = (err: unknown) => {
      try {
        observe?.(err, req);
      } catch (observerError) {
        logOf(req)?.error({ err: observerError, reqId: (req as NodeRequest).id }, "error observer failed");
      }
      try {
        sendError(err, req, res);
      } catch (answerError) {
        logOf(req)?.error({ err: answerError, reqId: (req as NodeRequest).id }, "error answer failed");
        res.destroy();
      }
    };
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) return fail(err);
      const step = steps[i++];
      try {
        if (step) step(req, res, next);
        else handler(req, res).catch(fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    next();
  };
}

/** The request's logger, once the request log (http/logger.ts) gave it one. */
const logOf = (req: NodeRequest): Logger | undefined => (req as NodeRequest & { log?: Logger }).log;

/**
 * The client's IP address, trusting `trustedHops` reverse proxies' X-Forwarded-For (what
 * Express's `req.ip` gives with "trust proxy" set to that number).
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  if (trustedHops === 0) return req.socket?.remoteAddress ?? "";
  return proxyaddr(req, (_address, hop) => hop < trustedHops);
}

/** The path of a request URL, without its query. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}
