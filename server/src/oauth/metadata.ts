/**
 * Authorization server metadata (RFC 8414) at `GET /.well-known/oauth-authorization-server`.
 */
import type { Request, Response } from "express";
import type { Config } from "../config.js";
import type { CatalogStore } from "../stores/catalog.js";
import { ACR_VALUES } from "../kernel/acr.js";
import { CLIENT_AUTH_METHODS, MTLS_AUTH_METHODS } from "../kernel/auth-methods.js";
import { grants } from "./grants/index.js";
import { ADMIN_SCOPE, OPENID_SCOPES, SCOPE_CLAIMS } from "./scopes.js";
import { PROMPTS } from "./authorize.js";
import { ID_TOKEN_CLAIMS } from "./id-token.js";
import { SIGNING_ALGORITHMS } from "./signing.js";
import { END_SESSION_PATH, JWKS_PATH, PAR_PATH, REGISTRATION_PATH, TOKEN_PATH, USERINFO_PATH } from "../kernel/paths.js";
import { OWN_SIGNING_ALGORITHMS } from "../stores/signing-keys.js";
import { RESPONSE_MODES } from "./authorization-response.js";

/**
 * The metadata document (RFC 8414 §2) for this deployment. `scopes_supported` leaves out
 * the internal `admin` scope (RFC 8414 §2: a server may omit scopes it does not advertise).
 * PAR (RFC 9126 §5) is offered to every app and required of `fapi2` apps only, so
 * `require_pushed_authorization_requests` is false server-wide; DPoP's algorithms are
 * RFC 9449 §5.1's `dpop_signing_alg_values_supported`. `acr_values_supported` (OpenID
 * Connect Discovery, used by RFC 9470 §4) lists the authentication levels, weakest first.
 * `authorization_details_types_supported` (RFC 9396 §10) lists the types API products offer.
 * Mutual TLS (RFC 8705 §3.3, §5) is advertised when client certificates can arrive (the TLS
 * listener or a proxy's header): its client authentication methods (`tls_client_auth` only
 * with CAs to check against), certificate-bound tokens, and with a TLS listener of its own
 * the endpoints' `mtls_endpoint_aliases`. With dynamic client registration on, its
 * `registration_endpoint` (RFC 8414 §2). `jwks_uri` is the JWK Set of the keys this server
 * signs with (keys/keyring.ts), on the authorization server's origin. It is also the OpenID
 * Provider's configuration (OpenID Connect Discovery 1.0 §3, served at both addresses): the
 * UserInfo endpoint, the `openid`, `profile` and `email` scopes, public subjects, the ID
 * token algorithms (PS256, ES256) and the claims an ID token and UserInfo may carry. Signed
 * introspection responses (RFC 9701 §7) and signed authorization responses (JARM §4) use the
 * same two algorithms, the latter in the response modes of {@link RESPONSE_MODES}.
 */
export function metadata(config: Config, scopes: string[], authorizationDetailsTypes: string[], registration = false): Record<string, unknown> {
  const mtls = config.tls !== undefined || config.clientCertificates.header !== undefined;
  const authMethods = CLIENT_AUTH_METHODS.filter((m) => !MTLS_AUTH_METHODS.includes(m) || (mtls && (m !== "tls_client_auth" || config.clientCertificates.caFile !== undefined)));
  const algorithms = [...SIGNING_ALGORITHMS];
  const endpoints = (base: string) => ({
    token_endpoint: `${base}${TOKEN_PATH}`,
    pushed_authorization_request_endpoint: `${base}${PAR_PATH}`,
    revocation_endpoint: `${base}/oauth2/v1/revoke`,
    introspection_endpoint: `${base}/oauth2/v1/introspect`,
    ...(registration ? { registration_endpoint: `${base}${REGISTRATION_PATH}` } : {}),
  });
  return {
    issuer: config.authUrl,
    authorization_endpoint: `${config.authUrl}/authorize`,
    jwks_uri: `${config.authUrl}${JWKS_PATH}`,
    ...endpoints(config.baseUrl),
    require_pushed_authorization_requests: false,
    userinfo_endpoint: `${config.baseUrl}${USERINFO_PATH}`,
    end_session_endpoint: `${config.authUrl}${END_SESSION_PATH}`,
    scopes_supported: [...OPENID_SCOPES, ...scopes.filter((s) => s !== ADMIN_SCOPE)],
    response_types_supported: ["code"],
    response_modes_supported: [...RESPONSE_MODES],
    grant_types_supported: [...grants.keys()],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
    token_endpoint_auth_signing_alg_values_supported: algorithms,
    revocation_endpoint_auth_signing_alg_values_supported: algorithms,
    introspection_endpoint_auth_signing_alg_values_supported: algorithms,
    introspection_signing_alg_values_supported: [...OWN_SIGNING_ALGORITHMS],
    dpop_signing_alg_values_supported: algorithms,
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    authorization_signing_alg_values_supported: [...OWN_SIGNING_ALGORITHMS],
    prompt_values_supported: [...PROMPTS],
    acr_values_supported: [...ACR_VALUES],
    subject_types_supported: ["public", "pairwise"],
    id_token_signing_alg_values_supported: [...OWN_SIGNING_ALGORITHMS],
    claims_supported: [...ID_TOKEN_CLAIMS, ...Object.values(SCOPE_CLAIMS).flat()],
    claims_parameter_supported: true,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    // RFC 9101 §10.5: not required server-wide; an app may require it (App.requireSignedRequestObject).
    require_signed_request_object: false,
    authorization_details_types_supported: authorizationDetailsTypes,
    ...(mtls ? { tls_client_certificate_bound_access_tokens: true } : {}),
    ...(config.tls ? { mtls_endpoint_aliases: endpoints(config.tls.baseUrl) } : {}),
  };
}

/** Builds the Express handler. @param registration - the dynamic client registration endpoint is on (RFC 7591 §3, `registration_endpoint`). */
export function metadataEndpoint(config: Config, catalog: CatalogStore, registration: boolean) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.set("Cache-Control", "public, max-age=300").json(metadata(config, await catalog.scopeNames(), await catalog.authorizationDetailsTypes(), registration));
  };
}
