/**
 * The gateway's access decision for one call: bearer token present, valid and covering
 * the API (RFC 6750 §2.1 and §3.1; decisions.md "Errors"). Pure functions, no HTTP.
 */
import { BearerError, type DpopChallenge } from "../kernel/errors.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { ApiRoute } from "../stores/catalog.js";

/**
 * Decides whether `token` may call `api`.
 * @param token - the stored token for the presented value, or undefined when unknown.
 * @param dpop - for a DPoP-bound or DPoP-presented token: the errors then carry a
 *   `WWW-Authenticate: DPoP` challenge (RFC 9449 §7.1) instead of `Bearer`.
 * @throws BearerError 401 `invalid_token` when the token is unknown, revoked, expired, or
 *   its app or credential is no longer approved; 403 `insufficient_scope` when none of its
 *   API products grants this API or a scope the API requires is missing.
 */
export function checkAccess(token: PresentedToken | undefined, api: ApiRoute, realm: string, dpop?: DpopChallenge): asserts token is PresentedToken {
  if (!token?.active) {
    throw new BearerError(realm, 401, "invalid_token", "the access token is invalid, expired or revoked", undefined, dpop);
  }
  const requiredScope = api.requiredScopes.join(" ");
  if (!token.apiProducts.some((p) => api.productNames.includes(p))) {
    throw new BearerError(realm, 403, "insufficient_scope", `no API product of this token grants the API "${api.name}"`, requiredScope, dpop);
  }
  const missing = api.requiredScopes.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    throw new BearerError(realm, 403, "insufficient_scope", `the API "${api.name}" requires scope ${missing.join(" ")}`, requiredScope, dpop);
  }
}
