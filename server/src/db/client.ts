/**
 * The only PrismaClient construction in the codebase. Repositories receive the client as an
 * argument; nothing else imports Prisma.
 */
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient, type Prisma } from "../generated/prisma/client.js";
import { sqliteFilePath } from "./migrate.js";

export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;

/**
 * Opens the SQLite database through the better-sqlite3 driver adapter.
 *
 * SQLite settings: WAL journal (readers never block the writer), `synchronous = NORMAL`
 * (a commit survives a crash of the process; only an OS crash or power loss may drop the
 * last commits, and never corrupts the file), 5 s busy timeout.
 */
export async function createDb(databaseUrl: string): Promise<Db> {
  const adapter = new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(databaseUrl)}`, timeout: 5000 });
  const db = new PrismaClient({ adapter });
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  await db.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  return db;
}
