/**
 * `npm run bench:scale`: issuance and gateway throughput of one instance on SQLite, one
 * instance on PostgreSQL, and two instances on one PostgreSQL database sharing Redis (load
 * split evenly between them, as a round-robin balancer would). The machine has 2 cores, so
 * two instances compete with each other, with PostgreSQL and with the load generator.
 * Env: BENCH_DURATION, BENCH_CONNECTIONS; BENCH_POSTGRES_URL (maintenance database,
 * default postgresql://root@127.0.0.1:5432/postgres); BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { connections, duration, gatewayTarget, load, startInstance, stopInstance, tokenTarget, type Figures, type Instance } from "./support.js";

const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** Starts `count` instances with `env` (one after the other: the first migrates and seeds) and measures both scenarios. */
async function measure(count: number, env: Record<string, string>): Promise<{ issuance: Figures; gateway: Figures }> {
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < count; i++) instances.push(await startInstance(env));
    const issuance = await load(instances.map((i) => tokenTarget(i.url)));
    const gateway = await load(await Promise.all(instances.map((i) => gatewayTarget(i.url))));
    return { issuance, gateway };
  } finally {
    for (const i of instances) await stopInstance(i);
  }
}

const dir = mkdtempSync(path.join(tmpdir(), "tollgate-bench-scale-"));
const rows: Record<string, Figures> = {};
try {
  console.log(`${connections} connections in all, ${duration} s per scenario\n`);
  const sqlite = await measure(1, { DATABASE_URL: `file:${path.join(dir, "bench.db")}` });
  rows["SQLite, 1 instance: issuance"] = sqlite.issuance;
  rows["SQLite, 1 instance: gateway"] = sqlite.gateway;
  for (const count of [1, 2]) {
    const name = `tollgate_bench_${randomBytes(4).toString("hex")}`;
    await admin(`CREATE DATABASE ${name}`);
    try {
      const figures = await measure(count, {
        DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString(),
        REDIS_URL,
        REDIS_KEY_PREFIX: `${name}:`,
        SESSION_SECRET: randomBytes(32).toString("hex"),
      });
      rows[`PostgreSQL, ${count} instance${count > 1 ? "s" : ""}: issuance`] = figures.issuance;
      rows[`PostgreSQL, ${count} instance${count > 1 ? "s" : ""}: gateway`] = figures.gateway;
    } finally {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  console.table(rows);
  const ratio = (a: string, b: string) => (rows[a]!["req/s"] / rows[b]!["req/s"]).toFixed(2);
  console.log(`2 vs 1 PostgreSQL instances: issuance ×${ratio("PostgreSQL, 2 instances: issuance", "PostgreSQL, 1 instance: issuance")}, gateway ×${ratio("PostgreSQL, 2 instances: gateway", "PostgreSQL, 1 instance: gateway")}`);
  console.log(`PostgreSQL vs SQLite, 1 instance: issuance ×${ratio("PostgreSQL, 1 instance: issuance", "SQLite, 1 instance: issuance")}, gateway ×${ratio("PostgreSQL, 1 instance: gateway", "SQLite, 1 instance: gateway")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
