/**
 * Tollgate configuration: every setting comes from one environment variable, parsed and
 * validated here with zod. This is the only place defaults and the settings' documentation
 * live: the reference in docs/configuration.md is generated from {@link configSchema}
 * (`npm run docs:config`, scripts/docs/config-reference.ts).
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const port = z.coerce.number().int().min(0).max(65535);

const url = z
  .string()
  .url()
  .transform((u) => u.replace(/\/+$/, ""));

/** True for an absolute path on this origin ("/brand/logo.svg"): printable ASCII without backslashes, and not "//host", which browsers read as another origin (as they do "/\\host"). */
const isAbsolutePath = (v: string) => /^\/(?!\/)[\x21-\x7e]*$/.test(v) && !v.includes("\\");

/** True for an http or https URL (no javascript:, data: or other schemes). */
const isHttpUrl = (v: string) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol);

/** An image's address for the end-user pages: an http(s) URL, or an absolute path on this origin. */
const imageUrl = z.string().refine((v) => isAbsolutePath(v) || isHttpUrl(v), "must be an http(s) URL or an absolute path such as /brand/logo.svg");

/**
 * Every setting: its environment variable, how it is parsed and validated, and its
 * documentation, which docs/configuration.md shows (scripts/docs/config-reference.ts). Each
 * setting's `.meta()` gives its `description` (the meaning column, one markdown line) and,
 * where zod has no literal default (an optional setting, or a default worked out in
 * {@link loadConfig}), its `default` in words; a literal zod default is shown as it is.
 */
export const configSchema = z.object({
  PORT: port.default(3000).meta({ description: "TCP port of the HTTP server (`0` picks a free one, as the tests do)" }),
  HOST: z.string().min(1).default("127.0.0.1").meta({ description: "interface to listen on (set `0.0.0.0` inside a container)" }),
  BASE_URL: url.optional().meta({
    description: "public address of the gateway and token endpoint (`{base_url}`)",
    default: "`http://localhost:$PORT`",
  }),
  AUTH_URL: url.optional().meta({
    description: "public address of the authorization server (`{auth_url}`); the OAuth issuer (`iss`)",
    default: "`BASE_URL`",
  }),
  DATABASE_URL: z.string().min(1).default("file:./data/tollgate.db").meta({
    description: "`file:<path>` (SQLite, relative to the working directory) or `postgresql://…`; created/migrated on start",
  }),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").meta({
    description: "pino log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, or `silent`",
  }),
  SEED_DEMO: bool.default(true).meta({
    description:
      "seed the demo organization, apps, API products and user into an empty database and run the demo upstreams; on every " +
      "start the demo's `accounts` and `payments` APIs are pointed at them",
  }),
  DEMO_UPSTREAM_PORT: port.optional().meta({
    description:
      "port of the built-in demo upstream behind the demo's `accounts` API (sample accounts); `0` picks a free one. " +
      "The demo's payments upstream always takes a free port",
    default: "`PORT + 1` (a free port when `PORT` is `0`)",
  }),
  REALM: z.string().regex(/^[\x20-\x7e]+$/).refine((r) => !r.includes('"')).default("tollgate").meta({
    description: "realm named in `WWW-Authenticate` challenges (RFC 7617, RFC 6750)",
  }),
  FORM_BODY_LIMIT_BYTES: z.coerce.number().int().min(256).default(16384).meta({
    description: "largest accepted form body on the OAuth endpoints, such as the token endpoint, in bytes (`413` beyond)",
  }),
  SESSION_SECRET: z.string().min(32).optional().meta({
    description:
      "secret signing the session cookie and the pre-sign-in flow cookie (32+ characters); without it sessions end on " +
      "restart: set it to keep sessions across restarts, and when running several instances",
    default: "random per start",
  }),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).default(1800).meta({ description: "idle lifetime of a browser session, seconds" }),
  INTERACTION_TTL_SECONDS: z.coerce.number().int().min(30).default(600).meta({
    description: "time allowed between `/authorize` and the user's answer (signing in and consenting), seconds",
  }),
  SIGNIN_MAX_FAILURES_PER_USER: z.coerce.number().int().min(1).default(5).meta({
    description:
      "consecutive failed sign-in attempts per (case-folded) username, password and second factor counted together, before a " +
      "temporary block (`429`; PSD2 RTS Art. 4(3)(b): at most 5)",
  }),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(20).meta({
    description: "failed sign-ins per client IP per window (`SIGNIN_WINDOW_SECONDS`) before `429`",
  }),
  SIGNIN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900).meta({
    description:
      "sign-in throttling window, seconds: failures count within it, and a blocked username or IP waits out its rest (the " +
      "message names the wait)",
  }),
  TEMPORARY_PASSWORD_HOURS: z.coerce.number().int().min(1).max(720).default(72).meta({
    description:
      "hours a temporary password set in the console (`setTemporaryPassword`) signs in; the user chooses a new password at " +
      "that sign-in, and an expired one is refused like a wrong password",
  }),
  SCA_IDLE_SECONDS: z.coerce.number().int().min(1).max(300).default(300).meta({
    description:
      "seconds a user may stay inactive after authenticating before consent needs a new sign-in (PSD2 RTS Art. 4(3)(d): at " +
      "most 300); also how long a sign-in counts as fresh for changing one's sign-in methods",
  }),
  SCA_REAUTHENTICATION_DAYS: z.coerce.number().int().min(0).max(3650).default(180).meta({
    description:
      "days after its last strong customer authentication (SCA) that a refresh token of a grant needing SCA keeps working " +
      "(PSD2 RTS Art. 10a: 180); `0` turns the rule off (e.g. the UK variant, where consent expiry takes over)",
  }),
  PAYMENT_CONSENT_LIFETIME_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600).meta({
    description:
      "how long after the PSU's approval a payment consent's payment may be made, seconds (60 to 86400); then the consent is " +
      "`expired` and the payment refused. A TPP makes the payment right after the authorization: the default hour leaves room " +
      "for a retry after an upstream that could not be reached, while an approval never becomes a standing mandate to pay " +
      "later (the refresh token lives 90 days)",
  }),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000).meta({
    description:
      "how long the gateway waits for an upstream's answer to start, and then between two pieces of it, milliseconds; a " +
      "payment with no answer in time has an unknown outcome",
  }),
  CORS_ORIGINS: z.string().default("").meta({
    description: "comma-separated browser origins allowed (CORS) on the token, revocation, introspection and metadata endpoints",
  }),
  TOKEN_RATE_LIMIT_PER_CLIENT: z.coerce.number().int().min(0).default(600).meta({
    description: "requests per minute per client id on the token, revocation and introspection endpoints before `429` (`0`: off)",
  }),
  TOKEN_RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(1200).meta({
    description: "requests per minute per client IP on the token, revocation and introspection endpoints before `429` (`0`: off)",
  }),
  AUTHORIZE_RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(300).meta({
    description: "valid authorization requests per minute per client IP, each of which writes an interaction or a code (`429` beyond; `0`: off)",
  }),
  PURGE_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600).meta({
    description: "seconds between purges of expired codes, interactions, sessions, tokens and old audit events (`0`: off)",
  }),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).default(365).meta({ description: "days audit events are kept" }),
  EVIDENCE_RETENTION_DAYS: z.coerce.number().int().min(1).default(1826).meta({
    description: "days the evidence of signed authorization requests and responses is kept after its consent ended (five years: the record-keeping of the EU anti-money-laundering directive)",
  }),
  CATALOG_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1000).meta({
    description:
      "how long a cached client, credential or API lookup is used, milliseconds; changes made through this instance apply at " +
      "once, changes made on another instance within this time (`0`: no cache)",
  }),
  TOKEN_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(500).meta({
    description:
      "PostgreSQL with `REDIS_URL`: how long a cached token row is used at most, milliseconds, should the eviction of a " +
      "change never arrive over Redis (a partition not yet noticed; `server/src/db/token-cache.ts`); evictions normally " +
      "arrive at once. Keep it under the 1 s revocation bound (`0`: no token cache)",
  }),
  SQLITE_SYNCHRONOUS: z.enum(["NORMAL", "FULL"]).default("NORMAL").meta({
    description:
      "SQLite `PRAGMA synchronous`: `NORMAL` (commits survive a process crash; a power loss may drop the last ones) or `FULL` " +
      "(they survive a power loss too, at an fsync per commit; see *Performance → Durability*)",
  }),
  DELEGATED_LOGIN_URL: z.string().refine(isHttpUrl, "must be an http(s) URL").optional().meta({
    description:
      "the bank's own login application: PSUs are sent there with `?login_challenge=…` instead of Tollgate's sign-in page, and it answers through `/delegation/v1` (docs/bank-integration.md); with DELEGATED_CONSENT_URL",
    default: "none: Tollgate's sign-in page",
  }),
  DELEGATED_CONSENT_URL: z.string().refine(isHttpUrl, "must be an http(s) URL").optional().meta({
    description: "the bank's own consent application: PSUs are sent there with `?consent_challenge=…` instead of Tollgate's consent page; with DELEGATED_LOGIN_URL",
    default: "none: Tollgate's consent page",
  }),
  ADMIN_REQUIRE_SCA: bool.default(true).meta({ description: "the console's staff (admin, support, auditor) act in their role only after signing in with their second factor (EBA/GL/2019/04: strong authentication for privileged access)" }),
  ADMIN_IDLE_SECONDS: z.coerce.number().int().min(60).max(3600).default(900).meta({
    description:
      "seconds without a request after which a staff member's (admin, support, auditor) console session ends; the console warns two minutes before " +
      "and offers to stay signed in (EBA/GL/2019/04: sessions of privileged access end after inactivity). At most SESSION_TTL_SECONDS takes effect",
  }),
  FEDERATION_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(10).meta({
    description: "longest wait for each call to a bank identity provider (discovery, PAR, token endpoint, JWK Set), seconds; beyond it the TPP gets `temporarily_unavailable`",
  }),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000).meta({
    description:
      "PostgreSQL: longest wait for a new connection or a free pooled one, milliseconds (pg's `connectionTimeoutMillis`); " +
      "beyond it the request gets `503`",
  }),
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000).meta({
    description:
      "PostgreSQL: longest wait for a query's answer, milliseconds (pg's `query_timeout`); beyond it the connection is " +
      "dropped and the request gets `503`",
  }),
  REDIS_URL: z.string().regex(/^rediss?:\/\//).optional().meta({
    description: "Redis shared by all instances for rate-limit and sign-in counters, e.g. `redis://127.0.0.1:6379` (`rediss://` for TLS)",
    default: "none: counters per process (one instance)",
  }),
  REDIS_KEY_PREFIX: z.string().default("tollgate:").meta({ description: "prefix of Tollgate's keys in Redis" }),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(500).meta({
    description:
      "longest wait for a Redis command's answer, milliseconds (ioredis `commandTimeout`); beyond it the counters of this " +
      "instance take over for that request (see *Health and readiness*)",
  }),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0).meta({
    description: "reverse proxies (hops) to trust for `X-Forwarded-*`, Express's `trust proxy` (the client IP for sign-in throttling)",
  }),
  ALLOW_LINK_LOCAL_UPSTREAMS: bool.default(false).meta({
    description:
      "let the admin API set an API's upstream URL to a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, " +
      "fd00:ec2::254, 100.100.100.200, `metadata.google.internal`); refused by default, so the gateway cannot be pointed at " +
      "the instance's cloud credentials",
  }),
  DPOP_NONCES: bool.default(false).meta({
    description:
      "require server-issued nonces in DPoP proofs (RFC 9449 §8, §9): a proof without a current one gets `use_dpop_nonce` and " +
      "the nonce to use in `DPoP-Nonce`",
  }),
  DPOP_NONCE_SECRET: z.string().min(32).optional().meta({
    description:
      "secret the DPoP nonces are derived from (32+ characters); instances that share it accept each other's nonces; required " +
      "with `DPOP_NONCES` when `REDIS_URL` is set (several instances)",
    default: "random per process",
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional().meta({
    description:
      "base URL of an OpenTelemetry collector's OTLP/HTTP receiver, e.g. `http://127.0.0.1:4318`; spans are posted as JSON to " +
      "`<url>/v1/traces` (see *Behaviour and decisions → Tracing*). Unset, the trace SDK is not even loaded",
    default: "none: tracing off",
  }),
  OTEL_SERVICE_NAME: z.string().min(1).default("tollgate").meta({ description: "OpenTelemetry: `service.name` of the exported spans" }),
  METRICS_PORT: port.default(0).meta({
    description:
      "port of the separate listener serving Prometheus metrics at `GET /metrics` (see *Metrics*), never served on `PORT`; " +
      "`0`, the default, turns metrics off",
  }),
  METRICS_HOST: z.string().min(1).default("127.0.0.1").meta({
    description:
      "interface of the metrics listener; the default, loopback, is for a scraper on the same host or a sidecar: set the " +
      "pod's address deliberately",
  }),
  METRICS_CLIENT_ID_LABEL: bool.default(false).meta({
    description:
      "add a `client_id` label to the per-client metrics (tokens issued, refusals); off by default, as one series per " +
      "registered client multiplies the series count",
  }),
  AUDIT_REFUSAL_FLUSH_SECONDS: z.coerce.number().int().min(1).max(60).default(5).meta({
    description:
      "seconds between writes of the aggregated refusal audit rows (token and gateway refusals, failed client " +
      "authentications; see *Behaviour and decisions → Audit of refusals*); also written on shutdown",
  }),
  BRAND_NAME: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine((v) => !/\p{Cc}/u.test(v), "must not contain control characters")
    .default("Tollgate")
    .meta({
      description:
        "the bank's name on every end-user page (home, sign-in, consent, error, Account) and in their titles, as the passkey " +
        "relying party's name and as the issuer authenticator apps show; the console keeps \"Tollgate console\"",
    }),
  BRAND_LOGO_URL: imageUrl.optional().meta({
    description:
      "the bank's logo on the end-user pages, instead of the name (which becomes its alt text): an `https://` (or `http://`) " +
      "URL, whose origin is added to the pages' CSP `img-src`, or an absolute path on Tollgate's origin such as " +
      "`/brand/logo.svg`, served by the reverse proxy in front; anything else (`data:`, `javascript:`, a relative path) stops " +
      "the start with a configuration error",
    default: "none: the name as text",
  }),
  TLS_PORT: port.optional().meta({
    description:
      "port of the TLS listener for mutual-TLS clients (RFC 8705): the same endpoints and gateway as `PORT`, over HTTPS, a " +
      "client certificate requested but not required; needs `TLS_CERT` and `TLS_KEY`",
    default: "none: off",
  }),
  TLS_CERT: z.string().min(1).optional().meta({
    description: "the TLS listener's certificate chain (PEM file); required with `TLS_PORT`",
    default: "none",
  }),
  TLS_KEY: z.string().min(1).optional().meta({ description: "the TLS listener's private key (PEM file); required with `TLS_PORT`", default: "none" }),
  TLS_BASE_URL: url.optional().meta({
    description: "public address of the TLS listener: the metadata's `mtls_endpoint_aliases` (RFC 8705 §5)",
    default: "`https://localhost:$TLS_PORT`",
  }),
  TLS_CLIENT_CA: z.string().min(1).optional().meta({
    description:
      "the CA certificates (a PEM file) client certificates must chain to for `tls_client_auth`: the bank's list of QTSP CAs " +
      "for eIDAS certificates",
    default: "none: only `self_signed_tls_client_auth` and certificate binding work",
  }),
  TLS_CLIENT_CRLS: z.string().default("").meta({
    description:
      "comma-separated CRL files (PEM or DER) of those CAs; a CA without a current CRL fails closed. Without them revocation " +
      "is not checked",
  }),
  CRL_RELOAD_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600).meta({
    description:
      "seconds between two readings of the `TLS_CLIENT_CRLS` files: a changed file's CRLs replace its previous ones; a file " +
      "that cannot be read or parsed keeps its last good CRLs until their nextUpdate, and is logged",
  }),
  TLS_CLIENT_CERT_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/)
    .transform((h) => h.toLowerCase())
    .optional()
    .meta({
      description:
        "behind a TLS-terminating proxy: the request header carrying the client certificate as URL-encoded PEM (nginx " +
        "`$ssl_client_escaped_cert`), e.g. `x-ssl-client-cert`; needs `TLS_CLIENT_CERT_PROXIES`",
      default: "none",
    }),
  TLS_CLIENT_CERT_PROXIES: z.string().default("").meta({
    description:
      "the proxies that may set `TLS_CLIENT_CERT_HEADER`: comma-separated IP addresses or CIDR ranges of the connection's " +
      "peer; required with that header. A request carrying the header from any other address is refused",
  }),
  TPP_ROLE_PRODUCTS: z.string().optional().meta({
    description:
      "PSD2 roles (ETSI TS 119 495) to the API products a TPP certificate with them may be granted, as JSON, e.g. " +
      '`{"PSP_AI":["PSD2-AISP-v1"]}`',
    default: "PSP_AI → `PSD2-AISP-v1`, PSP_PI → `PSD2-PISP-v1`, PSP_IC → `PSD2-PIISP-v1`",
  }),
  REGISTRATION_DIRECTORY_ISSUER: z.string().min(1).optional().meta({
    description:
      "dynamic client registration (RFC 7591): the `iss` of the trusted directory's software statements; give it with " +
      "`REGISTRATION_DIRECTORY_JWKS`",
    default: "none: with `SEED_DEMO` the demo directory (`server/src/demo/directory.ts`), else registration is off",
  }),
  REGISTRATION_DIRECTORY_JWKS: z.string().min(1).optional().meta({
    description: "the directory's public keys: a JWK Set file (JSON); give it with `REGISTRATION_DIRECTORY_ISSUER`",
    default: "none",
  }),
  REGISTRATION_PROFILE: z.enum(["fapi2", "standard"]).default("fapi2").meta({
    description:
      "the security profile every registration is held to: `fapi2` (`private_key_jwt` or `tls_client_auth`, PAR, " +
      "sender-constrained tokens) or `standard`",
  }),
  REGISTRATION_REQUIRES_APPROVAL: bool.default(false).meta({
    description: "a registered app waits for an admin's approval (status `pending`) before its client can get tokens",
  }),
  OUTBOUND_ALLOW_PRIVATE_ADDRESSES: bool.default(false).meta({
    description:
      "let URLs a TPP names (a `jwks_uri`, a `sector_identifier_uri`) connect to loopback and private addresses (never link-local or cloud metadata " +
      "ones): for a test or demo directory on this machine. Off by default: the Internet only",
  }),
  REGISTRATION_STATEMENT_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(3600).meta({
    description: "the oldest (by `iat`) a software statement without `exp` may be, seconds",
  }),
  REGISTRATION_STATEMENT_MAX_LIFETIME_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(2_592_000).meta({
    description:
      "the latest a software statement's `exp` may be after its `iat`, seconds (the default is 30 days): a statement valid " +
      "for longer is refused (`invalid_software_statement`)",
  }),
  KEY_ENCRYPTION_KEY_FILE: z.string().min(1).optional().meta({
    description:
      "file of the key-encryption key that seals private signing keys and TOTP keys at rest (AES-256-GCM): one or more " +
      "lines of 32 random bytes in base64 (`openssl rand -base64 32`), the first sealing, all opening " +
      "([rotation](operations.md#key-encryption-key)); keep it outside the database and its backups. Required with PostgreSQL",
    default: "SQLite: `<database file>.kek`, created on first start",
  }),
  KEY_ROTATION_DAYS: z.coerce.number().int().min(1).max(3650).default(90).meta({
    description: "days a signing key signs before the next one replaces it (scheduled rotation; admins can rotate at any time)",
  }),
  PKCS11_MODULE: z.string().min(1).optional().meta({
    description:
      "path of a PKCS#11 library (an HSM's, or SoftHSM2's `/usr/lib/softhsm/libsofthsm2.so`): new signing keys are made in its " +
      "token and never leave it. Needs `PKCS11_TOKEN_LABEL` and `PKCS11_PIN`",
    default: "none: signing keys are sealed under the key-encryption key",
  }),
  PKCS11_TOKEN_LABEL: z.string().min(1).max(32).optional().meta({
    description: "label of the PKCS#11 token that holds the signing keys (by label, as slot ids change when tokens are added)",
    default: "none",
  }),
  PKCS11_PIN: z.string().min(1).optional().meta({
    description: "user PIN of the PKCS#11 token; a PIN the token refuses is not tried again until restart, so the token does not lock it",
    default: "none",
  }),
  JWKS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(900).meta({
    description:
      "`Cache-Control: max-age` of the JWK Set (`/oauth2/v1/jwks`), seconds; a new signing key is published this long plus a " +
      "minute before it signs, so a client's cached JWK Set always has it",
  }),
});

/** The parsed configuration with derived defaults filled in. */
export interface Config {
  port: number;
  host: string;
  /** {base_url}, no trailing slash. */
  baseUrl: string;
  /** {auth_url}, no trailing slash; also the OAuth issuer identifier (RFC 8414 §2). */
  authUrl: string;
  databaseUrl: string;
  logLevel: z.infer<typeof configSchema>["LOG_LEVEL"];
  seedDemo: boolean;
  demoUpstreamPort: number;
  realm: string;
  formBodyLimitBytes: number;
  trustProxyHops: number;
  /** Undefined: a random secret is made at start. */
  sessionSecret: string | undefined;
  sessionTtlSeconds: number;
  interactionTtlSeconds: number;
  signIn: { maxFailuresPerUser: number; maxFailuresPerIp: number; windowSeconds: number };
  /** Hours a temporary password set by an administrator signs in (TEMPORARY_PASSWORD_HOURS). */
  temporaryPasswordHours: number;
  /** PSD2 strong customer authentication: inactivity limit after authenticating (seconds), and the re-authentication interval of refresh tokens (days; 0 = off). */
  sca: { idleSeconds: number; reauthenticationDays: number };
  /** Seconds an approved payment consent's payment may be made in (PAYMENT_CONSENT_LIFETIME_SECONDS). */
  paymentConsentLifetimeSeconds: number;
  /** The bank's own login and consent applications (DELEGATED_LOGIN_URL, DELEGATED_CONSENT_URL); undefined: Tollgate's pages. */
  delegation: { loginUrl: string; consentUrl: string } | undefined;
  /** ADMIN_REQUIRE_SCA: staff act in their role only after a sign-in with their second factor. */
  adminRequireSca: boolean;
  /** ADMIN_IDLE_SECONDS: a staff member's session ends after this many seconds without a request. */
  adminIdleSeconds: number;
  /** Seconds each call to a bank identity provider may take (FEDERATION_TIMEOUT_SECONDS). */
  federationTimeoutSeconds: number;
  /** Milliseconds an upstream may take to start its answer, and between two pieces of it (UPSTREAM_TIMEOUT_MS). */
  upstreamTimeoutMs: number;
  corsOrigins: string[];
  /** Requests per minute; 0 = off. */
  tokenRateLimit: { perClient: number; perIp: number };
  /** Valid authorization requests per client IP per minute; 0: no limit. */
  authorizeRateLimitPerIp: number;
  purgeIntervalSeconds: number;
  auditRetentionDays: number;
  /** Days (EVIDENCE_RETENTION_DAYS). */
  evidenceRetentionDays: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Milliseconds (REDIS_COMMAND_TIMEOUT_MS). */
  redisCommandTimeoutMs: number;
  /** Milliseconds. */
  catalogCacheTtlMs: number;
  /** PostgreSQL with Redis: longest use of a cached token row no eviction reached, milliseconds (db/token-cache.ts). */
  tokenCacheMaxAgeMs: number;
  sqliteSynchronous: "NORMAL" | "FULL";
  /** PostgreSQL connection and query time limits, milliseconds (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS). */
  databaseTimeouts: { connectMs: number; queryMs: number };
  /** Upstream URLs may be link-local or cloud metadata addresses. */
  allowLinkLocalUpstreams: boolean;
  /** DPoP proofs must carry a server nonce derived from `secret` (DPOP_NONCES); undefined when off. */
  dpopNonces: { secret: string } | undefined;
  /** OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME); undefined when off. */
  tracing: { endpoint: string; serviceName: string } | undefined;
  /** The Prometheus listener (METRICS_PORT, METRICS_HOST) and whether client ids are labels; undefined when off. */
  metrics: { port: number; host: string; clientIdLabel: boolean } | undefined;
  /** Seconds between flushes of the aggregated refusal audit rows (AUDIT_REFUSAL_FLUSH_SECONDS). */
  auditRefusalFlushSeconds: number;
  /** The bank's name and logo on the end-user pages (BRAND_NAME, BRAND_LOGO_URL); `logoUrl` is an http(s) URL or an absolute path, undefined when unset. */
  brand: { name: string; logoUrl: string | undefined };
  /** The mutual-TLS listener (TLS_PORT, TLS_CERT, TLS_KEY, TLS_BASE_URL: its public address, no trailing slash); undefined when off. */
  tls: { port: number; certFile: string; keyFile: string; baseUrl: string } | undefined;
  /** Client certificates: the CA and CRL files they are checked against (none: no chain check), the seconds between two readings of the CRL files, and the proxy header carrying them with the addresses it is accepted from. */
  clientCertificates: { caFile: string | undefined; crlFiles: string[]; crlReloadSeconds: number; header: string | undefined; proxies: string[] };
  /** TPP_ROLE_PRODUCTS as given (JSON); undefined: the default mapping. */
  tppRoleProducts: string | undefined;
  /** Where a URL a TPP names may connect (OUTBOUND_ALLOW_PRIVATE_ADDRESSES; kernel/addresses.ts). */
  tppAddresses: "public" | "internal";
  /**
   * This server's signing keys: the key-encryption key file (undefined: on SQLite, the one
   * beside the database), days between rotations, the JWK Set's cache lifetime in seconds,
   * and the HSM.
   */
  keys: {
    kekFile: string | undefined;
    rotationDays: number;
    jwksMaxAgeSeconds: number;
    /** The PKCS#11 token new keys are made in (PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN); undefined: the envelope backend. */
    pkcs11: { module: string; tokenLabel: string; pin: string } | undefined;
  };
  /**
   * Dynamic client registration: the trusted directory (its issuer and JWK Set file; undefined:
   * the demo's with SEED_DEMO, else registration off), the profile registrations are held to,
   * whether they await approval, the oldest a statement without exp may be and the longest a
   * statement may be valid, from its iat to its exp (seconds).
   */
  registration: {
    directory: { issuer: string; jwksFile: string } | undefined;
    profile: "fapi2" | "standard";
    requiresApproval: boolean;
    statementMaxAgeSeconds: number;
    statementMaxLifetimeSeconds: number;
  };
}

/**
 * Parses the environment into a {@link Config}.
 * @param env - variables to read, `process.env` by default.
 * @throws Error listing every invalid variable, so a misconfigured start fails at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  if (e.DPOP_NONCES && e.REDIS_URL && !e.DPOP_NONCE_SECRET) {
    throw new Error("Invalid configuration:\n  DPOP_NONCE_SECRET: required with DPOP_NONCES when REDIS_URL is set, so that every instance accepts the others' nonces");
  }
  if ((e.DELEGATED_LOGIN_URL === undefined) !== (e.DELEGATED_CONSENT_URL === undefined)) {
    throw new Error("Invalid configuration:\n  DELEGATED_LOGIN_URL, DELEGATED_CONSENT_URL: give both, or neither");
  }
  if (e.TLS_PORT !== undefined && (!e.TLS_CERT || !e.TLS_KEY)) throw new Error("Invalid configuration:\n  TLS_CERT, TLS_KEY: required with TLS_PORT");
  if ((e.REGISTRATION_DIRECTORY_ISSUER === undefined) !== (e.REGISTRATION_DIRECTORY_JWKS === undefined)) {
    throw new Error("Invalid configuration:\n  REGISTRATION_DIRECTORY_ISSUER, REGISTRATION_DIRECTORY_JWKS: give both, or neither");
  }
  if (!e.KEY_ENCRYPTION_KEY_FILE && !e.DATABASE_URL.startsWith("file:")) {
    throw new Error("Invalid configuration:\n  KEY_ENCRYPTION_KEY_FILE: required with PostgreSQL, the same file on every instance (openssl rand -base64 32 > kek)");
  }
  if ((e.PKCS11_MODULE !== undefined || e.PKCS11_TOKEN_LABEL !== undefined || e.PKCS11_PIN !== undefined) && !(e.PKCS11_MODULE && e.PKCS11_TOKEN_LABEL && e.PKCS11_PIN)) {
    throw new Error("Invalid configuration:\n  PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN: give all three, or none");
  }
  const proxies = list(e.TLS_CLIENT_CERT_PROXIES);
  if (e.TLS_CLIENT_CERT_HEADER && proxies.length === 0) {
    throw new Error("Invalid configuration:\n  TLS_CLIENT_CERT_PROXIES: required with TLS_CLIENT_CERT_HEADER, so that only your proxies can present a client certificate");
  }
  const baseUrl = e.BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    authUrl: e.AUTH_URL ?? baseUrl,
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    seedDemo: e.SEED_DEMO,
    demoUpstreamPort: e.DEMO_UPSTREAM_PORT ?? (e.PORT === 0 ? 0 : e.PORT + 1),
    realm: e.REALM,
    formBodyLimitBytes: e.FORM_BODY_LIMIT_BYTES,
    trustProxyHops: e.TRUST_PROXY_HOPS,
    sessionSecret: e.SESSION_SECRET,
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    interactionTtlSeconds: e.INTERACTION_TTL_SECONDS,
    signIn: {
      maxFailuresPerUser: e.SIGNIN_MAX_FAILURES_PER_USER,
      maxFailuresPerIp: e.SIGNIN_MAX_FAILURES_PER_IP,
      windowSeconds: e.SIGNIN_WINDOW_SECONDS,
    },
    temporaryPasswordHours: e.TEMPORARY_PASSWORD_HOURS,
    sca: { idleSeconds: e.SCA_IDLE_SECONDS, reauthenticationDays: e.SCA_REAUTHENTICATION_DAYS },
    paymentConsentLifetimeSeconds: e.PAYMENT_CONSENT_LIFETIME_SECONDS,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    federationTimeoutSeconds: e.FEDERATION_TIMEOUT_SECONDS,
    adminRequireSca: e.ADMIN_REQUIRE_SCA,
    adminIdleSeconds: e.ADMIN_IDLE_SECONDS,
    delegation: e.DELEGATED_LOGIN_URL && e.DELEGATED_CONSENT_URL ? { loginUrl: e.DELEGATED_LOGIN_URL, consentUrl: e.DELEGATED_CONSENT_URL } : undefined,
    corsOrigins: list(e.CORS_ORIGINS),
    tokenRateLimit: { perClient: e.TOKEN_RATE_LIMIT_PER_CLIENT, perIp: e.TOKEN_RATE_LIMIT_PER_IP },
    authorizeRateLimitPerIp: e.AUTHORIZE_RATE_LIMIT_PER_IP,
    purgeIntervalSeconds: e.PURGE_INTERVAL_SECONDS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    evidenceRetentionDays: e.EVIDENCE_RETENTION_DAYS,
    redisUrl: e.REDIS_URL,
    catalogCacheTtlMs: e.CATALOG_CACHE_TTL_MS,
    tokenCacheMaxAgeMs: e.TOKEN_CACHE_MAX_AGE_MS,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    databaseTimeouts: { connectMs: e.DATABASE_CONNECT_TIMEOUT_MS, queryMs: e.DATABASE_QUERY_TIMEOUT_MS },
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    allowLinkLocalUpstreams: e.ALLOW_LINK_LOCAL_UPSTREAMS,
    dpopNonces: e.DPOP_NONCES ? { secret: e.DPOP_NONCE_SECRET ?? randomBytes(32).toString("base64url") } : undefined,
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME } : undefined,
    metrics: e.METRICS_PORT > 0 ? { port: e.METRICS_PORT, host: e.METRICS_HOST, clientIdLabel: e.METRICS_CLIENT_ID_LABEL } : undefined,
    auditRefusalFlushSeconds: e.AUDIT_REFUSAL_FLUSH_SECONDS,
    brand: { name: e.BRAND_NAME, logoUrl: e.BRAND_LOGO_URL },
    tls:
      e.TLS_PORT !== undefined
        ? { port: e.TLS_PORT, certFile: e.TLS_CERT!, keyFile: e.TLS_KEY!, baseUrl: e.TLS_BASE_URL ?? `https://localhost:${e.TLS_PORT}` }
        : undefined,
    clientCertificates: { caFile: e.TLS_CLIENT_CA, crlFiles: list(e.TLS_CLIENT_CRLS), crlReloadSeconds: e.CRL_RELOAD_SECONDS, header: e.TLS_CLIENT_CERT_HEADER, proxies },
    tppRoleProducts: e.TPP_ROLE_PRODUCTS,
    tppAddresses: e.OUTBOUND_ALLOW_PRIVATE_ADDRESSES ? "internal" : "public",
    keys: {
      kekFile: e.KEY_ENCRYPTION_KEY_FILE,
      rotationDays: e.KEY_ROTATION_DAYS,
      jwksMaxAgeSeconds: e.JWKS_MAX_AGE_SECONDS,
      pkcs11: e.PKCS11_MODULE ? { module: e.PKCS11_MODULE, tokenLabel: e.PKCS11_TOKEN_LABEL!, pin: e.PKCS11_PIN! } : undefined,
    },
    registration: {
      directory: e.REGISTRATION_DIRECTORY_ISSUER && e.REGISTRATION_DIRECTORY_JWKS ? { issuer: e.REGISTRATION_DIRECTORY_ISSUER, jwksFile: e.REGISTRATION_DIRECTORY_JWKS } : undefined,
      profile: e.REGISTRATION_PROFILE,
      requiresApproval: e.REGISTRATION_REQUIRES_APPROVAL,
      statementMaxAgeSeconds: e.REGISTRATION_STATEMENT_MAX_AGE_SECONDS,
      statementMaxLifetimeSeconds: e.REGISTRATION_STATEMENT_MAX_LIFETIME_SECONDS,
    },
  };
}

/** The items of a comma-separated setting, trimmed, empty ones left out. */
function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
