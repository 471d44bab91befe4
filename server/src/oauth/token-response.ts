/**
 * The token endpoint's JSON body (spec "Token response"; decisions.md "Token response" and
 * "Standard clients").
 */
import type { Client } from "./client-auth.js";
import type { IssuedToken } from "./issue.js";
import { joinList } from "../kernel/list.js";

/** Whole seconds from `now` until `until`, rounded down, never negative. */
function secondsUntil(until: Date, now: Date): number {
  return Math.max(0, Math.floor((until.getTime() - now.getTime()) / 1000));
}

/**
 * Builds the token response.
 *
 * `apigee` profile (default): every number a JSON string, `token_type` "BearerToken",
 * `issued_at`/`refresh_token_issued_at` in epoch milliseconds, `expires_in` and
 * `refresh_token_expires_in` in seconds remaining ("0" when there is no refresh token).
 * `rfc6749` profile: the same members, except `token_type` "Bearer" and a numeric
 * `expires_in` (RFC 6749 §5.1), so strict clients accept it, and `issued_at` and
 * `refresh_token_issued_at` as JSON numbers of epoch seconds, as clients that read
 * `issued_at` (AppAuth) and RFC 7662's `iat` count, so `issued_at + expires_in` is the expiry.
 * A `fapi2` app gets the RFC 6749 §5.1 members only: `access_token`, `token_type`, a
 * numeric `expires_in`, `refresh_token` when one is issued, and `scope`.
 * In the `rfc6749` and `fapi2` profiles `scope` is left out when the token has none (a
 * consent of authorization details only): RFC 6749 §3.3's scope is one or more scope tokens,
 * so `""` is not a value a strict client accepts. The `apigee` profile keeps its `""`.
 * A DPoP-bound token's `token_type` is "DPoP" (RFC 9449 §5), in every profile, and a token
 * with RFC 9396 authorization details carries them as `authorization_details` (§7). An
 * `idToken` (OpenID Connect Core §3.1.3.3) is `id_token`, in every profile.
 */
export function formatTokenResponse(client: Client, t: IssuedToken, now: Date, idToken?: string): Record<string, unknown> {
  const expiresIn = secondsUntil(t.expiresAt, now);
  const openId = idToken === undefined ? {} : { id_token: idToken };
  if (client.securityProfile === "fapi2") {
    return {
      access_token: t.accessToken,
      token_type: t.jkt ? "DPoP" : "Bearer",
      expires_in: expiresIn,
      ...(t.refresh ? { refresh_token: t.refresh.token } : {}),
      ...scopeOf(t),
      ...authorizationDetailsOf(t),
      ...openId,
    };
  }
  const strict = client.tokenResponseProfile === "rfc6749";
  const issuedAt = (at: Date) => (strict ? Math.floor(at.getTime() / 1000) : String(at.getTime()));
  const body: Record<string, unknown> = {
    access_token: t.accessToken,
    token_type: t.jkt ? "DPoP" : strict ? "Bearer" : "BearerToken",
    expires_in: strict ? expiresIn : String(expiresIn),
    issued_at: issuedAt(t.issuedAt),
  };
  if (t.refresh) {
    body.refresh_token = t.refresh.token;
    body.refresh_token_issued_at = issuedAt(t.refresh.issuedAt);
    body.refresh_token_status = "approved";
  }
  body.refresh_token_expires_in = t.refresh ? String(secondsUntil(t.refresh.expiresAt, now)) : "0";
  body.refresh_count = String(t.refreshCount);
  body.status = "approved";
  if (!strict || t.scopes.length > 0) body.scope = joinList(t.scopes);
  body.api_product_list = `[${t.apiProducts.join(", ")}]`;
  body.api_product_list_json = t.apiProducts;
  body.client_id = client.clientId;
  body.application_name = client.appName;
  body.organization_name = client.organizationName;
  body["developer.email"] = client.developerEmail;
  return { ...body, ...authorizationDetailsOf(t), ...openId };
}

/** RFC 6749 §5.1 `scope`: the granted scopes, left out when there are none (§3.3: one or more scope tokens). */
function scopeOf(t: IssuedToken): { scope?: string } {
  return t.scopes.length === 0 ? {} : { scope: joinList(t.scopes) };
}

/** RFC 9396 §7: the authorization details the token carries, as approved, in every profile; nothing when none. */
function authorizationDetailsOf(t: IssuedToken): { authorization_details?: unknown } {
  return t.authorizationDetails === undefined ? {} : { authorization_details: JSON.parse(t.authorizationDetails) as unknown };
}
