/**
 * Parallel bursts against the authentication limits (PSD2 RTS Art. 4(3)(b): at most 5
 * consecutive failed attempts, then a block). Many guesses sent at once for one account,
 * from one client IP, on one pending second-factor step and on the Account page's removal
 * of a factor are evaluated at most as often as the limit allows, the right one arriving
 * late in the burst included; and parallel passkey assertions: the signature counter
 * (WebAuthn Level 3 §6.1.1) lets one assertion through per value and never moves back.
 *
 * The SQLite pass runs one instance (the counters in its memory). The PostgreSQL pass runs
 * two instances over one database sharing one Redis, as a cluster does, and every burst
 * alternates between them.
 */
import { randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import { generate, generateSecret } from "otplib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { authorizeParams, authorizePath, Browser, expectOAuthError, interactionIdFrom, json, type Json } from "./support/flow.js";
import { SoftwarePasskey } from "./support/passkey.js";
import { startTestServer, type TestServer } from "./support/server.js";

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const POSTGRESQL = process.env.TEST_DATABASE === "postgresql";

const PASSWORD = "correct horse battery staple";
/** Requests in one burst, and the index of the right answer among them (#35). */
const BURST = 40;
const RIGHT = 34;
const MAX_PER_USER = 5;
const MAX_PER_IP = 20;

const instances: TestServer[] = [];
/** The PostgreSQL pass's shared database, dropped at the end. */
const databaseName = `tollgate_auth_${randomBytes(6).toString("hex")}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

beforeAll(async () => {
  const env: Record<string, string> = {
    SIGNIN_MAX_FAILURES_PER_USER: String(MAX_PER_USER),
    SIGNIN_MAX_FAILURES_PER_IP: String(MAX_PER_IP),
    // Each test sends its own client IP in X-Forwarded-For, so the per-IP counters of one test do not reach another.
    TRUST_PROXY_HOPS: "1",
  };
  if (!POSTGRESQL) {
    instances.push(await startTestServer(env));
    return;
  }
  await admin(`CREATE DATABASE ${databaseName}`);
  const shared = {
    ...env,
    DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${databaseName}` }).toString(),
    REDIS_URL,
    REDIS_KEY_PREFIX: `tollgate-test-${randomBytes(4).toString("hex")}:`,
    SESSION_SECRET: randomBytes(32).toString("hex"),
  };
  // One after the other: the first migrates and seeds.
  for (let i = 0; i < 2; i++) instances.push(await startTestServer(shared));
});

afterAll(async () => {
  for (const s of instances) await s.close();
  if (POSTGRESQL) await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
});

const server = () => instances[0]!;
/** The instance serving request `i` of a burst. */
const instanceUrl = (i: number) => instances[i % instances.length]!.url;

let lastIp = 0;
/** A client IP of the test's own (TEST-NET-2, RFC 5737), sent as X-Forwarded-For. */
const freshIp = () => `198.51.100.${++lastIp}`;

let lastUser = 0;
/** A new active user with the test password and, if asked, a TOTP key or a passkey whose counter starts at `counter`. */
async function newUser(o: { totp?: boolean; counter?: number } = {}): Promise<{ id: string; username: string; secret: string; passkey: SoftwarePasskey }> {
  const username = `burst-${++lastUser}-${randomBytes(4).toString("hex")}`;
  const user = await server().db.users.create({ username, passwordHash: await hash(PASSWORD), role: "user" });
  const secret = generateSecret();
  if (o.totp) await server().db.factors.insert({ type: "totp", userId: user.id, name: "Phone", secret, lastTimeStep: 0 }, new Date());
  const passkey = new SoftwarePasskey({ origin: server().authUrl, counter: o.counter ?? 0 });
  if (o.counter !== undefined) await server().db.factors.insert(passkey.factor(user.id), new Date());
  return { id: user.id, username, secret, passkey };
}

/** The TOTP code of `secret` `offsetSteps` 30-s steps from now. */
const totp = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

/** A browser on the instance of request `i`, from `ip`. */
class Client {
  readonly browser: Browser;
  constructor(
    i: number,
    readonly ip: string,
  ) {
    this.browser = new Browser(instanceUrl(i));
  }

  get(path: string): Promise<Response> {
    return this.browser.fetch(path, { headers: { "X-Forwarded-For": this.ip } });
  }

  post(path: string, csrf: string, body: unknown): Promise<Response> {
    return this.browser.fetch(path, { json: body, headers: { "X-CSRF-Token": csrf, "X-Forwarded-For": this.ip } });
  }

  /** The console's pre-sign-in CSRF token. */
  async csrf(): Promise<string> {
    return (await json(await this.get("/session"))).csrfToken;
  }

  /** The console's password step; expects the factor stage. @returns the CSRF token to use next. */
  async pendingSignIn(username: string): Promise<string> {
    const res = await this.post("/session/login", await this.csrf(), { username, password: PASSWORD });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.stage).toBe("factor");
    return body.csrfToken;
  }
}

/** How many of `statuses` are `status`. */
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** Every refusal in `answers` is the throttle's: 429 `too_many_attempts` with a Retry-After in seconds. */
async function expectBlocks(answers: Response[]): Promise<void> {
  for (const res of answers.filter((r) => r.status === 429)) {
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectOAuthError(res, 429, "too_many_attempts");
  }
}

/** The sign-in audit events of `userId` by type. */
async function auditOf(userId: string): Promise<Record<string, number>> {
  const events = await server().prisma.auditEvent.findMany({ where: { actor: `user:${userId}`, type: { in: ["signin.failed", "sca.failed", "sca.blocked", "signin.succeeded", "sca.succeeded"] } } });
  return events.reduce<Record<string, number>>((n, e) => ({ ...n, [e.type]: (n[e.type] ?? 0) + 1 }), {});
}

describe("parallel sign-in bursts", () => {
  it(`${BURST} passwords at once for one account, the right one at #${RIGHT + 1}: ${MAX_PER_USER} are evaluated, the others are refused 429, the right one too; one block is audited`, async () => {
    const psu = await newUser();
    const ip = freshIp();
    const clients = Array.from({ length: BURST }, (_, i) => new Client(i, ip));
    const csrf = await Promise.all(clients.map((c) => c.csrf()));
    const answers = await Promise.all(clients.map((c, i) => c.post("/session/login", csrf[i]!, { username: psu.username, password: i === RIGHT ? PASSWORD : `wrong-${i}` })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 401), statuses.join(" ")).toBe(MAX_PER_USER);
    expect(count(statuses, 429), statuses.join(" ")).toBe(BURST - MAX_PER_USER);
    expect(statuses[RIGHT]).toBe(429);
    await expectBlocks(answers);
    expect(await auditOf(psu.id)).toEqual({ "signin.failed": MAX_PER_USER, "sca.blocked": 1 });

    // The block holds for the right password afterwards, on every instance.
    for (let i = 0; i < instances.length; i++) {
      const c = new Client(i, freshIp());
      await expectOAuthError(await c.post("/session/login", await c.csrf(), { username: psu.username, password: PASSWORD }), 429, "too_many_attempts");
    }
  });

  it(`${BURST} attempts at once on the sign-in page for an account with a passkey (SCA): ${MAX_PER_USER} reach the factor step, the others are refused, the right password at #${RIGHT + 1} too`, async () => {
    const psu = await newUser({ counter: 0 });
    const ip = freshIp();
    const clients = Array.from({ length: BURST }, (_, i) => new Client(i, ip));
    const started = await Promise.all(
      clients.map(async (c) => {
        const start = await c.get(authorizePath(authorizeParams(DEMO.app)));
        expect(start.status).toBe(302);
        const id = interactionIdFrom(start.headers.get("location"));
        return { id, csrf: (await json(await c.get(`/interaction/${id}`))).csrfToken as string };
      }),
    );
    const answers = await Promise.all(
      clients.map((c, i) => c.post(`/interaction/${started[i]!.id}/login`, started[i]!.csrf, { username: psu.username, password: i === RIGHT ? PASSWORD : `wrong-${i}` })),
    );
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200), statuses.join(" ")).toBe(MAX_PER_USER);
    expect(count(statuses, 429), statuses.join(" ")).toBe(BURST - MAX_PER_USER);
    expect(statuses[RIGHT]).toBe(429);
    await expectBlocks(answers);
    for (const res of answers.filter((r) => r.status === 200)) expect((await json(res)).stage).toBe("factor");
  });

  it(`${BURST} wrong passwords at once for ${BURST} accounts from one client IP: ${MAX_PER_IP} (SIGNIN_MAX_FAILURES_PER_IP) are evaluated, the others are refused`, async () => {
    const ip = freshIp();
    const clients = Array.from({ length: BURST }, (_, i) => new Client(i, ip));
    const csrf = await Promise.all(clients.map((c) => c.csrf()));
    const answers = await Promise.all(clients.map((c, i) => c.post("/session/login", csrf[i]!, { username: `nobody-${i}-${randomBytes(4).toString("hex")}`, password: "guess" })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 401), statuses.join(" ")).toBe(MAX_PER_IP);
    expect(count(statuses, 429), statuses.join(" ")).toBe(BURST - MAX_PER_IP);
    await expectBlocks(answers);
  });

  it(`${BURST} TOTP codes at once on one pending sign-in, the right one at #${RIGHT + 1}: one is evaluated, the others find the attempt over (409); nobody is signed in`, async () => {
    const psu = await newUser({ totp: true });
    const client = new Client(0, freshIp());
    const csrf = await client.pendingSignIn(psu.username);
    const right = await totp(psu.secret);
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => {
        const code = i === RIGHT ? right : String(100000 + i);
        return client.browser.fetch(new URL("/session/factor", instanceUrl(i)).toString(), {
          json: { method: "totp", code },
          headers: { "X-CSRF-Token": csrf, "X-Forwarded-For": client.ip },
        });
      }),
    );
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 401), statuses.join(" ")).toBe(1);
    expect(count(statuses, 409), statuses.join(" ")).toBe(BURST - 1);
    expect(statuses[RIGHT]).toBe(409);
    for (const res of answers.filter((r) => r.status === 409)) await expectOAuthError(res, 409, "invalid_request");
    expect(await auditOf(psu.id)).toEqual({ "sca.failed": 1 });
    expect((await json(await client.get("/session"))).user).toBeNull();
  });

  it(`${BURST} codes at once to remove a factor, the right one at #${RIGHT + 1}: ${MAX_PER_USER} are evaluated, the others are refused 429, the right one too; the factor stays`, async () => {
    const psu = await newUser({ totp: true });
    const client = new Client(0, freshIp());
    const pending = await client.pendingSignIn(psu.username);
    const signedIn = await json(await client.post("/session/factor", pending, { method: "totp", code: await totp(psu.secret) }));
    expect(signedIn.user).toMatchObject({ username: psu.username });
    const [factor] = (await json(await client.get("/session/factors"))).factors as Json[];
    // The next step's code: the current one was used to sign in (RFC 6238 §5.2).
    const right = await totp(psu.secret, 1);
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        client.browser.fetch(new URL(`/session/factors/${factor.id}/remove`, instanceUrl(i)).toString(), {
          json: { method: "totp", code: i === RIGHT ? right : String(100000 + i) },
          headers: { "X-CSRF-Token": signedIn.csrfToken, "X-Forwarded-For": client.ip },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 401), statuses.join(" ")).toBe(MAX_PER_USER);
    expect(count(statuses, 429), statuses.join(" ")).toBe(BURST - MAX_PER_USER);
    expect(statuses[RIGHT]).toBe(429);
    await expectBlocks(answers);
    expect((await server().db.factors.list(psu.id)).map((f) => f.id)).toEqual([factor.id]);
  });
});

describe("parallel passkey assertions", () => {
  /** `n` browsers, each with a pending sign-in of `username` and a WebAuthn challenge; spread over the instances. */
  async function pendingAssertions(username: string, n: number): Promise<{ client: Client; csrf: string; options: Json }[]> {
    const ip = freshIp();
    const out = [];
    for (let i = 0; i < n; i++) {
      const client = new Client(i, ip);
      const csrf = await client.pendingSignIn(username);
      const res = await client.post("/session/webauthn/authentication-options", csrf, {});
      expect(res.status).toBe(200);
      out.push({ client, csrf, options: (await json(res)).options });
    }
    return out;
  }

  const storedCounter = async (credentialId: string) => (await server().db.factors.webAuthnCredential(credentialId))!.counter;

  it("assertions carrying the same counter, sent at once: exactly one is accepted, and the counter is stored", async () => {
    const psu = await newUser({ counter: 100 });
    const pending = await pendingAssertions(psu.username, MAX_PER_USER);
    const answers = await Promise.all(pending.map((p) => p.client.post("/session/factor", p.csrf, { method: "webauthn", response: psu.passkey.assert(p.options, { counter: 300 }) })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200), statuses.join(" ")).toBe(1);
    expect(count(statuses, 401), statuses.join(" ")).toBe(MAX_PER_USER - 1);
    expect(await storedCounter(psu.passkey.credentialId)).toBe(300);
  });

  it("two assertions sent at once with counters 500 and 400: the higher one is accepted and the stored counter never moves back", async () => {
    const psu = await newUser({ counter: 300 });
    const [high, low] = await pendingAssertions(psu.username, 2);
    const [a, b] = await Promise.all([
      high!.client.post("/session/factor", high!.csrf, { method: "webauthn", response: psu.passkey.assert(high!.options, { counter: 500 }) }),
      low!.client.post("/session/factor", low!.csrf, { method: "webauthn", response: psu.passkey.assert(low!.options, { counter: 400 }) }),
    ]);
    expect(a.status).toBe(200);
    // 400 is refused when 500 was stored first; accepted before it, 500 then still went up from it.
    expect([200, 401]).toContain(b.status);
    expect(await storedCounter(psu.passkey.credentialId)).toBe(500);
  });
});
