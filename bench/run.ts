/**
 * `npm run bench`: Tollgate against peers on its hot paths (issues 6, 15 and 21), on SQLite
 * and on PostgreSQL. Each server runs in its own process on this machine:
 *   - ours on SQLite: the built server (dist/) on a fresh SQLite file in a temp dir;
 *   - ours on PostgreSQL: the built server, one instance, on a database created for the run
 *     on BENCH_POSTGRES_URL's server (CREATE DATABASE tollgate_bench_<random>, dropped WITH
 *     (FORCE) at the end), with REDIS_URL (BENCH_REDIS_URL), a REDIS_KEY_PREFIX of its own
 *     (its keys deleted at the end) and a SESSION_SECRET of its own, as in
 *     `npm run bench:scale`.
 *     Each of ours listens on a free port that is also its BASE_URL (the issuer, the URL DPoP
 *     proofs name, the WebAuthn origin), has API `bench` (registered with the admin GraphQL
 *     API, added to the demo apps' PSD2-AISP-v1 product, upstream the bare upstream below)
 *     and a passkey for alice (support.ts enrolDemoPasskey: the PSD2 scopes require strong
 *     customer authentication, so every authorization signs her in with password and passkey);
 *   - oidc-provider 9.13 (bench/peers/oidc-provider.ts: in-memory adapter, one
 *     client-credentials client, opaque tokens);
 *   - oidc-provider 9.13 with the FAPI 2.0 profile, DPoP and PAR
 *     (bench/peers/oidc-provider-fapi.ts: one private_key_jwt client with the key of our
 *     demo fapi2 app, DPoP-bound tokens, refresh tokens not rotated);
 *   - oidc-provider 9.13 as an OpenID Provider (bench/peers/oidc-provider-openid.ts: one
 *     client_secret_basic client whose ID tokens it signs PS256 with its RSA 2048 key, its
 *     interactions answered by the peer process, an in-memory store big enough for a run's
 *     codes);
 *   - a bare node:http upstream (bench/peers/upstream.ts) and a bare node:http proxy to it
 *     (bench/peers/proxy.ts).
 * Scenarios, each on ours on every database and on the peer:
 *   1. `issuance`, client credentials: POST /oauth2/v1/token vs oidc-provider's token endpoint;
 *   2. `gateway`, a call with a valid bearer token: GET /bench/ vs the bare proxy's GET /bench/;
 *   3. `introspection` of a live token: POST /oauth2/v1/introspect (as the demo strict app)
 *      vs oidc-provider's introspection endpoint;
 *   4. `refresh` with rotation (ours alone): every request spends a fresh refresh token,
 *      obtained through the authorization code flow;
 *   5. `gateway-dpop`: GET /bench/ with a DPoP-bound token of the demo fapi2 app (client
 *      credentials grant with a DPoP proof) and a new DPoP proof per call, vs the same
 *      server's gateway with the demo app's bearer token (scenario 2's request) in the peer
 *      column: one such peer side per database;
 *   6. `refresh-fapi`: the refresh grant of the demo fapi2 app, its DPoP-bound refresh token
 *      (PAR, alice's sign-in and consent, code exchange with DPoP) sent again by every
 *      request with a new client assertion (private_key_jwt) and a new DPoP proof, vs the
 *      same at the oidc-provider FAPI peer;
 *   7. `code-openid`: the authorization code exchange (POST /oauth2/v1/token,
 *      grant_type=authorization_code with the PKCE code_verifier, client_secret_basic) of
 *      codes issued for scope=openid with a nonce, so that every answer carries an ID token
 *      signed PS256 (the demo strict app's default), vs the same at the oidc-provider OpenID
 *      peer (PEER_OIDC_CLIENT, ID tokens PS256). Codes are single-use and live 60 s: each run
 *      exchanges a set number of them (BENCH_CODES, default 2,000; its warm-up the share of
 *      them its seconds are of BENCH_DURATION), made just before it through each server's
 *      authorization endpoint by a browser signed in there (bench/openid.ts), and its req/s
 *      are those exchanges over the time to the last answer, not a BENCH_DURATION run;
 *   8. `gateway-jwt`: GET /bench-jwt/ (the same upstream) with a JWT access token (RFC 9068,
 *      PS256) of an app whose only API product issues them, checked offline and then by its
 *      row, vs the same server's gateway with the demo app's opaque token (scenario 2's
 *      request) in the peer column: one such peer side per database.
 * The sides of a scenario run alternately, round after round (ours on SQLite, ours on
 * PostgreSQL, the peer(s); then again), so that they share the machine's noise. Scenarios 5
 * and 6 build each run's one-use JWTs before the run (bench/fapi.ts), scenario 7 its codes
 * (bench/openid.ts). Each measured run follows an unrecorded warm-up with its own freshly
 * prepared requests.
 * Prints one table (req/s mean over rounds, p50/p99 worst over rounds, failures summed,
 * peak RSS = highest VmRSS of the server process sampled every 100 ms during the measured
 * runs; ratios of req/s: `ours/peer` on our rows, ours on a database against the peer of the
 * scenario, and `PostgreSQL/SQLite` on our PostgreSQL rows), then each target as
 * met / NOT met (PostgreSQL issuance and gateway ≥ 0.6× SQLite; on SQLite issuance ≥ 2×
 * and introspection ≥ 2× oidc-provider, gateway ≥ 92 % of the bare proxy; the DPoP gateway
 * ≥ 75 % of the Bearer gateway on each database; p99 ≤ 15 ms in every scenario of ours at 50
 * connections; peak RSS of each of our servers ≤ 200 MB). A target whose scenario or database
 * did not run is printed as not measured.
 * Then, unless BENCH_INSTRUCTIONS=false, the instructions per request of our server on
 * SQLite in every scenario that ran, counted under callgrind by bench/callgrind.ts (its own
 * server; its env: INSTR_REQUESTS, INSTR_WARMUP, INSTR_THREAD), printed as a table (scenario,
 * instructions per request in thousands, budget, requests counted, non-2xx, errors; with
 * `code-openid`, also the instructions of one signIdToken alone, PS256 and ES256) and a
 * verdict per budgeted scenario; skipped with a note when valgrind or callgrind_control is
 * not on the PATH.
 * Asserts nothing; fails only if a probe does not answer 200 (or an introspection probe
 * finds the token inactive), or the set-up of a scenario fails.
 * Env: BENCH_DURATION (seconds per run, default 10; at most about 50 for scenarios 5 and 6,
 * whose DPoP proofs must stay under 60 s old), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS
 * (runs per scenario and side, default 2), BENCH_WARMUP (seconds, default 2),
 * BENCH_SCENARIOS (comma-separated names to run only those, e.g. "gateway,gateway-dpop";
 * default all), BENCH_CODES (codes exchanged per run of scenario 7, default 2000; making
 * them must take under 50 s), BENCH_DATABASES (comma-separated, default "sqlite,postgresql"),
 * BENCH_POSTGRES_URL (maintenance database, default
 * postgresql://root@127.0.0.1:5432/postgres), BENCH_REDIS_URL (default
 * redis://127.0.0.1:6379), BENCH_INSTRUCTIONS (false: no callgrind phase),
 * BENCH_CPU_PROFILE_DIR (write our servers' CPU profiles there).
 */
import { DEMO } from "../server/src/demo/seed.js";
import { budgetLines, callgrindMissing, countInstructions, instructionTable } from "./callgrind.js";
import {
  dpopClientCredentialsToken,
  dpopGatewayTargets,
  fapiRefreshTargets,
  fapiRefreshToken,
  oidcProviderFapi,
  tollgateFapi,
  type FapiServer,
  type OneUseTargets,
} from "./fapi.js";
import { codeExchangeTarget, codesForRun, oidcProviderCodes, tollgateCodes, type CodeServer } from "./openid.js";
import {
  PEER_CLIENT,
  PEER_FAPI_CLIENT,
  accessToken,
  benchDatabases,
  connections,
  createDatabase,
  dropAll,
  duration,
  exitOnSignals,
  formPost,
  freePort,
  gatewayTarget,
  introspectionTarget,
  load,
  memoryMb,
  refreshTarget,
  refreshTokens,
  registerApi,
  registerJwtApi,
  sampleRss,
  startInstance,
  startPeer,
  stopAll,
  tokenTarget,
  verdict,
  warmup,
  type BenchDatabase,
  type DatabaseKind,
  type Figures,
  type Instance,
  type Target,
} from "./support.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const databases = benchDatabases();

/**
 * Requests per second assumed of the first run (the warm-up) of a side whose requests are
 * built ahead (bench/fapi.ts): a generous guess for a 2-core machine; later runs are sized
 * from the highest rate the side reached before.
 */
const INITIAL_RATE = { gateway: 10_000, refresh: 5_000 };

/** One server's side of a scenario: `prepare` builds the request afresh before each run of `seconds`. */
interface Side {
  server: string;
  instance: Instance;
  prepare: (seconds: number) => Promise<Target>;
}

/** Our server on one database, set up for every scenario. */
interface Ours {
  db: DatabaseKind;
  label: string;
  instance: Instance;
  /** The gateway path of API `bench`. */
  apiPath: string;
  /** API `bench-jwt`, the same upstream behind a product of JWT access tokens (RFC 9068), and a request for such a token. */
  jwt: { apiPath: string; token: Target };
  fapi: FapiServer;
}

interface Scenario {
  name: string;
  /** Our side on the server of each database. */
  ours: (o: Ours) => Side;
  /** The yardstick: one peer for every database, or a side per database (gateway-dpop: the same server's Bearer gateway). */
  peer?: Side | ((o: Ours) => Side);
}

/** A side of a scenario as it runs: whose it is, the runs of each round, its peak RSS. */
interface Running {
  side: Side;
  role: "ours" | "peer";
  /** Ours, or a per-database peer: its database; a peer shared by every database: undefined. */
  db?: DatabaseKind;
  runs: Figures[];
  peakRss: number;
}

/** A side's figures over all rounds. */
type Result = Omit<Running, "runs"> & { figures: Figures };

/** A table row: the figures of one side in one scenario over all rounds. */
type Row = Figures & { "peak RSS MB": number; "ours/peer"?: number; "PostgreSQL/SQLite"?: number };

/** Highest VmRSS sampled during each server's measured runs, MB. */
const peakRss = new Map<Instance, number>();

/**
 * The `prepare` of a side whose requests carry one-use JWTs: `setUp` (a token to use, then
 * bench/fapi.ts's targets of it) runs before the side's first run, and every run gets its
 * own requests.
 */
function oneUse(setUp: () => Promise<OneUseTargets>): Side["prepare"] {
  let targets: Promise<OneUseTargets> | undefined;
  return async (seconds) => (await (targets ??= setUp())).forRun(seconds);
}

/**
 * The `prepare` of a side exchanging authorization codes (bench/openid.ts): `setUp` (the
 * server's code supply, signing in) runs before the side's first run, and every run gets
 * codes of its own, made just before it.
 */
function codeExchanges(setUp: () => Promise<CodeServer>): Side["prepare"] {
  let server: Promise<CodeServer> | undefined;
  return async (seconds) => codeExchangeTarget(await (server ??= setUp()), codesForRun(seconds), connections);
}

/** Folds the rounds: req/s mean, p50/p99 worst, failures summed. */
function combine(runs: Figures[]): Figures {
  return {
    "req/s": Math.round(runs.reduce((sum, r) => sum + r["req/s"], 0) / runs.length),
    "p50 ms": Math.max(...runs.map((r) => r["p50 ms"])),
    "p99 ms": Math.max(...runs.map((r) => r["p99 ms"])),
    "non-2xx": runs.reduce((sum, r) => sum + r["non-2xx"], 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** Two decimals. */
const round2 = (n: number) => Math.round(n * 100) / 100;

exitOnSignals();
const dbs: BenchDatabase[] = [];
const ours: Ours[] = [];
const instances: Instance[] = [];
let oidc: Instance | undefined;
let oidcFapi: Instance | undefined;
let oidcOpenid: Instance | undefined;
let upstream: Instance | undefined;
let proxy: Instance | undefined;
let scenariosRun: string[] = [];
try {
  upstream = await startPeer("upstream.ts");
  proxy = await startPeer("proxy.ts", { UPSTREAM_URL: upstream.url });
  oidc = await startPeer("oidc-provider.ts");
  oidcFapi = await startPeer("oidc-provider-fapi.ts");
  oidcOpenid = await startPeer("oidc-provider-openid.ts");
  for (const kind of databases) {
    const db = await createDatabase(kind);
    dbs.push(db);
    const port = await freePort();
    const instance = await startInstance({ ...db.env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` });
    instances.push(instance);
    const apiPath = await registerApi(instance.url, "bench", upstream.url);
    const jwt = await registerJwtApi(instance.url, "bench-jwt", upstream.url);
    ours.push({ db: kind, label: db.label, instance, apiPath, jwt, fapi: await tollgateFapi(instance.url) });
  }
  const metadata = (await (await fetch(`${oidc.url}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const peerToken = formPost(metadata.token_endpoint!, PEER_CLIENT, `grant_type=client_credentials&scope=${encodeURIComponent(PEER_CLIENT.scope)}`);
  const peerFapi = await oidcProviderFapi(oidcFapi.url, PEER_FAPI_CLIENT.clientId);
  const openidIssuer = oidcOpenid.url;
  const p = proxy;
  // The bare proxy forwards the Authorization header unread: any of our tokens will do.
  const first = ours[0]!;
  const scenarios: Scenario[] = [
    {
      name: "issuance",
      ours: (o) => ({ server: `Tollgate, ${o.label}`, instance: o.instance, prepare: async () => tokenTarget(o.instance.url) }),
      peer: { server: "oidc-provider", instance: oidc, prepare: async () => peerToken },
    },
    {
      name: "gateway",
      ours: (o) => ({ server: `Tollgate, ${o.label}`, instance: o.instance, prepare: () => gatewayTarget(o.instance.url, o.apiPath) }),
      // The same request bytes as ours.
      peer: { server: "bare proxy", instance: p, prepare: async () => ({ ...(await gatewayTarget(first.instance.url, first.apiPath)), url: `${p.url}${first.apiPath}` }) },
    },
    {
      name: "introspection",
      ours: (o) => ({
        server: `Tollgate, ${o.label}`,
        instance: o.instance,
        prepare: async () => introspectionTarget(`${o.instance.url}/oauth2/v1/introspect`, DEMO.strictApp, await accessToken(tokenTarget(o.instance.url))),
      }),
      peer: {
        server: "oidc-provider",
        instance: oidc,
        prepare: async () => introspectionTarget(metadata.introspection_endpoint!, PEER_CLIENT, await accessToken(peerToken)),
      },
    },
    {
      name: "refresh",
      ours: (o) => ({
        server: `Tollgate, ${o.label}`,
        instance: o.instance,
        prepare: async () => refreshTarget(o.instance.url, await refreshTokens(o.instance.url, connections + 1)),
      }),
    },
    {
      name: "gateway-dpop",
      ours: (o) => ({
        server: `Tollgate, ${o.label}, DPoP token`,
        instance: o.instance,
        prepare: oneUse(async () => dpopGatewayTargets(`${o.instance.url}${o.apiPath}`, await dpopClientCredentialsToken(o.fapi), INITIAL_RATE.gateway)),
      }),
      // The issue's yardstick: the same server's gateway with a bearer token, scenario 2's request.
      peer: (o) => ({ server: `Tollgate, ${o.label}, Bearer token`, instance: o.instance, prepare: () => gatewayTarget(o.instance.url, o.apiPath) }),
    },
    {
      name: "refresh-fapi",
      ours: (o) => ({
        server: `Tollgate, ${o.label}`,
        instance: o.instance,
        prepare: oneUse(async () => fapiRefreshTargets(o.fapi, await fapiRefreshToken(o.fapi), INITIAL_RATE.refresh)),
      }),
      peer: {
        server: "oidc-provider (FAPI 2.0)",
        instance: oidcFapi,
        prepare: oneUse(async () => fapiRefreshTargets(peerFapi, await fapiRefreshToken(peerFapi), INITIAL_RATE.refresh)),
      },
    },
    {
      name: "code-openid",
      ours: (o) => ({ server: `Tollgate, ${o.label}`, instance: o.instance, prepare: codeExchanges(() => tollgateCodes(o.instance.url)) }),
      peer: {
        server: "oidc-provider",
        instance: oidcOpenid,
        prepare: codeExchanges(() => oidcProviderCodes(openidIssuer)),
      },
    },
    {
      name: "gateway-jwt",
      ours: (o) => ({
        server: `Tollgate, ${o.label}, JWT access token`,
        instance: o.instance,
        prepare: async () => ({ url: `${o.instance.url}${o.jwt.apiPath}`, headers: { authorization: `Bearer ${await accessToken(o.jwt.token)}` } }),
      }),
      // The same server's gateway and upstream with an opaque token: scenario 2's request.
      peer: (o) => ({ server: `Tollgate, ${o.label}, opaque token`, instance: o.instance, prepare: () => gatewayTarget(o.instance.url, o.apiPath) }),
    },
  ];

  const only = process.env.BENCH_SCENARIOS?.split(",");
  if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => only.includes(s.name)));
  scenariosRun = scenarios.map((s) => s.name);
  console.log(`${connections} connections, ${duration} s per run, ${rounds} round(s) per scenario and side, ours on ${ours.map((o) => o.label).join(" and ")}`);
  if (scenariosRun.includes("code-openid")) console.log(`code-openid: each run exchanges ${codesForRun(duration)} codes made before it (BENCH_CODES), req/s over the time to the last answer`);
  console.log();
  const table: Record<string, Row> = {};
  const results = new Map<string, Result[]>();
  for (const s of scenarios) {
    const peer = s.peer;
    const sides: Running[] = [
      ...ours.map((o): Running => ({ side: s.ours(o), role: "ours", db: o.db, runs: [], peakRss: 0 })),
      ...(peer === undefined
        ? []
        : typeof peer === "function"
          ? ours.map((o): Running => ({ side: peer(o), role: "peer", db: o.db, runs: [], peakRss: 0 }))
          : [{ side: peer, role: "peer" as const, runs: [], peakRss: 0 }]),
    ];
    for (let round = 0; round < rounds; round++) {
      for (const running of sides) {
        const { side } = running;
        // The warm-up gets its own request set: a refresh scenario's tokens in flight when
        // a run stops are spent, and so are one-use JWTs, so each run starts from freshly
        // prepared ones.
        if (warmup > 0) await load([await side.prepare(warmup)], { duration: warmup, warmup: 0 });
        const target = await side.prepare(duration);
        const rss = sampleRss(side.instance.child.pid!);
        const result = await load([target], { warmup: 0 });
        const runPeak = rss.stop();
        running.peakRss = Math.max(running.peakRss, runPeak);
        peakRss.set(side.instance, Math.max(peakRss.get(side.instance) ?? 0, runPeak));
        running.runs.push(result);
        console.log(`${s.name}, ${side.server}, round ${round + 1}: ${result["req/s"]} req/s, p99 ${result["p99 ms"]} ms`);
      }
    }
    const done = sides.map(({ runs, ...rest }): Result => ({ ...rest, figures: combine(runs) }));
    results.set(s.name, done);
    const peerOf = (db: DatabaseKind | undefined) => done.find((r) => r.role === "peer" && (r.db === db || r.db === undefined));
    const sqlite = done.find((r) => r.role === "ours" && r.db === "sqlite");
    for (const r of done) {
      const yardstick = r.role === "ours" ? peerOf(r.db) : undefined;
      table[`${s.name}: ${r.side.server}`] = {
        ...r.figures,
        "peak RSS MB": r.peakRss,
        ...(yardstick ? { "ours/peer": round2(r.figures["req/s"] / yardstick.figures["req/s"]) } : {}),
        ...(r.role === "ours" && r.db === "postgresql" && sqlite ? { "PostgreSQL/SQLite": round2(r.figures["req/s"] / sqlite.figures["req/s"]) } : {}),
      };
    }
  }
  console.log();
  console.table(table);

  /** Our figures in `scenario` on `db`, if that ran. */
  const oursIn = (scenario: string, db: DatabaseKind) => results.get(scenario)?.find((r) => r.role === "ours" && r.db === db)?.figures;
  /** Our req/s over the peer's in `scenario` on `db`, if both ran. */
  const vsPeer = (scenario: string, db: DatabaseKind) => {
    const done = results.get(scenario);
    const o = oursIn(scenario, db);
    const peer = done?.find((r) => r.role === "peer" && (r.db === db || r.db === undefined))?.figures;
    return o && peer ? o["req/s"] / peer["req/s"] : undefined;
  };
  /** PostgreSQL's req/s over SQLite's in `scenario`, if both ran. */
  const pgVsSqlite = (scenario: string) => {
    const pg = oursIn(scenario, "postgresql");
    const sqlite = oursIn(scenario, "sqlite");
    return pg && sqlite ? pg["req/s"] / sqlite["req/s"] : undefined;
  };
  const times = (r: number) => `${r.toFixed(2)}×`;
  const percent = (r: number) => `${(r * 100).toFixed(0)}%`;
  /** Prints a ratio target: at least `min`, or "not measured" when the ratio is undefined. */
  const atLeast = (label: string, ratio: number | undefined, min: number, show: (r: number) => string) =>
    console.log(ratio === undefined ? `  ${label}: not measured (scenario or database not run)` : verdict(`  ${label}`, show(ratio), ratio >= min));

  console.log("\nTargets:");
  atLeast("PostgreSQL, 1 instance: issuance ≥ 0.6× SQLite", pgVsSqlite("issuance"), 0.6, times);
  atLeast("PostgreSQL, 1 instance: gateway ≥ 0.6× SQLite", pgVsSqlite("gateway"), 0.6, times);
  atLeast("SQLite: issuance ≥ 2× oidc-provider", vsPeer("issuance", "sqlite"), 2, times);
  atLeast("SQLite: introspection ≥ 2× oidc-provider", vsPeer("introspection", "sqlite"), 2, times);
  atLeast("SQLite: gateway ≥ 92% of the bare proxy", vsPeer("gateway", "sqlite"), 0.92, percent);
  atLeast("SQLite: DPoP gateway ≥ 75% of the Bearer gateway", vsPeer("gateway-dpop", "sqlite"), 0.75, percent);
  atLeast("PostgreSQL: DPoP gateway ≥ 75% of the Bearer gateway", vsPeer("gateway-dpop", "postgresql"), 0.75, percent);
  const oursDone = [...results].flatMap(([name, done]) => done.filter((r) => r.role === "ours").map((r) => ({ name, ...r })));
  if (oursDone.length > 0) {
    const p99s = oursDone.map((r) => `${r.name} ${ours.find((o) => o.db === r.db)!.label} ${r.figures["p99 ms"]} ms`).join(", ");
    const worstP99 = Math.max(...oursDone.map((r) => r.figures["p99 ms"]));
    const at = connections === 50 ? "" : ` (run at ${connections} connections: the target is set at 50)`;
    console.log(verdict(`  p99 ≤ 15 ms in every scenario of ours at 50 connections${at}`, p99s, worstP99 <= 15));
    const rss = ours.map((o) => ({ label: o.label, mb: peakRss.get(o.instance) ?? 0 }));
    console.log(verdict("  peak RSS of our servers ≤ 200 MB (during the runs)", rss.map((r) => `${r.label} ${r.mb.toFixed(1)} MB`).join(", "), rss.every((r) => r.mb <= 200)));
    console.log(`  (process peaks including start, seeding and the set-ups' sign-ins: VmHWM ${ours.map((o) => `${o.label} ${memoryMb(o.instance.child.pid!, "VmHWM").toFixed(1)} MB`).join(", ")})`);
    const failed = oursDone.filter((r) => r.figures["non-2xx"] > 0 || r.figures.errors > 0);
    console.log(
      `  non-2xx answers or errors in our runs: ${failed.length === 0 ? "none" : failed.map((r) => `${r.name} ${ours.find((o) => o.db === r.db)!.label}: ${r.figures["non-2xx"]} non-2xx, ${r.figures.errors} errors`).join("; ")}`,
    );
  }
} finally {
  await stopAll(...instances, oidc, oidcFapi, oidcOpenid, proxy, upstream);
  await dropAll(...dbs);
}

if (process.env.BENCH_INSTRUCTIONS === "false") {
  console.log("\nInstructions per request: not counted (BENCH_INSTRUCTIONS=false)");
} else if (callgrindMissing().length > 0) {
  console.log(`\nInstructions per request: not counted (${callgrindMissing().join(" and ")} not on the PATH; install valgrind)`);
} else if (scenariosRun.length > 0) {
  console.log(`\nInstructions per request of our server on SQLite, counted by callgrind (bench/callgrind.ts):`);
  const counts = await countInstructions(scenariosRun, (line) => console.log(`  ${line}`));
  console.log();
  console.table(instructionTable(counts));
  console.log("\nBudgets (instructions per request on SQLite):");
  for (const line of budgetLines(counts)) console.log(line);
}
