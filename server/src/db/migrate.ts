/**
 * Applies the committed migrations to the database at start, recording them in Prisma's
 * own `_prisma_migrations` table with the same checksum (SHA-256 of migration.sql), so that
 * the Prisma CLI (`migrate status|deploy|dev`) sees them as applied:
 * - SQLite (`file:` URLs): prisma/migrations, through better-sqlite3;
 * - PostgreSQL (`postgres://`, `postgresql://`): prisma/postgresql/migrations, through `pg`,
 *   under an advisory lock so that instances starting together migrate once.
 *
 * Why not `prisma migrate deploy`: it would need the CLI at run time, takes seconds (every
 * test suite starts on a fresh database), and on PostgreSQL it fails through the driver
 * adapter in Prisma 6.19's binary-free mode ("Column type 'name' could not be deserialized").
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";

/** The database kinds Tollgate runs on. */
export type Provider = "sqlite" | "postgresql";

/** The provider of a DATABASE_URL. @throws for any other scheme. */
export function providerOf(databaseUrl: string): Provider {
  if (databaseUrl.startsWith("file:")) return "sqlite";
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return "postgresql";
  throw new Error(`DATABASE_URL must be file:<path> (SQLite) or postgresql://… , got ${databaseUrl.split(":")[0]}:`);
}

/** A migration to apply: its directory name, SQL and checksum. */
interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Directory of the committed migrations of a provider, found from this file (works from src and dist). */
export function migrationsDir(provider: Provider): string {
  const relative = provider === "sqlite" ? ["prisma", "migrations"] : ["prisma", "postgresql", "migrations"];
  let dir = path.dirname(new URL(import.meta.url).pathname);
  while (!existsSync(path.join(dir, ...relative))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${relative.join("/")} not found`);
    dir = parent;
  }
  return path.join(dir, ...relative);
}

function readMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * The migrations not applied yet.
 * @param applied - checksums of the applied migrations by name.
 * @throws if an applied migration's file changed since.
 */
function pending(all: Migration[], applied: Map<string, string>): Migration[] {
  return all.filter((m) => {
    const recorded = applied.get(m.name);
    if (recorded !== undefined && recorded !== m.checksum) throw new Error(`Migration ${m.name} was modified after it was applied`);
    return recorded === undefined;
  });
}

/** The SQLite file path of a `file:` DATABASE_URL, relative paths resolved against the working directory. */
export function sqliteFilePath(databaseUrl: string): string {
  return path.resolve(databaseUrl.slice("file:".length).replace(/\?.*$/, ""));
}

/** `_prisma_migrations` as Prisma creates it; only the column types differ by provider. */
function migrationsTable(timestamp: string): string {
  return `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" ${timestamp},
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" ${timestamp},
  "started_at" ${timestamp} NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;
}

const APPLIED = `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

function migrateSqlite(databaseUrl: string): string[] {
  const file = sqliteFilePath(databaseUrl);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(migrationsTable("DATETIME"));
    const rows = db.prepare(APPLIED).all() as { migration_name: string; checksum: string }[];
    const todo = pending(readMigrations(migrationsDir("sqlite")), new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      db.transaction(() => {
        db.exec(m.sql);
        const now = new Date().toISOString();
        db.prepare(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`).run(
          randomUUID(), m.checksum, m.name, now, now,
        );
      })();
    }
    return todo.map((m) => m.name);
  } finally {
    db.close();
  }
}

/** Advisory lock key serializing migrations across instances ("tollgate" in ASCII). */
const MIGRATION_LOCK = 0x746f6c6c67617465n;

async function migratePostgresql(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK.toString()]);
    await client.query(migrationsTable("TIMESTAMPTZ"));
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(APPLIED);
    const todo = pending(readMigrations(migrationsDir("postgresql")), new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw err;
      }
    }
    return todo.map((m) => m.name);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK.toString()]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Creates the database file if needed (SQLite) and applies every migration not yet
 * recorded, each in its own transaction (a failed migration leaves nothing half-applied).
 * @returns the names of the migrations applied now, oldest first.
 * @throws if a recorded migration's checksum no longer matches its file (edited after apply).
 */
export async function migrate(databaseUrl: string): Promise<string[]> {
  return providerOf(databaseUrl) === "sqlite" ? migrateSqlite(databaseUrl) : migratePostgresql(databaseUrl);
}
