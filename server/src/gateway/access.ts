/**
 * The gateway's access decision for one call: bearer token present, valid and covering
 * the API (RFC 6750 §2.1 and §3.1; decisions.md "Errors"). Pure functions, no HTTP.
 */
import { BearerError } from "../oauth/errors.js";
import type { ApiRoute } from "../products/repository.js";
import type { PresentedToken } from "../tokens/repository.js";

/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Extracts the access token from an `Authorization: Bearer` header. The scheme is
 * case-insensitive (RFC 9110 §11.1), and `BearerToken` is taken as an alias of `Bearer`:
 * it is the `token_type` of the apigee token response profile (oauth/token-response.ts),
 * which many client libraries send back as the scheme.
 * @throws BearerError 401: no header (challenge without error code, §3.1), another scheme
 *   such as Basic (never accepted here), or a malformed value (`invalid_token`).
 */
export function bearerToken(authorization: string | undefined, realm: string): string {
  if (!authorization) throw new BearerError(realm, 401, undefined, "a Bearer access token is required");
  const space = authorization.indexOf(" ");
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  const lower = scheme.toLowerCase();
  if (lower !== "bearer" && lower !== "bearertoken") {
    throw new BearerError(realm, 401, undefined, `the ${scheme.slice(0, 20)} scheme is not accepted; send Authorization: Bearer <access_token>`);
  }
  const token = space < 0 ? "" : authorization.slice(space + 1).trim();
  if (!B64TOKEN.test(token)) throw new BearerError(realm, 401, "invalid_token", "malformed bearer token");
  return token;
}

/**
 * Decides whether `token` may call `api`.
 * @param token - the stored token for the presented value, or undefined when unknown.
 * @throws BearerError 401 `invalid_token` when the token is unknown, revoked, expired, or
 *   its app or credential is no longer approved; 403 `insufficient_scope` when none of its
 *   API products grants this API or a scope the API requires is missing.
 */
export function checkAccess(token: PresentedToken | undefined, api: ApiRoute, realm: string): asserts token is PresentedToken {
  if (!token?.active) {
    throw new BearerError(realm, 401, "invalid_token", "the access token is invalid, expired or revoked");
  }
  const requiredScope = api.requiredScopes.join(" ");
  if (!token.apiProducts.some((p) => api.productNames.includes(p))) {
    throw new BearerError(realm, 403, "insufficient_scope", `no API product of this token grants the API "${api.name}"`, requiredScope);
  }
  const missing = api.requiredScopes.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    throw new BearerError(realm, 403, "insufficient_scope", `the API "${api.name}" requires scope ${missing.join(" ")}`, requiredScope);
  }
}
