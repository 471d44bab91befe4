/**
 * Clients as the OAuth endpoints see them (RFC 6749 §2): an app's credential joined with
 * the app, its developer and organization, its approved API products and callback URLs.
 */
import type { ClientAuthMethod } from "../kernel/auth-methods.js";

/** Token response format of an app: the spec's Apigee format, or strict RFC 6749. */
export type TokenResponseProfile = "apigee" | "rfc6749";

/**
 * An app's security profile: `standard`, or `fapi2`, the FAPI 2.0 Security Profile (PAR,
 * PKCE S256, private_key_jwt only, DPoP-bound tokens, RFC 6749 token responses, no refresh
 * token rotation).
 */
export type SecurityProfile = "standard" | "fapi2";

/** An access token's format: `opaque` (the default), or `jwt` (RFC 9068) for resource servers that validate it offline. */
export type AccessTokenFormat = "opaque" | "jwt";

/** A stored access token format (an API product's, a token's): `jwt`, else `opaque`, the default. */
export function accessTokenFormatOf(stored: string): AccessTokenFormat {
  return stored === "jwt" ? "jwt" : "opaque";
}

export const SECURITY_PROFILES: readonly SecurityProfile[] = ["standard", "fapi2"];

/** A JWK Set of public keys (RFC 7517 §5), as registered. */
export interface JwkSet {
  keys: Record<string, unknown>[];
}

/** An app's credential with everything the token endpoint needs. Shared between requests: read-only. */
export interface ClientRecord {
  /** The consumer key (OAuth `client_id`). */
  clientId: string;
  credentialId: string;
  /** SHA-256 hex of the consumer secret. */
  consumerSecretHash: string;
  /** approved | revoked */
  credentialStatus: string;
  /** End of the credential's validity (rotation grace period), if any. */
  credentialExpiresAt: Date | null;
  appId: string;
  appName: string;
  /** approved | revoked */
  appStatus: string;
  organizationName: string;
  developerEmail: string;
  tokenResponseProfile: TokenResponseProfile;
  /** The algorithm its ID tokens are signed with (OpenID Connect Registration §2 `id_token_signed_response_alg`). */
  idTokenSignedResponseAlg: "PS256" | "ES256";
  /** The algorithm its signed authorization responses are signed with (JARM §3 `authorization_signed_response_alg`). */
  authorizationSignedResponseAlg: "PS256" | "ES256";
  /** The algorithm its signed introspection responses are signed with (RFC 9701 §6 `introspection_signed_response_alg`). */
  introspectionSignedResponseAlg: "PS256" | "ES256";
  /** Its subject identifiers (OpenID Connect Core §8): `public` or `pairwise`. */
  subjectType: "public" | "pairwise";
  /** OpenID Connect Registration §2 `sector_identifier_uri`: the pairwise sector's host; null when none. */
  sectorIdentifierUri: string | null;
  /** Where the browser may be sent after RP-Initiated Logout (1.0 §3.1), matched exactly. */
  postLogoutRedirectUris: string[];
  /** Seconds. */
  accessTokenLifetimeSeconds: number;
  /** Seconds. */
  refreshTokenLifetimeSeconds: number;
  requirePkce: boolean;
  /**
   * OpenID Connect Core §3.1.2.1: every authorization request with `openid` must carry a `nonce`
   * (oauth/authorize.ts `nonceRequired`, which also requires one of every `fapi2` app).
   */
  requireNonce: boolean;
  /** RFC 9101 §10.5 `require_signed_request_object`: every authorization request must be a signed request object. */
  requireSignedRequestObject: boolean;
  /** The bank's identity provider the app's PSUs sign in at (federation/); null: its products', else Tollgate's own sign-in. */
  identityProviderId: string | null;
  /** May call the introspection endpoint (RFC 7662). */
  canIntrospect: boolean;
  /** Client authentication methods the app may use (RFC 6749 §2.3.1); default client_secret_basic only. */
  tokenEndpointAuthMethods: ClientAuthMethod[];
  securityProfile: SecurityProfile;
  /** The app's public keys for private_key_jwt; null when none are registered. */
  jwks: JwkSet | null;
  /** Where the app publishes its keys instead (RFC 7591 §2 `jwks_uri`); null when not set. */
  jwksUri: string | null;
  /**
   * tls_client_auth (RFC 8705 §2.1.2): the name its certificate must carry, as one of
   * tls_client_auth_subject_dn or tls_client_auth_san_dns|uri|ip|email and its value; null when none.
   */
  tlsClientAuth: { parameter: string; value: string } | null;
  /**
   * API products approved on this credential, with their scopes, whether they need PSD2 strong customer authentication,
   * the format of the access tokens they grant (RFC 9068 JWT, or opaque), and the identity provider their PSUs sign in at.
   */
  products: { name: string; scopes: string[]; requiresSca: boolean; authorizationDetailsTypes: string[]; accessTokenFormat: AccessTokenFormat; identityProviderId: string | null }[];
  /** Registered redirect URIs, matched exactly. */
  callbackUrls: string[];
}

/** An app's name, organization and status, for display and status checks. */
export interface AppSummary {
  name: string;
  /** The organization's display name (its name when it has none): what end users see. */
  organizationName: string;
  /** approved | revoked */
  status: string;
  /** How long the app's refresh tokens live, seconds: how long a user's grant lasts without them. */
  refreshTokenLifetimeSeconds: number;
}

/**
 * Client lookups. The `by…` reads come from a per-process catalog cache (fresh within
 * CATALOG_CACHE_TTL_MS, emptied by every catalog write of this process).
 */
export interface ClientStore {
  /** @returns undefined when no credential has this consumer key. */
  byConsumerKey(consumerKey: string): Promise<ClientRecord | undefined>;
  /** What {@link byConsumerKey} would answer from the cache right now, without loading; undefined when not cached. */
  cachedByConsumerKey(consumerKey: string): Promise<ClientRecord | undefined> | undefined;
  /**
   * The SHA-256 hex of the consumer secret, read from the database, never from the cache:
   * one indexed read that costs the same whether or not the key exists.
   */
  consumerSecretHash(consumerKey: string): Promise<string | undefined>;
  /** Like {@link byConsumerKey}, by credential id (a token's credential). */
  byCredentialId(credentialId: string): Promise<ClientRecord | undefined>;
  /** @returns undefined when no app has this id. */
  appSummary(appId: string): Promise<AppSummary | undefined>;
}
