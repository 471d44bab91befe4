/**
 * `npm run bench:growth`: does Tollgate keep its speed as the token table grows, and while
 * the purge deletes from it (issue 6)? Ours alone, on one SQLite file in a temp dir, with the
 * gateway in front of the bare upstream of bench/peers/upstream.ts (API `bench`, as in
 * `npm run bench`):
 *   1. issuance (POST /oauth2/v1/token) and gateway (GET /bench/) on the freshly seeded file,
 *      each run on its own after its unrecorded warm-up (BENCH_WARMUP, bench/support.ts);
 *   2. the server is stopped, BENCH_GROWTH_ROWS client-credentials token rows of the demo app
 *      are written straight into "AccessToken" with better-sqlite3 (prepared INSERT, one
 *      transaction per 50,000 rows; every other row already past both expiries, the rest
 *      live for an hour), and both scenarios run again on a restarted server. The purge is
 *      off in 1 and 2 (PURGE_INTERVAL_SECONDS=0), so no row is deleted there;
 *   3. the server restarts with PURGE_INTERVAL_SECONDS=1, so the purge starts at once and
 *      deletes the expired half while issuance and gateway calls run together (no warm-up,
 *      which would let the purge run ahead of the load); prints the p99 of that run, the
 *      expired rows still there when it ended (more than 0: the purge ran through the whole
 *      load) and the rows left once the server is stopped.
 * Prints the figures of 1 and 2, their ratio, and met / NOT met for "within 10%" (req/s
 * after the load at least 90% of before). Asserts nothing; fails only if a probe fails.
 * Env: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_GROWTH_ROWS (rows to load, default 1000000).
 */
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import Database from "better-sqlite3";
import { DEMO } from "../server/src/demo/seed.js";
import {
  connections,
  duration,
  exitOnSignals,
  gatewayTarget,
  load,
  makeTempDir,
  registerApi,
  removeTempDir,
  startInstance,
  startPeer,
  stopAll,
  stopInstance,
  tokenTarget,
  verdict,
  type Figures,
  type Instance,
} from "./support.js";

const rows = Number(process.env.BENCH_GROWTH_ROWS ?? 1_000_000);
/** Rows per transaction of the bulk load. */
const BATCH = 50_000;
const HOUR_MS = 3_600_000;
/** A DateTime column as Prisma stores it on SQLite. */
const dateTime = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

/**
 * Writes `count` client-credentials token rows of the demo app into the SQLite file, in
 * Prisma's format (cuid-like ids, SHA-256-hex token hashes, ISO DateTime text). Odd rows
 * expired two days ago; even rows were issued within the last ten minutes and live an hour.
 * Scope and products are copied from a token the server issued to the app.
 */
function loadTokens(file: string, count: number): void {
  const db = new Database(file);
  try {
    db.pragma("synchronous = OFF");
    db.pragma("cache_size = -262144");
    const credential = db.prepare(`SELECT "id", "appId" FROM "Credential" WHERE "consumerKey" = ?`).get(DEMO.app.consumerKey) as
      | { id: string; appId: string }
      | undefined;
    if (!credential) throw new Error(`no credential ${DEMO.app.consumerKey} in ${file}`);
    const like = db
      .prepare(`SELECT "scope", "apiProducts" FROM "AccessToken" WHERE "credentialId" = ? AND "grantType" = 'client_credentials' LIMIT 1`)
      .get(credential.id) as { scope: string; apiProducts: string } | undefined;
    if (!like) throw new Error(`no client-credentials token of ${DEMO.app.consumerKey} in ${file} to copy scope and products from`);
    const insert = db.prepare(
      `INSERT INTO "AccessToken" ("id", "tokenHash", "appId", "credentialId", "grantType", "scope", "apiProducts", "issuedAt", "expiresAt", "status", "refreshCount")
       VALUES (?, ?, ?, ?, 'client_credentials', ?, ?, ?, ?, 'approved', 0)`,
    );
    const prefix = randomBytes(4).toString("hex");
    const now = Date.now();
    const insertRange = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const issuedAt = i % 2 === 1 ? now - 48 * HOUR_MS - (i % 86_400) * 1000 : now - (i % 600) * 1000;
        insert.run(
          `c${prefix}${i.toString(16).padStart(16, "0")}`,
          createHash("sha256").update(`${prefix}:${i}`).digest("hex"),
          credential.appId,
          credential.id,
          like.scope,
          like.apiProducts,
          dateTime(issuedAt),
          dateTime(issuedAt + HOUR_MS),
        );
      }
    });
    for (let from = 0; from < count; from += BATCH) insertRange(from, Math.min(count, from + BATCH));
  } finally {
    db.close();
  }
}

/** Counts the token rows of the file: all, and those past their access expiry now. */
function countTokens(file: string): { all: number; expired: number } {
  const db = new Database(file, { readonly: true });
  try {
    const all = (db.prepare(`SELECT count(*) AS n FROM "AccessToken"`).get() as { n: number }).n;
    const expired = (db.prepare(`SELECT count(*) AS n FROM "AccessToken" WHERE "expiresAt" < ?`).get(dateTime(Date.now())) as { n: number }).n;
    return { all, expired };
  } finally {
    db.close();
  }
}

exitOnSignals();
const dir = makeTempDir("tollgate-bench-growth-");
const file = path.join(dir, "bench.db");
const env = { DATABASE_URL: `file:${file}`, PURGE_INTERVAL_SECONDS: "0" };
let upstream: Instance | undefined;
let server: Instance | undefined;
try {
  upstream = await startPeer("upstream.ts");
  server = await startInstance(env);
  const apiPath = await registerApi(server.url, "bench", upstream.url);
  /** Issuance, then gateway calls, on the freshly started server (each after its warm-up). */
  const measure = async (s: Instance): Promise<{ issuance: Figures; gateway: Figures }> => {
    return { issuance: await load([tokenTarget(s.url)]), gateway: await load([await gatewayTarget(s.url, apiPath)]) };
  };

  console.log(`${connections} connections, ${duration} s per run, ${rows} rows to load\n`);
  const empty = await measure(server);
  const before = countTokens(file);
  await stopInstance(server);

  let started = performance.now();
  loadTokens(file, rows);
  const loadSeconds = (performance.now() - started) / 1000;
  const loaded = countTokens(file);
  console.log(`Loaded ${rows} rows in ${loadSeconds.toFixed(1)} s: ${loaded.all} token rows, ${loaded.expired} of them expired\n`);

  server = await startInstance(env);
  const full = await measure(server);
  await stopInstance(server);

  started = performance.now();
  server = await startInstance({ ...env, PURGE_INTERVAL_SECONDS: "1" });
  const purging = await load([tokenTarget(server.url), await gatewayTarget(server.url, apiPath)], { warmup: 0 });
  const runSeconds = (performance.now() - started) / 1000;
  const expiredAtEnd = countTokens(file).expired;
  await stopInstance(server);
  const after = countTokens(file);

  console.table({
    [`issuance, ${before.all} rows`]: empty.issuance,
    [`issuance, ${loaded.all} rows`]: full.issuance,
    [`gateway, ${before.all} rows`]: empty.gateway,
    [`gateway, ${loaded.all} rows`]: full.gateway,
    "issuance + gateway while purging": purging,
  });
  const ratio = (name: "issuance" | "gateway") => full[name]["req/s"] / empty[name]["req/s"];
  console.log("\nTargets (issue 6):");
  console.log(verdict(`  issuance within 10% after loading ${rows} rows`, `${(ratio("issuance") * 100).toFixed(0)}% of the empty-table rate`, ratio("issuance") >= 0.9));
  console.log(verdict(`  gateway within 10% after loading ${rows} rows`, `${(ratio("gateway") * 100).toFixed(0)}% of the empty-table rate`, ratio("gateway") >= 0.9));
  console.log(`\nWhile the purge ran: p99 ${purging["p99 ms"]} ms (issuance and gateway together, ${runSeconds.toFixed(0)} s from the restart to the end of the load)`);
  console.log(`  expired rows: ${loaded.expired} before, ${expiredAtEnd} when the load ended${expiredAtEnd > 0 ? " (the purge ran through the whole load)" : " (the purge finished during the load)"}`);
  console.log(`  token rows left after: ${after.all} (${after.expired} expired)`);
} finally {
  await stopAll(server, upstream);
  removeTempDir(dir);
}
