/**
 * Client authentication methods of the token, PAR, revocation and introspection endpoints,
 * by their RFC 7591 §2 names: HTTP Basic or `client_id` and `client_secret` in the form body
 * (RFC 6749 §2.3.1), or a JWT signed with the app's registered key (`private_key_jwt`,
 * RFC 7523 §2.2, OIDC Core §9). Each app allows some of them (`App.tokenEndpointAuthMethods`,
 * space-separated).
 */

export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt"] as const;

export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** The known methods among `names` (an app's list, split at spaces); unknown names are left out. */
export function parseClientAuthMethods(names: readonly string[]): ClientAuthMethod[] {
  return CLIENT_AUTH_METHODS.filter((m) => names.includes(m));
}
