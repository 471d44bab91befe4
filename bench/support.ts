/**
 * Shared parts of the benchmarks: starting the built server and the peer servers as child
 * processes (so the load generator and the servers do not share one event loop), the demo
 * requests (token, gateway, introspection, refresh), targets whose requests are each sent
 * once, the admin API, autocannon runs, and memory readings from /proc, and the databases a
 * benchmark runs our server on (a SQLite file in a temp dir, or a PostgreSQL database
 * created for the run and dropped after it, with Redis). Benchmarks print figures; they
 * assert nothing.
 * Env: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_DATABASES (comma-separated, `sqlite,postgresql` by default: the databases of the
 * benchmarks that run on both), BENCH_POSTGRES_URL (the maintenance database the PostgreSQL
 * databases are created from, default postgresql://root@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import pg from "pg";
import { DEMO } from "../server/src/demo/seed.js";
import { generate as totpCode } from "otplib";
import { Browser, callbackParams, obtainCode, rememberPasskey, tokenRequest } from "../server/test/support/flow.js";
import { SoftwarePasskey } from "../server/test/support/passkey.js";
import { SERVER_ENTRY, serverEnv, serverNodeFlags } from "../server/test/support/start-command.js";

export const duration = Number(process.env.BENCH_DURATION ?? 10);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

/** One request as both fetch and autocannon take it. */
export interface Target {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /**
   * autocannon per-request hooks, for requests that depend on earlier answers (refresh
   * rotation) or are each sent once ({@link eachOnce}). The probe sends the static request
   * above; the load sends these.
   */
  requests?: autocannon.Request[];
  /**
   * The requests of a run, when a run sends a set number of them rather than lasting its
   * seconds (requests made beforehand that cannot be made on the fly: authorization codes,
   * bench/openid.ts); its req/s are then its answers over the time to its last answer.
   */
  amount?: number;
}

export interface Instance {
  child: ChildProcess;
  url: string;
}

/** Every child process and temp dir a benchmark made: removed at exit if a finally block could not. */
const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
/** Clean-ups that need I/O (PostgreSQL databases to drop): run on Ctrl-C and SIGTERM, before the exit. */
const asyncCleanups = new Set<() => Promise<void>>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Makes Ctrl-C and SIGTERM end the benchmark: the PostgreSQL databases it created are
 * dropped (10 s at most), then the exit hook above kills the children and removes the temp
 * dirs. Called by the benchmark entry points, not on import, so that test runners importing
 * this module keep their own signal handling.
 */
export function exitOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      const cleanups = Promise.allSettled([...asyncCleanups].map((cleanup) => cleanup()));
      void Promise.race([cleanups, sleep(10_000)]).then(() => process.exit(130));
    });
  }
}

/** A new temp dir, removed by {@link removeTempDir} or at exit. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/**
 * Spawns `node <args>` (behind `wrapper`, e.g. valgrind, if given) and resolves once it
 * prints `listening on <url>` on stdout.
 * @throws if the process exits first.
 */
async function spawnListening(args: string[], env: NodeJS.ProcessEnv, wrapper: readonly string[] = []): Promise<Instance> {
  const [command, ...rest] = [...wrapper, process.execPath, ...args];
  const child = spawn(command!, rest, { env, stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        child.stdout!.removeAllListeners("data").resume();
        child.removeListener("exit", onExit);
        resolve(match[1]!);
      }
    });
    const onExit = (code: number | null) => reject(new Error(`${args.join(" ")} exited with code ${code} before listening:\n${out}`));
    child.once("exit", onExit);
  });
  return { child, url };
}

/** A database our server can run on in a benchmark. */
export type DatabaseKind = "sqlite" | "postgresql";

/** Every database kind, in the order the benchmarks run them. */
export const DATABASE_KINDS: readonly DatabaseKind[] = ["sqlite", "postgresql"];

/** How the benchmarks' output names a database kind. */
export const DATABASE_LABEL: Record<DatabaseKind, string> = { sqlite: "SQLite", postgresql: "PostgreSQL" };

/**
 * The databases of BENCH_DATABASES (comma-separated `sqlite`, `postgresql`; default both),
 * in the order of {@link DATABASE_KINDS}.
 * @throws on an unknown name, or when none is named.
 */
export function benchDatabases(): DatabaseKind[] {
  const names = (process.env.BENCH_DATABASES ?? DATABASE_KINDS.join(",")).split(",").map((n) => n.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => !(DATABASE_KINDS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) throw new Error(`BENCH_DATABASES=${process.env.BENCH_DATABASES}: expected a comma-separated list of ${DATABASE_KINDS.join(", ")}`);
  return DATABASE_KINDS.filter((kind) => names.includes(kind));
}

/** The PostgreSQL maintenance database the benchmark databases are created from and dropped through (BENCH_POSTGRES_URL). */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
/** The Redis our servers on PostgreSQL share (BENCH_REDIS_URL). */
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Runs one statement on the maintenance database (BENCH_POSTGRES_URL). */
async function postgresAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** Deletes every Redis key under `prefix` (SCAN and UNLINK). */
async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** A database made for one benchmark, and the server environment that points at it. */
export type BenchDatabase = {
  label: string;
  /**
   * What {@link startInstance} needs to run on it: DATABASE_URL and, on PostgreSQL,
   * REDIS_URL, REDIS_KEY_PREFIX (the database's name and a colon) and a SESSION_SECRET of
   * its own, as a deployment of several instances has.
   */
  env: Record<string, string>;
  /** Removes it: the SQLite file's temp dir, or DROP DATABASE … WITH (FORCE) and the Redis keys under its prefix. */
  drop(): Promise<void>;
} & ({ kind: "sqlite"; file: string } | { kind: "postgresql"; url: string });

/**
 * Makes a database to run our server on: a SQLite file (`bench.db`) in a new temp dir, or a
 * PostgreSQL database `tollgate_bench_<random>` created on BENCH_POSTGRES_URL's server (the
 * server migrates and seeds it when it starts). A PostgreSQL database is also dropped on
 * Ctrl-C or SIGTERM once {@link exitOnSignals} was called.
 * @throws when PostgreSQL refuses the CREATE DATABASE.
 */
export async function createDatabase(kind: DatabaseKind): Promise<BenchDatabase> {
  const label = DATABASE_LABEL[kind];
  if (kind === "sqlite") {
    const dir = makeTempDir("tollgate-bench-db-");
    const file = path.join(dir, "bench.db");
    return { kind, label, file, env: { DATABASE_URL: `file:${file}` }, drop: async () => removeTempDir(dir) };
  }
  const name = `tollgate_bench_${randomBytes(4).toString("hex")}`;
  const url = Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${name}` }).toString();
  await postgresAdmin(`CREATE DATABASE ${name}`);
  const prefix = `${name}:`;
  const drop = async () => {
    asyncCleanups.delete(drop);
    await postgresAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await deleteRedisKeys(prefix);
  };
  asyncCleanups.add(drop);
  return {
    kind,
    label,
    url,
    env: {
      DATABASE_URL: url,
      // The tests' key-encryption key file: a throw-away database needs no key of its own.
      KEY_ENCRYPTION_KEY_FILE: path.resolve(import.meta.dirname, "../server/test/fixtures/test.kek"),
      REDIS_URL: BENCH_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      SESSION_SECRET: randomBytes(32).toString("hex"),
    },
    drop,
  };
}

/** Drops every database given (skipping undefined ones), even if one drop fails. */
export async function dropAll(...databases: (BenchDatabase | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(databases.filter((d) => d !== undefined).map((d) => d.drop()));
  for (const r of results) if (r.status === "rejected") console.error(`could not drop a benchmark database: ${String(r.reason)}`);
}

/**
 * Starts the built server as `npm start` runs it (its node flags, then
 * dist/server/src/main.js) with `env` (PORT 0, demo seeded, logs off, and the rate limits
 * of the token and authorization endpoints off) and resolves once /healthz answers. With
 * BENCH_CPU_PROFILE_DIR set, the server writes a V8 CPU profile there when it stops
 * (`node --cpu-prof`).
 * @param wrapper - a command the server runs under (bench/instructions.ts: callgrind).
 */
export async function startInstance(env: Record<string, string>, wrapper: readonly string[] = []): Promise<Instance> {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const instance = await spawnListening([...serverNodeFlags(), ...profile, SERVER_ENTRY], {
    ...process.env,
    ...serverEnv(),
    PORT: "0",
    DEMO_UPSTREAM_PORT: "0",
    LOG_LEVEL: "silent",
    SEED_DEMO: "true",
    TOKEN_RATE_LIMIT_PER_CLIENT: "0",
    TOKEN_RATE_LIMIT_PER_IP: "0",
    AUTHORIZE_RATE_LIMIT_PER_IP: "0",
    ...env,
  }, wrapper);
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${instance.url}/healthz`).then((r) => r.ok, () => false)) return instance;
    await sleep(100);
  }
  await stopInstance(instance);
  throw new Error(`${instance.url}/healthz did not answer 200`);
}

/**
 * A TCP port free on 127.0.0.1 when asked (the OS picks it), for a server whose public URL
 * (BASE_URL: the issuer, and the `htu` of DPoP proofs) must be known before it starts.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The peer servers of bench/peers/, each a script that prints `listening on <url>`. */
export const PEERS = {
  /** A bare node:http server answering a small static JSON to any GET. */
  upstream: "upstream.ts",
  /** A bare node:http reverse proxy to UPSTREAM_URL, no checks at all. */
  proxy: "proxy.ts",
  /** oidc-provider with one client-credentials client (PEER_CLIENT). */
  oidcProvider: "oidc-provider.ts",
  /** oidc-provider with the FAPI 2.0 profile, DPoP and PAR, and one private_key_jwt client (PEER_FAPI_CLIENT). */
  oidcProviderFapi: "oidc-provider-fapi.ts",
  /** oidc-provider as an OpenID Provider, one client whose ID tokens it signs PS256 (PEER_OIDC_CLIENT). */
  oidcProviderOpenid: "oidc-provider-openid.ts",
} as const;

export { PEER_CLIENT, PEER_FAPI_CLIENT, PEER_OIDC_CLIENT } from "./peers/client.js";

/** Starts a peer of bench/peers/ with `node --import tsx`, `env` added to this process's. */
export async function startPeer(script: (typeof PEERS)[keyof typeof PEERS], env: Record<string, string> = {}): Promise<Instance> {
  return startScript(fileURLToPath(new URL(`./peers/${script}`, import.meta.url)), env);
}

/**
 * Starts a TypeScript `file` that prints `listening on <url>` with `node --import tsx`
 * (behind `wrapper`, e.g. callgrind), `env` added to this process's.
 */
export async function startScript(file: string, env: Record<string, string> = {}, wrapper: readonly string[] = []): Promise<Instance> {
  return spawnListening(["--import", "tsx", file], { ...process.env, ...env }, wrapper);
}

/** Stops an instance: SIGTERM, then SIGKILL after 5 s. */
export async function stopInstance({ child }: Instance): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Stops every instance given (skipping undefined ones), even if one stop fails. */
export async function stopAll(...instances: (Instance | undefined)[]): Promise<void> {
  await Promise.allSettled(instances.filter((i) => i !== undefined).map(stopInstance));
}

/**
 * Sends one request like the scenario's, again once if the connection it reused was closed
 * meanwhile (fetch keeps connections to the server, which closes idle ones after 5 s; signing
 * a scenario's proofs can take longer). @returns its body. @throws unless it answers 200.
 */
export async function probe({ url, method, headers, body }: Target): Promise<string> {
  const send = () => fetch(url, { method, headers, body });
  const res = await send().catch((err: unknown) => {
    if ((err as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET") return send();
    throw err;
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return text;
}

/** A client with a key and secret: a demo app or the peer's client. */
export interface Client {
  consumerKey: string;
  consumerSecret: string;
}

/** `Authorization: Basic` of a client (its key and secret are URL-safe, so no form encoding is needed). */
export function basicAuth(client: Client): string {
  return `Basic ${Buffer.from(`${client.consumerKey}:${client.consumerSecret}`).toString("base64")}`;
}

/** A form POST with HTTP Basic client authentication. */
export function formPost(url: string, client: Client, body: string): Target {
  return {
    url,
    method: "POST",
    headers: { authorization: basicAuth(client), "content-type": "application/x-www-form-urlencoded" },
    body,
  };
}

/** The client-credentials token request of `client` (default the demo app) at `baseUrl`. */
export function tokenTarget(baseUrl: string, client: Client = DEMO.app): Target {
  return formPost(`${baseUrl}/oauth2/v1/token`, client, "grant_type=client_credentials");
}

/** Sends a token request. @returns the access token it answered. */
export async function accessToken(target: Target): Promise<string> {
  return (JSON.parse(await probe(target)) as { access_token: string }).access_token;
}

/** A gateway call to `path` (default the demo products API, open data a client credentials token may read) at `baseUrl` with a fresh token of the demo app. */
export async function gatewayTarget(baseUrl: string, path = "/products/"): Promise<Target> {
  return { url: `${baseUrl}${path}`, headers: { authorization: `Bearer ${await accessToken(tokenTarget(baseUrl))}` } };
}

/**
 * An introspection request (RFC 7662) at `url` as `client` for `token`.
 * @throws unless the probe answers 200 with `active: true`.
 */
export async function introspectionTarget(url: string, client: Client, token: string): Promise<Target> {
  const target = formPost(url, client, `token=${encodeURIComponent(token)}`);
  const answer = JSON.parse(await probe(target)) as { active?: unknown };
  if (answer.active !== true) throw new Error(`introspection at ${url} did not find the token active: ${JSON.stringify(answer)}`);
  return target;
}

/** Calls the admin GraphQL API at `baseUrl` with a bearer token of the demo automation app. @throws on any error. */
export async function adminGraphql<T>(baseUrl: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const token = await accessToken(tokenTarget(baseUrl, DEMO.adminApp));
  const res = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  const answer = JSON.parse(text) as { data?: T; errors?: unknown[] };
  if (res.status !== 200 || answer.errors || !answer.data) throw new Error(`POST ${baseUrl}/graphql answered ${res.status}: ${text}`);
  return answer.data;
}

/** The demo API product the demo app holds and whose scope (`aisp`) its tokens carry. */
const BENCH_PRODUCT = "PSD2-AISP-v1";

/**
 * Registers API `name` (upstream `upstreamUrl`, required scope `aisp`) through the admin
 * API and adds it to the demo app's PSD2-AISP-v1 product, so that the demo app's tokens
 * may call `{baseUrl}/<name>/...`.
 * @returns the gateway path `/<name>/`.
 */
export async function registerApi(baseUrl: string, name: string, upstreamUrl: string): Promise<string> {
  const { apiProducts } = await adminGraphql<{ apiProducts: { id: string; name: string; apis: { id: string }[] }[] }>(
    baseUrl,
    "{ apiProducts { id name apis { id } } }",
  );
  const product = apiProducts.find((p) => p.name === BENCH_PRODUCT);
  if (!product) throw new Error(`no API product ${BENCH_PRODUCT} at ${baseUrl}`);
  const { createApi } = await adminGraphql<{ createApi: { id: string } }>(
    baseUrl,
    "mutation ($input: CreateApiInput!) { createApi(input: $input) { id } }",
    { input: { name, upstreamUrl, requiredScopes: ["aisp"] } },
  );
  await adminGraphql(baseUrl, "mutation ($id: ID!, $input: UpdateApiProductInput!) { updateApiProduct(id: $id, input: $input) { id } }", {
    id: product.id,
    input: { apiIds: [...product.apis.map((a) => a.id), createApi.id] },
  });
  return `/${name}/`;
}

/** The API, product, scope and app {@link registerJwtApi} makes. */
const JWT_BENCH = { product: "Bench-JWT", scope: "bench_jwt", app: "Bench JWT client" } as const;

/**
 * Registers API `name` (upstream `upstreamUrl`) behind a new API product that issues JWT access
 * tokens (RFC 9068; its own scope, `bench_jwt`), and a new app of the demo developer holding
 * only that product, all through the admin API: that app's client credentials tokens are JWTs.
 * @returns the gateway path `/<name>/` and a target getting a JWT access token for it.
 */
export async function registerJwtApi(baseUrl: string, name: string, upstreamUrl: string): Promise<{ apiPath: string; token: Target }> {
  const { createApiProduct } = await adminGraphql<{ createApiProduct: { id: string } }>(
    baseUrl,
    "mutation ($input: CreateApiProductInput!) { createApiProduct(input: $input) { id } }",
    { input: { name: JWT_BENCH.product, scopes: [JWT_BENCH.scope], scopeDescriptions: [{ name: JWT_BENCH.scope, description: "Read the bench API" }], accessTokenFormat: "jwt" } },
  );
  const { createApi } = await adminGraphql<{ createApi: { id: string } }>(baseUrl, "mutation ($input: CreateApiInput!) { createApi(input: $input) { id } }", {
    input: { name, upstreamUrl, requiredScopes: [JWT_BENCH.scope] },
  });
  await adminGraphql(baseUrl, "mutation ($id: ID!, $input: UpdateApiProductInput!) { updateApiProduct(id: $id, input: $input) { id } }", {
    id: createApiProduct.id,
    input: { apiIds: [createApi.id] },
  });
  const { developers } = await adminGraphql<{ developers: { nodes: { id: string; email: string }[] } }>(baseUrl, "{ developers { nodes { id email } } }");
  const developer = developers.nodes.find((d) => d.email === DEMO.developerEmail);
  if (!developer) throw new Error(`no demo developer ${DEMO.developerEmail} at ${baseUrl}`);
  const { createApp } = await adminGraphql<{ createApp: Client }>(baseUrl, "mutation ($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret } }", {
    input: { developerId: developer.id, name: JWT_BENCH.app, apiProductIds: [createApiProduct.id] },
  });
  const token = formPost(`${baseUrl}/oauth2/v1/token`, createApp, `grant_type=client_credentials&scope=${JWT_BENCH.scope}`);
  if ((await accessToken(token)).split(".").length !== 3) throw new Error(`the ${JWT_BENCH.product} product's token at ${baseUrl} is not a JWT`);
  return { apiPath: `/${name}/`, token };
}

/** The enrolments of {@link enrolDemoPasskey}, by server URL. */
const demoPasskeys = new Map<string, Promise<void>>();

/**
 * Gives the demo user alice a software passkey (server/test/support/passkey.ts) on the server
 * at `baseUrl`, whose WebAuthn origin (BASE_URL) must be `baseUrl`, so that a benchmark can
 * sign her in as often as it needs: the demo PSD2 products require strong customer
 * authentication, so every authorization for their scopes asks for her password and a second
 * factor, and her seeded TOTP key (DEMO.user.totpSecret) accepts each code once. Signs her in
 * at /session with her password and current TOTP code, registers the passkey through
 * /session/factors/webauthn, and hands it to server/test/support/flow.ts, whose obtainCode
 * then answers her factor step with it. Once per server URL (a second call awaits the first).
 * @throws unless every step answers 200.
 */
export function enrolDemoPasskey(baseUrl: string): Promise<void> {
  let enrolment = demoPasskeys.get(baseUrl);
  if (!enrolment) {
    enrolment = enrol(baseUrl);
    demoPasskeys.set(baseUrl, enrolment);
  }
  return enrolment;
}

async function enrol(baseUrl: string): Promise<void> {
  const browser = new Browser(baseUrl);
  const post = async (path: string, csrf: string, json: unknown): Promise<Record<string, unknown>> => {
    const res = await browser.fetch(path, { json, headers: { "X-CSRF-Token": csrf } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${baseUrl}${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const session = (await (await browser.fetch("/session")).json()) as { csrfToken: string };
  const login = await post("/session/login", session.csrfToken, { username: DEMO.user.username, password: DEMO.user.password });
  const signedIn = login.stage === "factor" ? await post("/session/factor", login.csrfToken as string, { method: "totp", code: await totpCode({ secret: DEMO.user.totpSecret }) }) : login;
  const csrf = signedIn.csrfToken as string;
  const passkey = new SoftwarePasskey({ origin: baseUrl });
  const { options } = (await post("/session/factors/webauthn/registration-options", csrf, {})) as { options: Parameters<SoftwarePasskey["register"]>[0] };
  await post("/session/factors/webauthn", csrf, { response: passkey.register(options), name: "Benchmark passkey" });
  rememberPasskey(baseUrl, DEMO.user.username, passkey);
}

/**
 * Follows the redirects of an authorization request from `url` in `browser` (its cookies
 * sent and kept) until one leads to the demo callback URL, as a user agent would; for a
 * server that needs no page on the way (the oidc-provider peers, whose interactions their
 * own process answers).
 * @returns the code of that redirect. @throws when an answer is not a redirect, or after 10.
 */
export async function codeFromRedirects(browser: Browser, url: string): Promise<string> {
  let next = url;
  for (let hops = 0; hops < 10; hops++) {
    const res = await browser.fetch(next);
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || location === null) throw new Error(`GET ${next} answered ${res.status}: ${await res.text()}`);
    next = new URL(location, next).href;
    if (next.startsWith(DEMO.callbackUrl)) {
      const params = callbackParams(next);
      if (!params.code) throw new Error(`no code in callback redirect ${next}`);
      return params.code;
    }
  }
  throw new Error(`no redirect to the callback after 10 hops from ${url}`);
}

/**
 * Gets `count` refresh tokens of the demo app through the authorization code flow: alice
 * signs in with her password and a passkey ({@link enrolDemoPasskey}) and consents each time,
 * since scope aisp requires strong customer authentication.
 */
export async function refreshTokens(baseUrl: string, count: number): Promise<string[]> {
  await enrolDemoPasskey(baseUrl);
  let browser: Browser | undefined;
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const code = await obtainCode(baseUrl, { browser });
    browser = code.browser;
    const answer = await tokenRequest(baseUrl, "/oauth2/v1/token", DEMO.app, {
      grant_type: "authorization_code",
      code: code.code,
      redirect_uri: DEMO.callbackUrl,
    });
    if (answer.status !== 200 || typeof answer.body.refresh_token !== "string") {
      throw new Error(`code exchange answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    tokens.push(answer.body.refresh_token);
  }
  return tokens;
}

/**
 * The refresh grant at `baseUrl` with rotation: every refresh token is sent exactly once.
 * The probe spends the first token; under load each request takes a token from a pool and
 * puts back the one its answer carries, so each connection (one request in flight at a
 * time) chains through fresh tokens. (autocannon resets a connection's context after each
 * pass over `requests`, so the chain cannot live there.) A connection that finds the pool
 * empty, after a failed refresh, sends a made-up token and counts a non-2xx.
 * @param tokens - at least one more than the connections.
 */
export function refreshTarget(baseUrl: string, tokens: string[]): Target {
  const [first, ...rest] = tokens;
  const pool = [...rest];
  const target = formPost(`${baseUrl}/oauth2/v1/token`, DEMO.app, `grant_type=refresh_token&refresh_token=${encodeURIComponent(first!)}`);
  const path = new URL(target.url).pathname;
  return {
    ...target,
    requests: [
      {
        method: "POST",
        path,
        setupRequest: (req) => ({ ...req, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pool.shift() ?? "spent")}` }),
        onResponse: (status, body) => {
          if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
        },
      },
    ],
  };
}

/** What one request of an {@link eachOnce} target adds to the target's request: JWTs (bench/fapi.ts), an authorization code (bench/openid.ts). */
export interface OneUse {
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A target whose requests each send one of `prepared` once, in order: the probe prepared[0],
 * the load prepared[1], prepared[2], … (autocannon asks for a request once per request it
 * sends, and once more per connection it opens). Once they are used up, every further
 * request is `more.make()`, after a warning that ends with `more.note`.
 * @returns the target, and how many of `prepared` it has handed out.
 */
export function eachOnce(request: Omit<Target, "requests">, prepared: readonly OneUse[], more: { make: () => OneUse; note: string }): { target: Target; used: () => number } {
  const { pathname, search } = new URL(request.url);
  const withOne = (one: OneUse) => ({ headers: { ...request.headers, ...one.headers }, ...(one.body === undefined ? {} : { body: one.body }) });
  let used = 0;
  const next = (): OneUse => {
    if (++used < prepared.length) return prepared[used]!;
    if (used === prepared.length) console.warn(`warning: ${request.method ?? "GET"} ${request.url} used up its ${prepared.length} one-use requests: ${more.note}`);
    return more.make();
  };
  return {
    used: () => used,
    target: {
      ...request,
      ...withOne(prepared[0]!),
      requests: [{ method: request.method ?? "GET", path: `${pathname}${search}`, setupRequest: (req) => ({ ...req, ...withOne(next()) }) }],
    },
  };
}

export interface Figures {
  "req/s": number;
  "p50 ms": number;
  "p99 ms": number;
  "non-2xx": number;
  errors: number;
}

export interface LoadOptions {
  /** Seconds; default BENCH_DURATION. */
  duration?: number;
  /** Connections in all, split between the targets; default BENCH_CONNECTIONS. */
  connections?: number;
  /** Requests per second in all, split between the targets; default unlimited. */
  overallRate?: number;
  /** Called on every response. */
  onResponse?: (status: number) => void;
  /** Seconds of unrecorded load first (JIT warm-up, caches filled); default BENCH_WARMUP (2). */
  warmup?: number;
}

/** Default unrecorded warm-up before each measured run, seconds. */
export const warmup = Number(process.env.BENCH_WARMUP ?? 2);

/**
 * Probes each target, then loads them at once (connections and rate split between them).
 * @returns summed req/s, the worst p50/p99 of the targets, and failure counts.
 */
export async function load(targets: Target[], options: LoadOptions = {}): Promise<Figures> {
  for (const t of targets) await probe(t);
  const warmupSeconds = options.warmup ?? warmup;
  if (warmupSeconds > 0) await run(targets, { ...options, duration: warmupSeconds, onResponse: undefined });
  return run(targets, options);
}

/**
 * Loads the targets at once, without a probe or warm-up. A target of a set `amount` of
 * requests runs until they are answered (autocannon then ignores the duration); its req/s
 * are its answers over the time from the start to its last answer (autocannon's own figures
 * are per whole second, and it ends such a run at the next whole second).
 */
async function run(targets: Target[], options: LoadOptions): Promise<Figures> {
  const share = (n: number) => Math.max(1, Math.round(n / targets.length));
  const results = await Promise.all(
    targets.map(
      (t) =>
        new Promise<autocannon.Result & { perSecond: number }>((resolve, reject) => {
          const started = performance.now();
          let lastAnswer = started;
          const instance = autocannon(
            {
              ...t,
              connections: share(options.connections ?? connections),
              duration: options.duration ?? duration,
              ...(options.overallRate ? { overallRate: options.overallRate / targets.length } : {}),
            },
            (err, result) => {
              if (err) return reject(err as Error);
              const perSecond = t.amount === undefined ? result.requests.average : result.requests.total / ((lastAnswer - started) / 1000);
              resolve({ ...result, perSecond });
            },
          );
          if (t.amount !== undefined) instance.on("response", () => (lastAnswer = performance.now()));
          if (options.onResponse) instance.on("response", (_client, status) => options.onResponse!(status));
        }),
    ),
  );
  return {
    "req/s": Math.round(results.reduce((sum, r) => sum + r.perSecond, 0)),
    "p50 ms": Math.max(...results.map((r) => r.latency.p50)),
    "p99 ms": Math.max(...results.map((r) => r.latency.p99)),
    "non-2xx": results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** A memory figure of a process from /proc/<pid>/status, MB: VmHWM (peak resident) or VmRSS (resident now). */
export function memoryMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Math.round((Number(match[1]) / 1024) * 10) / 10;
}

/**
 * Samples a process's resident memory (VmRSS) every 100 ms until `stop`.
 * @returns stop, which gives the highest reading, MB.
 */
export function sampleRss(pid: number): { stop(): number } {
  let max = memoryMb(pid, "VmRSS");
  const timer = setInterval(() => (max = Math.max(max, memoryMb(pid, "VmRSS"))), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, memoryMb(pid, "VmRSS"));
    },
  };
}

/** One line of a target check: `label: figure — met` or `— NOT met`. */
export function verdict(label: string, figure: string, met: boolean): string {
  return `${label}: ${figure} — ${met ? "met" : "NOT met"}`;
}
