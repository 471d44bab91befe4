/**
 * The body of a registration request (RFC 7591 §2, §3.1) or of an update (RFC 7592 §2.2): a JSON
 * object of client metadata, parsed and checked member by member. Only the members below are read;
 * every other member is ignored (RFC 7591 §2: the server MAY ignore metadata it does not
 * understand) and never reaches the result, so it is never stored. A member given as null is taken
 * as left out (RFC 7592 §2.2). Which values win over the software statement's, and what the
 * members must be together, is resolve.ts's.
 *
 * Bounds: at most {@link MAX_REQUEST_MEMBERS} members, {@link MAX_REDIRECT_URIS} redirect URIs (and as
 * many post-logout redirect URIs), URLs of at most 2000 characters, names of at most 100; the JWK Set as oauth/jwks.ts bounds it
 * (32 KiB, 10 keys); the software statement as software-statement.ts bounds it. The HTTP layer
 * bounds the body's bytes before JSON parsing.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { MAX_DN_STRING_LENGTH } from "../certificates/distinguished-name.js";
import { TLS_CLIENT_AUTH_PARAMETERS, tlsClientAuthExpectation, type TlsClientAuthExpectation } from "../certificates/client-auth.js";
import type { ClientAuthMethod } from "../kernel/auth-methods.js";
import { NAME_MAX_LENGTH, SCOPES_MAX_COUNT } from "../kernel/limits.js";
import type { PublicJwks } from "../oauth/jwks.js";
import type { SubjectType } from "../oauth/subject.js";
import type { OwnSigningAlgorithm } from "../stores/signing-keys.js";
import { invalidClientMetadata, invalidRedirectUri, invalidSoftwareStatement } from "./errors.js";
import { clientKeysOf } from "./keys.js";
import { MAX_IDENTIFIER_LENGTH } from "./software-statement.js";
import { MAX_REDIRECT_URIS, redirectUriProblem } from "./uris.js";
import {
  absent,
  optionalDisplayText,
  optionalIdTokenAlg,
  optionalIntrospectionAlg,
  optionalAuthorizationAlg,
  optionalPostLogoutRedirectUris,
  optionalSectorIdentifierUri,
  optionalStringList,
  optionalSubjectType,
  optionalText,
  optionalVersion,
  ownMember,
} from "./values.js";

/**
 * The `token_endpoint_auth_method` values a registration may choose (RFC 7591 §2, RFC 8705 §2.1 and
 * §2.2): a JWT signed with the client's key (RFC 7523), a CA-issued certificate (`tls_client_auth`),
 * a self-signed certificate, or a client secret by HTTP Basic (a `standard` registration only).
 */
export const REGISTRATION_AUTH_METHODS = ["private_key_jwt", "tls_client_auth", "self_signed_tls_client_auth", "client_secret_basic"] as const satisfies readonly ClientAuthMethod[];
export type RegistrationAuthMethod = (typeof REGISTRATION_AUTH_METHODS)[number];

/** The `grant_types` a registration may name (RFC 7591 §2). */
export const GRANT_TYPES = ["authorization_code", "refresh_token", "client_credentials"] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** The `response_types` a registration may name (RFC 7591 §2): the authorization code flow only. */
export const RESPONSE_TYPES = ["code"] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** Most members a request body may have, known or not. */
export const MAX_REQUEST_MEMBERS = 64;
/** Longest `scope`, in characters. */
const MAX_SCOPE_LENGTH = 1000;
/** RFC 6749 §3.3: a scope token's characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The metadata a request asks for; a member left out (or null) is undefined. */
export interface RequestedMetadata {
  /** `redirect_uris`: https, no fragment, each once, as sent (uris.ts). */
  redirectUris?: string[];
  tokenEndpointAuthMethod?: RegistrationAuthMethod;
  /** `grant_types`, each once. */
  grantTypes?: GrantType[];
  /** `response_types`, each once. */
  responseTypes?: ResponseType[];
  /** `client_name`: shown to the PSU, so without control or invisible characters (values.ts `optionalDisplayText`). */
  clientName?: string;
  /** `scope`: RFC 6749 §3.3 tokens, each once, joined by single spaces. */
  scope?: string;
  /** `jwks`: public signing keys only (oauth/jwks.ts). */
  jwks?: PublicJwks;
  /** `jwks_uri` (uris.ts). */
  jwksUri?: string;
  /** The one `tls_client_auth_*` member of RFC 8705 §2.1.2, when the request has one. */
  tlsClientAuth?: TlsClientAuthExpectation;
  /** RFC 8705 §3.4 `tls_client_certificate_bound_access_tokens`. */
  tlsClientCertificateBoundAccessTokens?: boolean;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`. */
  dpopBoundAccessTokens?: boolean;
  /** OpenID Connect Registration §2 `id_token_signed_response_alg`: PS256 or ES256 (values.ts `optionalIdTokenAlg`). */
  idTokenSignedResponseAlg?: OwnSigningAlgorithm;
  /** RFC 9701 §6 `introspection_signed_response_alg`: PS256 or ES256 (values.ts `optionalIntrospectionAlg`). */
  introspectionSignedResponseAlg?: OwnSigningAlgorithm;
  /** JARM §3 `authorization_signed_response_alg`: PS256 or ES256 (values.ts `optionalAuthorizationAlg`). */
  authorizationSignedResponseAlg?: OwnSigningAlgorithm;
  /** OpenID Connect Registration §2 `subject_type`: public or pairwise (values.ts `optionalSubjectType`). */
  subjectType?: SubjectType;
  /** OpenID Connect Registration §2 `sector_identifier_uri`: an https URL (values.ts `optionalSectorIdentifierUri`), not yet fetched. */
  sectorIdentifierUri?: string;
  /** OpenID Connect RP-Initiated Logout 1.0 §3.1 `post_logout_redirect_uris`: a redirect URI's rules, each once, as sent (values.ts `optionalPostLogoutRedirectUris`). */
  postLogoutRedirectUris?: string[];
  /** `require_nonce`: a `nonce` on every authorization request with `openid` (OpenID Connect Core §3.1.2.1). */
  requireNonce?: boolean;
  /** RFC 9101 §10.5 `require_signed_request_object`: every authorization request a signed request object (JAR). */
  requireSignedRequestObject?: boolean;
  softwareId?: string;
  softwareVersion?: string;
  /** `software_statement`, a string, not yet verified (software-statement.ts). */
  softwareStatement?: string;
}

/** A boolean member; undefined when absent. */
function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== "boolean") throw invalidClientMetadata(`${name} must be true or false`);
  return value;
}

/** A list member whose values are all among `allowed`; undefined when absent. */
function optionalEnumList<T extends string>(value: unknown, name: string, allowed: readonly T[]): T[] | undefined {
  const items = optionalStringList(value, name, allowed.length * 2, 64, invalidClientMetadata);
  const unknown = items?.find((item) => !(allowed as readonly string[]).includes(item));
  if (unknown !== undefined) throw invalidClientMetadata(`${name} may hold only ${allowed.join(", ")}; ${unknown.slice(0, 40)} is not supported`);
  return items as T[] | undefined;
}

/** `redirect_uris`: each one valid (uris.ts), or `invalid_redirect_uri` (RFC 7591 §3.2.2). */
function redirectUrisOf(value: unknown): string[] | undefined {
  const uris = optionalStringList(value, "redirect_uris", MAX_REDIRECT_URIS, Number.MAX_SAFE_INTEGER, invalidRedirectUri);
  for (const [index, uri] of (uris ?? []).entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidRedirectUri(`redirect URI ${index + 1} must be ${problem}`);
  }
  return uris;
}

/** `scope`: space-separated RFC 6749 §3.3 tokens; an empty string is taken as left out. */
function scopeOf(value: unknown): string | undefined {
  if (absent(value) || value === "") return undefined;
  if (typeof value !== "string") throw invalidClientMetadata("scope must be a string");
  if (value.length > MAX_SCOPE_LENGTH) throw invalidClientMetadata(`scope must be at most ${MAX_SCOPE_LENGTH} characters`);
  const tokens = new Set(value.split(" "));
  if (![...tokens].every((token) => SCOPE_TOKEN.test(token))) throw invalidClientMetadata("scope must be scope tokens separated by single spaces (RFC 6749 section 3.3)");
  if (tokens.size > SCOPES_MAX_COUNT) throw invalidClientMetadata(`scope may name at most ${SCOPES_MAX_COUNT} scopes`);
  return [...tokens].join(" ");
}

/** The `tls_client_auth_*` member (RFC 8705 §2.1.2), when any is present: exactly one, clean text, well-formed (certificates/client-auth.ts). */
function tlsClientAuthOf(body: Record<string, unknown>): TlsClientAuthExpectation | undefined {
  const present = TLS_CLIENT_AUTH_PARAMETERS.filter((name) => !absent(ownMember(body, name)));
  if (present.length === 0) return undefined;
  const given: Record<string, unknown> = {};
  for (const name of present) given[name] = optionalText(ownMember(body, name), name, MAX_DN_STRING_LENGTH, invalidClientMetadata);
  try {
    return tlsClientAuthExpectation(given);
  } catch (error) {
    throw invalidClientMetadata(error instanceof TypeError ? error.message : `${present[0]} is not valid`);
  }
}

/** `token_endpoint_auth_method`: one of {@link REGISTRATION_AUTH_METHODS}; undefined when absent. */
function authMethodOf(value: unknown): RegistrationAuthMethod | undefined {
  if (absent(value)) return undefined;
  const method = REGISTRATION_AUTH_METHODS.find((each) => each === value);
  if (!method) throw invalidClientMetadata(`token_endpoint_auth_method must be one of ${REGISTRATION_AUTH_METHODS.join(", ")}`);
  return method;
}

/**
 * Parses a registration or update request body (RFC 7591 §2 members, RFC 8705 §2.1.2 and §3.4,
 * RFC 9449 §5.2, OpenID Connect Dynamic Client Registration 1.0 §2 `id_token_signed_response_alg`,
 * `subject_type` and `sector_identifier_uri`, RFC 9701 §6 `introspection_signed_response_alg`, OpenID Connect RP-Initiated Logout 1.0 §3.1
 * `post_logout_redirect_uris`, RFC 9101 §10.5 `require_signed_request_object`, and Tollgate's
 * `require_nonce`: a `nonce` required with `openid`, OpenID Connect Core §3.1.2.1) into {@link RequestedMetadata}. Members other than
 * those of the interface are ignored. Checks each member alone; how they fit together and with the
 * software statement is resolve.ts's.
 *
 * @param body - the parsed JSON body (any JSON value).
 * @throws RegistrationError `invalid_client_metadata`: not a JSON object, more than
 *   {@link MAX_REQUEST_MEMBERS} members, a member of the wrong type or size, a `client_name` with a
 *   control or invisible character (values.ts `optionalDisplayText`: the PSU is shown it), an unsupported
 *   `token_endpoint_auth_method`, grant or response type, an invalid `scope`, `jwks` (not public
 *   signing keys of PS256/ES256/EdDSA) or `jwks_uri`, both `jwks` and `jwks_uri`, none or several
 *   well-formed `tls_client_auth_*` members when any is present, an `id_token_signed_response_alg`
 *   or `introspection_signed_response_alg` other than PS256 or ES256, a `subject_type` other than public or pairwise, a
 *   `sector_identifier_uri` that is not an https URL (what it serves is checked later:
 *   sector-identifier.ts), `post_logout_redirect_uris` not an array of at most
 *   {@link MAX_REDIRECT_URIS} URLs each valid as a redirect URI (uris.ts): not `invalid_redirect_uri`,
 *   which RFC 7591 §3.2.2 keeps for `redirect_uris`; a `require_nonce` or
 *   `require_signed_request_object` that is not a boolean.
 * @throws RegistrationError `invalid_redirect_uri`: `redirect_uris` not an array of at most
 *   {@link MAX_REDIRECT_URIS} valid https URIs (uris.ts).
 * @throws RegistrationError `invalid_software_statement`: `software_statement` not a string.
 */
export async function parseClientMetadata(body: unknown): Promise<RequestedMetadata> {
  if (!isJsonObject(body)) throw invalidClientMetadata("the request body must be a JSON object of client metadata (RFC 7591 section 2)");
  if (Object.keys(body).length > MAX_REQUEST_MEMBERS) throw invalidClientMetadata(`the request body may have at most ${MAX_REQUEST_MEMBERS} members`);
  const grantTypes = optionalEnumList(ownMember(body, "grant_types"), "grant_types", GRANT_TYPES);
  if (grantTypes?.length === 0) throw invalidClientMetadata("grant_types must name at least one grant type");
  const statement = ownMember(body, "software_statement");
  if (!absent(statement) && typeof statement !== "string") throw invalidSoftwareStatement("the software statement must be a compact JWS string");
  return {
    redirectUris: redirectUrisOf(ownMember(body, "redirect_uris")),
    tokenEndpointAuthMethod: authMethodOf(ownMember(body, "token_endpoint_auth_method")),
    grantTypes,
    responseTypes: optionalEnumList(ownMember(body, "response_types"), "response_types", RESPONSE_TYPES),
    clientName: optionalDisplayText(ownMember(body, "client_name"), "client_name", NAME_MAX_LENGTH, invalidClientMetadata),
    scope: scopeOf(ownMember(body, "scope")),
    ...(await clientKeysOf(ownMember(body, "jwks"), ownMember(body, "jwks_uri"), invalidClientMetadata)),
    tlsClientAuth: tlsClientAuthOf(body),
    tlsClientCertificateBoundAccessTokens: optionalBoolean(ownMember(body, "tls_client_certificate_bound_access_tokens"), "tls_client_certificate_bound_access_tokens"),
    dpopBoundAccessTokens: optionalBoolean(ownMember(body, "dpop_bound_access_tokens"), "dpop_bound_access_tokens"),
    idTokenSignedResponseAlg: optionalIdTokenAlg(ownMember(body, "id_token_signed_response_alg"), invalidClientMetadata),
    introspectionSignedResponseAlg: optionalIntrospectionAlg(ownMember(body, "introspection_signed_response_alg"), invalidClientMetadata),
    authorizationSignedResponseAlg: optionalAuthorizationAlg(ownMember(body, "authorization_signed_response_alg"), invalidClientMetadata),
    subjectType: optionalSubjectType(ownMember(body, "subject_type"), invalidClientMetadata),
    sectorIdentifierUri: optionalSectorIdentifierUri(ownMember(body, "sector_identifier_uri"), invalidClientMetadata),
    postLogoutRedirectUris: optionalPostLogoutRedirectUris(ownMember(body, "post_logout_redirect_uris"), invalidClientMetadata),
    requireNonce: optionalBoolean(ownMember(body, "require_nonce"), "require_nonce"),
    requireSignedRequestObject: optionalBoolean(ownMember(body, "require_signed_request_object"), "require_signed_request_object"),
    softwareId: optionalText(ownMember(body, "software_id"), "software_id", MAX_IDENTIFIER_LENGTH, invalidClientMetadata),
    softwareVersion: optionalVersion(ownMember(body, "software_version"), invalidClientMetadata),
    softwareStatement: typeof statement === "string" ? statement : undefined,
  };
}
