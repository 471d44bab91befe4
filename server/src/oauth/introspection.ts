/**
 * Token introspection (RFC 7662) at `POST /oauth2/v1/introspect`, for clients whose app is
 * allowed to introspect (resource servers). Anything unknown, expired, revoked, or whose
 * app or credential is no longer approved is `{"active": false}` and nothing more (§2.2).
 * A client that asks for it in `Accept` gets the same response as a signed JWT (RFC 9701).
 */
import type { ServerResponse } from "node:http";
import type { Stores } from "../stores/index.js";
import { findAnyToken, type StoredToken } from "./tokens.js";
import { sendJson } from "../kernel/json.js";
import { readClientRequest, type ClientRequest, type ClientRequestStores, type EndpointContext } from "./client-request.js";
import { InvalidRequest, OAuthError } from "../kernel/errors.js";
import { acceptQuality, parseAccept } from "../kernel/accept.js";
import { signedNow } from "../keys/backend.js";
import type { Keyring } from "../keys/keyring.js";
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

/** The media type of a signed introspection response (RFC 9701 §4, §11.2). */
export const INTROSPECTION_JWT_MEDIA_TYPE = "application/token-introspection+jwt";

/** The `typ` header of a signed introspection response (RFC 9701 §5). */
export const INTROSPECTION_JWT_TYPE = "token-introspection+jwt";

/**
 * Whether an introspection request's `Accept` header asks for a signed response (RFC 9701
 * §4): it names `application/token-introspection+jwt` itself, with a quality above 0 and no
 * lower than the one `application/json` gets (RFC 9110 §12.5.1, wildcards included). A
 * wildcard alone, JSON preferred, or no header: the JSON response.
 */
export function wantsSignedIntrospection(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const ranges = parseAccept(accept);
  const jwt = acceptQuality(ranges, INTROSPECTION_JWT_MEDIA_TYPE);
  return jwt.named && jwt.q > 0 && jwt.q >= acceptQuality(ranges, "application/json").q;
}

/**
 * Seconds after `iat` that the key of a signed introspection response stays published, for the
 * resource server to verify it: the JWT has no `exp` to tell the keyring how long (RFC 9701 §5).
 */
export const INTROSPECTION_VERIFICATION_SECONDS = 300;

/** What a signed introspection response says, and to whom. */
export interface SignedIntrospection {
  /** The issuer identifier (AUTH_URL): `iss`. */
  issuer: string;
  /** The introspecting client's `client_id`: `aud`. */
  clientId: string;
  /** PS256 or ES256: the introspecting app's `introspection_signed_response_alg`. */
  alg: "PS256" | "ES256";
  /** The introspection response ({@link introspectionResponse}): `token_introspection`. */
  response: Record<string, unknown>;
  now: Date;
}

/**
 * The signed introspection response (RFC 9701 §5): a compact JWS, `typ`
 * `token-introspection+jwt`, of `{iss, aud, iat, token_introspection}`, signed with this
 * server's current key of `alg`. No top-level `sub` and no `exp` (§5: SHOULD NOT, so that it
 * cannot pass for an access token, §8.1); its key stays published at least
 * {@link INTROSPECTION_VERIFICATION_SECONDS} past `iat` (keys/keyring.ts).
 * @throws KeyBackendUnavailable when no key can sign now.
 */
export function signIntrospectionResponse(keyring: Keyring, s: SignedIntrospection): Promise<string> {
  const payload = { iss: s.issuer, aud: s.clientId, iat: Math.floor(s.now.getTime() / 1000), token_introspection: s.response };
  return keyring.sign({ alg: s.alg, typ: INTROSPECTION_JWT_TYPE, payload, expiresAt: new Date((payload.iat + INTROSPECTION_VERIFICATION_SECONDS) * 1000) });
}

/**
 * Builds the handler of POST introspection requests (after http/dispatch.ts read the form):
 * JSON (RFC 7662 §2.2), or a JWT when `Accept` asks for one ({@link wantsSignedIntrospection}).
 * @param keyring - signs the JWT responses with the app's `introspection_signed_response_alg`.
 * @param metrics - counts answers by `active`; undefined: nothing counted.
 * @throws ServiceUnavailable (503 `temporarily_unavailable`) when a JWT was asked for and no
 *   key can sign now: never an unsigned answer instead.
 */
export function introspectionEndpoint(db: ClientRequestStores & Pick<Stores, "tokens">, endpoint: EndpointContext, keyring: Keyring, metrics?: Metrics) {
  return async (req: ClientRequest, res: ServerResponse): Promise<void> => {
    const now = new Date();
    const { params, client } = await readClientRequest(db, req, endpoint, now);
    if (!client.canIntrospect) throw new OAuthError("unauthorized_client", "this client may not introspect tokens", 403);
    if (params.token === undefined) throw new InvalidRequest("token is required");
    const token = await findAnyToken(db, params.token, now);
    const response = introspectionResponse(token, endpoint.issuer);
    if (wantsSignedIntrospection(req.headers.accept)) {
      const jwt = await signedNow("the introspection response", signIntrospectionResponse(keyring, { issuer: endpoint.issuer, clientId: client.clientId, alg: client.introspectionSignedResponseAlg, response, now }));
      res.writeHead(200, { ...NO_STORE, "Content-Type": INTROSPECTION_JWT_MEDIA_TYPE, "Content-Length": Buffer.byteLength(jwt) });
      res.end(jwt);
    } else sendJson(res, 200, response, NO_STORE);
    metrics?.introspection(token?.active === true);
  };
}
