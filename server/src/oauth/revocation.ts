/**
 * Token revocation (RFC 7009) at `POST /oauth2/v1/revoke`.
 *
 * An unknown, expired or already revoked token is answered 200 like a revoked one
 * (§2.2). A client may revoke only tokens issued to its own app (§2.1); another app's
 * token is refused with `invalid_request`. Revoking a refresh token revokes its whole
 * family, access tokens included (§2.1: "SHOULD also invalidate all access tokens based
 * on the same authorization grant"); revoking an access token leaves its refresh token.
 */
import { contextOf } from "../kernel/request-context.js";
import type { ServerResponse } from "node:http";
import type { Stores } from "../stores/index.js";
import { findAnyToken } from "./tokens.js";
import { readClientRequest, type ClientRequest, type ClientRequestStores, type EndpointContext } from "./client-request.js";
import { InvalidRequest } from "../kernel/errors.js";
import { NO_STORE } from "./token-endpoint.js";
import type { Metrics } from "../kernel/metrics.js";

/**
 * Builds the handler of POST revocation requests (after http/dispatch.ts read the form).
 * @param metrics - counts revocations by token type; undefined: nothing counted.
 */
export function revocationEndpoint(db: ClientRequestStores & Pick<Stores, "tokens" | "audit">, endpoint: EndpointContext, metrics?: Metrics) {
  return async (req: ClientRequest, res: ServerResponse): Promise<void> => {
    const now = new Date();
    const { params, client } = await readClientRequest(db, req, endpoint, now);
    if (params.token === undefined) throw new InvalidRequest("token is required");
    const token = await findAnyToken(db, params.token, now);
    if (token) {
      if (token.appId !== client.appId) throw new InvalidRequest("the token was not issued to this client");
      const revocation = { at: now, by: `client:${client.clientId}` };
      if (token.type === "access_token") await db.tokens.revokeAccessToken(token.id, revocation);
      else if (token.familyId !== null) await db.tokens.revokeFamily(token.familyId, revocation);
      else await db.tokens.revokeRow(token.id, revocation);
      await db.audit.record({ type: "token.revoked", actor: client.clientId, subject: token.id, details: { token_type: token.type }, request: contextOf(req) });
      metrics?.revocation(token.type);
    }
    res.writeHead(200, NO_STORE).end();
  };
}
