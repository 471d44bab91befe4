/**
 * Readiness (`GET /readyz`, http/readiness.ts) against the real server: the database of the
 * pass (SQLite, or PostgreSQL with TEST_DATABASE=postgresql) and a redis-server this suite
 * starts on a port of its own, which it SIGKILLs (a crash) and SIGSTOPs (a hang). `/healthz`
 * stays liveness: it answers 200 throughout. The database going away is in faults.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send, type Answer } from "./support/flow.js";
import { startRedisProcess, type RedisProcess } from "./support/redis-process.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** The bound: /readyz reports a dependency gone, or back, within this. */
const REPORT_BOUND_MS = 5000;
/** Each check's own time limit (http/readiness.ts), plus slack for a busy machine: no answer may take longer. */
const ANSWER_BOUND_MS = 2000 + 1000;

/** GET /readyz, timed. @returns the answer and how long it took, ms. */
async function readyz(server: TestServer, path = "/readyz"): Promise<Answer & { ms: number }> {
  const started = Date.now();
  const answer = await send(new URL(path, server.url), { expect5xx: 503 });
  return { ...answer, ms: Date.now() - started };
}

/** Polls /readyz every 100 ms until it answers `status`. @returns the time that took, ms, and the answer; fails after `REPORT_BOUND_MS` + 2 s. */
async function until(server: TestServer, status: 200 | 503): Promise<{ ms: number; answer: Answer & { ms: number } }> {
  const started = Date.now();
  for (;;) {
    const answer = await readyz(server);
    expect(answer.ms, "a /readyz answer took longer than its checks' time limit").toBeLessThan(ANSWER_BOUND_MS);
    if (answer.status === status) return { ms: Date.now() - started, answer };
    if (Date.now() - started > REPORT_BOUND_MS + 2000) throw new Error(`/readyz still answers ${answer.status}: ${answer.text}`);
    await sleep(100);
  }
}

describe("GET /readyz with the database only", () => {
  let server: TestServer;
  beforeAll(async () => void (server = await startTestServer()));
  afterAll(async () => server?.close());

  it("answers 200 ready with the database check, as JSON, never cached", async () => {
    const answer = await readyz(server);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body).toEqual({
      status: "ready",
      checks: [
        { name: "database", status: "up", durationMs: expect.any(Number) },
        { name: "signing keys", status: "up", durationMs: expect.any(Number) },
      ],
    });
    expect(answer.body.checks[0].durationMs).toBeGreaterThanOrEqual(0);
    // Matched as Express matches a route: one trailing slash, any case.
    expect((await readyz(server, "/readyz/")).body.status).toBe("ready");
    expect((await readyz(server, "/READYZ")).body.status).toBe("ready");
  });

  it("answers HEAD without a body, and other methods with 405 and Allow", async () => {
    const head = await send(new URL("/readyz", server.url), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    const post = await send(new URL("/readyz", server.url), { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(post.body.error).toBe("invalid_request");
  });

  it("leaves /healthz as it was: liveness, no checks", async () => {
    const health = await send(new URL("/healthz", server.url));
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
  });

  it("is Tollgate's own path: no API may be named readyz, and the gateway does not route it", async () => {
    const { isTollgatePath } = await import("../src/kernel/paths.js");
    expect(isTollgatePath("/readyz")).toBe(true);
    expect(isTollgatePath("/readyzz")).toBe(false);
  });
});

describe("GET /readyz with Redis (a redis-server of this suite)", () => {
  let redis: RedisProcess;
  let server: TestServer;
  beforeAll(async () => {
    redis = await startRedisProcess();
    server = await startTestServer({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: "readiness-test:" });
  });
  afterAll(async () => {
    redis?.resume();
    await server?.close();
    await redis?.stop();
  });

  it("checks the database and Redis", async () => {
    const { answer } = await until(server, 200);
    expect(answer.body).toEqual({
      status: "ready",
      checks: [
        { name: "database", status: "up", durationMs: expect.any(Number) },
        { name: "redis", status: "up", durationMs: expect.any(Number) },
        { name: "signing keys", status: "up", durationMs: expect.any(Number) },
      ],
    });
  });

  it(`a Redis that hangs (SIGSTOP): 503 with redis failed, each answer within ${ANSWER_BOUND_MS} ms; 200 again once it answers`, async () => {
    await until(server, 200);
    redis.pause();
    try {
      const down = await until(server, 503);
      expect(down.ms).toBeLessThan(REPORT_BOUND_MS);
      expect(down.answer.headers.get("cache-control")).toBe("no-store");
      expect(down.answer.body).toMatchObject({ status: "unavailable", failed: ["redis"] });
      expect(down.answer.body.checks).toEqual([
        { name: "database", status: "up", durationMs: expect.any(Number) },
        { name: "redis", status: "down", durationMs: expect.any(Number), error: expect.any(String) },
        { name: "signing keys", status: "up", durationMs: expect.any(Number) },
      ]);
      // Liveness is not readiness: the process itself is fine.
      expect((await send(new URL("/healthz", server.url))).status).toBe(200);
    } finally {
      redis.resume();
    }
    const up = await until(server, 200);
    expect(up.ms).toBeLessThan(REPORT_BOUND_MS);
  });

  it(`a Redis killed (SIGKILL): 503 with redis failed within ${REPORT_BOUND_MS} ms, /healthz 200; ready again within ${REPORT_BOUND_MS} ms of its restart`, async () => {
    await until(server, 200);
    await redis.kill();
    const down = await until(server, 503);
    expect(down.ms).toBeLessThan(REPORT_BOUND_MS);
    expect(down.answer.body.failed).toEqual(["redis"]);
    expect(down.answer.body.checks[1]).toEqual({ name: "redis", status: "down", durationMs: expect.any(Number), error: expect.stringMatching(/^not connected \(/) });
    expect((await send(new URL("/healthz", server.url))).body).toEqual({ status: "ok" });

    await redis.start();
    const up = await until(server, 200);
    expect(up.ms).toBeLessThan(REPORT_BOUND_MS);
    expect(up.answer.body.checks.map((c: { status: string }) => c.status)).toEqual(["up", "up", "up"]);
  });
});
