/**
 * `npm run bench:scale`: issuance, gateway and introspection throughput of one instance on SQLite, one
 * instance on PostgreSQL, and two instances on one PostgreSQL database sharing Redis (load
 * split evenly between them, as a round-robin balancer would). The machine has 2 cores, so
 * two instances compete with each other, with PostgreSQL and with the load generator.
 * Each PostgreSQL measurement runs on a database of its own, created before it and dropped
 * WITH (FORCE) after it (bench/support.ts createDatabase: with REDIS_URL, a REDIS_KEY_PREFIX
 * and a SESSION_SECRET of its own, its Redis keys deleted after).
 * Scenarios: issuance, gateway, introspection. For each run it also reads the CPU time
 * (user + system, /proc/<pid>/stat) our instances and PostgreSQL's processes used during
 * the measured run, and divides it by the requests answered: the per-request CPU the
 * README's scaling formula takes (Performance, N instances).
 * Prints one table (req/s, p50/p99 ms, failures, CPU µs per request), the ratios 2 vs 1
 * PostgreSQL instances and PostgreSQL vs SQLite, and each scenario's requests per second
 * per core of Tollgate and of PostgreSQL. Asserts nothing. Needs pgrep and getconf.
 * Env: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_WARMUP; BENCH_POSTGRES_URL (maintenance
 * database, default postgresql://root@127.0.0.1:5432/postgres); BENCH_REDIS_URL (default
 * redis://127.0.0.1:6379).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  connections,
  createDatabase,
  dropAll,
  duration,
  exitOnSignals,
  gatewayTarget,
  introspectionTarget,
  accessToken,
  load,
  startInstance,
  stopInstance,
  tokenTarget,
  warmup,
  type Figures,
  type Instance,
  type Target,
} from "./support.js";
import { DEMO } from "../server/src/demo/seed.js";

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString());

/** CPU time (user + system) used so far by each of the processes `pids` still running, microseconds. */
function cpuMicros(pids: number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      times.set(pid, ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6);
    } catch {
      // exited
    }
  }
  return times;
}

/**
 * CPU time the processes used between two readings, microseconds: a process started meanwhile
 * counts whole, one that exited meanwhile (a PostgreSQL backend closing) is not counted.
 */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let micros = 0;
  for (const [pid, time] of after) micros += time - (before.get(pid) ?? 0);
  return micros;
}

/** PostgreSQL's server processes on this machine (the postmaster and its backends), at the time of the call. */
function postgresPids(): number[] {
  const out = execFileSync("pgrep", ["-x", "postgres"], { encoding: "utf8" });
  return out.split("\n").filter(Boolean).map(Number);
}

/** A row of the table: throughput, and the CPU per request of our instances and of PostgreSQL, microseconds. */
type Row = Figures & { "Tollgate CPU µs/req": number; "PostgreSQL CPU µs/req": number };

/**
 * Loads `targets` (after an unrecorded warm-up) and measures the CPU used meanwhile by
 * `instances` and by PostgreSQL's processes, per request answered.
 */
async function measured(targets: Target[], instances: Instance[]): Promise<Row> {
  await load(targets, { duration: warmup, warmup: 0 });
  const ours = instances.map((i) => i.child.pid!);
  const before = { ours: cpuMicros(ours), pg: cpuMicros(postgresPids()) };
  const figures = await load(targets, { warmup: 0 });
  const after = { ours: cpuMicros(ours), pg: cpuMicros(postgresPids()) };
  const requests = figures["req/s"] * duration;
  return {
    ...figures,
    "Tollgate CPU µs/req": Math.round(cpuBetween(before.ours, after.ours) / requests),
    "PostgreSQL CPU µs/req": Math.round(cpuBetween(before.pg, after.pg) / requests),
  };
}

const SCENARIOS = ["issuance", "gateway", "introspection"] as const;

/** Starts `count` instances with `env` (one after the other: the first migrates and seeds) and measures each scenario. */
async function measure(count: number, env: Record<string, string>): Promise<Record<(typeof SCENARIOS)[number], Row>> {
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < count; i++) instances.push(await startInstance(env));
    const issuance = await measured(instances.map((i) => tokenTarget(i.url)), instances);
    const gateway = await measured(await Promise.all(instances.map((i) => gatewayTarget(i.url))), instances);
    const introspection = await measured(
      await Promise.all(instances.map(async (i) => introspectionTarget(`${i.url}/oauth2/v1/introspect`, DEMO.strictApp, await accessToken(tokenTarget(i.url))))),
      instances,
    );
    return { issuance, gateway, introspection };
  } finally {
    for (const i of instances) await stopInstance(i);
  }
}

exitOnSignals();
const rows: Record<string, Row> = {};
const record = (label: string, figures: Record<(typeof SCENARIOS)[number], Row>) => {
  for (const scenario of SCENARIOS) rows[`${label}: ${scenario}`] = figures[scenario];
};
console.log(`${connections} connections in all, ${duration} s per scenario\n`);
const sqliteDb = await createDatabase("sqlite");
try {
  record("SQLite, 1 instance", await measure(1, sqliteDb.env));
} finally {
  await dropAll(sqliteDb);
}
for (const count of [1, 2]) {
  // A database of its own for each count, with a Redis key prefix and a SESSION_SECRET of its own.
  const db = await createDatabase("postgresql");
  try {
    record(`PostgreSQL, ${count} instance${count > 1 ? "s" : ""}`, await measure(count, db.env));
  } finally {
    await dropAll(db);
  }
}
console.table(rows);
const ratio = (a: string, b: string) => (rows[a]!["req/s"] / rows[b]!["req/s"]).toFixed(2);
for (const scenario of SCENARIOS) {
  const one = `PostgreSQL, 1 instance: ${scenario}`;
  console.log(
    `${scenario}: PostgreSQL vs SQLite, 1 instance ×${ratio(one, `SQLite, 1 instance: ${scenario}`)}; 2 vs 1 PostgreSQL instances ×${ratio(`PostgreSQL, 2 instances: ${scenario}`, one)}`,
  );
}
console.log("\nPer request on PostgreSQL with 1 instance (the figures of docs/performance.md: N instances):");
for (const scenario of SCENARIOS) {
  const row = rows[`PostgreSQL, 1 instance: ${scenario}`]!;
  const [t, p] = [row["Tollgate CPU µs/req"], row["PostgreSQL CPU µs/req"]];
  const perCore = (us: number) => (us > 0 ? Math.round(1e6 / us).toLocaleString("en") : "∞");
  console.log(`  ${scenario}: Tollgate ${t} µs, PostgreSQL ${p} µs: one Tollgate core serves ${perCore(t)} req/s, one PostgreSQL core ${perCore(p)} req/s`);
}
