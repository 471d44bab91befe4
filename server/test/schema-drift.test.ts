/**
 * The PostgreSQL schema and migrations are derived from the SQLite ones (one source of
 * truth: prisma/schema.prisma). This suite fails when they drift: the derived schema file
 * is stale, a migration has no twin, or the two migration histories build different tables,
 * columns or indexes.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  POSTGRESQL_MIGRATIONS,
  POSTGRESQL_SCHEMA,
  SQLITE_MIGRATIONS,
  SQLITE_SCHEMA,
  derivePostgresqlSchema,
  migrationNames,
} from "../../prisma/derive-postgresql.js";
import { migrate } from "../src/db/migrate.js";

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

/** table -> sorted "column" names, plus "index:<name>" entries. */
type Shape = Record<string, string[]>;

function sqliteShape(file: string): Shape {
  const db = new Database(file, { readonly: true });
  try {
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`).all() as { name: string }[]).map((t) => t.name);
    const shape: Shape = {};
    for (const t of tables) {
      const columns = (db.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name);
      const indexes = (db.prepare(`PRAGMA index_list("${t}")`).all() as { name: string; origin: string }[])
        .filter((i) => i.origin === "c")
        .map((i) => `index:${i.name}`);
      shape[t] = [...columns, ...indexes].sort();
    }
    return shape;
  } finally {
    db.close();
  }
}

async function postgresqlShape(url: string): Promise<Shape> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const indexes = await client.query<{ tablename: string; indexname: string }>(
      `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND indexname NOT LIKE '%_pkey'`,
    );
    const shape: Shape = {};
    for (const r of columns.rows) (shape[r.table_name] ??= []).push(r.column_name);
    for (const r of indexes.rows) (shape[r.tablename] ??= []).push(`index:${r.indexname}`);
    for (const t of Object.keys(shape)) shape[t]!.sort();
    return shape;
  } finally {
    await client.end();
  }
}

describe("the PostgreSQL schema and migrations are derived from the SQLite ones", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-drift-"));
  const name = `tollgate_drift_${randomBytes(6).toString("hex")}`;
  const pgUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const admin = (sql: string) =>
    (async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(sql).finally(() => c.end());
    })();

  beforeAll(() => admin(`CREATE DATABASE ${name}`));
  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("prisma/postgresql/schema.prisma is exactly what npm run db:derive-postgresql makes of prisma/schema.prisma", () => {
    expect(readFileSync(POSTGRESQL_SCHEMA, "utf8")).toBe(derivePostgresqlSchema(readFileSync(SQLITE_SCHEMA, "utf8")));
  });

  it("every SQLite migration has a PostgreSQL twin of the same name, and no other", () => {
    expect(migrationNames(POSTGRESQL_MIGRATIONS)).toEqual(migrationNames(SQLITE_MIGRATIONS));
  });

  it("both migration histories build the same tables, columns and indexes", async () => {
    const file = path.join(dir, "drift.db");
    await migrate(`file:${file}`);
    await migrate(pgUrl);
    const sqlite = sqliteShape(file);
    expect(Object.keys(sqlite).length).toBeGreaterThan(10);
    expect(await postgresqlShape(pgUrl)).toEqual(sqlite);
  });

  it("applying the migrations again is a no-op on both", async () => {
    expect(await migrate(`file:${path.join(dir, "drift.db")}`)).toEqual([]);
    expect(await migrate(pgUrl)).toEqual([]);
  });
});
