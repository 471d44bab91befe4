/**
 * Boots Tollgate: migrate, open the database, seed the demo, start the demo upstream and
 * the HTTP server. Used by main.ts and by the HTTP test suites.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { openDatabase, type OpenDatabase } from "./db/database.js";
import type { Database } from "./stores/index.js";
import { shareCatalogInvalidations } from "./db/catalog-events.js";
import { migrate } from "./db/migrate.js";
import { demoSeed } from "./demo/seed.js";
import { loadSeed } from "./db/seed.js";
import { startDemoUpstream } from "./demo/upstream.js";
import { createRequestListener } from "./http/dispatch.js";
import { limiterFactory } from "./kernel/limiter.js";
import { createLogger } from "./http/logger.js";
import { schedulePurge } from "./maintenance/purge.js";

/** Longest wait for the database pool to close on shutdown, milliseconds. */
const DISCONNECT_TIMEOUT_MS = 2000;

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** The stores of the database. */
  db: Database;
  /** The Prisma client on the same database: for tests and tools that inspect rows, never for the service's own code. */
  prisma: OpenDatabase["prisma"];
  logger: Logger;
  /** Base URL of the demo upstream, when the demo is on. */
  demoUpstreamUrl?: string;
  /** True when this start loaded the demo into an empty database. */
  seeded: boolean;
  /** Stops accepting connections, closes the upstream and the database. */
  close(): Promise<void>;
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
  const applied = await migrate(config.databaseUrl);
  if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
  const opened = await openDatabase(config.databaseUrl, {
    catalogTtlMs: config.catalogCacheTtlMs,
    sqliteSynchronous: config.sqliteSynchronous,
    transactionGuard: config.transactionGuard,
  });
  const db = opened.database;

  let upstream: { server: Server; url: string } | undefined;
  let seeded = false;
  if (config.seedDemo) {
    upstream = await startDemoUpstream(config.demoUpstreamPort);
    seeded = await loadSeed(opened.prisma, await demoSeed(upstream.url));
  }

  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
  redis?.on("error", (err) => logger.warn({ err: err.message }, "redis unavailable; counters fall back to this process"));
  const stopSharing = redis ? shareCatalogInvalidations(opened.catalog, redis, config.redisKeyPrefix, logger) : () => {};
  const server = createServer(await createRequestListener(config, db, logger, limiterFactory(redis, config.redisKeyPrefix)));
  const port = await listen(server, config.port, config.host);
  const stopPurge = schedulePurge(db, logger, config.purgeIntervalSeconds, config.auditRetentionDays);
  return {
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    db,
    prisma: opened.prisma,
    logger,
    demoUpstreamUrl: upstream?.url,
    seeded,
    async close() {
      stopPurge();
      await closeServer(server);
      if (upstream) await closeServer(upstream.server);
      // Work a response left behind (express-session's touch after the answer) gets a moment to
      // finish; a query cut off mid-transaction would otherwise keep the pool from closing.
      await sleep(50);
      await Promise.race([opened.close(), sleep(DISCONNECT_TIMEOUT_MS)]);
      stopSharing();
      redis?.disconnect();
    },
  };
}
