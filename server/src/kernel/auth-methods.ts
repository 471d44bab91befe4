/**
 * Client authentication methods of the token, PAR, revocation and introspection endpoints,
 * by their RFC 7591 §2 names: HTTP Basic or `client_id` and `client_secret` in the form body
 * (RFC 6749 §2.3.1), a JWT signed with the app's registered key (`private_key_jwt`,
 * RFC 7523 §2.2, OIDC Core §9), or a TLS client certificate issued by a trusted CA with the
 * app's registered name (`tls_client_auth`, RFC 8705 §2.1) or registered itself
 * (`self_signed_tls_client_auth`, §2.2). Each app allows some of them
 * (`App.tokenEndpointAuthMethods`, space-separated).
 */

export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "tls_client_auth", "self_signed_tls_client_auth"] as const;

/** The mutual-TLS methods (RFC 8705 §2): the client certificate authenticates the client. */
export const MTLS_AUTH_METHODS: readonly ClientAuthMethod[] = ["tls_client_auth", "self_signed_tls_client_auth"];

/** The methods a `fapi2` app may use (FAPI 2.0 Security Profile §5.3.2.1: private_key_jwt or mutual TLS). */
export const FAPI2_AUTH_METHODS: readonly ClientAuthMethod[] = ["private_key_jwt", ...MTLS_AUTH_METHODS];

export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** The known methods among `names` (an app's list, split at spaces); unknown names are left out. */
export function parseClientAuthMethods(names: readonly string[]): ClientAuthMethod[] {
  return CLIENT_AUTH_METHODS.filter((m) => names.includes(m));
}
