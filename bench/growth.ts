/**
 * `npm run bench:growth`: does Tollgate keep its speed as the token table grows, and while
 * the purge deletes from it (issues 6 and 21)? Ours alone, on each database of
 * BENCH_DATABASES in turn (a SQLite file in a temp dir; a PostgreSQL database created for the
 * run and dropped WITH (FORCE) after it, with Redis, as in `npm run bench`), with the gateway
 * in front of the bare upstream of bench/peers/upstream.ts (API `bench`, as in `npm run bench`):
 *   1. issuance (POST /oauth2/v1/token) and gateway (GET /bench/) on the freshly seeded
 *      database, each run on its own after its unrecorded warm-up (BENCH_WARMUP,
 *      bench/support.ts);
 *   2. the server is stopped, BENCH_GROWTH_ROWS client-credentials token rows of the demo app
 *      are written straight into "AccessToken" (every other row already past both expiries,
 *      the rest live for an hour), and both scenarios run again on a restarted server. On
 *      SQLite with better-sqlite3: a prepared INSERT, one transaction per 50,000 rows. On
 *      PostgreSQL with pg: one INSERT … SELECT FROM generate_series per 100,000 rows (the
 *      same ids, hashes and times, computed by PostgreSQL), then VACUUM ANALYZE of the table,
 *      as autovacuum would do after a bulk insert. The purge is off in 1 and 2
 *      (PURGE_INTERVAL_SECONDS=0), so no row is deleted there;
 *   3. the server restarts with PURGE_INTERVAL_SECONDS=1, so the purge starts at once and
 *      deletes the expired half while issuance and gateway calls run together (no warm-up,
 *      which would let the purge run ahead of the load); prints the p99 of that run, the
 *      expired rows still there when it ended (more than 0: the purge ran through the whole
 *      load) and the rows left once the server is stopped.
 * Prints each database's figures of 1, 2 and 3 as it finishes it, then the targets of issue
 * 21 for each database as met / NOT met: issuance and gateway flat within ±10 % (req/s after
 * the load between 90 % and 110 % of before). Asserts nothing; fails only if a probe fails.
 * Env: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_WARMUP (seconds, default 2), BENCH_GROWTH_ROWS (rows to load, default 1000000),
 * BENCH_DATABASES (comma-separated, default "sqlite,postgresql"), BENCH_POSTGRES_URL and
 * BENCH_REDIS_URL (see bench/support.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { DEMO } from "../server/src/demo/seed.js";
import {
  benchDatabases,
  connections,
  createDatabase,
  DATABASE_LABEL,
  dropAll,
  duration,
  exitOnSignals,
  gatewayTarget,
  load,
  registerApi,
  startInstance,
  startPeer,
  stopAll,
  stopInstance,
  tokenTarget,
  verdict,
  type BenchDatabase,
  type DatabaseKind,
  type Figures,
  type Instance,
} from "./support.js";

const rows = Number(process.env.BENCH_GROWTH_ROWS ?? 1_000_000);
/** Rows per transaction of the SQLite bulk load. */
const BATCH = 50_000;
/** Rows per INSERT … SELECT of the PostgreSQL bulk load. */
const POSTGRES_BATCH = 100_000;
const HOUR_MS = 3_600_000;
/** A DateTime column as Prisma stores it on SQLite. */
const dateTime = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");
/** A DateTime column as Prisma stores it on PostgreSQL (`timestamp(3)` without time zone, UTC), as a literal. */
const timestamp = (ms: number) => new Date(ms).toISOString().replace("Z", "");

/**
 * Writes `count` client-credentials token rows of the demo app into the SQLite file, in
 * Prisma's format (cuid-like ids, SHA-256-hex token hashes, ISO DateTime text). Odd rows
 * expired two days ago; even rows were issued within the last ten minutes and live an hour.
 * Scope and products are copied from a token the server issued to the app.
 */
function loadSqlite(file: string, count: number): void {
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

/** Runs `fn` with a pg client connected to `url`, closed after. */
async function withPostgres<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The rows of {@link loadSqlite} on PostgreSQL: the same ids, hashes, times and copied scope
 * and products, made by PostgreSQL itself (INSERT … SELECT FROM generate_series, sha256(),
 * one statement per {@link POSTGRES_BATCH} rows, synchronous_commit off for the session),
 * then VACUUM ANALYZE "AccessToken".
 */
async function loadPostgres(url: string, count: number): Promise<void> {
  await withPostgres(url, async (client) => {
    const credential = (await client.query<{ id: string; appId: string }>(`SELECT "id", "appId" FROM "Credential" WHERE "consumerKey" = $1`, [DEMO.app.consumerKey])).rows[0];
    if (!credential) throw new Error(`no credential ${DEMO.app.consumerKey} in ${url}`);
    const like = (
      await client.query<{ scope: string; apiProducts: string }>(
        `SELECT "scope", "apiProducts" FROM "AccessToken" WHERE "credentialId" = $1 AND "grantType" = 'client_credentials' LIMIT 1`,
        [credential.id],
      )
    ).rows[0];
    if (!like) throw new Error(`no client-credentials token of ${DEMO.app.consumerKey} in ${url} to copy scope and products from`);
    await client.query("SET synchronous_commit = off");
    const prefix = randomBytes(4).toString("hex");
    const now = timestamp(Date.now());
    for (let from = 0; from < count; from += POSTGRES_BATCH) {
      await client.query(
        `INSERT INTO "AccessToken" ("id", "tokenHash", "appId", "credentialId", "grantType", "scope", "apiProducts", "issuedAt", "expiresAt", "status", "refreshCount")
         SELECT 'c' || $1 || lpad(to_hex(i), 16, '0'), encode(sha256(convert_to($1 || ':' || i, 'UTF8')), 'hex'), $2, $3, 'client_credentials', $4, $5,
                t.issued, t.issued + interval '1 hour', 'approved', 0
         FROM generate_series($6::int, $7::int) AS i,
              LATERAL (SELECT CASE WHEN i % 2 = 1 THEN $8::timestamp - interval '48 hours' - (i % 86400) * interval '1 second'
                                   ELSE $8::timestamp - (i % 600) * interval '1 second' END AS issued) AS t`,
        [prefix, credential.appId, credential.id, like.scope, like.apiProducts, from, Math.min(count, from + POSTGRES_BATCH) - 1, now],
      );
    }
    await client.query(`VACUUM ANALYZE "AccessToken"`);
  });
}

/** Counts the token rows of a database: all, and those past their access expiry now. */
async function countTokens(db: BenchDatabase): Promise<{ all: number; expired: number }> {
  if (db.kind === "postgresql") {
    return withPostgres(db.url, async (client) => {
      const { rows: [counts] } = await client.query<{ all: number; expired: number }>(
        `SELECT count(*)::int AS "all", (count(*) FILTER (WHERE "expiresAt" < $1::timestamp))::int AS "expired" FROM "AccessToken"`,
        [timestamp(Date.now())],
      );
      return counts!;
    });
  }
  const sqlite = new Database(db.file, { readonly: true });
  try {
    const all = (sqlite.prepare(`SELECT count(*) AS n FROM "AccessToken"`).get() as { n: number }).n;
    const expired = (sqlite.prepare(`SELECT count(*) AS n FROM "AccessToken" WHERE "expiresAt" < ?`).get(dateTime(Date.now())) as { n: number }).n;
    return { all, expired };
  } finally {
    sqlite.close();
  }
}

/** What one database's run measured. */
interface Growth {
  empty: { issuance: Figures; gateway: Figures };
  full: { issuance: Figures; gateway: Figures };
}

/**
 * Steps 1 to 3 on `db`: prints its table and the purge's lines.
 * @returns the figures before and after the load.
 */
async function grow(db: BenchDatabase, upstreamUrl: string): Promise<Growth> {
  const env = { ...db.env, PURGE_INTERVAL_SECONDS: "0" };
  let server: Instance | undefined;
  try {
    server = await startInstance(env);
    const apiPath = await registerApi(server.url, "bench", upstreamUrl);
    /** Issuance, then gateway calls, on the freshly started server (each after its warm-up). */
    const measure = async (s: Instance): Promise<{ issuance: Figures; gateway: Figures }> => {
      return { issuance: await load([tokenTarget(s.url)]), gateway: await load([await gatewayTarget(s.url, apiPath)]) };
    };

    console.log(`${db.label}:`);
    const empty = await measure(server);
    const before = await countTokens(db);
    await stopInstance(server);

    let started = performance.now();
    if (db.kind === "sqlite") loadSqlite(db.file, rows);
    else await loadPostgres(db.url, rows);
    const loadSeconds = (performance.now() - started) / 1000;
    const loaded = await countTokens(db);
    console.log(`  loaded ${rows} rows in ${loadSeconds.toFixed(1)} s: ${loaded.all} token rows, ${loaded.expired} of them expired`);

    server = await startInstance(env);
    const full = await measure(server);
    await stopInstance(server);

    started = performance.now();
    server = await startInstance({ ...env, PURGE_INTERVAL_SECONDS: "1" });
    const purging = await load([tokenTarget(server.url), await gatewayTarget(server.url, apiPath)], { warmup: 0 });
    const runSeconds = (performance.now() - started) / 1000;
    const expiredAtEnd = (await countTokens(db)).expired;
    await stopInstance(server);
    const after = await countTokens(db);

    console.table({
      [`${db.label}: issuance, ${before.all} rows`]: empty.issuance,
      [`${db.label}: issuance, ${loaded.all} rows`]: full.issuance,
      [`${db.label}: gateway, ${before.all} rows`]: empty.gateway,
      [`${db.label}: gateway, ${loaded.all} rows`]: full.gateway,
      [`${db.label}: issuance + gateway while purging`]: purging,
    });
    console.log(`  while the purge ran: p99 ${purging["p99 ms"]} ms (issuance and gateway together, ${runSeconds.toFixed(0)} s from the restart to the end of the load)`);
    console.log(`  expired rows: ${loaded.expired} before, ${expiredAtEnd} when the load ended${expiredAtEnd > 0 ? " (the purge ran through the whole load)" : " (the purge finished during the load)"}`);
    console.log(`  token rows left after: ${after.all} (${after.expired} expired)\n`);
    return { empty, full };
  } finally {
    await stopAll(server);
  }
}

exitOnSignals();
const databases = benchDatabases();
let upstream: Instance | undefined;
const made: BenchDatabase[] = [];
const results = new Map<DatabaseKind, Growth>();
try {
  upstream = await startPeer("upstream.ts");
  console.log(`${connections} connections, ${duration} s per run, ${rows} rows to load, on ${databases.map((kind) => DATABASE_LABEL[kind]).join(" and ")}\n`);
  for (const kind of databases) {
    const db = await createDatabase(kind);
    made.push(db);
    results.set(kind, await grow(db, upstream.url));
    await dropAll(db);
  }
  console.log("Targets (issue 21):");
  for (const [kind, { empty, full }] of results) {
    for (const name of ["issuance", "gateway"] as const) {
      const ratio = full[name]["req/s"] / empty[name]["req/s"];
      console.log(verdict(`  ${DATABASE_LABEL[kind]}: ${name} flat within ±10% after loading ${rows} rows`, `${(ratio * 100).toFixed(0)}% of the empty-table rate`, ratio >= 0.9 && ratio <= 1.1));
    }
  }
} finally {
  await stopAll(upstream);
  await dropAll(...made);
}
