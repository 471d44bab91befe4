/**
 * Starts a real Tollgate server for an HTTP suite on a fresh database, with migrations, the
 * demo seed and the demo upstream, all on 127.0.0.1 ports chosen by the OS.
 *
 * The database is a new SQLite file in a temp directory, or, when TEST_DATABASE=postgresql,
 * a new PostgreSQL database on the server of TEST_POSTGRES_URL (default
 * postgresql://root@127.0.0.1:5432/postgres), dropped again on close. `npm test` runs the
 * suites once on each.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server.js";

export type TestServer = RunningServer & { dir: string };

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

/** Runs one statement on the PostgreSQL server's maintenance database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database for one server. @returns its URL and how to remove it. */
async function freshDatabase(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE !== "postgresql") return { url: `file:${path.join(dir, "tollgate.db")}`, drop: async () => {} };
  const name = `tollgate_test_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** @param env - extra environment settings (see server/src/config.ts); a DATABASE_URL here is used as given. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-test-"));
  const database = env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => {} } : await freshDatabase(dir);
  const config = loadConfig({
    PORT: "0",
    DEMO_UPSTREAM_PORT: "0",
    DATABASE_URL: database.url,
    LOG_LEVEL: "silent",
    ...env,
  });
  const running = await startServer(config);
  return {
    ...running,
    dir,
    async close() {
      await running.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
