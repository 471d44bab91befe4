/**
 * Token introspection (RFC 7662) at `POST /oauth2/v1/introspect`, for clients whose app is
 * allowed to introspect (resource servers). Anything unknown, expired, revoked, or whose
 * app or credential is no longer approved is `{"active": false}` and nothing more (§2.2).
 */
import type { ServerResponse } from "node:http";
import type { Stores } from "../stores/index.js";
import { findAnyToken, type StoredToken } from "./tokens.js";
import { sendJson } from "../kernel/json.js";
import { readClientRequest, type ClientRequest, type ClientRequestStores, type EndpointContext } from "./client-request.js";
import { InvalidRequest, OAuthError } from "../kernel/errors.js";
import { joinList } from "../kernel/list.js";
import { NO_STORE } from "./token-endpoint.js";
import type { Metrics } from "../kernel/metrics.js";

/**
 * The introspection response for a token (RFC 7662 §2.2): `exp` and `iat` in seconds since
 * the epoch; `api_product_list_json` carries the token's API products. A DPoP-bound token
 * has `cnf.jkt` (RFC 9449 §6.2), and an access token so bound `token_type` "DPoP"; an access
 * token bound to a client certificate has `cnf["x5t#S256"]` (RFC 8705 §3.2). A user
 * grant carries the user's authentication (RFC 9470 §3 and §6.2): `acr`, `amr` (RFC 8176) and
 * `auth_time` in seconds since the epoch. A token with RFC 9396 authorization details carries
 * them as `authorization_details`, as the token response did (§9.2). An access token restricted
 * to resources (RFC 8707) has them as `aud`.
 */
export function introspectionResponse(token: StoredToken | undefined, issuer: string): Record<string, unknown> {
  if (!token?.active) return { active: false };
  return {
    active: true,
    scope: joinList(token.scopes),
    client_id: token.clientId,
    ...(token.username !== null ? { username: token.username } : {}),
    token_type: token.type === "refresh_token" ? "refresh_token" : token.jkt !== null ? "DPoP" : "Bearer",
    exp: Math.floor(token.expiresAt.getTime() / 1000),
    iat: Math.floor(token.issuedAt.getTime() / 1000),
    sub: token.userId ?? token.clientId,
    iss: issuer,
    api_product_list_json: token.apiProducts,
    ...(token.jkt !== null || (token.x5t !== null && token.type === "access_token")
      ? { cnf: { ...(token.jkt !== null ? { jkt: token.jkt } : {}), ...(token.x5t !== null && token.type === "access_token" ? { "x5t#S256": token.x5t } : {}) } }
      : {}),
    ...(token.authentication !== null
      ? { acr: token.authentication.acr, amr: token.authentication.amr, auth_time: Math.floor(token.authentication.authTime.getTime() / 1000) }
      : {}),
    ...(token.authorizationDetails !== null ? { authorization_details: token.authorizationDetails } : {}),
    ...(token.audience !== null && token.type === "access_token" ? { aud: token.audience.length === 1 ? token.audience[0] : token.audience } : {}),
  };
}

/**
 * Builds the handler of POST introspection requests (after http/dispatch.ts read the form).
 * @param metrics - counts answers by `active`; undefined: nothing counted.
 */
export function introspectionEndpoint(db: ClientRequestStores & Pick<Stores, "tokens">, endpoint: EndpointContext, metrics?: Metrics) {
  return async (req: ClientRequest, res: ServerResponse): Promise<void> => {
    const now = new Date();
    const { params, client } = await readClientRequest(db, req, endpoint, now);
    if (!client.canIntrospect) throw new OAuthError("unauthorized_client", "this client may not introspect tokens", 403);
    if (params.token === undefined) throw new InvalidRequest("token is required");
    const token = await findAnyToken(db, params.token, now);
    sendJson(res, 200, introspectionResponse(token, endpoint.issuer), NO_STORE);
    metrics?.introspection(token?.active === true);
  };
}
