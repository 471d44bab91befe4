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
