/**
 * The URLs a registration may carry (RFC 7591 §2): redirect URIs, matched exactly by the
 * authorization endpoint, post-logout redirect URIs (OpenID Connect RP-Initiated Logout 1.0 §3.1),
 * matched exactly by the logout endpoint (oidc/logout.ts) under the same rules, a `jwks_uri` the
 * token endpoint will fetch, and a `sector_identifier_uri` (OpenID Connect Registration §2) the
 * registration fetches (sector-identifier.ts).
 *
 * The rules are those of the admin API's `callbackUrl` and `jwksUri` (admin/validation.ts, with
 * the shared kernel/addresses.ts), with one change: a dynamically
 * registered client gets https only, never http on a loopback host (FAPI 2.0 Security Profile
 * §5.3.2.2 and RFC 9700 §2.1 want exact https redirect URIs; a TPP registering itself is never a
 * native app on the bank's machine).
 */
import { isLinkLocalOrMetadata, URI_CHARACTERS } from "../kernel/addresses.js";
import { URL_MAX_LENGTH } from "../kernel/limits.js";

/** Most redirect URIs a registration request or a software statement lists; most post-logout redirect URIs too. */
export const MAX_REDIRECT_URIS = 20;

/**
 * Why `uri` cannot be an https URL of a registration: longer than URL_MAX_LENGTH (2000)
 * characters, characters outside RFC 3986 (so what is stored is what the client sends, RFC 6749
 * §3.1.2: an absolute URI), not absolute, not https, or with a fragment (RFC 6749 §3.1.2).
 * @returns a phrase to follow "must be …", or undefined when the URL is acceptable.
 */
function httpsUrlProblem(uri: string): string | undefined {
  if (uri.length > URL_MAX_LENGTH) return `at most ${URL_MAX_LENGTH} characters`;
  if (!URI_CHARACTERS.test(uri)) return "RFC 3986 characters only: no spaces, control or non-ASCII characters (percent-encode them)";
  if (!URL.canParse(uri)) return "an absolute URL";
  if (new URL(uri).protocol !== "https:") return "an https URL";
  if (uri.includes("#")) return "without a fragment";
  return undefined;
}

/**
 * Why `uri` cannot be a registered redirect URI: see {@link httpsUrlProblem}. Redirect URIs are
 * stored as given and matched exactly (RFC 9700 §4.1.3): no normalization here.
 * @returns a phrase to follow "must be …", or undefined when it is acceptable.
 */
export function redirectUriProblem(uri: string): string | undefined {
  return httpsUrlProblem(uri);
}

/**
 * Why `uri` cannot be a registered post-logout redirect URI (OpenID Connect RP-Initiated Logout
 * 1.0 §3.1 `post_logout_redirect_uris`): a redirect URI's rules, {@link redirectUriProblem}. The
 * logout endpoint sends the browser there, with `state`, when a logout request names it exactly.
 * @returns a phrase to follow "must be …", or undefined when it is acceptable.
 */
export function postLogoutRedirectUriProblem(uri: string): string | undefined {
  return redirectUriProblem(uri);
}

/**
 * Why `uri` cannot be a URL the server fetches: see {@link httpsUrlProblem}, and never a literal
 * link-local or cloud metadata address (a DNS name resolving to one is not caught here: the
 * fetch's, kernel/outbound.ts, refuses it where it connects).
 * @returns a phrase to follow "must be …", or undefined when it is acceptable.
 */
function fetchedUrlProblem(uri: string): string | undefined {
  const problem = httpsUrlProblem(uri);
  if (problem) return problem;
  return isLinkLocalOrMetadata(new URL(uri)) ? "on neither a link-local nor a cloud metadata address" : undefined;
}

/**
 * Why `uri` cannot be a registered `jwks_uri` (RFC 7591 §2), which the token endpoint fetches:
 * see {@link fetchedUrlProblem}.
 * @returns a phrase to follow "must be …", or undefined when it is acceptable.
 */
export function jwksUriProblem(uri: string): string | undefined {
  return fetchedUrlProblem(uri);
}

/**
 * Why `uri` cannot be a registered `sector_identifier_uri` (OpenID Connect Registration §2: a URL
 * using the https scheme), which the registration fetches (sector-identifier.ts): see
 * {@link fetchedUrlProblem}.
 * @returns a phrase to follow "must be …", or undefined when it is acceptable.
 */
export function sectorIdentifierUriProblem(uri: string): string | undefined {
  return fetchedUrlProblem(uri);
}
