/**
 * The only PrismaClient construction in the codebase. Repositories receive the client as an
 * argument; nothing else imports Prisma. The provider follows DATABASE_URL: SQLite through
 * better-sqlite3, PostgreSQL through node-postgres, each with its own generated client
 * (prisma/schema.prisma and its derived prisma/postgresql/schema.prisma: the same models).
 *
 * Next to Prisma, each database carries `sql` (direct prepared statements for the hot
 * paths, db/sql.ts), `catalog` (the per-process catalog cache, db/catalog-cache.ts) and
 * `tokens` (token rows, tokens/cache.ts).
 */
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import type BetterSqlite3 from "better-sqlite3";
import { PrismaClient, type Prisma } from "../generated/prisma/client.js";
import { CatalogCache } from "./catalog-cache.js";
import { startCheckpointer } from "./checkpointer.js";
import { providerOf, sqliteFilePath, type Provider } from "./migrate.js";
import { observedAdapter } from "./observed-adapter.js";
import { postgresqlSql, SqliteGate, sqliteSql, type Sql } from "./sql.js";
import { TokenCache } from "../tokens/cache.js";
import type { TokenRecord } from "../tokens/repository.js";

/** Token rows the SQLite process keeps at most (tokens/cache.ts): about 10 MB. */
const TOKEN_CACHE_ENTRIES = 10_000;

/**
 * SQLite page cache of the connection, KiB (better-sqlite3 builds SQLite with 16,000). What
 * the hot paths touch is small: the right-hand edges of the time-ordered indexes, where new
 * rows go, and the rows of recent tokens; the OS file cache holds the rest. 16 MB cost the
 * process 18 MB of resident memory under load and bought no throughput (README, Performance).
 */
const SQLITE_PAGE_CACHE_KIB = 4000;

export type Db = PrismaClient & {
  /** Direct SQL for the hot paths. */
  readonly sql: Sql;
  /** Catalog lookups cached in this process. */
  readonly catalog: CatalogCache;
  /** Token rows cached in this process (SQLite only; on PostgreSQL it holds nothing). */
  readonly tokens: TokenCache<TokenRecord>;
};
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;

/** SQLite `PRAGMA synchronous` levels offered (the README weighs them). */
export type SqliteSynchronous = "NORMAL" | "FULL";

export interface DbOptions {
  /** PostgreSQL pool size, for Prisma and for the direct statements each. */
  poolSize?: number;
  /** Time to live of catalog cache entries, milliseconds. */
  catalogTtlMs?: number;
  sqliteSynchronous?: SqliteSynchronous;
}

/**
 * Opens the database of `databaseUrl`.
 *
 * SQLite settings: WAL journal (readers never block the writer), `synchronous` NORMAL by
 * default (a commit survives a crash of the process, as the kill -9 check shows; only an
 * OS crash or power loss may drop the last commits, and never corrupts the file) or FULL,
 * 5 s busy timeout (other processes on the same file), a 4 MB page cache, checkpoints in
 * a worker thread.
 * PostgreSQL: pools of `poolSize` connections.
 */
export async function createDb(databaseUrl: string, options: DbOptions = {}): Promise<Db> {
  const { poolSize = 10, catalogTtlMs = 1000, sqliteSynchronous = "NORMAL" } = options;
  const catalog = new CatalogCache(catalogTtlMs);
  const onCatalogWrite = () => catalog.invalidate();
  if (providerOf(databaseUrl) === "postgresql") {
    // Other instances revoke tokens too, unseen here: every use reads the database.
    const tokens = new TokenCache<TokenRecord>(0);
    // Both generated clients expose the same models and methods; only the SQL dialect differs.
    // Loaded only here: each generated client brings its own query compiler (tens of MB).
    const { PrismaClient: PostgresqlPrismaClient } = await import("../generated/prisma-postgresql/client.js");
    const adapter = observedAdapter(new PrismaPg({ connectionString: databaseUrl, max: poolSize }), { onCatalogWrite, onTokenWrite: () => tokens.clear() });
    const prisma = new PostgresqlPrismaClient({ adapter }) as unknown as PrismaClient;
    return open(prisma, "postgresql", postgresqlSql(databaseUrl, poolSize), catalog, tokens);
  }
  // This process is the database's only writer, so the token cache sees every change.
  const tokens = new TokenCache<TokenRecord>(TOKEN_CACHE_ENTRIES);
  const gate = new SqliteGate();
  let connection: BetterSqlite3.Database | undefined;
  const adapter = observedAdapter(new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(databaseUrl)}`, timeout: 5000 }), {
    onCatalogWrite,
    onTokenWrite: () => tokens.clear(),
    gate,
    onConnect: (a) => (connection = sqliteConnectionOf(a)),
  });
  const prisma = new PrismaClient({ adapter });
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$executeRawUnsafe(`PRAGMA synchronous = ${sqliteSynchronous}`);
  await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  await prisma.$executeRawUnsafe(`PRAGMA cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  // Checkpoints run in their own thread (db/checkpointer.ts), not in the committing request.
  await prisma.$queryRawUnsafe("PRAGMA wal_autocheckpoint = 0");
  if (!connection) throw new Error("the SQLite adapter did not connect");
  const checkpointer = startCheckpointer(sqliteFilePath(databaseUrl));
  const sql = sqliteSql(connection, gate);
  return open(prisma, "sqlite", { ...sql, close: () => checkpointer.stop() }, catalog, tokens);
}

/** The better-sqlite3 connection inside Prisma's adapter (its public `client`, @prisma/adapter-better-sqlite3 6.19). */
function sqliteConnectionOf(adapter: SqlDriverAdapter): BetterSqlite3.Database {
  const client = (adapter as unknown as { client?: BetterSqlite3.Database }).client;
  if (!client || typeof client.prepare !== "function") throw new Error("unexpected @prisma/adapter-better-sqlite3: no client connection");
  return client;
}

const providers = new WeakMap<PrismaClient, Provider>();

function open(prisma: PrismaClient, provider: Provider, sql: Sql, catalog: CatalogCache, tokens: TokenCache<TokenRecord>): Db {
  providers.set(prisma, provider);
  return Object.assign(prisma, { sql, catalog, tokens });
}

/** Closes the direct statements' side (PostgreSQL pool, SQLite checkpoint thread), then Prisma's connections. */
export async function closeDb(db: Db): Promise<void> {
  await db.sql.close();
  await db.$disconnect();
}

/** The provider a client was opened on, for the few query options that differ (e.g. case-insensitive search). */
export function providerOfDb(db: Db): Provider {
  return providers.get(db) ?? "sqlite";
}
