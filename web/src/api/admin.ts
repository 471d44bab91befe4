/**
 * The console's GraphQL documents (server/src/admin/schema.graphql) and the shapes they
 * select. Times are ISO 8601 strings, lifetimes seconds.
 */
import { gql, type NoVariables, type Variables } from "./graphql";

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

/*
 * The schema names an entity's mutations alike: `create<Type>(input: Create<Type>Input!)` and
 * `update<Type>(id: ID!, input: Update<Type>Input!)` return the entity (here its `fields`), and
 * `delete<Type>(id: ID!)` returns the deleted id. These build those documents, typed (byIdDocument
 * the delete ones).
 */

/** The document of `create<Type>(input)`, selecting `fields` of the created entity. */
function createMutation<Type extends string, TEntity, TInput>(type: Type, fields: string) {
  return gql<{ [K in `create${Type}`]: TEntity }, { input: TInput }>(`
  mutation Create${type}($input: Create${type}Input!) {
    create${type}(input: $input) { ${fields} }
  }
`);
}

/** The document of `update<Type>(id, input)`, selecting `fields` of the updated entity. */
function updateMutation<Type extends string, TEntity, TInput>(type: Type, fields: string) {
  return gql<{ [K in `update${Type}`]: TEntity }, { id: string; input: TInput }>(`
  mutation Update${type}($id: ID!, $input: Update${type}Input!) {
    update${type}(id: $id, input: $input) { ${fields} }
  }
`);
}

/**
 * The document of one root field: `<kind> <Field>($a: A, ...) { <field>(a: $a, ...) { <selection> } }`,
 * the operation named as the field with a capital. `args` gives each variable's GraphQL type
 * (e.g. `{ appId: "ID!" }`); `selection` is what it selects of the answer, none for a scalar one.
 */
function fieldDocument<Field extends string, TResult, TVariables extends Variables>(
  kind: "query" | "mutation",
  field: Field,
  args: Record<keyof TVariables & string, string>,
  selection?: string,
) {
  const names = Object.keys(args);
  const declared = names.map((name) => `$${name}: ${args[name as keyof typeof args]}`).join(", ");
  const passed = names.map((name) => `${name}: $${name}`).join(", ");
  return gql<{ [K in Field]: TResult }, TVariables>(`
  ${kind} ${field.charAt(0).toUpperCase()}${field.slice(1)}(${declared}) {
    ${field}(${passed})${selection === undefined ? "" : ` { ${selection} }`}
  }
`);
}

/** The document of a root field that takes one `id: ID!` (a query by id, a delete, a revoke...); see fieldDocument. */
function byIdDocument<Field extends string, TResult>(kind: "query" | "mutation", field: Field, selection?: string) {
  return fieldDocument<Field, TResult, { id: string }>(kind, field, { id: "ID!" }, selection);
}

/** The paging variables of a connection (`first` nodes after the cursor `after`). */
type Paging = { first?: number; after?: string | null };

/**
 * The document of a query of one connection field: `args` are its variables' GraphQL types
 * besides `first` and `after`; it selects `nodes { <nodeSelection> }` and the page info.
 */
function connectionQuery<Field extends string, TNode, TFilter extends Variables = NoVariables>(
  field: Field,
  args: Record<keyof TFilter & string, string>,
  nodeSelection: string,
) {
  const paged = { ...args, first: "Int", after: "String" } as Record<keyof (TFilter & Paging) & string, string>;
  return fieldDocument<Field, Connection<TNode>, TFilter & Paging>("query", field, paged, `nodes { ${nodeSelection} } ${PAGE_INFO}`);
}

/** An entity's create, update and delete documents; `TUpdate`, the update's input, defaults to the create's with every field optional. */
function entityMutations<Type extends string, TEntity, TCreate, TUpdate = Partial<TCreate>>(type: Type, fields: string) {
  return {
    create: createMutation<Type, TEntity, TCreate>(type, fields),
    update: updateMutation<Type, TEntity, TUpdate>(type, fields),
    delete: byIdDocument<`delete${Type}`, string>("mutation", `delete${type}` as `delete${Type}`),
  };
}

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

const ORGANIZATION_FIELDS = "id name displayName createdAt";
const DEVELOPER_FIELDS = "id email firstName lastName createdAt";

export const ORGANIZATIONS = connectionQuery<"organizations", Organization>("organizations", {}, ORGANIZATION_FIELDS);

export const CREATE_ORGANIZATION = createMutation<"Organization", Organization, { name: string; displayName?: string }>("Organization", ORGANIZATION_FIELDS);

export const ORGANIZATION = byIdDocument<"organization", Organization | null>("query", "organization", ORGANIZATION_FIELDS);

export const DEVELOPER = byIdDocument<"developer", (Developer & { organization: Pick<Organization, "id" | "name"> }) | null>("query", "developer", `${DEVELOPER_FIELDS} organization { id name }`);

export const DEVELOPERS = connectionQuery<"developers", Developer, { organizationId: string }>("developers", { organizationId: "ID" }, DEVELOPER_FIELDS);

export interface CreateDeveloperInput {
  organizationId: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export const CREATE_DEVELOPER = createMutation<"Developer", Developer, CreateDeveloperInput>("Developer", DEVELOPER_FIELDS);

/** UpdateOrganizationInput: a field left out keeps its value. */
export interface UpdateOrganizationInput {
  name?: string;
  displayName?: string;
}

export const UPDATE_ORGANIZATION = updateMutation<"Organization", Organization, UpdateOrganizationInput>("Organization", ORGANIZATION_FIELDS);

/** Fails with CONFLICT while the organization has developers. */
export const DELETE_ORGANIZATION = byIdDocument<"deleteOrganization", string>("mutation", "deleteOrganization");

/** UpdateDeveloperInput: a field left out keeps its value. */
export type UpdateDeveloperInput = Partial<Omit<CreateDeveloperInput, "organizationId">>;

export const UPDATE_DEVELOPER = updateMutation<"Developer", Developer, UpdateDeveloperInput>("Developer", DEVELOPER_FIELDS);

/** Fails with CONFLICT while the developer has apps. */
export const DELETE_DEVELOPER = byIdDocument<"deleteDeveloper", string>("mutation", "deleteDeveloper");

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

/** Create, update (a field left out keeps its value) and delete. Delete: Apps lose the product from their credentials. */
export const { create: CREATE_API_PRODUCT, update: UPDATE_API_PRODUCT, delete: DELETE_API_PRODUCT } = entityMutations<"ApiProduct", ApiProduct, CreateApiProductInput, UpdateApiProductInput>("ApiProduct", API_PRODUCT_FIELDS);

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

/** Create, update (a field left out keeps its value) and delete. Delete: Its gateway path is gone. */
export const { create: CREATE_API, update: UPDATE_API, delete: DELETE_API } = entityMutations<"Api", Api, CreateApiInput, UpdateApiInput>("Api", API_FIELDS);

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

export const APPS = connectionQuery<"apps", AppSummary, { filter?: AppFilter }>("apps", { filter: "AppFilter" }, APP_SUMMARY_FIELDS);

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

export const CREATE_APP = createMutation<"App", IssuedCredential, CreateAppInput>("App", ISSUED_FIELDS);

export const APP = byIdDocument<"app", AppDetail | null>("query", "app", APP_DETAIL_FIELDS);

export const SET_APP_STATUS = fieldDocument<"setAppStatus", AppDetail, { appId: string; status: Status }>("mutation", "setAppStatus", { appId: "ID!", status: "Status!" }, APP_DETAIL_FIELDS);

export const ADD_CALLBACK_URL = fieldDocument<"addCallbackUrl", AppDetail, { appId: string; url: string }>("mutation", "addCallbackUrl", { appId: "ID!", url: "String!" }, APP_DETAIL_FIELDS);

export const REMOVE_CALLBACK_URL = fieldDocument<"removeCallbackUrl", AppDetail, { appId: string; url: string }>("mutation", "removeCallbackUrl", { appId: "ID!", url: "String!" }, APP_DETAIL_FIELDS);

export const SET_TOKEN_LIFETIMES = gql<
  { setTokenLifetimes: AppDetail },
  { appId: string; input: { accessTokenLifetimeSeconds?: number; refreshTokenLifetimeSeconds?: number } }
>(`
  mutation SetTokenLifetimes($appId: ID!, $input: TokenLifetimesInput!) {
    setTokenLifetimes(appId: $appId, input: $input) { ${APP_DETAIL_FIELDS} }
  }
`);

export const SET_APP_SETTINGS = fieldDocument<"setAppSettings", AppDetail, { appId: string; input: AppSettings }>("mutation", "setAppSettings", { appId: "ID!", input: "AppSettingsInput!" }, APP_DETAIL_FIELDS);

/** Registers or replaces the app's signing keys: a JWK Set (JSON text) or a jwks_uri; neither removes them. */
export const SET_APP_KEYS = fieldDocument<"setAppKeys", AppDetail, { appId: string; jwks?: string; jwksUri?: string }>("mutation", "setAppKeys", { appId: "ID!", jwks: "String", jwksUri: "String" }, APP_DETAIL_FIELDS);

export const SET_CREDENTIAL_PRODUCT_STATUS = gql<
  { setCredentialProductStatus: Credential },
  { credentialId: string; apiProductId: string; status: ProductStatus }
>(`
  mutation SetCredentialProductStatus($credentialId: ID!, $apiProductId: ID!, $status: ProductStatus!) {
    setCredentialProductStatus(credentialId: $credentialId, apiProductId: $apiProductId, status: $status) { ${CREDENTIAL_FIELDS} }
  }
`);

export const ROTATE_CREDENTIAL = fieldDocument<"rotateCredential", IssuedCredential, { credentialId: string; graceSeconds: number }>("mutation", "rotateCredential", { credentialId: "ID!", graceSeconds: "Int" }, ISSUED_FIELDS);

export const REVOKE_CREDENTIAL = fieldDocument<"revokeCredential", Credential, { credentialId: string }>("mutation", "revokeCredential", { credentialId: "ID!" }, CREDENTIAL_FIELDS);

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

export const REVOKE_TOKEN = byIdDocument<"revokeToken", Pick<AccessToken, "id" | "status" | "state" | "revokedAt" | "revokedBy">>("mutation", "revokeToken", "id status state revokedAt revokedBy");

export const REVOKE_TOKENS = fieldDocument<"revokeTokens", number, { appId?: string; userId?: string }>("mutation", "revokeTokens", { appId: "ID", userId: "ID" });

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

export const USERS = connectionQuery<"users", User, { search?: string }>("users", { search: "String" }, USER_FIELDS);

export const CREATE_USER = createMutation<"User", User, { username: string; password: string; role: Role }>("User", USER_FIELDS);

export const SET_USER_ROLE = fieldDocument<"setUserRole", User, { userId: string; role: Role }>("mutation", "setUserRole", { userId: "ID!", role: "Role!" }, USER_FIELDS);

export const SET_USER_STATUS = fieldDocument<"setUserStatus", User, { userId: string; status: UserStatus }>("mutation", "setUserStatus", { userId: "ID!", status: "UserStatus!" }, USER_FIELDS);

export const UNBLOCK_USER = byIdDocument<"unblockUser", User>("mutation", "unblockUser", USER_FIELDS);

/** A temporary password, shown once. */
export interface TemporaryPassword {
  user: User;
  password: string;
  validUntil: string;
}

export const SET_TEMPORARY_PASSWORD = byIdDocument<"setTemporaryPassword", TemporaryPassword>("mutation", "setTemporaryPassword", `user { ${USER_FIELDS} } password validUntil`);

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

export const REVOKE_CONSENT = byIdDocument<"revokeConsent", string>("mutation", "revokeConsent");

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

export const REVOKE_MY_CONSENT = byIdDocument<"revokeMyConsent", string>("mutation", "revokeMyConsent");

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

export const PSD2_CONSENTS = fieldDocument<"psd2Consents", Psd2Consent[], { status?: string; clientId?: string; search?: string }>("query", "psd2Consents", { status: "String", clientId: "String", search: "String" }, PSD2_CONSENT_FIELDS);

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

export const PSD2_CONSENT = byIdDocument<"psd2Consent", Psd2ConsentDetail | null>("query", "psd2Consent", `${PSD2_CONSENT_FIELDS} ${EVIDENCE_FIELDS}`);

export const REVOKE_PSD2_CONSENT = byIdDocument<"revokePsd2Consent", Psd2Consent>("mutation", "revokePsd2Consent", PSD2_CONSENT_FIELDS);

export const MY_PSD2_CONSENTS = gql<{ myPsd2Consents: MyPsd2Consent[] }>(`
  query MyPsd2Consents {
    myPsd2Consents { ${MY_PSD2_CONSENT_FIELDS} }
  }
`);

export const REVOKE_MY_PSD2_CONSENT = byIdDocument<"revokeMyPsd2Consent", MyPsd2Consent>("mutation", "revokeMyPsd2Consent", MY_PSD2_CONSENT_FIELDS);

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

export const ROTATE_SIGNING_KEY = fieldDocument<"rotateSigningKey", SigningKeyRotation, { alg: SigningAlgorithm }>("mutation", "rotateSigningKey", { alg: "SigningAlgorithm!" }, `alg promoted signsFrom keys { ${SIGNING_KEY_FIELDS} }`);

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

/** Create, update (a field left out keeps its value) and delete. */
export const { create: CREATE_IDENTITY_PROVIDER, update: UPDATE_IDENTITY_PROVIDER, delete: DELETE_IDENTITY_PROVIDER } = entityMutations<"IdentityProvider", IdentityProvider, CreateIdentityProviderInput, UpdateIdentityProviderInput>("IdentityProvider", IDENTITY_PROVIDER_FIELDS);

/* The queue of dynamic registrations awaiting the bank's approval */

/** A registration of the queue: the app, its owner and what its software statement says. */
export interface PendingRegistration extends AppSummary {
  registration: Pick<AppRegistration, "softwareId" | "organizationId" | "organizationName" | "roles" | "registeredAt"> | null;
}

/** The pending registrations, oldest first. */
export const PENDING_REGISTRATIONS = connectionQuery<"pendingRegistrations", PendingRegistration>(
  "pendingRegistrations",
  {},
  `${APP_SUMMARY_FIELDS} registration { softwareId organizationId organizationName roles registeredAt }`,
);

/** How many registrations wait for approval: the count beside the navigation's link. */
export const PENDING_REGISTRATION_COUNT = gql<{ pendingRegistrationCount: number }, Record<string, never>>(`
  query PendingRegistrationCount {
    pendingRegistrationCount
  }
`);

// App lifecycle and erasure (GDPR Art. 17).

/** The name is checked as at creation; CONFLICT when the developer has an app of this name. */
export const RENAME_APP = fieldDocument<"renameApp", AppDetail, { id: string; name: string }>("mutation", "renameApp", { id: "ID!", name: "String!" }, APP_DETAIL_FIELDS);

/** Revokes the app's live tokens, then removes it with its credentials, tokens, codes and consents. */
export const DELETE_APP = byIdDocument<"deleteApp", { id: string; revokedTokens: number }>("mutation", "deleteApp", "id revokedTokens");

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
export const ERASE_DEVELOPER = byIdDocument<"eraseDeveloper", Erasure>("mutation", "eraseDeveloper", "id pseudonym auditEventsPseudonymized");

/** Erases its developers too; CONFLICT while any of them has apps. */
export const ERASE_ORGANIZATION = byIdDocument<"eraseOrganization", Erasure>("mutation", "eraseOrganization", "id pseudonym auditEventsPseudonymized");
