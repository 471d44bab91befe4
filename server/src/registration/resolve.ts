/**
 * What a client is registered with: the request's metadata (client-metadata.ts) under the verified
 * software statement (software-statement.ts) and the security profile the bank requires of
 * registrations. RFC 7591 §2.3 and §3.1: the statement's values take precedence over the request's.
 *
 * How a request member that the statement also carries is treated (RFC 7591 leaves it open
 * whether a server substitutes or refuses):
 * - equal to the statement's, or left out: the statement's value is registered;
 * - `redirect_uris`: the request may narrow the statement's list (register some of its URIs,
 *   as UK Open Banking's registration profile allows); a URI outside it is refused with
 *   `invalid_redirect_uri`, the RFC 7591 §3.2.2 code for a redirect URI that is not valid here;
 * - `post_logout_redirect_uris` (OpenID Connect RP-Initiated Logout 1.0 §3.1): narrowed the same
 *   way; a URI outside the statement's list is refused with `invalid_client_metadata` (RFC 7591
 *   §3.2.2 keeps `invalid_redirect_uri` for `redirect_uris`);
 * - any other differing value (`software_id`, `software_version`, `client_name`, `jwks`,
 *   `jwks_uri`, `id_token_signed_response_alg`, `subject_type`, `sector_identifier_uri`) is
 *   refused with `invalid_client_metadata`, naming the member: the statement itself is valid, so
 *   `invalid_software_statement` would point the client at the wrong thing, and refusing rather
 *   than silently substituting tells it what it will not get.
 *
 * The `fapi2` profile (FAPI 2.0 Security Profile §5.3.2.1): `private_key_jwt` or `tls_client_auth`
 * only, chosen explicitly; sender-constrained access tokens (DPoP for private_key_jwt and mTLS for
 * tls_client_auth when the request names neither); pushed authorization requests required.
 *
 * ID tokens are signed with {@link DEFAULT_ID_TOKEN_SIGNED_RESPONSE_ALG} unless the statement or the
 * request names `id_token_signed_response_alg` (PS256 or ES256, FAPI 2.0 Security Profile §5.4.1):
 * not OpenID Connect Registration §2's RS256, which this server never signs with. Signed
 * introspection responses likewise with {@link DEFAULT_INTROSPECTION_SIGNED_RESPONSE_ALG} unless the
 * request names `introspection_signed_response_alg` (RFC 9701 §6; a software statement has none),
 * and signed authorization responses with {@link DEFAULT_AUTHORIZATION_SIGNED_RESPONSE_ALG} unless it
 * names `authorization_signed_response_alg` (JARM §3).
 *
 * Subjects (OpenID Connect Core §8): `subject_type` is {@link DEFAULT_SUBJECT_TYPE} unless the
 * statement or the request names `pairwise`. A pairwise client's sector is the host of its
 * `sector_identifier_uri`, else of its redirect URIs (oauth/subject.ts `sectorOf`): without a
 * `sector_identifier_uri`, its redirect URIs must all be on one host (Core §8.1), or the sector
 * would be ambiguous. What the `sector_identifier_uri` serves is checked by registration.ts
 * (sector-identifier.ts), not here: this module fetches nothing.
 *
 * Nonces (OpenID Connect Core §3.1.2.1): `require_nonce` (a Tollgate member, not one of OpenID
 * Connect Registration §2) is the request's, false when left out; a `fapi2` client needs a nonce
 * with `openid` regardless (oauth/authorize.ts `nonceRequired`), so it registers true, and a
 * `fapi2` request with `false` is refused rather than told something that would not hold.
 *
 * Request objects (RFC 9101 §10.5): `require_signed_request_object` is the request's, false when
 * left out; `true` needs the client's keys (`jwks` or `jwks_uri`), which verify the request objects
 * (oauth/request-object.ts), as private_key_jwt does.
 */
import { isDeepStrictEqual } from "node:util";
import type { TlsClientAuthExpectation } from "../certificates/client-auth.js";
import { nonceRequired } from "../oauth/authorize.js";
import type { PublicJwks } from "../oauth/jwks.js";
import type { SubjectType } from "../oauth/subject.js";
import type { SecurityProfile } from "../stores/clients.js";
import type { OwnSigningAlgorithm } from "../stores/signing-keys.js";
import type { GrantType, RegistrationAuthMethod, RequestedMetadata, ResponseType } from "./client-metadata.js";
import { invalidClientMetadata, invalidRedirectUri, type RegistrationError } from "./errors.js";
import type { SoftwareStatement } from "./software-statement.js";

/**
 * The client authentication methods of a `fapi2` registration (FAPI 2.0 Security Profile §5.3.2.1:
 * MTLS or private_key_jwt; issue 20: "fapi2 registrations must choose private_key_jwt or
 * tls_client_auth"): narrower than kernel/auth-methods.ts `FAPI2_AUTH_METHODS`, which also has
 * self_signed_tls_client_auth for apps an admin configures.
 */
export const FAPI2_REGISTRATION_AUTH_METHODS: readonly RegistrationAuthMethod[] = ["private_key_jwt", "tls_client_auth"];

/** The `id_token_signed_response_alg` of a registration that names none: the App column's default too (prisma/schema.prisma). */
export const DEFAULT_ID_TOKEN_SIGNED_RESPONSE_ALG: OwnSigningAlgorithm = "PS256";

/** The `introspection_signed_response_alg` of a registration that names none: the App column's default too (prisma/schema.prisma). */
export const DEFAULT_INTROSPECTION_SIGNED_RESPONSE_ALG: OwnSigningAlgorithm = "PS256";

/** The `authorization_signed_response_alg` of a registration that names none (JARM §3): the App column's default too (prisma/schema.prisma). */
export const DEFAULT_AUTHORIZATION_SIGNED_RESPONSE_ALG: OwnSigningAlgorithm = "PS256";

/** The `subject_type` of a registration that names none (OpenID Connect Registration §2): the App column's default too (prisma/schema.prisma). */
export const DEFAULT_SUBJECT_TYPE: SubjectType = "public";

/** A client's metadata as registered: what is stored and what RFC 7591 §3.2.1 answers (client-information.ts). */
export interface RegisteredMetadata {
  /** The profile the bank required of the registration; `fapi2` as an app's `securityProfile`. */
  securityProfile: SecurityProfile;
  /** The statement's `software_id`. */
  softwareId: string;
  softwareVersion?: string;
  /** The statement's client name, else the request's; undefined when neither has one. */
  clientName?: string;
  /** Exact https redirect URIs; empty only without the authorization_code grant. */
  redirectUris: string[];
  tokenEndpointAuthMethod: RegistrationAuthMethod;
  grantTypes: GrantType[];
  responseTypes: ResponseType[];
  /** The request's `scope`, when it had one: what the client intends to ask for (granted scopes are the products'). */
  scope?: string;
  /** The client's public keys (statement first, else request); at most one of `jwks` and `jwksUri`. */
  jwks?: PublicJwks;
  jwksUri?: string;
  /** RFC 8705 §2.1.2: what the client's certificate carries; only with `tls_client_auth`. */
  tlsClientAuth?: TlsClientAuthExpectation;
  /** RFC 8705 §3.4: access tokens bound to the client's certificate. */
  tlsClientCertificateBoundAccessTokens: boolean;
  /** RFC 9449 §5.2: access tokens bound to a DPoP key. */
  dpopBoundAccessTokens: boolean;
  /** RFC 9126 §6: authorization requests only by PAR (true for `fapi2`). */
  requirePushedAuthorizationRequests: boolean;
  /** OpenID Connect Registration §2: the algorithm its ID tokens are signed with (statement first, else request, else PS256). */
  idTokenSignedResponseAlg: OwnSigningAlgorithm;
  /** RFC 9701 §6: the algorithm its signed introspection responses are signed with (the request's, else PS256). */
  introspectionSignedResponseAlg: OwnSigningAlgorithm;
  /** JARM §3: the algorithm its signed authorization responses are signed with (the request's, else PS256). */
  authorizationSignedResponseAlg: OwnSigningAlgorithm;
  /** OpenID Connect Core §8: the `sub` its users get (statement first, else request, else public). */
  subjectType: SubjectType;
  /** OpenID Connect Registration §2 (statement first, else request): an https URL listing every redirect URI; its host is a pairwise client's sector. */
  sectorIdentifierUri?: string;
  /** OpenID Connect RP-Initiated Logout 1.0 §3.1: exact https URIs the logout endpoint may send the browser to (the request's within the statement's, else the statement's, else the request's); empty when none. */
  postLogoutRedirectUris: string[];
  /** OpenID Connect Core §3.1.2.1: a `nonce` on every authorization request with `openid` (the request's, else false; always true for `fapi2`). */
  requireNonce: boolean;
  /** RFC 9101 §10.5: every authorization request a signed request object (the request's, else false; only with keys). */
  requireSignedRequestObject: boolean;
}

/** The statement's value of a member, the request's when the statement has none; a differing request value is refused. */
function agreed<T>(name: string, requested: T | undefined, stated: T | undefined): T | undefined {
  if (requested !== undefined && stated !== undefined && !isDeepStrictEqual(requested, stated)) {
    throw invalidClientMetadata(`${name} differs from the software statement's: leave it out or send the statement's value`);
  }
  return stated ?? requested;
}

/**
 * A list of URIs the statement may bound: the request's, each among the statement's when it lists
 * some (`outside` makes the error of the first that is not); else the statement's; else empty.
 */
function narrowedUris(requested: string[] | undefined, stated: string[] | undefined, outside: (uri: string) => RegistrationError): string[] {
  if (stated === undefined) return requested ?? [];
  if (requested === undefined) return stated;
  const uri = requested.find((each) => !stated.includes(each));
  if (uri !== undefined) throw outside(uri);
  return requested;
}

/** The redirect URIs: the request's, each among the statement's when it lists some; else the statement's. */
function redirectUrisOf(requested: string[] | undefined, stated: string[] | undefined): string[] {
  return narrowedUris(requested, stated, (uri) => invalidRedirectUri(`a redirect URI is not among the software statement's redirect URIs: ${uri}`));
}

/** The post-logout redirect URIs: the request's, each among the statement's when it lists some; else the statement's. */
function postLogoutRedirectUrisOf(requested: string[] | undefined, stated: string[] | undefined): string[] {
  return narrowedUris(requested, stated, (uri) => invalidClientMetadata(`post_logout_redirect_uris: ${uri} is not among the software statement's post_logout_redirect_uris`));
}

/** The client's keys: the statement's when it has any (the request's must then be the same), else the request's. */
function keysOf(requested: RequestedMetadata, statement: SoftwareStatement): Pick<RegisteredMetadata, "jwks" | "jwksUri"> {
  if (statement.jwks === undefined && statement.jwksUri === undefined) {
    return requested.jwks !== undefined ? { jwks: requested.jwks } : requested.jwksUri !== undefined ? { jwksUri: requested.jwksUri } : {};
  }
  const jwks = agreed("jwks", requested.jwks, statement.jwks);
  const jwksUri = agreed("jwks_uri", requested.jwksUri, statement.jwksUri);
  if ((requested.jwks !== undefined && jwksUri !== undefined) || (requested.jwksUri !== undefined && jwks !== undefined)) {
    throw invalidClientMetadata("the software statement carries the client's keys in the other form (jwks or jwks_uri): leave them out");
  }
  return jwks !== undefined ? { jwks } : { jwksUri: jwksUri! };
}

/**
 * The subject type and sector identifier URI (statement first, else request); a pairwise client
 * without a sector identifier URI must keep its redirect URIs on one host (Core §8.1), the `host`
 * (with its port) that oauth/subject.ts `sectorOf` takes.
 */
function subjectsOf(requested: RequestedMetadata, statement: SoftwareStatement, redirectUris: string[]): Pick<RegisteredMetadata, "subjectType" | "sectorIdentifierUri"> {
  const subjectType = agreed("subject_type", requested.subjectType, statement.subjectType) ?? DEFAULT_SUBJECT_TYPE;
  const sectorIdentifierUri = agreed("sector_identifier_uri", requested.sectorIdentifierUri, statement.sectorIdentifierUri);
  if (subjectType === "pairwise" && sectorIdentifierUri === undefined && new Set(redirectUris.map((uri) => new URL(uri).host)).size > 1) {
    throw invalidClientMetadata(
      "a pairwise client whose redirect_uris are on more than one host needs a sector_identifier_uri listing them: otherwise its sector is ambiguous (OpenID Connect Core section 8.1)",
    );
  }
  return { subjectType, sectorIdentifierUri };
}

/**
 * `require_nonce`: the request's, false when left out; true for `fapi2`, which always requires a
 * nonce (oauth/authorize.ts `nonceRequired`).
 * @throws RegistrationError `invalid_client_metadata` for `false` where a nonce is required anyway.
 */
function requireNonceOf(requested: RequestedMetadata, profile: SecurityProfile): boolean {
  const required = nonceRequired({ requireNonce: requested.requireNonce ?? false, securityProfile: profile });
  if (requested.requireNonce === false && required) {
    throw invalidClientMetadata("a fapi2 client sends a nonce with every openid request (OpenID Connect Core section 3.1.2.1): leave require_nonce out or set it to true");
  }
  return required;
}

/**
 * `require_signed_request_object` (RFC 9101 §10.5): the request's, false when left out.
 * @throws RegistrationError `invalid_client_metadata` for `true` without the client's keys, which verify its request objects.
 */
function requireSignedRequestObjectOf(requested: RequestedMetadata, hasKeys: boolean): boolean {
  const required = requested.requireSignedRequestObject ?? false;
  if (required && !hasKeys) throw invalidClientMetadata(keysNeeded("require_signed_request_object true"));
  return required;
}

/** Why a member is refused without the client's keys: jwks or jwks_uri, in the statement or the request. */
function keysNeeded(what: string): string {
  return `${what} needs the client's public keys: jwks or jwks_uri, in the software statement or the request`;
}

/** The client authentication method, checked against the profile and what it needs (keys, a certificate expectation). */
function authMethodOf(requested: RequestedMetadata, profile: SecurityProfile, hasKeys: boolean): RegistrationAuthMethod {
  const method = requested.tokenEndpointAuthMethod ?? (profile === "fapi2" ? undefined : "client_secret_basic");
  if (method === undefined || (profile === "fapi2" && !FAPI2_REGISTRATION_AUTH_METHODS.includes(method))) {
    throw invalidClientMetadata(`a fapi2 registration must choose token_endpoint_auth_method ${FAPI2_REGISTRATION_AUTH_METHODS.join(" or ")} (FAPI 2.0 Security Profile section 5.3.2.1)`);
  }
  if ((method === "private_key_jwt" || method === "self_signed_tls_client_auth") && !hasKeys) {
    throw invalidClientMetadata(keysNeeded(method));
  }
  if (method === "tls_client_auth" && requested.tlsClientAuth === undefined) {
    throw invalidClientMetadata("tls_client_auth needs exactly one of tls_client_auth_subject_dn, tls_client_auth_san_dns, _san_uri, _san_ip, _san_email (RFC 8705 section 2.1.2)");
  }
  if (method !== "tls_client_auth" && requested.tlsClientAuth !== undefined) {
    throw invalidClientMetadata(`${requested.tlsClientAuth.parameter} goes with token_endpoint_auth_method tls_client_auth only (RFC 8705 section 2.1.2)`);
  }
  return method;
}

/** Grant and response types, with their defaults (RFC 7591 §2: authorization_code, code) and their pairing (§2.1). */
function flowsOf(requested: RequestedMetadata, redirectUris: string[]): Pick<RegisteredMetadata, "grantTypes" | "responseTypes"> {
  const grantTypes = requested.grantTypes ?? ["authorization_code"];
  const code = grantTypes.includes("authorization_code");
  const responseTypes = requested.responseTypes ?? (code ? ["code"] : []);
  if (code !== responseTypes.includes("code")) {
    throw invalidClientMetadata("grant_types authorization_code and response_types code go together (RFC 7591 section 2.1)");
  }
  if (grantTypes.includes("refresh_token") && !code) throw invalidClientMetadata("grant_types refresh_token needs authorization_code: client credentials tokens come without refresh tokens");
  if (code && redirectUris.length === 0) throw invalidRedirectUri("the authorization_code grant needs at least one redirect URI");
  return { grantTypes, responseTypes };
}

/** The sender constraint of access tokens; `fapi2` needs one (FAPI 2.0 Security Profile §5.3.2.1) and gets one by default. */
function bindingOf(requested: RequestedMetadata, profile: SecurityProfile, method: RegistrationAuthMethod): Pick<RegisteredMetadata, "tlsClientCertificateBoundAccessTokens" | "dpopBoundAccessTokens"> {
  const byDefault = profile === "fapi2" && requested.tlsClientCertificateBoundAccessTokens === undefined && requested.dpopBoundAccessTokens === undefined;
  const tls = requested.tlsClientCertificateBoundAccessTokens ?? (byDefault && method === "tls_client_auth");
  const dpop = requested.dpopBoundAccessTokens ?? (byDefault && method === "private_key_jwt");
  if (profile === "fapi2" && !tls && !dpop) {
    throw invalidClientMetadata("a fapi2 client gets sender-constrained access tokens only: set dpop_bound_access_tokens or tls_client_certificate_bound_access_tokens (FAPI 2.0 Security Profile section 5.3.2.1)");
  }
  return { tlsClientCertificateBoundAccessTokens: tls, dpopBoundAccessTokens: dpop };
}

/**
 * The metadata to register for `requested` under `statement` and `profile`: the statement's
 * values first (see the module's comment for conflicts), RFC 7591 §2's defaults
 * (`client_secret_basic` for a `standard` registration, `authorization_code`, `code`), PS256 for
 * ID tokens, `public` subjects, no post-logout redirect URIs, no nonce required, and the `fapi2` rules and defaults. The request's `software_statement` is not looked
 * at: the caller verified it into `statement`.
 *
 * @throws RegistrationError `invalid_client_metadata`: a member differing from the statement's;
 *   a `fapi2` registration without `token_endpoint_auth_method` private_key_jwt or tls_client_auth,
 *   or without sender-constrained tokens; private_key_jwt or self_signed_tls_client_auth without
 *   keys; tls_client_auth without its `tls_client_auth_*` member, or such a member with another
 *   method; authorization_code without code or the reverse; refresh_token without authorization_code;
 *   `pairwise` without `sector_identifier_uri` and with redirect URIs on more than one host; a
 *   post-logout redirect URI the statement does not list (when it lists some); `require_nonce`
 *   false for `fapi2`; `require_signed_request_object` true without keys.
 * @throws RegistrationError `invalid_redirect_uri`: a redirect URI the statement does not list,
 *   or none for the authorization_code grant.
 */
export function resolveMetadata(requested: RequestedMetadata, statement: SoftwareStatement, profile: SecurityProfile): RegisteredMetadata {
  const softwareId = agreed("software_id", requested.softwareId, statement.softwareId)!;
  const softwareVersion = agreed("software_version", requested.softwareVersion, statement.softwareVersion);
  const clientName = agreed("client_name", requested.clientName, statement.clientName);
  const redirectUris = redirectUrisOf(requested.redirectUris, statement.redirectUris);
  const keys = keysOf(requested, statement);
  const hasKeys = keys.jwks !== undefined || keys.jwksUri !== undefined;
  const tokenEndpointAuthMethod = authMethodOf(requested, profile, hasKeys);
  return {
    securityProfile: profile,
    softwareId,
    softwareVersion,
    clientName,
    redirectUris,
    tokenEndpointAuthMethod,
    ...flowsOf(requested, redirectUris),
    scope: requested.scope,
    ...keys,
    tlsClientAuth: tokenEndpointAuthMethod === "tls_client_auth" ? requested.tlsClientAuth : undefined,
    ...bindingOf(requested, profile, tokenEndpointAuthMethod),
    requirePushedAuthorizationRequests: profile === "fapi2",
    idTokenSignedResponseAlg: agreed("id_token_signed_response_alg", requested.idTokenSignedResponseAlg, statement.idTokenSignedResponseAlg) ?? DEFAULT_ID_TOKEN_SIGNED_RESPONSE_ALG,
    introspectionSignedResponseAlg: requested.introspectionSignedResponseAlg ?? DEFAULT_INTROSPECTION_SIGNED_RESPONSE_ALG,
    authorizationSignedResponseAlg: requested.authorizationSignedResponseAlg ?? DEFAULT_AUTHORIZATION_SIGNED_RESPONSE_ALG,
    ...subjectsOf(requested, statement, redirectUris),
    postLogoutRedirectUris: postLogoutRedirectUrisOf(requested.postLogoutRedirectUris, statement.postLogoutRedirectUris),
    requireNonce: requireNonceOf(requested, profile),
    requireSignedRequestObject: requireSignedRequestObjectOf(requested, hasKeys),
  };
}
