/**
 * DEMO DATA: the organization, developer, API products, API, apps and end user a fresh
 * clone starts with (issue "foundation" §6, decisions.md "Standard clients"). The demo
 * credentials are fixed and public so the README's curl lines work as printed: turn
 * seeding off (SEED_DEMO=false) anywhere but a laptop.
 */
import { hash } from "@node-rs/argon2";
import type { CatalogSeed } from "../stores/seed.js";
import { hashSecret, newSecret } from "../kernel/secrets.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "./fapi-key.js";

/** Human-readable scope descriptions, shown on the consent page. */
const SCOPES = {
  aisp: "Read your account details, balances and transactions",
  extended_transaction_history: "Read your transaction history beyond the last 90 days",
  pisp: "Initiate payments from your accounts",
  piisp: "Confirm that funds are available on your account",
  admin: "Manage Tollgate through its admin API",
};

const PRODUCTS = [
  {
    name: "PSD2-AISP-v1",
    displayName: "PSD2 Account Information",
    scopes: "aisp extended_transaction_history",
    apis: ["accounts", "products"],
    requiresSca: true,
    authorizationDetailsTypes: "account_information",
  },
  { name: "PSD2-PISP-v1", displayName: "PSD2 Payment Initiation", scopes: "pisp", apis: ["payments"], requiresSca: true, authorizationDetailsTypes: "payment_initiation" },
  { name: "PSD2-PIISP-v1", displayName: "PSD2 Funds Confirmation", scopes: "piisp", apis: [], requiresSca: true },
  { name: "Tollgate-Admin", displayName: "Tollgate admin API", scopes: "admin", apis: [] },
];

/** `App.tokenEndpointAuthMethods` values (oauth/auth-methods.ts): the default, and both methods. */
const BASIC = "client_secret_basic";
const BASIC_OR_POST = "client_secret_basic client_secret_post";
const PRIVATE_KEY_JWT = "private_key_jwt";

/** The demo's public identifiers and secrets, printed at start and used by the README and tests. */
export const DEMO = {
  organization: "Acme Fintech Ltd",
  developerEmail: "developer@acme-fintech.example",
  callbackUrl: "http://localhost:8080/callback",
  /** Where every demo app may send the browser after RP-Initiated Logout. */
  postLogoutRedirectUrl: "http://localhost:8080/signed-out",
  /** Legacy app in the spec's format (apigee profile, PKCE optional), all three products. */
  app: { name: "Acme Budgeting", consumerKey: "demo-budgeting-key", consumerSecret: "demo-budgeting-secret-7Qm4zX" },
  /**
   * Same products, rfc6749 token response profile, PKCE required, may introspect, client
   * authentication by Basic or client_secret_post: for strict OAuth clients and resource servers.
   */
  strictApp: { name: "Acme Budgeting (RFC 6749)", consumerKey: "demo-strict-key", consumerSecret: "demo-strict-secret-Vb82pL" },
  /** Only PSD2-PISP-v1: its tokens are refused by the accounts API (insufficient_scope). */
  paymentsApp: { name: "Acme Payments", consumerKey: "demo-payments-key", consumerSecret: "demo-payments-secret-Hc31nR" },
  /**
   * FAPI 2.0 app (`fapi2` profile): PAR, PKCE, private_key_jwt with the demo key of
   * demo/fapi-key.ts (no consumer secret works), DPoP-bound tokens; the PSD2 products.
   */
  fapiApp: { name: "Acme Open Banking (FAPI 2.0)", consumerKey: "demo-fapi-key" },
  /** Automation client: its client-credentials tokens carry the `admin` scope for POST /graphql. */
  adminApp: { name: "Tollgate Automation", consumerKey: "demo-admin-key", consumerSecret: "demo-admin-secret-Jw57kT" },
  /**
   * The demo PSU. `totpSecret` is her authenticator app's key (RFC 6238, base32): public, as
   * the password is, so the README's walkthrough can compute her codes (`npm run demo:totp`).
   */
  user: {
    username: "alice",
    password: "alice-demo-password",
    totpSecret: "TOLLGATEDEMOALICEPUBLICKEYABCDEF",
    /** Her OpenID Connect claims (UserInfo, `profile` and `email` scopes). */
    claims: { name: "Alice Martin", givenName: "Alice", familyName: "Martin", email: "alice@example.com", emailVerified: true },
  },
  /** The demo administrator; `totpSecret` is the public key of their authenticator app: the console needs the second factor (ADMIN_REQUIRE_SCA). */
  admin: { username: "admin", password: "admin-demo-password", totpSecret: "TOLLGATEDEMOADMINPUBLICKEYABCDEF" },
} as const;

/**
 * The demo as a seed for an empty database (db/seed.ts loads it).
 * @param upstream - base URLs of the demo upstreams behind the `accounts` and `payments` APIs.
 */
export async function demoSeed(upstream: { url: string; paymentsUrl: string }): Promise<CatalogSeed> {
  const [passwordHash, adminPasswordHash] = await Promise.all([hash(DEMO.user.password), hash(DEMO.admin.password)]);
  const psd2 = PRODUCTS.map((p) => p.name).filter((name) => name.startsWith("PSD2-"));
  const apps = [
    { ...DEMO.app, profile: "apigee", requirePkce: false, canIntrospect: false, authMethods: BASIC, products: psd2 },
    { ...DEMO.strictApp, profile: "rfc6749", requirePkce: true, canIntrospect: true, authMethods: BASIC_OR_POST, products: psd2 },
    { ...DEMO.paymentsApp, profile: "apigee", requirePkce: true, canIntrospect: false, authMethods: BASIC, products: ["PSD2-PISP-v1"] },
    { ...DEMO.adminApp, profile: "apigee", requirePkce: true, canIntrospect: false, authMethods: BASIC, products: ["Tollgate-Admin"] },
    {
      ...DEMO.fapiApp,
      // Never usable: a fapi2 app authenticates with private_key_jwt only.
      consumerSecret: newSecret(),
      profile: "rfc6749",
      requirePkce: true,
      canIntrospect: false,
      authMethods: PRIVATE_KEY_JWT,
      products: psd2,
      securityProfile: "fapi2",
      jwks: JSON.stringify(DEMO_FAPI_PUBLIC_JWKS),
    },
  ];
  return {
    scopes: SCOPES,
    apis: [
      { name: "accounts", upstreamUrl: upstream.url, requiredScopes: "aisp", consentCheck: "accounts" },
      // Open data (the bank's products, no PSU's data): what a client credentials token may read.
      { name: "products", upstreamUrl: `${upstream.url}/products`, requiredScopes: "aisp" },
      { name: "payments", upstreamUrl: upstream.paymentsUrl, requiredScopes: "pisp", consentCheck: "payments" },
    ],
    products: PRODUCTS,
    organization: { name: DEMO.organization, displayName: DEMO.organization },
    developer: { email: DEMO.developerEmail, firstName: "Dana", lastName: "Developer" },
    apps: apps.map((a) => ({
      name: a.name,
      tokenResponseProfile: a.profile,
      requirePkce: a.requirePkce,
      canIntrospect: a.canIntrospect,
      tokenEndpointAuthMethods: a.authMethods,
      callbackUrls: [DEMO.callbackUrl],
      postLogoutRedirectUris: DEMO.postLogoutRedirectUrl,
      consumerKey: a.consumerKey,
      consumerSecretHash: hashSecret(a.consumerSecret),
      products: a.products,
      securityProfile: "securityProfile" in a ? a.securityProfile : undefined,
      jwks: "jwks" in a ? a.jwks : undefined,
    })),
    users: [
      { username: DEMO.user.username, passwordHash, role: "user", totpSecret: DEMO.user.totpSecret, ...DEMO.user.claims },
      { username: DEMO.admin.username, passwordHash: adminPasswordHash, role: "admin", totpSecret: DEMO.admin.totpSecret },
    ],
  };
}
