import type { IncomingMessage } from "node:http";
import { contextOf, type RequestIds } from "../kernel/request-context.js";

/**
 * `ctx` for serving `req`: the same, with the request's ids (kernel/request-context.ts) for
 * the audit events it records.
 */
export function inRequest<C extends { request?: RequestIds }>(ctx: C, req: IncomingMessage): C {
  return { ...ctx, request: contextOf(req) };
}
