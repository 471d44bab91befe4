/**
 * Fault tests on real services (issue part 7): the dependencies go away under load.
 *
 * - PostgreSQL: a cluster of this suite's own (support/pg-cluster.ts, on a free port;
 *   the machine's server is untouched) is stopped with `pg_ctl stop -m immediate` for 10 s
 *   while clients ask for tokens and call the gateway. Every answer must come within
 *   6 s and be a 200 or a 503 `temporarily_unavailable` with `Retry-After`, never a 500;
 *   /readyz must say 503 within 5 s of the stop and 200 within 5 s of the restart, when a
 *   token request works again too; every token acknowledged must still work afterwards.
 * - Redis: a redis-server of this suite's own (support/redis-process.ts) behind two
 *   instances over one PostgreSQL database is SIGKILLed under load, then started again on
 *   the same port. No 5xx at all; the rate limit still applies, per instance, during the
 *   outage (README: counters fall back to the process), and no token row is served from a
 *   cache (a revocation through one instance is refused by the other at once); once Redis
 *   is back the counters are shared in Redis again and catalog changes reach the other
 *   instance over it again.
 *
 * Both need PostgreSQL (binaries, and for the Redis part the server of TEST_POSTGRES_URL),
 * so the file runs in the PostgreSQL pass of `npm test` only (vitest.config.ts).
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { basic, clientCredentialsToken, formBody, FORM, REVOCATION_ENDPOINT, TOKEN_ENDPOINT, tokenRequest, type DemoClient } from "./support/flow.js";
import { startLoad, timedRequest, type LoadRequest, type Sample } from "./support/load.js";
import { startPgCluster, type PgCluster } from "./support/pg-cluster.js";
import { startRedisProcess, type RedisProcess } from "./support/redis-process.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { createPasswordOnlyApp, startTestServer, type TestServer } from "./support/server.js";

/** The bounds: /readyz reports a change, and the service recovers, within this. */
const REPORT_BOUND_MS = 5000;
/** Longest time any answer may take while a dependency is away. */
const ANSWER_BOUND_MS = 6000;
/** How long PostgreSQL stays stopped. */
const OUTAGE_MS = 10_000;

/** A client credentials token request of `client` to `baseUrl`. */
const tokenCall = (baseUrl: string, client: DemoClient): LoadRequest => ({
  kind: "token",
  url: new URL(TOKEN_ENDPOINT, baseUrl),
  init: { method: "POST", headers: { Authorization: basic(client.consumerKey, client.consumerSecret), "Content-Type": FORM }, body: formBody({ grant_type: "client_credentials" }) },
});

/** A GET through the gateway of `baseUrl` with `token`, on an API a client credentials token may call (account data needs the PSU). */
const gatewayCall = (baseUrl: string, token: string): LoadRequest => ({
  kind: "gateway",
  url: new URL(OPEN_DATA, baseUrl),
  init: { headers: { Authorization: `Bearer ${token}` } },
});

/** Sends `request` once. */
const send = (request: LoadRequest) => timedRequest(request.kind, -1, request.url, request.init);

/**
 * Polls `probe` every 100 ms until `ok` holds for its sample.
 * @returns milliseconds from `since` (a Date.now()) to the answer that satisfied it, and that sample.
 * @throws when `limitMs` + 3 s pass from `since` without it (the bound assertion then reports the rest).
 */
async function until(since: number, limitMs: number, probe: () => Promise<Sample>, ok: (s: Sample) => boolean): Promise<{ ms: number; sample: Sample }> {
  for (;;) {
    const sample = await probe();
    if (ok(sample)) return { ms: sample.answeredAt - since, sample };
    if (Date.now() - since > limitMs + 3000) throw new Error(`still not there after ${Date.now() - since} ms; last answer ${sample.status}: ${sample.text.slice(0, 300)}`);
    await sleep(100);
  }
}

/** GET /readyz of `baseUrl`. */
const readyz = (baseUrl: string) => timedRequest("readyz", -1, new URL("/readyz", baseUrl));

/** A compact line per sample, for failure messages. */
const describeSamples = (samples: Sample[]) => samples.slice(0, 5).map((s) => `${s.kind} ${s.status} in ${s.answeredAt - s.sentAt} ms: ${s.text.slice(0, 200)}`);

describe("PostgreSQL stopped for 10 s under load", () => {
  let cluster: PgCluster;
  let server: TestServer;

  beforeAll(async () => {
    cluster = await startPgCluster();
    server = await startTestServer({
      DATABASE_URL: cluster.url,
      PURGE_INTERVAL_SECONDS: "0",
      TOKEN_RATE_LIMIT_PER_CLIENT: "0",
      TOKEN_RATE_LIMIT_PER_IP: "0",
    });
    await addOpenDataApi(server);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await cluster?.destroy();
  });

  it("answers 503 temporarily_unavailable with Retry-After within 6 s during the outage, never 500; readiness follows; nothing acknowledged is lost", { timeout: 60_000 }, async () => {
    const acknowledged: string[] = [await clientCredentialsToken(server.url, DEMO.app)];
    const load = startLoad({
      workers: 4,
      pauseMs: 20,
      next: (worker, n) => ((worker + n) % 2 === 0 ? tokenCall(server.url, DEMO.app) : gatewayCall(server.url, acknowledged.at(-1)!)),
      onSample: (s) => void (s.kind === "token" && s.status === 200 && acknowledged.push(s.body.access_token as string)),
    });
    await sleep(1500);

    const stopping = Date.now();
    await cluster.stop("immediate");
    const stopped = Date.now();
    const down = await until(stopping, REPORT_BOUND_MS, () => readyz(server.url), (s) => s.status === 503);
    expect(down.ms, "/readyz says 503 within 5 s of the database going away").toBeLessThan(REPORT_BOUND_MS);
    expect(down.sample.body).toMatchObject({ status: "unavailable", failed: ["database"] });
    expect(down.sample.headers.get("cache-control")).toBe("no-store");

    await sleep(Math.max(0, stopping + OUTAGE_MS - Date.now()));
    const starting = Date.now();
    await cluster.start();
    const started = Date.now();
    const [ready, issued] = await Promise.all([
      until(started, REPORT_BOUND_MS, () => readyz(server.url), (s) => s.status === 200),
      until(started, REPORT_BOUND_MS, () => send(tokenCall(server.url, DEMO.strictApp)), (s) => s.status === 200),
    ]);
    expect(ready.ms, "/readyz says 200 within 5 s of the database's return").toBeLessThan(REPORT_BOUND_MS);
    expect(ready.sample.body).toEqual({
      status: "ready",
      checks: [
        { name: "database", status: "up", durationMs: expect.any(Number) },
        // The keys were read before the outage: signing does not wait for the database.
        { name: "signing keys", status: "up", durationMs: expect.any(Number) },
      ],
    });
    expect(issued.ms, "a token request works within 5 s of the database's return").toBeLessThan(REPORT_BOUND_MS);
    const recovered = Math.max(ready.sample.answeredAt, issued.sample.answeredAt);
    await sleep(1000);
    const samples = await load.stop();

    // Never a hang, never a 500 (or any 5xx but 503), never a failed connection.
    const slow = samples.filter((s) => s.answeredAt - s.sentAt >= ANSWER_BOUND_MS || s.status === 0);
    expect(describeSamples(slow), "answers slower than 6 s, or none").toEqual([]);
    const broken = samples.filter((s) => s.status >= 500 && s.status !== 503);
    expect(describeSamples(broken), "5xx other than 503").toEqual([]);

    const before = samples.filter((s) => s.answeredAt < stopping);
    expect(before.filter((s) => s.kind === "token").length, "tokens issued before the stop").toBeGreaterThan(20);
    expect(describeSamples(before.filter((s) => s.status !== 200)), "before the stop").toEqual([]);

    // Sent once the database was down, answered before it started again.
    const during = samples.filter((s) => s.sentAt > stopped && s.answeredAt < starting);
    const unavailable = during.filter((s) => s.status === 503);
    // A token needs a database write, and on PostgreSQL a gateway call reads the token's row: no cache answers them.
    expect(unavailable.filter((s) => s.kind === "token").length).toBeGreaterThan(20);
    expect(unavailable.filter((s) => s.kind === "gateway").length).toBeGreaterThan(20);
    expect(describeSamples(during.filter((s) => s.status !== 503)), "answers during the outage other than 503").toEqual([]);
    for (const s of unavailable) {
      expect(s.body).toEqual({ error: "temporarily_unavailable", error_description: expect.stringMatching(/\S/) });
      expect(s.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
      expect(s.headers.get("cache-control")).toBe("no-store");
    }

    const after = samples.filter((s) => s.sentAt > recovered);
    expect(after.length).toBeGreaterThan(10);
    expect(describeSamples(after.filter((s) => s.status !== 200)), "after recovery").toEqual([]);

    // Every token acknowledged, before, during or after the outage, still works.
    expect(acknowledged.length).toBeGreaterThan(20);
    const refused: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 8) {
      const answers = await Promise.all(acknowledged.slice(i, i + 8).map((token) => send(gatewayCall(server.url, token))));
      for (const a of answers) if (a.status !== 200) refused.push(`${a.status}: ${a.text.slice(0, 200)}`);
    }
    expect(refused, `of ${acknowledged.length} acknowledged tokens`).toEqual([]);
  });
});

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
/** Token requests per client per minute, on each instance's own counters or the shared ones. */
const LIMIT = 5;
/** A catalog change through one instance reaches the other over Redis within this (the cache's TTL here is 60 s). */
const INVALIDATION_BOUND_MS = 1000;

/** Runs one statement on the maintenance database of TEST_POSTGRES_URL. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

describe("Redis killed under load, two instances", () => {
  const name = `tollgate_faults_${randomBytes(6).toString("hex")}`;
  const prefix = `tollgate-faults-${randomBytes(4).toString("hex")}:`;
  let redis: RedisProcess;
  const instances: TestServer[] = [];

  beforeAll(async () => {
    redis = await startRedisProcess();
    await admin(`CREATE DATABASE ${name}`);
    const env = {
      DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString(),
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      TOKEN_RATE_LIMIT_PER_CLIENT: String(LIMIT),
      TOKEN_RATE_LIMIT_PER_IP: "0",
      PURGE_INTERVAL_SECONDS: "0",
      // Far longer than the test: a catalog change or a token eviction reaches the other instance only over Redis.
      CATALOG_CACHE_TTL_MS: "60000",
      TOKEN_CACHE_MAX_AGE_MS: "60000",
    };
    // One after the other: the first migrates and seeds (and gets the API the calls go to, before the other starts).
    for (let i = 0; i < 2; i++) {
      instances.push(await startTestServer(env));
      if (i === 0) await addOpenDataApi(instances[0]!);
    }
  }, 60_000);

  afterAll(async () => {
    for (const s of instances) await s.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await redis?.stop();
  });

  /** Token requests of `client`, to the instances in `order` (indexes). @returns their statuses. */
  const spend = async (client: DemoClient, order: number[]) => {
    const statuses: number[] = [];
    for (const i of order) statuses.push((await send(tokenCall(instances[i]!.url, client))).status);
    return statuses;
  };
  /** Redis's counter of `client` on the token endpoints' per-client limit, or undefined when Redis holds none. */
  const sharedCount = async (client: DemoClient) => {
    const look = redis.client();
    try {
      const keys = await look.keys(`${prefix}*oauth-client*${client.consumerKey}`);
      return keys.length === 1 ? Number(await look.get(keys[0]!)) : keys.length === 0 ? undefined : NaN;
    } finally {
      look.disconnect();
    }
  };
  /** Subscribers of the catalog invalidation channel in Redis. */
  const subscribers = async () => {
    const look = redis.client();
    try {
      const [, count] = (await look.pubsub("NUMSUB", `${prefix}catalog`)) as [string, number];
      return Number(count);
    } finally {
      look.disconnect();
    }
  };
  /** Waits until the catalog channel has both instances' subscriptions. @returns the wait, ms. */
  const bothSubscribed = async () => {
    const since = Date.now();
    while ((await subscribers()) !== 2) {
      if (Date.now() - since > REPORT_BOUND_MS + 2000) throw new Error("the instances did not subscribe to catalog invalidations");
      await sleep(100);
    }
    return Date.now() - since;
  };
  /** Revokes PSD2-AISP-v1 on DEMO.app's credential through instance 0 and measures how long instance 1 takes to refuse `token` (403); then restores it. */
  const propagation = async (token: string) => {
    const where = { credential: { consumerKey: DEMO.app.consumerKey }, apiProduct: { name: "PSD2-AISP-v1" } };
    const setStatus = (status: string) => instances[0]!.prisma.credentialProduct.updateMany({ where, data: { status } });
    // Instance 1 holds the credential in its cache.
    expect((await send(gatewayCall(instances[1]!.url, token))).status).toBe(200);
    const since = Date.now();
    try {
      expect((await setStatus("revoked")).count).toBe(1);
      return await until(since, INVALIDATION_BOUND_MS, () => send(gatewayCall(instances[1]!.url, token)), (s) => s.status === 403);
    } finally {
      await setStatus("approved");
      await until(Date.now(), INVALIDATION_BOUND_MS, () => send(gatewayCall(instances[1]!.url, token)), (s) => s.status === 200);
    }
  };

  it("no 5xx; per-instance limits while Redis is away; shared counters and catalog invalidations once it is back", { timeout: 60_000 }, async () => {
    const [x, y, z] = [await createPasswordOnlyApp(instances[0]!), await createPasswordOnlyApp(instances[0]!), await createPasswordOnlyApp(instances[0]!)];
    expect(await bothSubscribed()).toBeLessThan(REPORT_BOUND_MS);
    const token = await clientCredentialsToken(instances[0]!.url, DEMO.app);
    const load = startLoad({
      workers: 3,
      pauseMs: 20,
      // Gateway calls on both instances, and token requests of the payments app (soon over its limit: 429s).
      next: (worker, n) => ((worker + n) % 3 === 0 ? tokenCall(instances[n % 2]!.url, DEMO.paymentsApp) : gatewayCall(instances[n % 2]!.url, token)),
    });

    // Redis up: one budget for both instances.
    expect(await spend(x, [0, 1, 0, 1, 0, 1, 0])).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(await sharedCount(x)).toBeGreaterThanOrEqual(LIMIT);
    expect((await propagation(token)).ms, "catalog change over Redis, before the outage").toBeLessThan(INVALIDATION_BOUND_MS);

    const killing = Date.now();
    await redis.kill();
    for (const instance of instances) {
      const down = await until(killing, REPORT_BOUND_MS, () => readyz(instance.url), (s) => s.status === 503);
      expect(down.ms, "/readyz says 503 within 5 s of the kill").toBeLessThan(REPORT_BOUND_MS);
      expect(down.sample.body).toMatchObject({ status: "unavailable", failed: ["redis"] });
    }
    // Redis away: each instance counts alone, and its limit still holds.
    expect(await spend(y, [0, 0, 0, 0, 0, 0])).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await spend(y, [1, 1, 1, 1, 1, 1])).toEqual([200, 200, 200, 200, 200, 429]);
    // Redis away: no instance serves a cached token row, since another's eviction could not reach it;
    // a token revoked through instance 0 is refused by instance 1 at once.
    const revoked = await clientCredentialsToken(instances[0]!.url, DEMO.app);
    expect((await send(gatewayCall(instances[1]!.url, revoked))).status).toBe(200);
    expect((await tokenRequest(instances[0]!.url, REVOCATION_ENDPOINT, DEMO.app, { token: revoked })).status).toBe(200);
    expect((await send(gatewayCall(instances[1]!.url, revoked))).status, "revoked while Redis is away").toBe(401);

    const starting = Date.now();
    await redis.start();
    for (const instance of instances) {
      const up = await until(starting, REPORT_BOUND_MS, () => readyz(instance.url), (s) => s.status === 200);
      expect(up.ms, "/readyz says 200 within 5 s of the restart").toBeLessThan(REPORT_BOUND_MS);
    }
    // Back to normal: one budget in Redis again, and catalog changes over Redis again.
    expect(await sharedCount(z)).toBeUndefined();
    expect(await spend(z, [0, 1, 0, 1, 0, 1, 0])).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(await sharedCount(z)).toBeGreaterThanOrEqual(LIMIT);
    expect(await bothSubscribed()).toBeLessThan(REPORT_BOUND_MS);
    expect((await propagation(token)).ms, "catalog change over Redis, after the outage").toBeLessThan(INVALIDATION_BOUND_MS);

    const samples = await load.stop();
    expect(samples.filter((s) => s.kind === "gateway" && s.status === 200).length).toBeGreaterThan(50);
    expect(samples.filter((s) => s.kind === "token" && s.status === 429).length, "the payments app met its limit").toBeGreaterThan(0);
    expect(describeSamples(samples.filter((s) => s.status >= 500 || s.status === 0)), "5xx or no answer").toEqual([]);
    const slowest = Math.max(...samples.map((s) => s.answeredAt - s.sentAt));
    expect(slowest, "slowest answer, ms").toBeLessThan(ANSWER_BOUND_MS);
  });
});
