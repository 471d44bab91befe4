/**
 * A starting catalog and its users, as plain data: what a fresh database is loaded with
 * (the demo, demo/seed.ts). Secrets are given as their stored forms only.
 */
export interface CatalogSeed {
  /** Scope name → description shown on the consent page. */
  scopes: Record<string, string>;
  /** `consentCheck`: PSD2 dynamic linking at the gateway (stores/catalog.ts; none when left out). */
  apis: { name: string; upstreamUrl: string; requiredScopes: string; consentCheck?: string }[];
  /**
   * `apis`: names of the APIs the product grants; `requiresSca`: PSD2 strong customer
   * authentication (false when left out); `authorizationDetailsTypes`: space-separated RFC 9396 types (none when left out).
   */
  products: { name: string; displayName: string; scopes: string; apis: string[]; requiresSca?: boolean; authorizationDetailsTypes?: string }[];
  organization: { name: string; displayName: string };
  developer: { email: string; firstName: string; lastName: string };
  apps: {
    name: string;
    tokenResponseProfile: string;
    requirePkce: boolean;
    canIntrospect: boolean;
    /** Space-separated client authentication methods. */
    tokenEndpointAuthMethods: string;
    callbackUrls: string[];
    /** Space-separated RP-Initiated Logout redirect URIs; none when left out. */
    postLogoutRedirectUris?: string;
    consumerKey: string;
    /** SHA-256 hex of the consumer secret. */
    consumerSecretHash: string;
    /** Names of the API products approved on the app's credential. */
    products: string[];
    /** `standard` when left out. */
    securityProfile?: string;
    /** The app's public JWK Set as JSON (private_key_jwt); none when left out. */
    jwks?: string;
  }[];
  /** `passwordHash`: argon2id PHC string; `totpSecret`: a base32 TOTP key enrolled as the user's second factor. */
  users: { username: string; passwordHash: string; role: string; totpSecret?: string; name?: string; givenName?: string; familyName?: string; email?: string; emailVerified?: boolean }[];
}
