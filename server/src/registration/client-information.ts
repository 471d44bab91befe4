/**
 * The client information response (RFC 7591 §3.2.1, extended by RFC 7592 §3): the answer to a
 * registration (201), a read (200) and an update (200); a deletion answers 204 with no body
 * (RFC 7592 §2.3).
 *
 * What it carries: `client_id`, `client_id_issued_at`; `client_secret` only in the response that
 * issues it (only its hash is kept, so a read cannot repeat it) and `client_secret_expires_at` 0
 * (never) whenever the client has one; `registration_access_token` only in a response that issues
 * one (registration, and an update that rotates it: RFC 7592 §2.2 allows it) for the same reason;
 * `registration_client_uri`; every registered metadata member under its RFC 7591 §2 name; and the
 * software statement unmodified (RFC 7591 §3.2.1).
 *
 * Beyond RFC 7591 (§3.2.1 lets the server add members), `status`: the app's status as this
 * server's token responses name it (`approved`, `pending` or `revoked`); a `pending` client, one
 * that waits for the bank's approval (REGISTRATION_REQUIRES_APPROVAL), also gets
 * `status_description`, the note its token requests get until then ({@link PENDING_APPROVAL_NOTE}).
 */
import type { RegisteredMetadata } from "./resolve.js";

/** A registered client's app status: `pending` until an admin approves it, when the bank requires approval. */
export type RegisteredClientStatus = "approved" | "pending" | "revoked";

/** The `status_description` of a `pending` client: what its token requests are answered until an admin approves it. */
export const PENDING_APPROVAL_NOTE = "the app awaits the bank's approval: its client gets no tokens (401 invalid_client) until an administrator approves it";

/** Everything a client information response is made of. */
export interface ClientInformation {
  clientId: string;
  /** Seconds since the epoch (RFC 7591 §3.2.1 `client_id_issued_at`). */
  clientIdIssuedAt: number;
  /** The client configuration endpoint of this client (RFC 7592 §3): {@link registrationClientUri}. */
  registrationClientUri: string;
  metadata: RegisteredMetadata;
  /** The software statement as the client sent it. */
  softwareStatement: string;
  /** The client secret, only in the response that issues it. */
  clientSecret?: string;
  /** The registration access token, only in the response that issues it. */
  registrationAccessToken?: string;
  /** The app's status; left out of the response when undefined. */
  status?: RegisteredClientStatus;
}

/**
 * The URL of a client's configuration endpoint (RFC 7592 §2): the registration endpoint's URL, a
 * slash, and the client id, percent-encoded as a path segment.
 * @param registrationEndpoint - absolute URL of the registration endpoint, e.g. `https://bank.example/oauth2/v1/register`.
 */
export function registrationClientUri(registrationEndpoint: string, clientId: string): string {
  return `${registrationEndpoint.replace(/\/+$/, "")}/${encodeURIComponent(clientId)}`;
}

/**
 * The registered metadata under their RFC 7591 §2 names (RFC 8705 §2.1.2 and §3.4, RFC 9449 §5.2,
 * RFC 9126 §6, OpenID Connect Dynamic Client Registration 1.0 §2, RFC 9701 §6, JARM §3, RFC 9101 §10.5, OpenID Connect RP-Initiated
 * Logout 1.0 §3.1 for the extensions, and Tollgate's `require_nonce`, OpenID Connect Core
 * §3.1.2.1); members without a value are left out, and so are
 * `post_logout_redirect_uris` when there are none. What a client sends back
 * in an update (RFC 7592 §2.2), so client-metadata.ts parses it into the same metadata.
 */
export function metadataMembers(metadata: RegisteredMetadata): Record<string, unknown> {
  const members: Record<string, unknown> = {
    redirect_uris: metadata.redirectUris,
    token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
    grant_types: metadata.grantTypes,
    response_types: metadata.responseTypes,
    client_name: metadata.clientName,
    scope: metadata.scope,
    jwks: metadata.jwks,
    jwks_uri: metadata.jwksUri,
    tls_client_certificate_bound_access_tokens: metadata.tlsClientCertificateBoundAccessTokens,
    dpop_bound_access_tokens: metadata.dpopBoundAccessTokens,
    require_pushed_authorization_requests: metadata.requirePushedAuthorizationRequests,
    id_token_signed_response_alg: metadata.idTokenSignedResponseAlg,
    introspection_signed_response_alg: metadata.introspectionSignedResponseAlg,
    authorization_signed_response_alg: metadata.authorizationSignedResponseAlg,
    subject_type: metadata.subjectType,
    sector_identifier_uri: metadata.sectorIdentifierUri,
    post_logout_redirect_uris: metadata.postLogoutRedirectUris.length > 0 ? metadata.postLogoutRedirectUris : undefined,
    require_nonce: metadata.requireNonce,
    require_signed_request_object: metadata.requireSignedRequestObject,
    software_id: metadata.softwareId,
    software_version: metadata.softwareVersion,
  };
  if (metadata.tlsClientAuth) members[metadata.tlsClientAuth.parameter] = metadata.tlsClientAuth.value;
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
}

/**
 * The JSON body of a client information response (RFC 7591 §3.2.1, RFC 7592 §3); see the
 * module's comment for which secrets it carries. `client_secret_expires_at` is 0 for a
 * `client_secret_basic` client (its secret does not expire) and absent otherwise.
 */
export function clientInformationResponse(info: ClientInformation): Record<string, unknown> {
  const hasSecret = info.metadata.tokenEndpointAuthMethod === "client_secret_basic";
  return {
    client_id: info.clientId,
    ...(info.clientSecret !== undefined && { client_secret: info.clientSecret }),
    client_id_issued_at: info.clientIdIssuedAt,
    ...(hasSecret && { client_secret_expires_at: 0 }),
    ...(info.registrationAccessToken !== undefined && { registration_access_token: info.registrationAccessToken }),
    registration_client_uri: info.registrationClientUri,
    ...metadataMembers(info.metadata),
    software_statement: info.softwareStatement,
    ...(info.status !== undefined && { status: info.status }),
    ...(info.status === "pending" && { status_description: PENDING_APPROVAL_NOTE }),
  };
}
