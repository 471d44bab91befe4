/**
 * Applies the committed migrations in `prisma/migrations` to a SQLite database, recording
 * them in Prisma's own `_prisma_migrations` table with the same checksum (SHA-256 of the
 * migration.sql file) so that `prisma migrate deploy|status|dev` see them as applied.
 *
 * Done in-process at start instead of spawning the Prisma CLI: it needs no CLI at run time
 * and takes milliseconds, which also lets every test suite start on a fresh database.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "checksum" TEXT NOT NULL,
  "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL,
  "logs" TEXT,
  "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
  "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** Directory holding the committed migrations, found from this file (works from src and dist). */
export function migrationsDir(): string {
  let dir = path.dirname(new URL(import.meta.url).pathname);
  while (!existsSync(path.join(dir, "prisma", "migrations"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("prisma/migrations not found");
    dir = parent;
  }
  return path.join(dir, "prisma", "migrations");
}

/** The SQLite file path of a `file:` DATABASE_URL, relative paths resolved against the working directory. */
export function sqliteFilePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`Only file: (SQLite) database URLs are supported, got ${databaseUrl.split(":")[0]}:`);
  }
  return path.resolve(databaseUrl.slice("file:".length).replace(/\?.*$/, ""));
}

/**
 * Creates the database file if needed and applies every migration not yet recorded, each in
 * its own transaction (a failed migration leaves nothing half-applied).
 * @returns the names of the migrations applied now, oldest first.
 * @throws if a recorded migration's checksum no longer matches its file (edited after apply).
 */
export function migrateSqlite(databaseUrl: string, dir: string = migrationsDir()): string[] {
  const file = sqliteFilePath(databaseUrl);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(CREATE_MIGRATIONS_TABLE);
    const applied = new Map(
      (db.prepare(`SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).all() as { migration_name: string; checksum: string }[]).map(
        (r) => [r.migration_name, r.checksum],
      ),
    );
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
      .map((d) => d.name)
      .sort();
    const done: string[] = [];
    for (const name of names) {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const recorded = applied.get(name);
      if (recorded !== undefined) {
        if (recorded !== checksum) throw new Error(`Migration ${name} was modified after it was applied`);
        continue;
      }
      db.transaction(() => {
        db.exec(sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
        ).run(randomUUID(), checksum, name, new Date().toISOString(), new Date().toISOString());
      })();
      done.push(name);
    }
    return done;
  } finally {
    db.close();
  }
}
