/**
 * The catalog as the admin API manages it: API products (Apigee: bundles of APIs and
 * scopes offered to apps) and APIs (gateway path prefix -> upstream). The gateway's
 * read-only view of the same tables is catalog.ts.
 */
import type { ConsentCheck } from "./catalog.js";
import type { AccessTokenFormat } from "./clients.js";

export interface ApiProductRecord {
  id: string;
  /** Unique, no spaces (product names are stored space-separated in tokens). */
  name: string;
  displayName: string;
  description: string;
  /** Scope names the product offers. */
  scopes: string[];
  /**
   * PSD2 strong customer authentication (RTS Art. 4): an authorization code for any of its
   * scopes needs the user's password and a second factor.
   */
  requiresSca: boolean;
  /** RFC 9396 authorization details types the product lets a client ask for (payment_initiation, account_information). */
  authorizationDetailsTypes: string[];
  /** The access tokens of its grants (oauth/access-token-jwt.ts): opaque, or JWTs (RFC 9068). */
  accessTokenFormat: AccessTokenFormat;
  /** The bank's identity provider the PSUs of its grants sign in at (federation/), unless the app names one; null: Tollgate's own sign-in. */
  identityProviderId: string | null;
  createdAt: Date;
}

export interface ApiRecord {
  id: string;
  /** Unique gateway path prefix. */
  name: string;
  /** Absolute http(s) URL. */
  upstreamUrl: string;
  /** Scopes a token must all carry to call the API. */
  requiredScopes: string[];
  /** Whether the upstream's Set-Cookie reaches callers. */
  passCookies: boolean;
  /** Step-up (RFC 9470): the `acr` (kernel/acr.ts) a token's user authentication must meet; null when any. */
  requiredAcr: string | null;
  /** Step-up (RFC 9470): the most seconds since the user's authentication; null when any. */
  maxAgeSeconds: number | null;
  /** PSD2 dynamic linking at the gateway (stores/catalog.ts ConsentCheck). */
  consentCheck: ConsentCheck;
  createdAt: Date;
}

/** An API product's fields to set; `apiIds` replaces the product's APIs. */
export interface ApiProductChanges {
  name?: string;
  displayName?: string;
  description?: string;
  scopes?: string[];
  requiresSca?: boolean;
  authorizationDetailsTypes?: string[];
  accessTokenFormat?: AccessTokenFormat;
  /** null: Tollgate's own sign-in. */
  identityProviderId?: string | null;
  apiIds?: string[];
}

/** An API's fields to set; for `requiredAcr` and `maxAgeSeconds`, null sets "none". */
export interface ApiChanges {
  name?: string;
  upstreamUrl?: string;
  requiredScopes?: string[];
  passCookies?: boolean;
  requiredAcr?: string | null;
  maxAgeSeconds?: number | null;
  consentCheck?: ConsentCheck;
}

export interface ProductStore {
  /** Every API product, by name. */
  listProducts(): Promise<ApiProductRecord[]>;
  /** The API products whose PSUs sign in at an identity provider, by name. */
  productsOfIdentityProvider(identityProviderId: string): Promise<ApiProductRecord[]>;
  /** The APIs an API product grants. */
  apisOfProduct(apiProductId: string): Promise<ApiRecord[]>;
  /** Fields left out take their defaults. @throws Conflict when the name is taken, UnknownReference for an unknown API id. */
  createProduct(product: ApiProductChanges & { name: string }): Promise<ApiProductRecord>;
  /** Changes the given fields in one statement (undefined keeps a field). @throws NotFound, Conflict, UnknownReference as {@link createProduct}. */
  updateProduct(id: string, changes: ApiProductChanges): Promise<ApiProductRecord>;
  /** Deletes an API product and its approvals on credentials. @throws NotFound */
  deleteProduct(id: string): Promise<void>;

  /** Every API, by name. */
  listApis(): Promise<ApiRecord[]>;
  /** The API products granting an API. */
  productsOfApi(apiId: string): Promise<ApiProductRecord[]>;
  /** Fields left out take their defaults (no required scopes, cookies dropped, no step-up). @throws Conflict when the name is taken. */
  createApi(api: ApiChanges & { name: string; upstreamUrl: string }): Promise<ApiRecord>;
  /** Changes the given fields (undefined keeps a field). @throws NotFound, Conflict when the name is taken. */
  updateApi(id: string, changes: ApiChanges): Promise<ApiRecord>;
  /** Deletes an API (and its place in products). @throws NotFound */
  deleteApi(id: string): Promise<void>;

  /** Every scope some API product offers, by name, with its description ("" when it has none). */
  listScopes(): Promise<ScopeDescription[]>;
  /** The described scopes among `names` (their description is not empty). */
  describedScopes(names: readonly string[]): Promise<Set<string>>;
  /** Sets each scope's description, for every product offering it (inserted when new). */
  describeScopes(descriptions: readonly ScopeDescription[]): Promise<void>;
}

/** A scope and what it means to end users, shown instead of its name on the consent and Account pages. */
export interface ScopeDescription {
  name: string;
  description: string;
}
