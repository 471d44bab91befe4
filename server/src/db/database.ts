/**
 * Opens the database and builds its stores (stores/index.ts) once per provider: the only
 * PrismaClient construction in the codebase. The provider follows DATABASE_URL: SQLite
 * through better-sqlite3, PostgreSQL through node-postgres, each with its own generated
 * client (prisma/schema.prisma and its derived prisma/postgresql/schema.prisma: the same
 * models). Next to Prisma, the stores use direct prepared statements for the hot paths
 * (db/sql.ts), the per-process catalog cache (db/catalog-cache.ts) and the token cache
 * (db/token-cache.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import type BetterSqlite3 from "better-sqlite3";
import type { Database, Stores } from "../stores/index.js";
import type { TokenRecord } from "../stores/tokens.js";
import { PrismaClient, type Prisma } from "../generated/prisma/client.js";
import { CatalogCache } from "./catalog-cache.js";
import { startCheckpointer } from "./checkpointer.js";
import { providerOf, sqliteFilePath, type Provider } from "./migrate.js";
import { observedAdapter } from "./observed-adapter.js";
import { postgresqlSql, prismaTransactionSql, type PoolTimeouts } from "./postgresql-sql.js";
import { SqliteGate, sqliteSql, type Sql } from "./sql.js";
import type { Executor } from "./stores/executor.js";
import { buildStores } from "./stores/index.js";
import { TokenCache } from "./token-cache.js";
import type { KeyEncryption } from "../kernel/key-encryption.js";
import { unavailableError } from "./unavailable.js";

/** Token rows a process keeps at most (db/token-cache.ts): about 10 MB. */
const TOKEN_CACHE_ENTRIES = 10_000;

/**
 * SQLite page cache of the connection, KiB (better-sqlite3 builds SQLite with 16,000). What
 * the hot paths touch is small: the right-hand edges of the time-ordered indexes, where new
 * rows go, and the rows of recent tokens; the OS file cache holds the rest. 16 MB cost the
 * process 18 MB of resident memory under load and bought no throughput (docs/performance.md).
 */
const SQLITE_PAGE_CACHE_KIB = 4000;

/** SQLite `PRAGMA synchronous` levels offered (the README weighs them). */
export type SqliteSynchronous = "NORMAL" | "FULL";

export interface DbOptions {
  /** PostgreSQL pool size, for Prisma and for the direct statements each. */
  poolSize?: number;
  /**
   * PostgreSQL: longest wait for a new connection, or for a free one of a full pool,
   * milliseconds (pg's connectionTimeoutMillis). Default 2000: no request queues forever.
   */
  connectTimeoutMs?: number;
  /** PostgreSQL: longest wait for a query's answer, milliseconds (pg's query_timeout). Default 5000. */
  queryTimeoutMs?: number;
  /** Time to live of catalog cache entries, milliseconds. */
  catalogTtlMs?: number;
  /**
   * PostgreSQL: longest time a cached token row is used after its read, milliseconds.
   * Other instances' revocations arrive over Redis at once; this bounds the wait if one
   * never does (a partition not yet noticed). Default 500, within the README's revocation
   * bound of 1 s.
   */
  tokenCacheMaxAgeMs?: number;
  sqliteSynchronous?: SqliteSynchronous;
  /** Seals and opens the secrets kept at rest (TOTP keys, stores/factors.ts); without it, reading or writing them throws. */
  keyEncryption?: KeyEncryption;
}

/** An open database: its stores, and what the composition root and the tests need besides. */
export interface OpenDatabase {
  database: Database;
  /** The Prisma client: for the demo seed, tests and tools; the service's own code uses the stores. */
  prisma: PrismaClient;
  provider: Provider;
  /** The catalog cache, for sharing its invalidations between instances (db/cache-events.ts). */
  catalog: CatalogCache;
  /**
   * PostgreSQL only: the token cache, which serves rows only while its evictions are shared
   * with the other instances (db/cache-events.ts). On SQLite the process makes every token
   * write itself: its cache is exact alone and not shared.
   */
  sharedTokens?: TokenCache<TokenRecord>;
  /**
   * Checks that the database answers: `SELECT 1` through the direct statements' connection
   * and, on PostgreSQL, through Prisma's pool too (two pools, either can fail). For
   * readiness (http/readiness.ts), which bounds its wait itself.
   * @throws the driver's error (on PostgreSQL a {@link ServiceUnavailable} for a
   *   connection-level failure) when the database does not answer.
   */
  ping(): Promise<void>;
  /** Closes the direct statements' side (PostgreSQL pool, SQLite checkpoint thread), then Prisma's connections. */
  close(): Promise<void>;
}

/**
 * Thrown when a store of the database is called inside one of its transactions, where only
 * the stores handed to the transaction's function may be used: on SQLite the outer call
 * would wait for the very transaction it runs in (a deadlock), on PostgreSQL it would run
 * outside it (not atomic).
 */
export class OuterStoreInTransaction extends Error {
  constructor(store: string, method: string) {
    super(`${store}.${method} called on the database's stores inside a transaction: use the stores the transaction hands its function`);
    this.name = "OuterStoreInTransaction";
  }
}

/**
 * Opens the database of `databaseUrl` and builds its stores.
 *
 * SQLite settings: WAL journal (readers never block the writer), `synchronous` NORMAL by
 * default (a commit survives a crash of the process, as the kill -9 check shows; only an
 * OS crash or power loss may drop the last commits, and never corrupts the file) or FULL,
 * 5 s busy timeout (other processes on the same file), a 4 MB page cache, checkpoints in
 * a worker thread.
 * PostgreSQL: pools of `poolSize` connections, each connection attempt or wait for a pooled
 * one bounded by `connectTimeoutMs` and each query by `queryTimeoutMs`; the stores turn
 * connection-level failures into {@link ServiceUnavailable} (db/unavailable.ts), so an outage
 * answers 503 rather than 500.
 */
export async function openDatabase(databaseUrl: string, options: DbOptions = {}): Promise<OpenDatabase> {
  const { poolSize = 10, catalogTtlMs = 1000, tokenCacheMaxAgeMs = 500, sqliteSynchronous = "NORMAL" } = options;
  const timeouts: PoolTimeouts = { connectionTimeoutMillis: options.connectTimeoutMs ?? 2000, query_timeout: options.queryTimeoutMs ?? 5000 };
  const catalog = new CatalogCache(catalogTtlMs);
  const onCatalogWrite = () => catalog.invalidate();
  if (providerOf(databaseUrl) === "postgresql") {
    // Other instances revoke tokens too: no row is served until their evictions reach this one over Redis.
    const tokenCache = new TokenCache<TokenRecord>(TOKEN_CACHE_ENTRIES, { suspended: true, maxAgeMs: tokenCacheMaxAgeMs });
    // Both generated clients expose the same models and methods; only the SQL dialect differs.
    // Loaded only here: each generated client brings its own query compiler (tens of MB).
    const { PrismaClient: PostgresqlPrismaClient } = await import("../generated/prisma-postgresql/client.js");
    const adapter = observedAdapter(new PrismaPg({ connectionString: databaseUrl, max: poolSize, ...timeouts }), { onCatalogWrite, onTokenWrite: () => tokenCache.clear() });
    const prisma = new PostgresqlPrismaClient({ adapter }) as unknown as PrismaClient;
    const sql = postgresqlSql(databaseUrl, poolSize, timeouts);
    const x: Executor = { prisma, sql, provider: "postgresql", catalog, tokenCache, keyEncryption: options.keyEncryption };
    return { ...open(x, prisma, (tx) => prismaTransactionSql(tx)), sharedTokens: tokenCache };
  }
  // This process is the database's only writer, so the token cache sees every change.
  const tokenCache = new TokenCache<TokenRecord>(TOKEN_CACHE_ENTRIES);
  const gate = new SqliteGate();
  let connection: BetterSqlite3.Database | undefined;
  const adapter = observedAdapter(new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(databaseUrl)}`, timeout: 5000 }), {
    onCatalogWrite,
    onTokenWrite: () => tokenCache.clear(),
    gate,
    onConnect: (a) => (connection = sqliteConnectionOf(a)),
  });
  const prisma = new PrismaClient({ adapter });
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$executeRawUnsafe(`PRAGMA synchronous = ${sqliteSynchronous}`);
  await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  await prisma.$executeRawUnsafe(`PRAGMA cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  // The statement journals of savepoints (each transaction of a group commit, Sql.batch) in memory, not in temp files:
  // they hold only the pages one request's statements touched, and writing them to a file cost issuance a fifth.
  await prisma.$executeRawUnsafe("PRAGMA temp_store = MEMORY");
  // Checkpoints run in their own thread (db/checkpointer.ts), not in the committing request.
  await prisma.$queryRawUnsafe("PRAGMA wal_autocheckpoint = 0");
  if (!connection) throw new Error("the SQLite adapter did not connect");
  const checkpointer = startCheckpointer(sqliteFilePath(databaseUrl));
  const sql = sqliteSql(connection, gate);
  const x: Executor = { prisma, sql: { ...sql, close: () => checkpointer.stop() }, provider: "sqlite", catalog, tokenCache, keyEncryption: options.keyEncryption };
  // A Prisma interactive transaction holds the gate: direct statements join it on the connection.
  return open(x, prisma, () => sql.joined);
}

/** The better-sqlite3 connection inside Prisma's adapter (its public `client`, @prisma/adapter-better-sqlite3 6.19). */
function sqliteConnectionOf(adapter: SqlDriverAdapter): BetterSqlite3.Database {
  const client = (adapter as unknown as { client?: BetterSqlite3.Database }).client;
  if (!client || typeof client.prepare !== "function") throw new Error("unexpected @prisma/adapter-better-sqlite3: no client connection");
  return client;
}

/**
 * Set while a transaction's function runs: the transaction guard. On Node 24 an
 * AsyncLocalStorage runs on AsyncContextFrame, without a hook on every promise: callgrind
 * counted the same instructions per request with and without it (docs/performance.md).
 */
const insideTransaction = new AsyncLocalStorage<true>();

type Method = (...args: unknown[]) => unknown;

/** `stores` with every method `fn` of store `store` replaced by `wrap(store, method, fn)`. */
function wrapStores(stores: Stores, wrap: (store: string, method: string, fn: Method) => Method): Stores {
  return Object.fromEntries(
    Object.entries(stores).map(([store, methods]) => [
      store,
      Object.fromEntries(Object.entries(methods as object).map(([method, fn]) => [method, wrap(store, method, fn as Method)])),
    ]),
  ) as unknown as Stores;
}

/** `stores` with every method refusing to run inside a transaction ({@link OuterStoreInTransaction}). */
function guarded(stores: Stores): Stores {
  return wrapStores(stores, (store, method, fn) => (...args) => {
    if (insideTransaction.getStore()) throw new OuterStoreInTransaction(store, method);
    return fn(...args);
  });
}

/** Rethrows `err` as {@link unavailableError} makes it: a connection-level failure as 503, anything else as it is. */
function rethrowUnavailable(err: unknown): never {
  throw unavailableError(err);
}

/** `stores` whose methods fail with ServiceUnavailable (503) where the driver reports a connection-level failure (db/unavailable.ts). */
function classified(stores: Stores): Stores {
  return wrapStores(stores, (_store, _method, fn) => (...args) => {
    try {
      const result = fn(...args);
      // Prisma's queries are thenables, not always Promises.
      return typeof (result as PromiseLike<unknown> | undefined)?.then === "function" ? Promise.resolve(result).catch(rethrowUnavailable) : result;
    } catch (err) {
      return rethrowUnavailable(err);
    }
  });
}

/**
 * The database over `x`: its stores, and transactions as Prisma interactive transactions
 * whose stores run Prisma on the transaction client and direct SQL on `transactionSql` of it.
 * On PostgreSQL, where the server can go away, the stores and transactions fail with
 * ServiceUnavailable on a connection-level failure ({@link classified}); a SQLite file
 * has no connection to lose, and its hot paths are spared the wrapper.
 */
function open(x: Executor, prisma: PrismaClient, transactionSql: (tx: Prisma.TransactionClient) => Sql): OpenDatabase {
  const remote = x.provider === "postgresql";
  const storesOver = (ex: Executor) => (remote ? classified(buildStores(ex)) : buildStores(ex));
  const stores = storesOver(x);
  const database: Database = {
    ...guarded(stores),
    transaction: (fn) => {
      const run = prisma.$transaction((tx) => {
        const inner = storesOver({ ...x, prisma: tx, sql: transactionSql(tx) });
        return insideTransaction.run(true, () => fn(inner));
      });
      return remote ? run.catch(rethrowUnavailable) : run;
    },
  };
  return {
    database,
    prisma,
    provider: x.provider,
    catalog: x.catalog,
    async ping() {
      const pings: Promise<unknown>[] = [x.sql.get("SELECT 1 AS ok")];
      if (remote) pings.push(prisma.$queryRawUnsafe("SELECT 1 AS ok"));
      await Promise.all(pings).catch(rethrowUnavailable);
    },
    async close() {
      await x.sql.close();
      await prisma.$disconnect();
    },
  };
}
