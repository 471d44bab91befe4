/**
 * The only PrismaClient construction in the codebase. Repositories receive the client as an
 * argument; nothing else imports Prisma. The provider follows DATABASE_URL: SQLite through
 * better-sqlite3, PostgreSQL through node-postgres, each with its own generated client
 * (prisma/schema.prisma and its derived prisma/postgresql/schema.prisma: the same models).
 */
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "../generated/prisma/client.js";
import { PrismaClient as PostgresqlPrismaClient } from "../generated/prisma-postgresql/client.js";
import { providerOf, sqliteFilePath, type Provider } from "./migrate.js";

export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;

/**
 * Opens the database of `databaseUrl`.
 *
 * SQLite settings: WAL journal (readers never block the writer), `synchronous = NORMAL`
 * (a commit survives a crash of the process; only an OS crash or power loss may drop the
 * last commits, and never corrupts the file), 5 s busy timeout.
 * PostgreSQL: a pool of `poolSize` connections.
 */
export async function createDb(databaseUrl: string, poolSize = 10): Promise<Db> {
  if (providerOf(databaseUrl) === "postgresql") {
    // Both generated clients expose the same models and methods; only the SQL dialect differs.
    const db = new PostgresqlPrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) }) as unknown as Db;
    providers.set(db, "postgresql");
    return db;
  }
  const adapter = new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(databaseUrl)}`, timeout: 5000 });
  const db = new PrismaClient({ adapter });
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  await db.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  providers.set(db, "sqlite");
  return db;
}

const providers = new WeakMap<Db, Provider>();

/** The provider a client was opened on, for the few query options that differ (e.g. case-insensitive search). */
export function providerOfDb(db: Db): Provider {
  return providers.get(db) ?? "sqlite";
}
