/**
 * The pushed authorization request endpoint (RFC 9126) at `POST /oauth2/v1/par`: the client
 * authenticates and sends every authorization parameter in the body, and gets a
 * `request_uri` to send to `/authorize` instead, within 60 seconds (oauth/authorize.ts REQUEST_URI_LIFETIME_SECONDS).
 * A DPoP proof on the request binds the authorization code to its key (RFC 9449 §10.1).
 */
import type { ServerResponse } from "node:http";
import type { Stores } from "../stores/index.js";
import { sendJson } from "../kernel/json.js";
import { pushAuthorizationRequest } from "./authorize.js";
import { requestObjects } from "./request-object.js";
import type { IdTokenHints } from "./id-token.js";
import { readClientRequest, type ClientRequest, type EndpointContext } from "./client-request.js";
import { dpopKeyOf, nonceHeader, type DpopSettings } from "./dpop-request.js";
import { NO_STORE } from "./token-endpoint.js";

/** Builds the handler of POST pushed authorization requests (after http/dispatch.ts read the form). @param hints - reads an `id_token_hint`. */
export function parEndpoint(db: Pick<Stores, "clients" | "audit" | "replays" | "pushedRequests" | "psd2Consents" | "catalog">, endpoint: EndpointContext, dpop: DpopSettings, hints: IdTokenHints) {
  const objects = requestObjects(endpoint.issuer, db.replays, endpoint.tppAddresses);
  return async (req: ClientRequest, res: ServerResponse): Promise<void> => {
    const now = new Date();
    const { params, client } = await readClientRequest(db, req, endpoint, now);
    // A proof is optional here even for a fapi2 app: its tokens are bound at the token endpoint.
    const dpopJkt = req.headers.dpop === undefined ? undefined : await dpopKeyOf(req, endpoint.url, client, dpop, now);
    const { requestUri, expiresIn } = await pushAuthorizationRequest(db, hints, objects, endpoint.baseUrl, client, params, dpopJkt, now);
    sendJson(res, 201, { request_uri: requestUri, expires_in: expiresIn }, { ...NO_STORE, ...nonceHeader(dpop, now) });
  };
}
