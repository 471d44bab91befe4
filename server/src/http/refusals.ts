/**
 * Observes the refusals of the node:http endpoints where their errors become answers (the
 * fail path of http/node.ts `chain`): counts each in `tollgate_refusals_total` and audits
 * those of the token endpoint and the gateway, and every failed client authentication,
 * through the aggregating {@link RefusalAudit}.
 *
 * A refusal is an answer with a 4xx status: an OAuthError (RFC 6749 §5.2, RFC 6750 §3.1,
 * RFC 9449, rate limits) or a client error of a parser (a body too large). A 5xx is a failure
 * of ours, not a refusal: it is logged, not audited.
 */
import { BearerError, InvalidClient, OAuthError } from "../kernel/errors.js";
import { ID_LENGTH } from "../kernel/ids.js";
import type { Metrics } from "../kernel/metrics.js";
import { contextOf } from "../kernel/request-context.js";
import { rowIdOf } from "../oauth/tokens.js";
import type { NodeRequest } from "./node.js";
import type { RefusalAudit, RefusalType } from "./refusal-audit.js";

/** The endpoints observed, as the `endpoint` label of `tollgate_refusals_total`. */
export type RefusalEndpoint = "token" | "par" | "revoke" | "introspect" | "gateway";

/**
 * Characters of a token's row id kept in the audit: "c", 8 of the creation time and 4 of a
 * counter (kernel/ids.ts): enough to find the row, none of its random part, never the secret.
 */
const TOKEN_ID_PREFIX = 13;

/** The RFC error code and description of a refusal; undefined for a failure of ours (5xx). */
function refusalOf(err: unknown): { reason: string; description: string } | undefined {
  if (err instanceof OAuthError) {
    if (err.status >= 500) return undefined;
    // RFC 6750 §3.1: a call without a token gets a challenge with no error code.
    return { reason: err instanceof BearerError && err.code === undefined ? "no_token" : err.error, description: err.message };
  }
  const status = typeof err === "object" && err !== null ? (err as { status?: unknown }).status : undefined;
  return typeof status === "number" && status >= 400 && status < 500 ? { reason: "invalid_request", description: "malformed request" } : undefined;
}

/** The row id prefix of a token value, when the value has the shape of one of ours (oauth/tokens.ts). */
function tokenIdPrefix(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const id = rowIdOf(value);
  return id === undefined ? undefined : id.slice(0, Math.min(TOKEN_ID_PREFIX, ID_LENGTH));
}

/** The token a refused request presented: the gateway's access token, or the token endpoint's refresh token (form body, read as text). */
function presentedToken(endpoint: RefusalEndpoint, req: NodeRequest): string | undefined {
  if (endpoint === "gateway") {
    const authorization = req.headers.authorization;
    const space = authorization === undefined ? -1 : authorization.indexOf(" ");
    return space < 0 ? undefined : authorization!.slice(space + 1).trim();
  }
  return typeof req.body === "string" ? (new URLSearchParams(req.body).get("refresh_token") ?? undefined) : undefined;
}

/** The audit type of a refusal at `endpoint`, or undefined when only counted. */
function auditTypeOf(endpoint: RefusalEndpoint, reason: string): RefusalType | undefined {
  if (reason === "invalid_client") return "client.authentication_failed";
  if (endpoint === "token") return "token.refused";
  if (endpoint === "gateway") return "gateway.refused";
  return undefined;
}

/**
 * Builds the observer of one endpoint's errors, for http/node.ts `chain`.
 * @param endpoint - the endpoint, its `endpoint` label.
 * @param audit - the aggregating refusal audit.
 * @param metrics - counts refusals; undefined: only audited.
 * @returns `(err, req)`: called with every error the chain answers, before it is answered.
 */
export function refusalObserver(endpoint: RefusalEndpoint, audit: RefusalAudit, metrics: Metrics | undefined): (err: unknown, req: NodeRequest) => void {
  return (err, req) => {
    const refusal = refusalOf(err);
    if (!refusal) return;
    const request = contextOf(req);
    // Only a registered client's id: for a failed authentication the error names it when the id is
    // registered, else the request context has it once a client authenticated or a token named one.
    const clientId = (err instanceof InvalidClient ? err.registeredClientId : request?.clientId) ?? "";
    metrics?.refusal(endpoint, refusal.reason, clientId);
    const type = auditTypeOf(endpoint, refusal.reason);
    if (!type) return;
    audit.record({
      type,
      clientId,
      api: endpoint === "gateway" ? (request?.api ?? "") : "",
      reason: refusal.reason,
      description: refusal.description,
      endpoint: (req as NodeRequest & { path?: string }).path ?? (endpoint === "gateway" ? "gateway" : endpoint),
      tokenIdPrefix: tokenIdPrefix(presentedToken(endpoint, req)),
      requestId: request?.requestId ?? String(req.id ?? ""),
      interactionId: request?.interactionId ?? "",
      // A request whose connection is gone has no socket left.
      ip: (req as NodeRequest & { ip?: string }).ip ?? req.socket?.remoteAddress ?? "",
    });
  };
}
