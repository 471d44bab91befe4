/**
 * Three Tollgate instances on three ports over one PostgreSQL database and one Redis, with
 * a round-robin client in front (every request goes to the next instance). Runs in the
 * PostgreSQL pass of `npm test` (TEST_DATABASE=postgresql; see vitest.config.ts).
 */
import { randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { Browser, callApi, clientCredentialsToken, expectOAuthError, obtainCode, pkcePair, REVOCATION_ENDPOINT, tokenRequest } from "./support/flow.js";
import { adminBearer, sessionLogin } from "./support/graphql.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { startTestServer, type TestServer } from "./support/server.js";

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The revocation bound stated in the README: a revocation through one instance is honoured by all within this. */
const REVOCATION_BOUND_MS = 1000;
const MAX_FAILURES = 3;

const name = `tollgate_cluster_${randomBytes(6).toString("hex")}`;
/** This run's Redis keys (earlier runs' counters may still be there). */
const KEY_PREFIX = `tollgate-test-${randomBytes(4).toString("hex")}:`;
const instances: TestServer[] = [];
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** A browser whose every request goes to the next instance in turn; it records which one answered. */
class RoundRobinBrowser extends Browser {
  private next = 0;
  readonly served: number[] = [];

  constructor(private readonly urls: string[]) {
    super(urls[0]!);
  }

  override fetch(path: string, init?: Parameters<Browser["fetch"]>[1]): Promise<Response> {
    const i = this.next++ % this.urls.length;
    this.served.push(i);
    return super.fetch(new URL(path, this.urls[i]).toString(), init);
  }
}

/** The instance after `i`, round-robin. */
const url = (i: number) => instances[i % instances.length]!.url;

/** A GET through the gateway of instance `instance`, on an API a client credentials token may call (account data needs the PSU). */
const callGateway = (instance: number, token: string) => callApi(url(instance), token, OPEN_DATA);

beforeAll(async () => {
  await admin(`CREATE DATABASE ${name}`);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: KEY_PREFIX,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    SIGNIN_MAX_FAILURES_PER_USER: String(MAX_FAILURES),
    PURGE_INTERVAL_SECONDS: "0",
    // Far longer than any wait below: a catalog change or a token eviction can only reach the others through Redis.
    CATALOG_CACHE_TTL_MS: "60000",
    TOKEN_CACHE_MAX_AGE_MS: "60000",
  };
  // Started one after the other: the first migrates and seeds (and gets the API the calls go to); the others find both done.
  for (let i = 0; i < 3; i++) {
    instances.push(await startTestServer(env));
    if (i === 0) await addOpenDataApi(instances[0]!);
  }
  expect(new Set(instances.map((s) => s.url)).size).toBe(3);
});

afterAll(async () => {
  for (const s of instances) await s.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe("a cluster of three instances over PostgreSQL and Redis", () => {
  it("client credentials: a token from one instance works at the gateway of every instance", async () => {
    const token = await clientCredentialsToken(url(0), DEMO.app);
    for (const i of [1, 2, 0]) {
      const res = await callGateway(i, token);
      expect(res.status, `instance ${i}`).toBe(200);
      expect(res.body.caller.clientId).toBe(DEMO.app.consumerKey);
    }
  });

  it("authorization code with PKCE: each step on the next instance; exchange, API call and refresh on others", async () => {
    const browser = new RoundRobinBrowser(instances.map((s) => s.url));
    const pkce = pkcePair();
    const { code } = await obtainCode(browser.baseUrl, { browser, client: DEMO.strictApp, pkce, extra: { prompt: "consent" } });
    // /authorize, GET interaction, login, alice's second factor (the WebAuthn challenge, then the assertion: scope aisp
    // needs SCA), consent: six consecutive requests on three instances, the pending sign-in and the challenge shared.
    expect(browser.served).toEqual([0, 1, 2, 0, 1, 2]);

    const exchange = await tokenRequest(url(1), "/token", DEMO.strictApp, {
      grant_type: "authorization_code",
      code,
      redirect_uri: DEMO.callbackUrl,
      code_verifier: pkce.verifier,
    });
    expect(exchange.status).toBe(200);
    expect(exchange.body.refresh_token).toEqual(expect.any(String));
    expect((await callGateway(2, exchange.body.access_token as string)).status).toBe(200);

    const refreshed = await tokenRequest(url(0), "/token", DEMO.strictApp, { grant_type: "refresh_token", refresh_token: exchange.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_count).toBe("1");
    // The rotated refresh token is refused by a third instance.
    const reused = await tokenRequest(url(2), "/token", DEMO.strictApp, { grant_type: "refresh_token", refresh_token: exchange.body.refresh_token as string });
    await expectOAuthError(reused, 400, "invalid_grant");
  });

  /** Ways to revoke a token through instance 0. */
  const revocations: [string, (token: string) => Promise<void>][] = [
    ["at its revocation endpoint (RFC 7009)", async (token) => expect((await tokenRequest(url(0), REVOCATION_ENDPOINT, DEMO.app, { token })).status).toBe(200)],
    [
      "with its admin API",
      async (token) => {
        const { id } = await instances[0]!.prisma.accessToken.findFirstOrThrow({ orderBy: { id: "desc" }, select: { id: true } });
        expect(token.startsWith(id)).toBe(true);
        const admin = await adminBearer(url(0));
        expect((await admin.data("mutation($id: ID!) { revokeToken(id: $id) { status } }", { id })).revokeToken.status).toBe("revoked");
      },
    ],
  ];

  it.each(revocations)(`a token revoked %s is refused by the other instances within ${REVOCATION_BOUND_MS} ms`, async (_how, revoke) => {
    const token = await clientCredentialsToken(url(0), DEMO.app);
    // Instances 1 and 2 now hold its row in their token caches.
    for (const i of [1, 2]) expect((await callGateway(i, token)).status, `instance ${i}`).toBe(200);
    await revoke(token);
    const revokedAt = Date.now();
    for (const i of [1, 2]) {
      let status = 0;
      while ((status = (await callGateway(i, token)).status) === 200 && Date.now() - revokedAt < REVOCATION_BOUND_MS) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status, `instance ${i}`).toBe(401);
    }
    expect(Date.now() - revokedAt).toBeLessThan(REVOCATION_BOUND_MS);
  });

  it("caches token rows with Redis: a row changed behind Tollgate's back, so that no eviction is published, is still served", async () => {
    const database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
    try {
      const token = await clientCredentialsToken(url(0), DEMO.app);
      expect((await callGateway(1, token)).status).toBe(200);
      await database.query(`UPDATE "AccessToken" SET "status" = 'revoked' WHERE "id" = (SELECT max("id") FROM "AccessToken")`);
      expect((await callGateway(1, token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await callGateway(1, token)).status, "after longer than the default age bound: this suite's is 60 s").toBe(200);
      // Instance 2 never read it: the database says revoked.
      expect((await callGateway(2, token)).status).toBe(401);
    } finally {
      await database.end();
    }
  });

  it(`a product revoked on a credential through one instance is honoured by the others within ${REVOCATION_BOUND_MS} ms (catalog caches emptied over Redis)`, async () => {
    const token = await clientCredentialsToken(url(0), DEMO.app);
    // Every instance now holds the credential and the API in its catalog cache.
    for (const i of [0, 1, 2]) expect((await callGateway(i, token)).status, `instance ${i}`).toBe(200);
    const where = { credential: { consumerKey: DEMO.app.consumerKey }, apiProduct: { name: "PSD2-AISP-v1" } };
    const setStatus = (status: string) => instances[0]!.prisma.credentialProduct.updateMany({ where, data: { status } });
    const until = async (i: number, expected: number) => {
      const since = Date.now();
      let status = 0;
      while ((status = (await callGateway(i, token)).status) !== expected && Date.now() - since < REVOCATION_BOUND_MS) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { status, ms: Date.now() - since };
    };
    try {
      expect((await setStatus("revoked")).count).toBe(1);
      for (const i of [1, 2]) {
        const { status, ms } = await until(i, 403);
        expect(status, `instance ${i}`).toBe(403);
        expect(ms).toBeLessThan(REVOCATION_BOUND_MS);
      }
    } finally {
      await setStatus("approved");
    }
    for (const i of [1, 2]) expect((await until(i, 200)).status, `instance ${i} after approval`).toBe(200);
  });

  it("a sign-in throttle counted on one instance holds on the others", async () => {
    // A user of this test's own, so that no other test's sign-in meets the throttle.
    const user = { username: `throttled-${randomBytes(4).toString("hex")}`, password: "throttled-correct-password" };
    await instances[0]!.prisma.user.create({ data: { username: user.username, passwordHash: await hash(user.password) } });
    const signIn = (instance: number, password: string) => sessionLogin(new Browser(url(instance)), { username: user.username, password });
    for (let attempt = 0; attempt < MAX_FAILURES; attempt++) {
      expect((await signIn(attempt % 3, "wrong-password")).status).toBe(401);
    }
    for (const i of [0, 1, 2]) {
      const res = await signIn(i, user.password);
      await expectOAuthError(res, 429, "too_many_attempts");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("rate-limit counters are shared: instances see one budget per client", async () => {
    // Only the sign-in throttle is configured low here; the shared token budget is shown by
    // Redis holding one counter per client id, whichever instance counted it.
    await clientCredentialsToken(url(1), DEMO.paymentsApp);
    await clientCredentialsToken(url(2), DEMO.paymentsApp);
    const { Redis } = await import("ioredis");
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${KEY_PREFIX}*oauth-client*demo-payments-key`);
      expect(keys).toHaveLength(1);
      expect(Number(await redis.get(keys[0]!))).toBe(2);
    } finally {
      redis.disconnect();
    }
  });
});
