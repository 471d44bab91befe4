/**
 * The paths Tollgate serves itself, which the gateway never forwards.
 */
/** Paths owned by the SPA (decisions.md "Hosts and paths"). */
export const SPA_PAGES = ["/login", "/consent", "/error", "/account", "/admin", "/logout"];

/**
 * First path segments served by Tollgate itself. Every other first segment is an API
 * name routed by the gateway, so no API may take one of these.
 */
export const TOLLGATE_SEGMENTS: ReadonlySet<string> = new Set([
  "", "oauth2", "token", "authorize", "interaction", "session", "graphql", ".well-known", "healthz", "readyz", "assets",
  // The Berlin Group consent API (consents/berlin-group-api.ts).
  "psd2",
  // Sign-in at the bank's identity providers (federation/), and login and consent delegated to the bank's application.
  "federation",
  "delegation",
  ...SPA_PAGES.map((page) => page.slice(1)),
]);

/** True when `path` is served by Tollgate rather than forwarded by the gateway. */
export function isTollgatePath(path: string): boolean {
  return TOLLGATE_SEGMENTS.has(path.split("/")[1] ?? "");
}

/** The token endpoint (RFC 6749 §3.2); `/token` serves it too. */
export const TOKEN_PATH = "/oauth2/v1/token";

/** The pushed authorization request endpoint (RFC 9126 §2). */
export const PAR_PATH = "/oauth2/v1/par";

/** This server's JWK Set (RFC 7517 §5): the public keys it signs with, `jwks_uri` in its metadata (RFC 8414 §2). */
export const JWKS_PATH = "/oauth2/v1/jwks";

/** The end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0 §2). */
export const END_SESSION_PATH = "/oauth2/v1/logout";

/** The UserInfo endpoint (OpenID Connect Core §5.3). */
export const USERINFO_PATH = "/oauth2/v1/userinfo";

/** The dynamic client registration endpoint (RFC 7591 §3); a client's configuration endpoint is below it (RFC 7592 §2). */
export const REGISTRATION_PATH = "/oauth2/v1/register";
