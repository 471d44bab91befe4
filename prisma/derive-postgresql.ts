/**
 * `npm run db:derive-postgresql`: derives the PostgreSQL variant of the data model from the
 * one source of truth, prisma/schema.prisma (SQLite), so the two cannot drift:
 *   1. writes prisma/postgresql/schema.prisma (provider and client output changed, nothing else);
 *   2. writes the PostgreSQL SQL of any SQLite migration that has no PostgreSQL twin yet.
 * server/test/schema-drift.test.ts fails when either is out of date.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
export const SQLITE_SCHEMA = path.join(root, "prisma", "schema.prisma");
export const POSTGRESQL_SCHEMA = path.join(root, "prisma", "postgresql", "schema.prisma");
export const SQLITE_MIGRATIONS = path.join(root, "prisma", "migrations");
export const POSTGRESQL_MIGRATIONS = path.join(root, "prisma", "postgresql", "migrations");

const HEADER = "// GENERATED from ../schema.prisma by `npm run db:derive-postgresql`: edit that file, not this one.\n";

/** The PostgreSQL schema text for a SQLite schema text. */
export function derivePostgresqlSchema(sqlite: string): string {
  const derived = sqlite
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output                 = "../server/src/generated/prisma"', 'output                 = "../../server/src/generated/prisma-postgresql"');
  return HEADER + derived;
}

/** Migration directory names (each holding a migration.sql), sorted. */
export function migrationNames(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
        .map((d) => d.name)
        .sort()
    : [];
}

function main(): void {
  writeFileSync(POSTGRESQL_SCHEMA, derivePostgresqlSchema(readFileSync(SQLITE_SCHEMA, "utf8")));
  const existing = migrationNames(POSTGRESQL_MIGRATIONS);
  const missing = migrationNames(SQLITE_MIGRATIONS).filter((m) => !existing.includes(m));
  if (missing.length === 0) return;
  if (existing.length > 0) {
    throw new Error(
      `Write the PostgreSQL SQL of ${missing.join(", ")} by hand (the SQLite migration shows the change), ` +
        "or diff a database migrated to the previous state: npx prisma migrate diff --config prisma/postgresql/prisma.config.ts --from-config-datasource --to-schema-datamodel prisma/postgresql/schema.prisma --script",
    );
  }
  const sql = execFileSync(
    "npx",
    ["prisma", "migrate", "diff", "--config", "prisma/postgresql/prisma.config.ts", "--from-empty", "--to-schema-datamodel", POSTGRESQL_SCHEMA, "--script"],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const dir = path.join(POSTGRESQL_MIGRATIONS, missing[0]!);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "migration.sql"), sql);
  writeFileSync(path.join(POSTGRESQL_MIGRATIONS, "migration_lock.toml"), readFileSync(path.join(SQLITE_MIGRATIONS, "migration_lock.toml"), "utf8").replace('"sqlite"', '"postgresql"'));
}

if (process.argv[1] === import.meta.filename) main();
