/**
 * Boots Tollgate: migrate, open the database, seed the demo, start the demo upstream and
 * the HTTP server. Used by main.ts and by the HTTP test suites.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { openDatabase, type OpenDatabase } from "./db/database.js";
import type { Database } from "./stores/index.js";
import { shareInvalidations } from "./db/cache-events.js";
import { migrate, providerOf, sqliteFilePath } from "./db/migrate.js";
import { demoSeed } from "./demo/seed.js";
import { loadSeed } from "./db/seed.js";
import { startDemoUpstream, type DemoUpstream } from "./demo/upstream.js";
import { createRequestListener } from "./http/dispatch.js";
import { CheckFailed, Readiness, redisCheck, withReadiness } from "./http/readiness.js";
import { KeyBackendUnavailable } from "./keys/backend.js";
import type { Keyring } from "./keys/keyring.js";
import { openKeys } from "./keys/setup.js";
import { serverSecret } from "./keys/server-secret.js";
import { federation } from "./federation/upstream.js";
import { subjects } from "./oauth/subject.js";
import { loadKeyEncryption } from "./kernel/key-encryption.js";
import { limiterFactory } from "./kernel/limiter.js";
import { tracedStores } from "./kernel/spans.js";
import { createLogger } from "./http/logger.js";
import { schedulePurge } from "./maintenance/purge.js";
import { Metrics } from "./kernel/metrics.js";
import { startMetricsListener } from "./http/metrics.js";
import { RefusalAudit } from "./http/refusal-audit.js";
import { TrafficRecorder } from "./http/traffic.js";
import { TLS_LISTENER_PROTOCOL } from "./http/tls-listener.js";
import { startTracing } from "./observability/tracing.js";
import { CrlFiles, type CrlReloadReport } from "./certificates/crl-files.js";
import { DEFAULT_ROLE_PRODUCTS, parseRoleProductMapping } from "./certificates/roles.js";
import { parseCertificates } from "./certificates/x509.js";
import type { MtlsSettings } from "./oauth/client-auth.js";
import { DEMO_DIRECTORY_ISSUER, DEMO_DIRECTORY_PUBLIC_JWKS } from "./demo/directory.js";
import { REGISTRATION_PATH } from "./kernel/paths.js";
import type { RegistrationEndpointSettings } from "./registration/endpoint.js";
import { createDirectory } from "./registration/software-statement.js";

/** Longest wait for the database pool to close on shutdown, milliseconds. */
const DISCONNECT_TIMEOUT_MS = 2000;

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Where the mutual-TLS listener listens (TLS_PORT), e.g. https://127.0.0.1:3443; undefined when off. */
  tlsUrl?: string;
  /** The stores of the database. */
  db: Database;
  /** The Prisma client on the same database: for tests and tools that inspect rows, never for the service's own code. */
  prisma: OpenDatabase["prisma"];
  logger: Logger;
  /** Base URL of the demo upstream, when the demo is on. */
  demoUpstreamUrl?: string;
  /** True when this start loaded the demo into an empty database. */
  seeded: boolean;
  /** This server's signing keys (keys/keyring.ts). */
  keyring: Keyring;
  /** The Prometheus scrape URL of the metrics listener (METRICS_PORT), e.g. http://127.0.0.1:9464/metrics; undefined when off. */
  metricsUrl?: string;
  /** Writes the refusal audit's pending aggregates and the gateway traffic counts now (else every AUDIT_REFUSAL_FLUSH_SECONDS and on close): for tests and tools. */
  flushCounts(): Promise<void>;
  /** Stops accepting connections, closes the upstream and the database. */
  close(): Promise<void>;
}

/**
 * What client certificates are checked against: the CA and CRL files (TLS_CLIENT_CA, whose
 * self-issued certificates are the trust anchors and the others intermediates for clients, or
 * proxies, that send only their own certificate; TLS_CLIENT_CRLS: every CA on a path needs a
 * current CRL once CRLs are configured, and the files are read again every CRL_RELOAD_SECONDS,
 * certificates/crl-files.ts) and the role mapping (TPP_ROLE_PRODUCTS).
 * @returns the settings, and how to stop reloading the CRLs.
 * @throws when a file cannot be read or parsed, or the mapping is not one.
 */
function mtlsSettings(config: Config, logger: Logger): { mtls: MtlsSettings; stopCrlReload: () => void } {
  const { caFile, crlFiles, crlReloadSeconds } = config.clientCertificates;
  const cas = caFile ? parseCertificates(readFileSync(caFile)) : [];
  const selfIssued = (c: (typeof cas)[number]) => c.subject.text === c.issuer.text;
  const crls = caFile && crlFiles.length > 0 ? new CrlFiles(crlFiles) : undefined;
  const trust = caFile
    ? {
        anchors: cas.filter(selfIssued),
        intermediates: cas.filter((c) => !selfIssued(c)),
        get crls() {
          return crls?.crls ?? [];
        },
        revocation: crls ? ("require_crl" as const) : ("crl_if_configured" as const),
      }
    : undefined;
  const report: CrlReloadReport = {
    loaded: (file, loaded) => logger.info({ file, crls: loaded.length }, "CRL file reloaded"),
    failed: (file, err) => logger.error({ file, err }, "CRL file could not be reloaded; its last good CRLs are kept until their nextUpdate"),
    notCurrent: (file, crl) =>
      logger.warn({ file, issuer: crl.issuer.text, nextUpdate: crl.nextUpdate.toISOString() }, "CRL is not current: certificates of its CA are refused until a fresh CRL is loaded"),
  };
  const roleProducts = config.tppRoleProducts === undefined ? DEFAULT_ROLE_PRODUCTS : parseRoleProductMapping(JSON.parse(config.tppRoleProducts));
  return { mtls: { trust, roleProducts }, stopCrlReload: crls ? crls.schedule(crlReloadSeconds, report) : () => {} };
}

/**
 * The dynamic client registration endpoint's settings: the trusted directory
 * (REGISTRATION_DIRECTORY_ISSUER and its JWK Set file; with SEED_DEMO and none configured, the
 * demo directory), the profile and approval rule, and the mutual-TLS checks of registering
 * certificates. Undefined: no directory, so registration is off.
 * @throws when the JWK Set file cannot be read or the directory's settings are invalid.
 */
async function registrationSettings(config: Config, mtls: MtlsSettings): Promise<RegistrationEndpointSettings | undefined> {
  const { directory, profile, requiresApproval, statementMaxAgeSeconds, statementMaxLifetimeSeconds } = config.registration;
  const source = directory
    ? { issuer: directory.issuer, jwks: JSON.parse(readFileSync(directory.jwksFile, "utf8")) as unknown }
    : config.seedDemo
      ? { issuer: DEMO_DIRECTORY_ISSUER, jwks: DEMO_DIRECTORY_PUBLIC_JWKS }
      : undefined;
  if (!source) return undefined;
  return {
    directory: await createDirectory({ ...source, maxAgeSeconds: statementMaxAgeSeconds, maxLifetimeSeconds: statementMaxLifetimeSeconds }),
    profile,
    requiresApproval,
    endpointUrl: `${config.tls?.baseUrl ?? config.baseUrl}${REGISTRATION_PATH}`,
    roleProducts: mtls.roleProducts,
    realm: config.realm,
    certificateRequired: config.tls !== undefined,
    trust: mtls.trust,
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts Tollgate with `config`. @throws if migration fails or the port is taken. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  // Before anything serves a request: the spans of the first requests go to the collector too.
  const tracing = config.tracing ? await startTracing(config.tracing) : undefined;
  const applied = await migrate(config.databaseUrl);
  if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
  // Secrets at rest are sealed under the key-encryption key: KEY_ENCRYPTION_KEY_FILE, or on SQLite a file beside the database, made on first start.
  const kek = loadKeyEncryption(config.keys.kekFile ?? `${sqliteFilePath(config.databaseUrl)}.kek`, config.keys.kekFile === undefined);
  if (kek.warning) logger.warn(kek.warning);
  const encryption = kek.encryption;
  const opened = await openDatabase(config.databaseUrl, {
    keyEncryption: encryption,
    catalogTtlMs: config.catalogCacheTtlMs,
    tokenCacheMaxAgeMs: config.tokenCacheMaxAgeMs,
    sqliteSynchronous: config.sqliteSynchronous,
    connectTimeoutMs: config.databaseTimeouts.connectMs,
    queryTimeoutMs: config.databaseTimeouts.queryMs,
  });
  const db = opened.database;

  let upstream: DemoUpstream | undefined;
  let seeded = false;
  if (config.seedDemo) {
    upstream = await startDemoUpstream(config.demoUpstreamPort);
    seeded = await loadSeed(opened.prisma, await demoSeed(upstream));
  }

  const resealed = await db.factors.sealTotpKeys();
  if (resealed > 0) logger.info({ totpKeys: resealed }, "TOTP keys sealed under the key-encryption key");
  const keys = await openKeys(config, encryption, db.signingKeys, logger);
  // Pairwise subject identifiers (OpenID Connect Core §8.1) under a salt shared by every instance, sealed in the database.
  const subjectOf = subjects(await serverSecret(db.serverSecrets, encryption, "pairwise-subject", new Date()));
  const federationOf = federation({
    stores: db,
    encryption,
    keyring: keys.keyring,
    secret: await serverSecret(db.serverSecrets, encryption, "federation", new Date()),
    authUrl: config.authUrl,
    timeoutSeconds: config.federationTimeoutSeconds,
    freshSeconds: config.sca.idleSeconds,
  });
  /** The signing keys were read and their backend can sign; a backend's reason is safe to show (it never holds a secret). */
  const signingKeys = async () => {
    try {
      await keys.keyring.ready();
      await keys.backend.check();
    } catch (error) {
      throw error instanceof KeyBackendUnavailable ? new CheckFailed(error.message) : error;
    }
  };

  // A command waits at most redisCommandTimeoutMs, queued while reconnecting too: a Redis that is away or hangs slows
  // no request beyond that, and the limiters' in-process copies (kernel/limiter.ts) take over.
  const redisOptions = { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: config.redisCommandTimeoutMs };
  // ioredis is loaded only when Redis is configured.
  const redis = config.redisUrl ? new (await import("ioredis")).Redis(config.redisUrl, redisOptions) : undefined;
  redis?.on("error", (err) => logger.warn({ err: err.message }, "redis unavailable; counters fall back to this process"));
  const stopSharing = redis ? shareInvalidations({ catalog: opened.catalog, tokens: opened.sharedTokens }, redis, config.redisKeyPrefix, logger) : () => {};
  // With tracing on, each store call made while serving a request is a database client span (kernel/spans.ts).
  const served = tracing ? tracedStores(db, providerOf(config.databaseUrl)) : db;
  // GET /readyz: the database, and Redis when configured, each within its time limit (http/readiness.ts).
  const readiness = new Readiness([{ name: "database", check: () => opened.ping() }, ...(redis ? [redisCheck(redis)] : []), { name: "signing keys", check: signingKeys }], {
    logger,
  });
  // Per server, never prom-client's global registry: each instance (and each test server) serves its own.
  const metrics = config.metrics ? new Metrics({ clientIdLabel: config.metrics.clientIdLabel }) : undefined;
  // The stores of the database, not the traced ones: the flush runs outside any request.
  const refusals = new RefusalAudit(db.audit, config.auditRefusalFlushSeconds, (err) => logger.error({ err }, "refusal audit flush failed"));
  const traffic = new TrafficRecorder(db.traffic, config.auditRefusalFlushSeconds, (err) => logger.error({ err }, "gateway traffic flush failed"));
  const { mtls, stopCrlReload } = mtlsSettings(config, logger);
  const listener = withReadiness(
    readiness,
    createRequestListener(config, served, logger, limiterFactory(redis, config.redisKeyPrefix), { metrics, refusals, traffic }, mtls, await registrationSettings(config, mtls), { keyring: keys.keyring, subjects: subjectOf }, federationOf),
  );
  const server = createServer(listener);
  const port = await listen(server, config.port, config.host);
  keys.keyring.start();
  // RFC 8705: the same endpoints and gateway over TLS, a client certificate requested, not required (its checks are client authentication's);
  // TLS 1.2 only with RFC 9325's recommended suites (http/tls-listener.ts).
  const tlsServer = config.tls
    ? createTlsServer(
        {
          ...TLS_LISTENER_PROTOCOL,
          cert: readFileSync(config.tls.certFile),
          key: readFileSync(config.tls.keyFile),
          ...(config.clientCertificates.caFile ? { ca: readFileSync(config.clientCertificates.caFile) } : {}),
          requestCert: true,
          rejectUnauthorized: false,
        },
        listener,
      )
    : undefined;
  const tlsPort = tlsServer && config.tls ? await listen(tlsServer, config.tls.port, config.host) : undefined;
  const hostInUrl = config.host.includes(":") ? `[${config.host}]` : config.host;
  const metricsListener = metrics && config.metrics ? await startMetricsListener(metrics, config.metrics.port, config.metrics.host) : undefined;
  const stopPurge = schedulePurge(db, logger, config.purgeIntervalSeconds, { auditDays: config.auditRetentionDays, evidenceDays: config.evidenceRetentionDays }, metrics);
  return {
    url: `http://${hostInUrl}:${port}`,
    tlsUrl: tlsPort === undefined ? undefined : `https://${hostInUrl}:${tlsPort}`,
    db,
    prisma: opened.prisma,
    logger,
    demoUpstreamUrl: upstream?.url,
    seeded,
    keyring: keys.keyring,
    metricsUrl: metricsListener?.url,
    flushCounts: async () => {
      await Promise.all([refusals.flush(), traffic.flush()]);
    },
    async close() {
      stopPurge();
      stopCrlReload();
      await Promise.all([closeServer(server), tlsServer && closeServer(tlsServer)]);
      await metricsListener?.close();
      await upstream?.close();
      // Work a response left behind (express-session's touch after the answer) gets a moment to
      // finish; a query cut off mid-transaction would otherwise keep the pool from closing.
      await sleep(50);
      // The refusals of the last requests, before the database closes.
      await Promise.all([refusals.close(), traffic.close(), keys.close()]);
      await Promise.race([opened.close(), sleep(DISCONNECT_TIMEOUT_MS)]);
      stopSharing();
      redis?.disconnect();
      // Last: the spans of the final requests and of the shutdown are exported before the provider goes.
      await tracing?.close();
    },
  };
}
