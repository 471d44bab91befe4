/**
 * What switching an app's security profile changes for the app, in words for the console's
 * confirmation (App.securityProfileChange): derived from the rules the server applies to a
 * `fapi2` app (use-cases/apps.ts FAPI2_SETTINGS and the checks of oauth/authorize.ts,
 * oauth/client-auth.ts, oauth/dpop-request.ts, oauth/grants/refresh-token.ts, oauth/token-response.ts).
 */
import { FAPI2_AUTH_METHODS } from "../../kernel/auth-methods.js";
import type { AppRecord } from "../../stores/apps.js";
import type { SecurityProfile } from "../../stores/clients.js";

/** The app's settings a switch reads. */
type Switched = Pick<AppRecord, "securityProfile" | "tokenEndpointAuthMethods" | "tokenResponseProfile" | "requirePkce" | "requireNonce" | "jwks" | "jwksUri">;

/**
 * The consequences of switching `app` to `to`, one sentence each, the live tokens last; empty
 * when `to` is its profile already.
 * @param liveTokens - how many access tokens of the app are live now.
 */
export function securityProfileChange(app: Switched, to: SecurityProfile, liveTokens: number): string[] {
  if (app.securityProfile === to) return [];
  const tokens = `${liveTokens} live access token${liveTokens === 1 ? "" : "s"} stay${liveTokens === 1 ? "s" : ""} valid until ${liveTokens === 1 ? "it expires" : "they expire"} (revoke them on the Tokens tab to end them now).`;
  if (to === "standard") {
    return [
      "Authorization requests no longer need to be pushed (PAR), and tokens are no longer sender-constrained with DPoP unless the app asks.",
      "A nonce is no longer required with openid unless requireNonce is set; refresh tokens are rotated again.",
      "The authentication methods, PKCE and the token response profile stay as they are.",
      tokens,
    ];
  }
  const secretMethods = app.tokenEndpointAuthMethods.filter((m) => !(FAPI2_AUTH_METHODS as readonly string[]).includes(m));
  const hasKeys = app.jwks !== null || app.jwksUri !== null;
  return [
    ...(secretMethods.length > 0
      ? [`The app's client secret stops working (${secretMethods.join(", ")}): it must authenticate with private_key_jwt or mutual TLS (FAPI 2.0 Security Profile 5.3.2.1).`]
      : []),
    ...(hasKeys ? [] : ["The app has no registered public signing keys: register its JWK Set or jwks_uri first, or the switch is refused."]),
    "Every authorization request must be pushed first (PAR, RFC 9126); plain /authorize requests are refused.",
    "Its tokens must be sender-constrained: DPoP-bound (RFC 9449), or bound to its TLS client certificate (RFC 8705).",
    ...(app.requirePkce ? [] : ["PKCE becomes required (FAPI 2.0 Security Profile 5.3.2.2)."]),
    ...(app.requireNonce ? [] : ["Every authorization request with openid must carry a nonce."]),
    ...(app.tokenResponseProfile === "rfc6749" ? [] : ["Token responses follow RFC 6749 instead of the Apigee format."]),
    "Refresh tokens are no longer rotated.",
    tokens,
  ];
}
