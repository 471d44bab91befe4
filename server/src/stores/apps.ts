/**
 * Apps (OAuth clients, RFC 6749 §2; Apigee: developer apps) as the admin API manages them:
 * their settings, callback URLs, credentials (consumer key / secret pairs) and the API
 * products approved on each credential. The token endpoint's view of the same rows is clients.ts.
 */
import type { SecurityProfile } from "./clients.js";
import type { Page, PageRequest } from "./page.js";
import type { ApiProductRecord } from "./products.js";
import type { OwnSigningAlgorithm } from "./signing-keys.js";

export interface AppRecord {
  id: string;
  /** Unique per developer. */
  name: string;
  developerId: string;
  /** approved | revoked */
  status: string;
  /** Seconds. */
  accessTokenLifetimeSeconds: number;
  /** Seconds. */
  refreshTokenLifetimeSeconds: number;
  /** apigee | rfc6749 */
  tokenResponseProfile: string;
  requirePkce: boolean;
  /** OpenID Connect Core §3.1.2.1: a `nonce` on every authorization request with `openid` (a fapi2 app needs one regardless); false unless set. */
  requireNonce: boolean;
  /** RFC 9101 §10.5 `require_signed_request_object`: every authorization request a signed request object (JAR), verified with the app's keys; false unless set. */
  requireSignedRequestObject: boolean;
  canIntrospect: boolean;
  /** Client authentication methods (RFC 7591 §2 names), as stored. */
  tokenEndpointAuthMethods: string[];
  securityProfile: SecurityProfile;
  /** The JSON text of the app's public JWK Set (RFC 7517 §5) for private_key_jwt, as registered; null when none. */
  jwks: string | null;
  /** Where the app publishes its JWK Set instead (RFC 7591 §2 `jwks_uri`); null when not set. */
  jwksUri: string | null;
  /** tls_client_auth (RFC 8705 §2.1.2): the parameter naming what its certificate carries, and the value; null when none. */
  tlsClientAuth: TlsClientAuthName | null;
  /** The algorithm its ID tokens are signed with (OpenID Connect Registration §2 `id_token_signed_response_alg`): PS256 unless set. */
  idTokenSignedResponseAlg: OwnSigningAlgorithm;
  /** The algorithm its signed introspection responses are signed with (RFC 9701 §6 `introspection_signed_response_alg`): PS256 unless set. */
  introspectionSignedResponseAlg: OwnSigningAlgorithm;
  /** The algorithm its signed authorization responses are signed with (JARM §3 `authorization_signed_response_alg`): PS256 unless set. */
  authorizationSignedResponseAlg: OwnSigningAlgorithm;
  /** OpenID Connect Core §8 `subject_type`: the `sub` its users get (oauth/subject.ts); public unless set. */
  subjectType: "public" | "pairwise";
  /** OpenID Connect Registration §2 `sector_identifier_uri`: its host is a pairwise app's sector; null when not set. */
  sectorIdentifierUri: string | null;
  /** OpenID Connect RP-Initiated Logout 1.0 §3.1 `post_logout_redirect_uris`: where the logout endpoint may send the browser, matched exactly; empty when none. */
  postLogoutRedirectUris: string[];
  /** The bank's identity provider its PSUs sign in at (federation/), before its API products' choice; null when none. */
  identityProviderId: string | null;
  /** How the app registered itself (RFC 7591), JSON (registration/stored.ts); null for an app an admin created. */
  registration: string | null;
  createdAt: Date;
}

/** A dynamic registration as stored: its JSON and the SHA-256 hex of its registration access token (RFC 7592 §3). */
export interface AppRegistrationColumns {
  registration: string;
  registrationAccessTokenHash: string;
}

/**
 * The software a dynamic registration is for (RFC 7591 §2 `software_id`) and the organization it
 * registered for: an organization registers a software once (the database's unique index).
 */
export interface RegisteredSoftware {
  organizationId: string;
  softwareId: string;
}

/** The name a `tls_client_auth` app's certificate carries (RFC 8705 §2.1.2), e.g. `{ parameter: "tls_client_auth_subject_dn", value: "CN=…" }`. */
export interface TlsClientAuthName {
  parameter: string;
  value: string;
}

/** An app's client settings: on creation a field left out takes its default, on update it keeps its value. */
export interface AppSettings {
  /** Seconds. */
  accessTokenLifetimeSeconds?: number;
  /** Seconds. */
  refreshTokenLifetimeSeconds?: number;
  tokenResponseProfile?: string;
  requirePkce?: boolean;
  /** A `nonce` on every authorization request with `openid`; false by default. */
  requireNonce?: boolean;
  /** Every authorization request a signed request object (JAR); false by default. */
  requireSignedRequestObject?: boolean;
  canIntrospect?: boolean;
  /** RFC 7591 §2 names. */
  tokenEndpointAuthMethods?: string[];
  securityProfile?: SecurityProfile;
  /** The JSON text of a public JWK Set; null removes the app's set. */
  jwks?: string | null;
  /** A JWK Set URL; null removes it. */
  jwksUri?: string | null;
  /** The name a tls_client_auth certificate carries; null removes it. */
  tlsClientAuth?: TlsClientAuthName | null;
  /** The algorithm its ID tokens are signed with; PS256 by default. */
  idTokenSignedResponseAlg?: OwnSigningAlgorithm;
  /** The algorithm its signed introspection responses are signed with; PS256 by default. */
  introspectionSignedResponseAlg?: OwnSigningAlgorithm;
  /** The algorithm its signed authorization responses (JARM) are signed with; PS256 by default. */
  authorizationSignedResponseAlg?: OwnSigningAlgorithm;
  /** public (the default) or pairwise subject identifiers. */
  subjectType?: "public" | "pairwise";
  /** The sector identifier URL; null removes it. */
  sectorIdentifierUri?: string | null;
  /** The post-logout redirect URIs, replacing the app's; none by default. */
  postLogoutRedirectUris?: string[];
  /** The identity provider its PSUs sign in at; null removes it; none by default. */
  identityProviderId?: string | null;
}

/** A credential. Its secret is never read back: only its SHA-256 is stored. */
export interface CredentialRecord {
  id: string;
  appId: string;
  /** The OAuth client_id. */
  consumerKey: string;
  /** approved | revoked */
  status: string;
  /** End of validity (rotation grace period), if any. */
  expiresAt: Date | null;
  createdAt: Date;
}

/** A new credential: its key, the SHA-256 hex of its secret, and its API products with their status. */
export interface NewCredential {
  consumerKey: string;
  consumerSecretHash: string;
  products: { apiProductId: string; status?: string }[];
}

/** An API product on a credential. */
export interface CredentialProductRecord {
  product: ApiProductRecord;
  /** approved | pending | revoked */
  status: string;
}

export interface AppFilter {
  /** Case-insensitive, literal substring of the name. */
  search?: string | null;
  developerId?: string | null;
  organizationId?: string | null;
  status?: string | null;
}

export interface AppStore {
  /** Apps, oldest first. */
  list(filter: AppFilter, page: PageRequest): Promise<Page<AppRecord>>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<AppRecord | undefined>;
  /** The apps of a developer, by name. */
  ofDeveloper(developerId: string): Promise<AppRecord[]>;
  /** The apps whose PSUs sign in at an identity provider, by name. */
  ofIdentityProvider(identityProviderId: string): Promise<AppRecord[]>;
  /**
   * Creates an app with its callback URLs and its first credential, in one statement.
   * @throws Conflict when the developer has an app of this name or the key is taken, UnknownReference for an unknown developer or product.
   */
  create(
    app: AppSettings & {
      developerId: string;
      name: string;
      callbackUrls: string[];
      credential: NewCredential;
      status?: string;
      registered?: AppRegistrationColumns;
      /** A dynamic registration's software. @throws Conflict when the organization has registered it already. */
      software?: RegisteredSoftware;
    },
  ): Promise<{ app: AppRecord; credential: CredentialRecord }>;
  /**
   * Changes name, status or settings (undefined keeps a field); `software: null` frees the app's
   * software id (a revoked or deleted registration), so that the organization may register it
   * again, and a {@link RegisteredSoftware} takes it (again).
   * @throws NotFound "no app with this id"; Conflict when the developer has an app of the new name, or another app of
   *   the organization holds the software.
   */
  update(id: string, changes: AppSettings & { name?: string; status?: string; registered?: AppRegistrationColumns; software?: RegisteredSoftware | null }): Promise<AppRecord>;
  /** The app of `software` (its dynamic registration, not deleted); undefined when none. */
  findBySoftware(software: RegisteredSoftware): Promise<AppRecord | undefined>;
  /** How many apps have this status (e.g. pending: the registrations awaiting approval). */
  countWithStatus(status: string): Promise<number>;
  /**
   * Deletes an app and, with it (cascade), its callback URLs, credentials and their products,
   * tokens, authorization codes, consents, interactions and pushed requests. Its PSD2 consents
   * and authorization evidence stay (no relation). @throws NotFound "no app with this id"
   */
  delete(id: string): Promise<void>;
  /** The SHA-256 hex of the app's registration access token (RFC 7592 §3); undefined when it has none. */
  registrationAccessTokenHash(appId: string): Promise<string | undefined>;

  /** Registered redirect URIs, oldest first. */
  callbackUrls(appId: string): Promise<string[]>;
  /** Registers a redirect URI (nothing when already there). @throws UnknownReference for an unknown app. */
  addCallbackUrl(appId: string, url: string): Promise<void>;
  /** Removes a redirect URI (nothing when not there). */
  removeCallbackUrl(appId: string, url: string): Promise<void>;

  /** The credentials of an app, oldest first. */
  credentials(appId: string): Promise<CredentialRecord[]>;
  /** @returns undefined when unknown. */
  findCredential(id: string): Promise<CredentialRecord | undefined>;
  /** Adds a credential to an app. @throws Conflict when the key is taken, UnknownReference for an unknown app or product. */
  addCredential(appId: string, credential: NewCredential): Promise<CredentialRecord>;
  /** Changes a credential's status or end of validity. @throws NotFound "no credential with this id" */
  updateCredential(id: string, changes: { status?: string; expiresAt?: Date }): Promise<CredentialRecord>;
  /** The API products on a credential, by product name. */
  productsOfCredential(credentialId: string): Promise<CredentialProductRecord[]>;
  /** Sets an API product's status on a credential, adding the product if it was not there. @throws UnknownReference for an unknown credential or product. */
  setProductStatus(credentialId: string, apiProductId: string, status: string): Promise<void>;
}
