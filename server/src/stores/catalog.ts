/**
 * The catalog as the gateway and the metadata endpoint read it: APIs by gateway path
 * prefix, and the described scopes.
 */

/** A protected API as the gateway needs it. */
export interface ApiRoute {
  name: string;
  /**
   * Where calls are forwarded, from the API's absolute http(s) upstream URL, parsed once
   * when the route is loaded: its origin, and its path without a trailing slash (prefixed
   * to every forwarded path).
   */
  upstream: { origin: string; basePath: string };
  /** Scopes a token must all carry to call this API. */
  requiredScopes: string[];
  /** Names of the API products that grant this API. */
  productNames: string[];
  /** Whether the upstream's `Set-Cookie` reaches the caller; when false it is dropped (gateway/forward.ts). */
  passCookies: boolean;
  /**
   * Step-up (RFC 9470): the `acr` (kernel/acr.ts) a token's user authentication must meet,
   * or a stronger one; null when any is accepted.
   */
  requiredAcr: string | null;
  /** Step-up (RFC 9470): the most seconds since the user's authentication (`auth_time`); null when any age is accepted. */
  maxAgeSeconds: number | null;
  /** PSD2 dynamic linking (RTS Art. 5) of calls made with a consent's token (gateway/consent-check.ts). */
  consentCheck: ConsentCheck;
}

/**
 * How the gateway holds a call to the consent its token carries: `payments`: a payment must
 * match the authorized payment_initiation details and uses the consent up; `accounts`: only
 * the authorized accounts and data; `none`: no check.
 */
export type ConsentCheck = "none" | "payments" | "accounts";

export interface CatalogStore {
  /**
   * The API served under gateway path prefix `name` (per-process catalog cache).
   * @returns undefined when no API has this name.
   */
  apiRoute(name: string): Promise<ApiRoute | undefined>;
  /** The RFC 9396 authorization details types some API product offers, sorted (metadata `authorization_details_types_supported`). */
  authorizationDetailsTypes(): Promise<string[]>;
  /** Names of all described scopes, sorted. */
  scopeNames(): Promise<string[]>;
}
