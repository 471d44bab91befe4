/**
 * Client authentication methods of the token, revocation and introspection endpoints, by
 * their RFC 7591 §2 names (RFC 6749 §2.3.1): HTTP Basic, or `client_id` and
 * `client_secret` in the form body. Each app allows some of them
 * (`App.tokenEndpointAuthMethods`, space-separated).
 */

export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;

export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** The known methods among `names` (an app's list, split at spaces); unknown names are left out. */
export function parseClientAuthMethods(names: readonly string[]): ClientAuthMethod[] {
  return CLIENT_AUTH_METHODS.filter((m) => names.includes(m));
}
