/**
 * The console's GraphQL documents (server/src/admin/schema.graphql) and the shapes they
 * select. Times are ISO 8601 strings, lifetimes seconds.
 */
import { gql } from "./graphql";

/** An app's or credential's status; pending: a dynamically registered app (RFC 7591) awaiting the bank's approval. */
export type Status = "approved" | "pending" | "revoked";
export type ProductStatus = "approved" | "pending" | "revoked";
export type TokenResponseProfile = "apigee" | "rfc6749";
/** standard, or fapi2: the FAPI 2.0 Security Profile (PAR, PKCE, private_key_jwt only, DPoP-bound tokens). */
export type SecurityProfile = "standard" | "fapi2";
/** OpenID Connect Core §8: the user's own identifier (public), or one of the app's sector (pairwise). */
export type SubjectType = "public" | "pairwise";
export type Role = "user" | "admin" | "support" | "auditor";
export type UserStatus = "active" | "disabled";

export interface PageInfo {
  endCursor: string | null;
  hasNextPage: boolean;
}

interface Connection<T> {
  nodes: T[];
  pageInfo: PageInfo;
}

const PAGE_INFO = "pageInfo { endCursor hasNextPage }";

/* Dashboard */

/** The dashboard's time range, ending now: HOUR (5-minute buckets), DAY (1 h), WEEK (6 h), MONTH (UTC days). */
export type DashboardRange = "HOUR" | "DAY" | "WEEK" | "MONTH";

/** Tokens issued to one app in one bucket; `clientId` is the app's current consumer key ("" when it has none). */
export interface TokensIssuedBucket {
  start: string;
  appName: string;
  appId: string;
  clientId: string;
  count: number;
}

/** The app of a client the dashboard shows: null for no client ("") or an unknown one. */
export interface ClientApp {
  appName: string | null;
  appId: string | null;
}

/** Gateway calls of one API ("" when the path named none) by one client ("" without a valid token) in one bucket, by outcome. */
export interface TrafficBucket extends ClientApp {
  start: string;
  api: string;
  clientId: string;
  /** Answered 1xx to 3xx. */
  ok: number;
  /** Answered 4xx. */
  clientErrors: number;
  /** Answered 5xx. */
  serverErrors: number;
}

/** Refusals of one type, client, API and reason over the whole range. */
export interface FailureCount extends ClientApp {
  type: string;
  clientId: string;
  api: string;
  reason: string;
  count: number;
}

export interface Dashboard {
  range: DashboardRange;
  /** Start of the first bucket. */
  from: string;
  /** Now: the end of the last bucket. */
  to: string;
  bucketSeconds: number;
  tokensIssued: TokensIssuedBucket[];
  traffic: TrafficBucket[];
  /** Most first, at most 100. */
  failures: FailureCount[];
  /** This instance's upstream latency per API since it started; null when metrics are off (METRICS_PORT). */
  latency: DashboardLatency | null;
}

/** One API's upstream latency quantiles (PromQL histogram_quantile over its histogram), in seconds. */
export interface ApiLatency {
  api: string;
  /** Calls forwarded to its upstream since the instance started. */
  count: number;
  p50Seconds: number;
  p95Seconds: number;
  p99Seconds: number;
}

export interface DashboardLatency {
  /** When this instance began counting (ISO 8601). */
  since: string;
  apis: ApiLatency[];
}

export const DASHBOARD = gql<{ dashboard: Dashboard }, { range: DashboardRange }>(`
  query Dashboard($range: DashboardRange) {
    dashboard(range: $range) {
      range from to bucketSeconds
      tokensIssued { start appName appId clientId count }
      traffic { start api clientId appName appId ok clientErrors serverErrors }
      failures { type clientId appName appId api reason count }
      latency { since apis { api count p50Seconds p95Seconds p99Seconds } }
    }
  }
`);

/* Organizations and developers */

export interface Organization {
  id: string;
  name: string;
  displayName: string;
  createdAt: string;
}

export interface Developer {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  createdAt: string;
}

export const ORGANIZATIONS = gql<{ organizations: Connection<Organization> }, { first?: number; after?: string | null }>(`
  query Organizations($first: Int, $after: String) {
    organizations(first: $first, after: $after) {
      nodes { id name displayName createdAt }
      ${PAGE_INFO}
    }
  }
`);

export const CREATE_ORGANIZATION = gql<{ createOrganization: Organization }, { input: { name: string; displayName?: string } }>(`
  mutation CreateOrganization($input: CreateOrganizationInput!) {
    createOrganization(input: $input) { id name displayName createdAt }
  }
`);

export const ORGANIZATION = gql<{ organization: Organization | null }, { id: string }>(`
  query Organization($id: ID!) {
    organization(id: $id) { id name displayName createdAt }
  }
`);

export const DEVELOPER = gql<{ developer: (Developer & { organization: Pick<Organization, "id" | "name"> }) | null }, { id: string }>(`
  query Developer($id: ID!) {
    developer(id: $id) { id email firstName lastName createdAt organization { id name } }
  }
`);

export const DEVELOPERS = gql<
  { developers: Connection<Developer> },
  { organizationId: string; first?: number; after?: string | null }
>(`
  query Developers($organizationId: ID, $first: Int, $after: String) {
    developers(organizationId: $organizationId, first: $first, after: $after) {
      nodes { id email firstName lastName createdAt }
      ${PAGE_INFO}
    }
  }
`);

export interface CreateDeveloperInput {
  organizationId: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export const CREATE_DEVELOPER = gql<{ createDeveloper: Developer }, { input: CreateDeveloperInput }>(`
  mutation CreateDeveloper($input: CreateDeveloperInput!) {
    createDeveloper(input: $input) { id email firstName lastName createdAt }
  }
`);

/** UpdateOrganizationInput: a field left out keeps its value. */
export interface UpdateOrganizationInput {
  name?: string;
  displayName?: string;
}

export const UPDATE_ORGANIZATION = gql<{ updateOrganization: Organization }, { id: string; input: UpdateOrganizationInput }>(`
  mutation UpdateOrganization($id: ID!, $input: UpdateOrganizationInput!) {
    updateOrganization(id: $id, input: $input) { id name displayName createdAt }
  }
`);

/** Fails with CONFLICT while the organization has developers. */
export const DELETE_ORGANIZATION = gql<{ deleteOrganization: string }, { id: string }>(`
  mutation DeleteOrganization($id: ID!) {
    deleteOrganization(id: $id)
  }
`);

/** UpdateDeveloperInput: a field left out keeps its value. */
export type UpdateDeveloperInput = Partial<Omit<CreateDeveloperInput, "organizationId">>;

export const UPDATE_DEVELOPER = gql<{ updateDeveloper: Developer }, { id: string; input: UpdateDeveloperInput }>(`
  mutation UpdateDeveloper($id: ID!, $input: UpdateDeveloperInput!) {
    updateDeveloper(id: $id, input: $input) { id email firstName lastName createdAt }
  }
`);

/** Fails with CONFLICT while the developer has apps. */
export const DELETE_DEVELOPER = gql<{ deleteDeveloper: string }, { id: string }>(`
  mutation DeleteDeveloper($id: ID!) {
    deleteDeveloper(id: $id)
  }
`);

/* API products and APIs */

/** RFC 9396 authorization details types (PSD2) a client approved for a product may ask for. */
export type AuthorizationDetailsType = "payment_initiation" | "account_information";

/** A product's access tokens: opaque (the default), or JWTs (RFC 9068) that resource servers validate offline. */
export type AccessTokenFormat = "opaque" | "jwt";

/** PSD2 dynamic linking at the gateway for calls made with a PSD2 consent's token (schema.graphql ConsentCheck). */
export type ConsentCheck = "none" | "payments" | "accounts";

/** A scope and what it means to end users (shown on the consent and Account pages instead of the name). */
export interface Scope {
  name: string;
  description: string;
}

export interface ApiProduct {
  id: string;
  name: string;
  displayName: string;
  description: string;
  scopes: string[];
  /** The scopes with their descriptions, in the order of `scopes`. */
  scopeDescriptions: Scope[];
  /** PSD2 strong customer authentication for any of its scopes. */
  requiresSca: boolean;
  authorizationDetailsTypes: AuthorizationDetailsType[];
  accessTokenFormat: AccessTokenFormat;
  /** The bank's identity provider the PSUs of its grants sign in at (unless the app names one); null: Tollgate's own sign-in. */
  identityProvider: IdentityProviderOption | null;
  apis: Array<{ id: string; name: string }>;
  createdAt: string;
}

export interface Api {
  id: string;
  name: string;
  upstreamUrl: string;
  requiredScopes: string[];
  /** The upstream's Set-Cookie reaches callers; false: the gateway drops it. */
  passCookies: boolean;
  /** The acr a token's user authentication must meet (urn:tollgate:pwd | urn:tollgate:sca), or null for any. */
  requiredAcr: string | null;
  /** The most seconds since the user's authentication, or null for any. */
  maxAgeSeconds: number | null;
  consentCheck: ConsentCheck;
  products: Array<{ id: string; name: string }>;
  createdAt: string;
}

const API_PRODUCT_FIELDS =
  "id name displayName description scopes scopeDescriptions { name description } requiresSca authorizationDetailsTypes accessTokenFormat identityProvider { id name } apis { id name } createdAt";
const API_FIELDS = "id name upstreamUrl requiredScopes passCookies requiredAcr maxAgeSeconds consentCheck products { id name } createdAt";

/**
 * The products page: products, APIs, every scope with its description (to tell a product's new
 * scopes from known ones), and the identity providers a product's PSUs may sign in at.
 */
export const PRODUCTS_AND_APIS = gql<{ apiProducts: ApiProduct[]; apis: Api[]; scopes: Scope[]; identityProviders: IdentityProviderOption[] }>(`
  query ProductsAndApis {
    apiProducts { ${API_PRODUCT_FIELDS} }
    apis { ${API_FIELDS} }
    scopes { name description }
    identityProviders { id name }
  }
`);

/** CreateApiProductInput; each scope needs a description: a stored one, or one in `scopeDescriptions`. */
export interface CreateApiProductInput {
  name: string;
  displayName?: string;
  description?: string;
  scopes?: string[];
  /** Descriptions of new scopes, or new descriptions of existing ones (for every product with the scope). */
  scopeDescriptions?: Scope[];
  requiresSca?: boolean;
  authorizationDetailsTypes?: AuthorizationDetailsType[];
  /** Applies to tokens issued from now on. */
  accessTokenFormat?: AccessTokenFormat;
  /** The identity provider its PSUs sign in at; null: Tollgate's own sign-in. */
  identityProviderId?: string | null;
  apiIds?: string[];
}

/** UpdateApiProductInput: a field left out keeps its value. */
export type UpdateApiProductInput = Partial<CreateApiProductInput>;

export const CREATE_API_PRODUCT = gql<{ createApiProduct: ApiProduct }, { input: CreateApiProductInput }>(`
  mutation CreateApiProduct($input: CreateApiProductInput!) {
    createApiProduct(input: $input) { ${API_PRODUCT_FIELDS} }
  }
`);

export const UPDATE_API_PRODUCT = gql<{ updateApiProduct: ApiProduct }, { id: string; input: UpdateApiProductInput }>(`
  mutation UpdateApiProduct($id: ID!, $input: UpdateApiProductInput!) {
    updateApiProduct(id: $id, input: $input) { ${API_PRODUCT_FIELDS} }
  }
`);

/** Apps lose the product from their credentials. */
export const DELETE_API_PRODUCT = gql<{ deleteApiProduct: string }, { id: string }>(`
  mutation DeleteApiProduct($id: ID!) {
    deleteApiProduct(id: $id)
  }
`);

export interface CreateApiInput {
  name: string;
  upstreamUrl: string;
  requiredScopes?: string[];
  passCookies?: boolean;
  /** null or "": none. */
  requiredAcr?: string | null;
  /** null: none. */
  maxAgeSeconds?: number | null;
  consentCheck?: ConsentCheck;
}

/** UpdateApiInput: a field left out keeps its value (requiredAcr and maxAgeSeconds: null means none). */
export type UpdateApiInput = Partial<CreateApiInput>;

export const CREATE_API = gql<{ createApi: Api }, { input: CreateApiInput }>(`
  mutation CreateApi($input: CreateApiInput!) {
    createApi(input: $input) { ${API_FIELDS} }
  }
`);

export const UPDATE_API = gql<{ updateApi: Api }, { id: string; input: UpdateApiInput }>(`
  mutation UpdateApi($id: ID!, $input: UpdateApiInput!) {
    updateApi(id: $id, input: $input) { ${API_FIELDS} }
  }
`);

/** Its gateway path is gone. */
export const DELETE_API = gql<{ deleteApi: string }, { id: string }>(`
  mutation DeleteApi($id: ID!) {
    deleteApi(id: $id)
  }
`);

/* Apps and credentials */

export interface AppSummary {
  id: string;
  name: string;
  status: Status;
  createdAt: string;
  developer: { id: string; email: string; organization: { id: string; name: string } };
}

export interface CredentialProduct {
  status: ProductStatus;
  product: { id: string; name: string; displayName: string };
}

export interface Credential {
  id: string;
  consumerKey: string;
  status: Status;
  expiresAt: string | null;
  createdAt: string;
  products: CredentialProduct[];
}

export interface AppDetail extends AppSummary {
  callbackUrls: string[];
  accessTokenLifetimeSeconds: number;
  refreshTokenLifetimeSeconds: number;
  tokenResponseProfile: TokenResponseProfile;
  requirePkce: boolean;
  canIntrospect: boolean;
  tokenEndpointAuthMethods: TokenEndpointAuthMethod[];
  securityProfile: SecurityProfile;
  /** The registered public JWK Set (JSON text), or null. */
  jwks: string | null;
  /** Where the app publishes its JWK Set instead, or null. */
  jwksUri: string | null;
  /** tls_client_auth: the name the app's certificate must carry, or null. */
  tlsClientAuth: TlsClientAuth | null;
  /** What its ID tokens are signed with (id_token_signed_response_alg). */
  idTokenSignedResponseAlg: SigningAlgorithm;
  /** What its signed introspection responses are signed with (introspection_signed_response_alg, RFC 9701). */
  introspectionSignedResponseAlg: SigningAlgorithm;
  /** What its signed authorization responses are signed with (authorization_signed_response_alg, JARM). */
  authorizationSignedResponseAlg: SigningAlgorithm;
  /** The sub its users get (OpenID Connect Core §8 subject_type). */
  subjectType: SubjectType;
  /** A pairwise app's sector (sector_identifier_uri), or null. */
  sectorIdentifierUri: string | null;
  /** Where the logout endpoint may send the browser (post_logout_redirect_uris); empty when none. */
  postLogoutRedirectUris: string[];
  /** A nonce on every authorization request with openid (a FAPI 2.0 app needs one regardless). */
  requireNonce: boolean;
  /** Every authorization request a signed request object (require_signed_request_object, RFC 9101 JAR). */
  requireSignedRequestObject: boolean;
  /** How the app registered itself (RFC 7591), or null for an app created in the console or the admin API. */
  registration: AppRegistration | null;
  /** The bank's identity provider its PSUs sign in at, before its products' choice; null: none of its own. */
  identityProvider: IdentityProviderOption | null;
  credentials: Credential[];
}

/** How an app registered itself (RFC 7591): its software statement and the TPP's identity. */
export interface AppRegistration {
  softwareId: string;
  softwareVersion: string | null;
  /** The directory's organization (software statement). */
  organizationId: string | null;
  organizationName: string | null;
  /** PSD2 roles (ETSI TS 119 495 names: PSP_AS, PSP_PI, PSP_AI, PSP_IC). */
  roles: string[];
  /** From the registering eIDAS certificate, when it presented one. */
  certificateOrganizationIdentifier: string | null;
  ncaName: string | null;
  ncaId: string | null;
  registeredAt: string;
  statementIssuedAt: string;
  statementExpiresAt: string | null;
}

/** How a client authenticates at the token endpoint (RFC 7591 names; the mutual-TLS ones of RFC 8705 §2). */
export type TokenEndpointAuthMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "tls_client_auth" | "self_signed_tls_client_auth";

/** Which name of a tls_client_auth app's certificate identifies it (RFC 8705 §2.1.2). */
export type TlsClientAuthParameter =
  | "tls_client_auth_subject_dn"
  | "tls_client_auth_san_dns"
  | "tls_client_auth_san_uri"
  | "tls_client_auth_san_ip"
  | "tls_client_auth_san_email";

/** The name a tls_client_auth app's certificate carries: a subject DN (RFC 4514), DNS name, URI, IP or email address. */
export interface TlsClientAuth {
  parameter: TlsClientAuthParameter;
  value: string;
}

/** AppSettingsInput: a field left out keeps its value. */
export interface AppSettings {
  tokenResponseProfile?: TokenResponseProfile;
  requirePkce?: boolean;
  canIntrospect?: boolean;
  tokenEndpointAuthMethods?: TokenEndpointAuthMethod[];
  /** null removes it (then tls_client_auth cannot stay allowed). */
  tlsClientAuth?: TlsClientAuth | null;
  securityProfile?: SecurityProfile;
  /** Applies to ID tokens issued from now on. */
  idTokenSignedResponseAlg?: SigningAlgorithm;
  /** Applies to introspection responses from now on. */
  introspectionSignedResponseAlg?: SigningAlgorithm;
  /** Applies to authorization responses from now on. */
  authorizationSignedResponseAlg?: SigningAlgorithm;
  subjectType?: SubjectType;
  /** null removes it. */
  sectorIdentifierUri?: string | null;
  /** Replaces them; [] removes them. */
  postLogoutRedirectUris?: string[];
  requireNonce?: boolean;
  /** Needs the app's keys; applies to authorization requests from now on. */
  requireSignedRequestObject?: boolean;
  /** The identity provider its PSUs sign in at; null removes it. */
  identityProviderId?: string | null;
}

/** A consumer key and secret, returned once by createApp and rotateCredential. */
export interface IssuedCredential {
  consumerKey: string;
  consumerSecret: string;
  app: { id: string; name: string };
  credential: { id: string };
}

const APP_SUMMARY_FIELDS = "id name status createdAt developer { id email organization { id name } }";
const CREDENTIAL_FIELDS = "id consumerKey status expiresAt createdAt products { status product { id name displayName } }";
const REGISTRATION_FIELDS = `softwareId softwareVersion organizationId organizationName roles certificateOrganizationIdentifier ncaName ncaId
  registeredAt statementIssuedAt statementExpiresAt`;
const APP_DETAIL_FIELDS = `${APP_SUMMARY_FIELDS} callbackUrls accessTokenLifetimeSeconds refreshTokenLifetimeSeconds
  tokenResponseProfile requirePkce canIntrospect tokenEndpointAuthMethods securityProfile jwks jwksUri tlsClientAuth { parameter value }
  idTokenSignedResponseAlg introspectionSignedResponseAlg authorizationSignedResponseAlg subjectType sectorIdentifierUri postLogoutRedirectUris requireNonce requireSignedRequestObject registration { ${REGISTRATION_FIELDS} } identityProvider { id name }
  credentials { ${CREDENTIAL_FIELDS} }`;
const ISSUED_FIELDS = "consumerKey consumerSecret app { id name } credential { id }";

export interface AppFilter {
  search?: string;
  developerId?: string;
  organizationId?: string;
  status?: Status;
}

export const APPS = gql<{ apps: Connection<AppSummary> }, { filter?: AppFilter; first?: number; after?: string | null }>(`
  query Apps($filter: AppFilter, $first: Int, $after: String) {
    apps(filter: $filter, first: $first, after: $after) {
      nodes { ${APP_SUMMARY_FIELDS} }
      ${PAGE_INFO}
    }
  }
`);

export interface DeveloperOption {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  organization: { name: string };
}

/** Developers to choose an app's owner from: those whose name or email contains `search` (all without one). */
export const DEVELOPER_OPTIONS = gql<{ developers: Connection<DeveloperOption> }, { search?: string; first: number }>(`
  query DeveloperOptions($search: String, $first: Int) {
    developers(search: $search, first: $first) {
      nodes { id email firstName lastName organization { name } }
      ${PAGE_INFO}
    }
  }
`);

/** An API product as the forms that approve products on a credential offer it. */
export type ApiProductOption = Pick<ApiProduct, "id" | "name" | "displayName" | "scopes">;

/** The API products the "Create an app" and "Add an API product" forms offer. */
export const API_PRODUCT_OPTIONS = gql<{ apiProducts: ApiProductOption[] }>(`
  query ApiProductOptions {
    apiProducts { id name displayName scopes }
  }
`);

export interface CreateAppInput {
  developerId: string;
  name: string;
  callbackUrls?: string[];
  apiProductIds?: string[];
  tokenResponseProfile?: TokenResponseProfile;
  requirePkce?: boolean;
}

export const CREATE_APP = gql<{ createApp: IssuedCredential }, { input: CreateAppInput }>(`
  mutation CreateApp($input: CreateAppInput!) {
    createApp(input: $input) { ${ISSUED_FIELDS} }
  }
`);

export const APP = gql<{ app: AppDetail | null }, { id: string }>(`
  query App($id: ID!) {
    app(id: $id) { ${APP_DETAIL_FIELDS} }
  }
`);

export const SET_APP_STATUS = gql<{ setAppStatus: AppDetail }, { appId: string; status: Status }>(`
  mutation SetAppStatus($appId: ID!, $status: Status!) {
    setAppStatus(appId: $appId, status: $status) { ${APP_DETAIL_FIELDS} }
  }
`);

export const ADD_CALLBACK_URL = gql<{ addCallbackUrl: AppDetail }, { appId: string; url: string }>(`
  mutation AddCallbackUrl($appId: ID!, $url: String!) {
    addCallbackUrl(appId: $appId, url: $url) { ${APP_DETAIL_FIELDS} }
  }
`);

export const REMOVE_CALLBACK_URL = gql<{ removeCallbackUrl: AppDetail }, { appId: string; url: string }>(`
  mutation RemoveCallbackUrl($appId: ID!, $url: String!) {
    removeCallbackUrl(appId: $appId, url: $url) { ${APP_DETAIL_FIELDS} }
  }
`);

export const SET_TOKEN_LIFETIMES = gql<
  { setTokenLifetimes: AppDetail },
  { appId: string; input: { accessTokenLifetimeSeconds?: number; refreshTokenLifetimeSeconds?: number } }
>(`
  mutation SetTokenLifetimes($appId: ID!, $input: TokenLifetimesInput!) {
    setTokenLifetimes(appId: $appId, input: $input) { ${APP_DETAIL_FIELDS} }
  }
`);

export const SET_APP_SETTINGS = gql<{ setAppSettings: AppDetail }, { appId: string; input: AppSettings }>(`
  mutation SetAppSettings($appId: ID!, $input: AppSettingsInput!) {
    setAppSettings(appId: $appId, input: $input) { ${APP_DETAIL_FIELDS} }
  }
`);

/** Registers or replaces the app's signing keys: a JWK Set (JSON text) or a jwks_uri; neither removes them. */
export const SET_APP_KEYS = gql<{ setAppKeys: AppDetail }, { appId: string; jwks?: string; jwksUri?: string }>(`
  mutation SetAppKeys($appId: ID!, $jwks: String, $jwksUri: String) {
    setAppKeys(appId: $appId, jwks: $jwks, jwksUri: $jwksUri) { ${APP_DETAIL_FIELDS} }
  }
`);

export const SET_CREDENTIAL_PRODUCT_STATUS = gql<
  { setCredentialProductStatus: Credential },
  { credentialId: string; apiProductId: string; status: ProductStatus }
>(`
  mutation SetCredentialProductStatus($credentialId: ID!, $apiProductId: ID!, $status: ProductStatus!) {
    setCredentialProductStatus(credentialId: $credentialId, apiProductId: $apiProductId, status: $status) { ${CREDENTIAL_FIELDS} }
  }
`);

export const ROTATE_CREDENTIAL = gql<{ rotateCredential: IssuedCredential }, { credentialId: string; graceSeconds: number }>(`
  mutation RotateCredential($credentialId: ID!, $graceSeconds: Int) {
    rotateCredential(credentialId: $credentialId, graceSeconds: $graceSeconds) { ${ISSUED_FIELDS} }
  }
`);

export const REVOKE_CREDENTIAL = gql<{ revokeCredential: Credential }, { credentialId: string }>(`
  mutation RevokeCredential($credentialId: ID!) {
    revokeCredential(credentialId: $credentialId) { ${CREDENTIAL_FIELDS} }
  }
`);

/* Tokens */

/** A token's state now: LIVE (approved, not expired: the gateway accepts it), REVOKED or EXPIRED. */
export type TokenState = "LIVE" | "REVOKED" | "EXPIRED";

export interface AccessToken {
  id: string;
  clientId: string;
  grantType: string;
  scopes: string[];
  products: string[];
  issuedAt: string;
  expiresAt: string;
  status: Status;
  state: TokenState;
  /** When the access token was revoked; null when it was not. */
  revokedAt: string | null;
  /** Who revoked it, as audit actors are named (lib/tokens.ts revokedByText); null when not revoked or not recorded. */
  revokedBy: string | null;
  refreshTokenStatus: Status | null;
  refreshTokenExpiresAt: string | null;
  refreshCount: number;
  /** DPoP binding: the JWK SHA-256 thumbprint of the key the token is bound to; null for a bearer token. */
  jkt: string | null;
  /** Where the user authenticated: the bank's identity provider, or its own application; null for Tollgate's sign-in or no user. */
  authenticatedBy: string | null;
  app: { id: string; name: string };
  user: { id: string; username: string } | null;
}

const ACCESS_TOKEN_FIELDS = `id clientId grantType scopes products issuedAt expiresAt status state revokedAt revokedBy
  refreshTokenStatus refreshTokenExpiresAt refreshCount jkt authenticatedBy app { id name } user { id username }`;

/** The criteria of tokens; `state` replaces the default "live only", `liveOnly: false` lists every state. */
export type TokensFilter = {
  appId?: string;
  userId?: string;
  /** A consumer key. */
  clientId?: string;
  state?: TokenState;
  liveOnly?: boolean;
};

export const TOKENS = gql<{ tokens: Connection<AccessToken> }, TokensFilter & { first?: number; after?: string | null }>(`
  query Tokens($appId: ID, $userId: ID, $clientId: String, $state: TokenState, $liveOnly: Boolean, $first: Int, $after: String) {
    tokens(appId: $appId, userId: $userId, clientId: $clientId, state: $state, liveOnly: $liveOnly, first: $first, after: $after) {
      nodes { ${ACCESS_TOKEN_FIELDS} }
      ${PAGE_INFO}
    }
  }
`);

/** What the tokens page's filter form offers and shows: the apps to choose from, and the app and user the URL names. */
export const TOKEN_FILTER_OPTIONS = gql<
  {
    apps: Connection<{ id: string; name: string }>;
    app?: { id: string; name: string } | null;
    user?: { id: string; username: string } | null;
  },
  { appId: string; userId: string; withApp: boolean; withUser: boolean }
>(`
  query TokenFilterOptions($appId: ID!, $userId: ID!, $withApp: Boolean!, $withUser: Boolean!) {
    apps(first: 200) {
      nodes { id name }
      ${PAGE_INFO}
    }
    app(id: $appId) @include(if: $withApp) { id name }
    user(id: $userId) @include(if: $withUser) { id username }
  }
`);

export const REVOKE_TOKEN = gql<{ revokeToken: Pick<AccessToken, "id" | "status" | "state" | "revokedAt" | "revokedBy"> }, { id: string }>(`
  mutation RevokeToken($id: ID!) {
    revokeToken(id: $id) { id status state revokedAt revokedBy }
  }
`);

export const REVOKE_TOKENS = gql<{ revokeTokens: number }, { appId?: string; userId?: string }>(`
  mutation RevokeTokens($appId: ID, $userId: ID) {
    revokeTokens(appId: $appId, userId: $userId)
  }
`);

/* The console's global search */

/** An app the search found, with its consumer keys (the text may be part of one). */
export interface FoundApp {
  id: string;
  name: string;
  status: Status;
  developer: { organization: { name: string } };
  credentials: Array<{ id: string; consumerKey: string; status: Status }>;
}

/** What the search box finds for a text: apps by name or consumer key, users by username, tokens by id prefix (at most 10 of each). */
export interface SearchResults {
  apps: FoundApp[];
  users: Array<{ id: string; username: string; role: Role; status: UserStatus }>;
  tokens: AccessToken[];
  /** PSD2 consents by id, PSU, consumer key or app name. */
  psd2Consents: Psd2Consent[];
  /** The events of the request whose X-Request-Id or x-fapi-interaction-id the text is. */
  auditEvents: NamedAuditEvent[];
}

/* Users and consents */

export interface User {
  id: string;
  username: string;
  role: Role;
  status: UserStatus;
  createdAt: string;
  /** When the user's sign-in block ends (too many failed sign-ins); null when not blocked. */
  blockedUntil: string | null;
  /** Until when the temporary password an administrator set signs in; null: the user's own. */
  temporaryPasswordUntil: string | null;
}

const USER_FIELDS = "id username role status createdAt blockedUntil temporaryPasswordUntil";

export const USERS = gql<{ users: Connection<User> }, { search?: string; first?: number; after?: string | null }>(`
  query Users($search: String, $first: Int, $after: String) {
    users(search: $search, first: $first, after: $after) {
      nodes { ${USER_FIELDS} }
      ${PAGE_INFO}
    }
  }
`);

export const CREATE_USER = gql<{ createUser: User }, { input: { username: string; password: string; role: Role } }>(`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) { ${USER_FIELDS} }
  }
`);

export const SET_USER_ROLE = gql<{ setUserRole: User }, { userId: string; role: Role }>(`
  mutation SetUserRole($userId: ID!, $role: Role!) {
    setUserRole(userId: $userId, role: $role) { ${USER_FIELDS} }
  }
`);

export const SET_USER_STATUS = gql<{ setUserStatus: User }, { userId: string; status: UserStatus }>(`
  mutation SetUserStatus($userId: ID!, $status: UserStatus!) {
    setUserStatus(userId: $userId, status: $status) { ${USER_FIELDS} }
  }
`);

export const UNBLOCK_USER = gql<{ unblockUser: User }, { id: string }>(`
  mutation UnblockUser($id: ID!) {
    unblockUser(id: $id) { ${USER_FIELDS} }
  }
`);

/** A temporary password, shown once. */
export interface TemporaryPassword {
  user: User;
  password: string;
  validUntil: string;
}

export const SET_TEMPORARY_PASSWORD = gql<{ setTemporaryPassword: TemporaryPassword }, { id: string }>(`
  mutation SetTemporaryPassword($id: ID!) {
    setTemporaryPassword(id: $id) { user { ${USER_FIELDS} } password validUntil }
  }
`);

/**
 * Evidence of one authorization a PSU answered whose request or answer was signed (FAPI 2.0
 * Message Signing): the request object the TPP signed (RFC 9101) and the authorization response
 * this server signed (JARM), each a compact JWS exactly as sent, or null when not signed.
 */
export interface AuthorizationEvidence {
  id: string;
  /** When the answer was sent to the TPP. */
  answeredAt: string;
  /** The TPP's consumer key the request named. */
  clientId: string;
  /** "code" (a code was issued), or the OAuth error sent ("access_denied", …). */
  outcome: string;
  requestObject: string | null;
  authorizationResponse: string | null;
}

const EVIDENCE_FIELDS = "evidence { id answeredAt clientId outcome requestObject authorizationResponse }";

export interface Consent {
  id: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
  app: { id: string; name: string; developer: { organization: { name: string } } };
}

export const CONSENTS = gql<{ consents: Consent[] }, { userId: string }>(`
  query Consents($userId: ID) {
    consents(userId: $userId) {
      id scopes createdAt updatedAt
      app { id name developer { organization { name } } }
    }
  }
`);

/** A consent to an app's scopes with what the console's consent page shows: its user, when it was revoked, its evidence. */
export interface ConsentDetail extends Consent {
  user: { id: string; username: string };
  /** When the user (or an admin) revoked it; null while it stands. */
  revokedAt: string | null;
  evidence: AuthorizationEvidence[];
}

export const CONSENT = gql<{ consent: ConsentDetail | null }, { id: string }>(`
  query Consent($id: ID!) {
    consent(id: $id) {
      id scopes createdAt updatedAt revokedAt
      app { id name developer { organization { name } } }
      user { id username }
      ${EVIDENCE_FIELDS}
    }
  }
`);

export const REVOKE_CONSENT = gql<{ revokeConsent: string }, { id: string }>(`
  mutation RevokeConsent($id: ID!) {
    revokeConsent(id: $id)
  }
`);

/* The end user's Account page */

/** An app the signed-in user allowed (the end user's own type: no admin data). */
export interface MyConsent {
  id: string;
  appName: string;
  organizationName: string;
  scopes: { name: string; description: string }[];
  grantedAt: string;
  lastUsedAt: string | null;
  /** When the app's access ends unless the user allows it again; null when it holds no live refresh token. */
  accessUntil: string | null;
}

export const MY_CONSENTS = gql<{ myConsents: MyConsent[] }>(`
  query MyConsents {
    myConsents {
      id appName organizationName grantedAt lastUsedAt accessUntil
      scopes { name description }
    }
  }
`);

export const REVOKE_MY_CONSENT = gql<{ revokeMyConsent: string }, { id: string }>(`
  mutation RevokeMyConsent($id: ID!) {
    revokeMyConsent(id: $id)
  }
`);

/* PSD2 consents (RFC 9396 authorization details, Berlin Group consents and payments) */

/** A PSD2 consent: what a TPP asked for and the PSU authorized. */
export interface Psd2Consent {
  id: string;
  clientId: string;
  appName: string;
  organizationName: string;
  username: string | null;
  kind: "account_information" | "payment_initiation";
  /** lib/authorization-details.ts Psd2ConsentStatus; a string, so that a status added later still shows. */
  status: string;
  origin: "rar" | "berlin_group";
  /** JSON text of the authorization_details array: as approved once valid, as requested before (lib/authorization-details.ts readAuthorizationDetails). */
  authorizationDetails: string;
  /** YYYY-MM-DD: the last day of account access, or of a payment's time to be made. */
  validUntil: string | null;
  createdAt: string;
  statusChangedAt: string;
  /** The ISO 20022 transaction status the bank's upstream answered for the payment; null when none was read. */
  transactionStatus: string | null;
  /** Why the bank's upstream rejected the payment, in its words; null otherwise. */
  statusReason: string | null;
}

/** A PSD2 consent of the signed-in user (the end user's selection: no admin data). */
export type MyPsd2Consent = Omit<Psd2Consent, "clientId" | "username" | "transactionStatus" | "statusReason">;

const PSD2_CONSENT_FIELDS =
  "id clientId appName organizationName username kind status origin authorizationDetails validUntil createdAt statusChangedAt transactionStatus statusReason";
const MY_PSD2_CONSENT_FIELDS = "id appName organizationName kind status origin authorizationDetails validUntil createdAt statusChangedAt";

export const PSD2_CONSENTS = gql<{ psd2Consents: Psd2Consent[] }, { status?: string; clientId?: string; search?: string }>(`
  query Psd2Consents($status: String, $clientId: String, $search: String) {
    psd2Consents(status: $status, clientId: $clientId, search: $search) { ${PSD2_CONSENT_FIELDS} }
  }
`);

/** The PSD2 consents a user gave (the console's user panel). */
export const USER_PSD2_CONSENTS = gql<{ user: { id: string; psd2Consents: Psd2Consent[] } | null }, { id: string }>(`
  query UserPsd2Consents($id: ID!) {
    user(id: $id) { id psd2Consents { ${PSD2_CONSENT_FIELDS} } }
  }
`);

/** A PSD2 consent with the evidence of its signed authorization (the console's consent page). */
export interface Psd2ConsentDetail extends Psd2Consent {
  evidence: AuthorizationEvidence[];
}

export const PSD2_CONSENT = gql<{ psd2Consent: Psd2ConsentDetail | null }, { id: string }>(`
  query Psd2Consent($id: ID!) {
    psd2Consent(id: $id) { ${PSD2_CONSENT_FIELDS} ${EVIDENCE_FIELDS} }
  }
`);

export const REVOKE_PSD2_CONSENT = gql<{ revokePsd2Consent: Psd2Consent }, { id: string }>(`
  mutation RevokePsd2Consent($id: ID!) {
    revokePsd2Consent(id: $id) { ${PSD2_CONSENT_FIELDS} }
  }
`);

export const MY_PSD2_CONSENTS = gql<{ myPsd2Consents: MyPsd2Consent[] }>(`
  query MyPsd2Consents {
    myPsd2Consents { ${MY_PSD2_CONSENT_FIELDS} }
  }
`);

export const REVOKE_MY_PSD2_CONSENT = gql<{ revokeMyPsd2Consent: MyPsd2Consent }, { id: string }>(`
  mutation RevokeMyPsd2Consent($id: ID!) {
    revokeMyPsd2Consent(id: $id) { ${MY_PSD2_CONSENT_FIELDS} }
  }
`);

/* The audit log */

/** failure: the refusals and failed sign-ins (see lib/audit.ts FAILURE_TYPES); success: every other event. */
export type AuditOutcome = "success" | "failure";

/** One event of the append-only audit log; an aggregated refusal stands for `count` occurrences. */
export interface AuditEvent {
  id: string;
  at: string;
  type: string;
  /** A client id, user:<id>, admin:<username> or client:<client id>; "" when unknown. */
  actor: string;
  /** What it was about; for gateway.refused the API. */
  subject: string;
  /** JSON text (lib/audit.ts readDetails); a refusal's: reason, description, request_id, interaction_id, api, token_id_prefix. */
  details: string;
  count: number;
}

/** An audit event with who and what it names: the user, the app, the PSD2 consent (null when none). */
export interface NamedAuditEvent extends AuditEvent {
  user: { id: string; username: string } | null;
  app: { id: string; name: string } | null;
  psd2Consent: Pick<Psd2Consent, "id" | "kind" | "appName" | "authorizationDetails"> | null;
}

const AUDIT_EVENT_FIELDS = "id at type actor subject details count";
const NAMED_AUDIT_EVENT_FIELDS = `${AUDIT_EVENT_FIELDS} user { id username } app { id name } psd2Consent { id kind appName authorizationDetails }`;

/** The criteria of auditEvents; each one left out matches every event (a type alias: query variables need its index signature). */
export type AuditEventsFilter = {
  type?: string;
  actor?: string;
  clientId?: string;
  username?: string;
  api?: string;
  /** A refusal's reason (details.reason), e.g. invalid_client. */
  reason?: string;
  outcome?: AuditOutcome;
  /** ISO 8601, inclusive. */
  from?: string;
  /** ISO 8601, exclusive. */
  to?: string;
  /** The request's X-Request-Id. */
  requestId?: string;
  /** The request's x-fapi-interaction-id. */
  interactionId?: string;
};

/** The auditEvents query selecting `fields` of each event. */
const auditEventsQuery = (name: string, fields: string) => `
  query ${name}(
    $type: String, $actor: String, $clientId: String, $username: String, $api: String, $reason: String,
    $outcome: AuditOutcome, $from: DateTime, $to: DateTime, $requestId: String, $interactionId: String, $first: Int, $after: String
  ) {
    auditEvents(
      type: $type, actor: $actor, clientId: $clientId, username: $username, api: $api, reason: $reason,
      outcome: $outcome, from: $from, to: $to, requestId: $requestId, interactionId: $interactionId, first: $first, after: $after
    ) {
      nodes { ${fields} }
      ${PAGE_INFO}
    }
  }
`;

/** The events alone (the exports). */
export const AUDIT_EVENTS = gql<{ auditEvents: Connection<AuditEvent> }, AuditEventsFilter & { first?: number; after?: string | null }>(auditEventsQuery("AuditEvents", AUDIT_EVENT_FIELDS));

/** The events with the user, app and consent they name (the audit page's table). */
export const NAMED_AUDIT_EVENTS = gql<{ auditEvents: Connection<NamedAuditEvent> }, AuditEventsFilter & { first?: number; after?: string | null }>(
  auditEventsQuery("NamedAuditEvents", NAMED_AUDIT_EVENT_FIELDS),
);

/** The console's global search (after the fields it selects). */
export const SEARCH = gql<{ search: SearchResults }, { text: string }>(`
  query Search($text: String!) {
    search(text: $text) {
      apps { id name status developer { organization { name } } credentials { id consumerKey status } }
      users { id username role status }
      tokens { ${ACCESS_TOKEN_FIELDS} }
      psd2Consents { ${PSD2_CONSENT_FIELDS} }
      auditEvents { ${NAMED_AUDIT_EVENT_FIELDS} }
    }
  }
`);

/* Signing keys */

/** An algorithm the server signs with. */
export type SigningAlgorithm = "PS256" | "ES256";

/** One of the server's own signing keys (never its private half): next (published, not signing yet), current (signing), retired (published until what it signed expires). */
export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** envelope (sealed under the key-encryption key) or pkcs11 (an HSM). */
  backend: "envelope" | "pkcs11";
  state: "next" | "current" | "retired";
  createdAt: string;
  activatedAt: string | null;
  retiredAt: string | null;
  /** The latest expiry of what it signed: a retired key is published until then. */
  signedUntil: string | null;
  /** A next key's: when it may sign. */
  signsFrom: string | null;
}

/** What rotateSigningKey did: promoted, or not yet (with when the next key may sign). */
export interface SigningKeyRotation {
  alg: SigningAlgorithm;
  promoted: boolean;
  signsFrom: string | null;
  keys: SigningKey[];
}

const SIGNING_KEY_FIELDS = "kid alg backend state createdAt activatedAt retiredAt signedUntil signsFrom";

export const SIGNING_KEYS = gql<{ signingKeys: SigningKey[] }>(`
  query SigningKeys {
    signingKeys { ${SIGNING_KEY_FIELDS} }
  }
`);

export const ROTATE_SIGNING_KEY = gql<{ rotateSigningKey: SigningKeyRotation }, { alg: SigningAlgorithm }>(`
  mutation RotateSigningKey($alg: SigningAlgorithm!) {
    rotateSigningKey(alg: $alg) { alg promoted signsFrom keys { ${SIGNING_KEY_FIELDS} } }
  }
`);

/* Identity providers */

/** How Tollgate authenticates at an identity provider: with its own signing keys (private_key_jwt), or the client secret the provider issued. */
export type UpstreamClientAuth = "private_key_jwt" | "client_secret_basic";

/** An identity provider as a choice of sign-in (an app's, a product's). */
export interface IdentityProviderOption {
  id: string;
  name: string;
}

/** One of the bank's identity providers (never its client secret). */
export interface IdentityProvider extends IdentityProviderOption {
  issuer: string;
  clientId: string;
  clientAuthMethod: UpstreamClientAuth;
  /** openid first. */
  scopes: string[];
  /** The ID token claim naming the customer number; null: sub. */
  customerNumberClaim: string | null;
  /** The acr values that mean strong customer authentication. */
  scaAcrValues: string[];
  /** A client secret is stored (it is never returned). */
  hasClientSecret: boolean;
  /** Tollgate's redirect URI, to register at the provider. */
  redirectUri: string;
  /** Tollgate's JWK Set URL, for private_key_jwt. */
  jwksUri: string;
  apps: Array<{ id: string; name: string }>;
  apiProducts: Array<{ id: string; name: string }>;
  createdAt: string;
  updatedAt: string;
}

/** CreateIdentityProviderInput; `clientSecret` is write-only (client_secret_basic only). */
export interface CreateIdentityProviderInput {
  name: string;
  issuer: string;
  clientId: string;
  clientAuthMethod: UpstreamClientAuth;
  clientSecret?: string;
  scopes?: string[];
  /** null: sub. */
  customerNumberClaim?: string | null;
  scaAcrValues?: string[];
}

/** UpdateIdentityProviderInput: a field left out keeps its value; a client secret left out is kept (removed on a switch to private_key_jwt). */
export type UpdateIdentityProviderInput = Partial<CreateIdentityProviderInput>;

const IDENTITY_PROVIDER_FIELDS = `id name issuer clientId clientAuthMethod scopes customerNumberClaim scaAcrValues hasClientSecret redirectUri jwksUri
  apps { id name } apiProducts { id name } createdAt updatedAt`;

export const IDENTITY_PROVIDERS = gql<{ identityProviders: IdentityProvider[] }>(`
  query IdentityProviders {
    identityProviders { ${IDENTITY_PROVIDER_FIELDS} }
  }
`);

/** The identity providers an app's or a product's sign-in may name. */
export const IDENTITY_PROVIDER_OPTIONS = gql<{ identityProviders: IdentityProviderOption[] }>(`
  query IdentityProviderOptions {
    identityProviders { id name }
  }
`);

export const CREATE_IDENTITY_PROVIDER = gql<{ createIdentityProvider: IdentityProvider }, { input: CreateIdentityProviderInput }>(`
  mutation CreateIdentityProvider($input: CreateIdentityProviderInput!) {
    createIdentityProvider(input: $input) { ${IDENTITY_PROVIDER_FIELDS} }
  }
`);

export const UPDATE_IDENTITY_PROVIDER = gql<{ updateIdentityProvider: IdentityProvider }, { id: string; input: UpdateIdentityProviderInput }>(`
  mutation UpdateIdentityProvider($id: ID!, $input: UpdateIdentityProviderInput!) {
    updateIdentityProvider(id: $id, input: $input) { ${IDENTITY_PROVIDER_FIELDS} }
  }
`);

/** Its apps and API products fall back to Tollgate's own sign-in. */
export const DELETE_IDENTITY_PROVIDER = gql<{ deleteIdentityProvider: string }, { id: string }>(`
  mutation DeleteIdentityProvider($id: ID!) {
    deleteIdentityProvider(id: $id)
  }
`);

/* The queue of dynamic registrations awaiting the bank's approval */

/** A registration of the queue: the app, its owner and what its software statement says. */
export interface PendingRegistration extends AppSummary {
  registration: Pick<AppRegistration, "softwareId" | "organizationId" | "organizationName" | "roles" | "registeredAt"> | null;
}

/** The pending registrations, oldest first. */
export const PENDING_REGISTRATIONS = gql<{ pendingRegistrations: Connection<PendingRegistration> }, { first?: number; after?: string | null }>(`
  query PendingRegistrations($first: Int, $after: String) {
    pendingRegistrations(first: $first, after: $after) {
      nodes { ${APP_SUMMARY_FIELDS} registration { softwareId organizationId organizationName roles registeredAt } }
      ${PAGE_INFO}
    }
  }
`);

/** How many registrations wait for approval: the count beside the navigation's link. */
export const PENDING_REGISTRATION_COUNT = gql<{ pendingRegistrationCount: number }, Record<string, never>>(`
  query PendingRegistrationCount {
    pendingRegistrationCount
  }
`);

// App lifecycle and erasure (GDPR Art. 17).

/** The name is checked as at creation; CONFLICT when the developer has an app of this name. */
export const RENAME_APP = gql<{ renameApp: AppDetail }, { id: string; name: string }>(`
  mutation RenameApp($id: ID!, $name: String!) {
    renameApp(id: $id, name: $name) { ${APP_DETAIL_FIELDS} }
  }
`);

/** Revokes the app's live tokens, then removes it with its credentials, tokens, codes and consents. */
export const DELETE_APP = gql<{ deleteApp: { id: string; revokedTokens: number } }, { id: string }>(`
  mutation DeleteApp($id: ID!) {
    deleteApp(id: $id) { id revokedTokens }
  }
`);

/** What deleting an app or switching its security profile would do: its live tokens, and the switch's consequences. */
export const APP_CHANGE_PREVIEW = gql<{ app: { id: string; liveTokenCount: number; securityProfileChange: string[] } | null }, { id: string; to: SecurityProfile }>(`
  query AppChangePreview($id: ID!, $to: SecurityProfile!) {
    app(id: $id) { id liveTokenCount securityProfileChange(to: $to) }
  }
`);

/** What an erasure did. */
export interface Erasure {
  id: string;
  pseudonym: string;
  auditEventsPseudonymized: number;
}

/** CONFLICT while the developer has apps. */
export const ERASE_DEVELOPER = gql<{ eraseDeveloper: Erasure }, { id: string }>(`
  mutation EraseDeveloper($id: ID!) {
    eraseDeveloper(id: $id) { id pseudonym auditEventsPseudonymized }
  }
`);

/** Erases its developers too; CONFLICT while any of them has apps. */
export const ERASE_ORGANIZATION = gql<{ eraseOrganization: Erasure }, { id: string }>(`
  mutation EraseOrganization($id: ID!) {
    eraseOrganization(id: $id) { id pseudonym auditEventsPseudonymized }
  }
`);
