/**
 * The one client registered at the oidc-provider peer (bench/peers/oidc-provider.ts), and
 * the scopes it asks for: the demo app's, so that both servers issue alike tokens. Its own
 * module so that the peer process loads nothing else of the benchmark.
 */
export const PEER_CLIENT = {
  consumerKey: "bench-client",
  consumerSecret: "bench-client-secret-4d0c9a7e1b",
  scope: "aisp extended_transaction_history piisp pisp",
} as const;

/**
 * The FAPI 2.0 client registered at the oidc-provider FAPI peer
 * (bench/peers/oidc-provider-fapi.ts), set up as our demo `fapi2` app is: private_key_jwt
 * with the demo app's public key (server/src/demo/fapi-key.ts), the demo callback URL
 * (server/src/demo/seed.ts DEMO.callbackUrl), and the scope the benchmark asks both servers for.
 */
export const PEER_FAPI_CLIENT = {
  clientId: "bench-fapi-client",
  redirectUri: "http://localhost:8080/callback",
  scope: "aisp",
} as const;

/**
 * The OpenID Connect client registered at the oidc-provider OpenID peer
 * (bench/peers/oidc-provider-openid.ts) for scenario `code-openid`, set up as our demo strict
 * app is used there: client_secret_basic, the authorization code grant with PKCE (and refresh
 * tokens), the demo callback URL (server/src/demo/seed.ts DEMO.callbackUrl), ID tokens signed
 * PS256, and scope `openid`.
 */
export const PEER_OIDC_CLIENT = {
  consumerKey: "bench-oidc-client",
  consumerSecret: "bench-oidc-client-secret-8f3e61c2a9",
  redirectUri: "http://localhost:8080/callback",
  scope: "openid",
} as const;
