/**
 * `npm run bench`: Tollgate against peers on its hot paths (issues 6 and 15). Each server
 * runs in its own process on this machine:
 *   - ours: the built server (dist/) on a fresh SQLite file in a temp dir, on a free port
 *     that is also its BASE_URL (the issuer, and the URL DPoP proofs name);
 *   - oidc-provider 9.13 (bench/peers/oidc-provider.ts: in-memory adapter, one
 *     client-credentials client, opaque tokens);
 *   - oidc-provider 9.13 with the FAPI 2.0 profile, DPoP and PAR
 *     (bench/peers/oidc-provider-fapi.ts: one private_key_jwt client with the key of our
 *     demo fapi2 app, DPoP-bound tokens, refresh tokens not rotated);
 *   - a bare node:http upstream (bench/peers/upstream.ts) and a bare node:http proxy to it
 *     (bench/peers/proxy.ts). Our gateway reaches the same upstream through API `bench`,
 *     registered with the admin GraphQL API and added to the demo apps' PSD2-AISP-v1 product.
 * Scenarios, each run ours / peer alternately (A, B, A, B, ...):
 *   1. `issuance`, client credentials: POST /oauth2/v1/token vs oidc-provider's token endpoint;
 *   2. `gateway`, a call with a valid bearer token: GET /bench/ vs the bare proxy's GET /bench/;
 *   3. `introspection` of a live token: POST /oauth2/v1/introspect (as the demo strict app)
 *      vs oidc-provider's introspection endpoint;
 *   4. `refresh` with rotation (ours alone): every request spends a fresh refresh token,
 *      obtained through the authorization code flow (alice signs in and consents);
 *   5. `gateway-dpop`: GET /bench/ with a DPoP-bound token of the demo fapi2 app (client
 *      credentials grant with a DPoP proof) and a new DPoP proof per call, vs our own gateway
 *      with the demo app's bearer token (scenario 2's request) in the peer column;
 *   6. `refresh-fapi`: the refresh grant of the demo fapi2 app, its DPoP-bound refresh token
 *      (PAR, alice's sign-in and consent, code exchange with DPoP) sent again by every
 *      request with a new client assertion (private_key_jwt) and a new DPoP proof, vs the
 *      same at the oidc-provider FAPI peer.
 * Scenarios 5 and 6 build each run's one-use JWTs before the run (bench/fapi.ts).
 * Each measured run follows an unrecorded warm-up with its own freshly prepared requests.
 * Prints one table (req/s mean over rounds, p50/p99 worst over rounds, failures summed,
 * peak RSS = highest VmRSS of the server process sampled every 100 ms during the measured
 * runs, ours/peer req/s), then each target of issues 6 and 15 as met / NOT met. Asserts
 * nothing; fails only if a probe does not answer 200 (or an introspection probe finds the
 * token inactive), or the set-up of a scenario fails.
 * Env: BENCH_DURATION (seconds per run, default 10; at most about 50 for scenarios 5 and 6,
 * whose DPoP proofs must stay under 60 s old), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS
 * (runs per scenario and server, default 2), BENCH_WARMUP (seconds, default 2),
 * BENCH_SCENARIOS (comma-separated names to run only those, e.g. "gateway,gateway-dpop";
 * default all), BENCH_CPU_PROFILE_DIR (write our server's CPU profile there).
 */
import path from "node:path";
import { DEMO } from "../server/src/demo/seed.js";
import { dpopClientCredentialsToken, dpopGatewayTargets, fapiRefreshTargets, fapiRefreshToken, oidcProviderFapi, tollgateFapi } from "./fapi.js";
import {
  PEER_CLIENT,
  PEER_FAPI_CLIENT,
  accessToken,
  connections,
  duration,
  exitOnSignals,
  formPost,
  freePort,
  gatewayTarget,
  introspectionTarget,
  load,
  makeTempDir,
  memoryMb,
  refreshTarget,
  refreshTokens,
  registerApi,
  removeTempDir,
  sampleRss,
  startInstance,
  startPeer,
  stopAll,
  tokenTarget,
  verdict,
  warmup,
  type Figures,
  type Instance,
  type Target,
} from "./support.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

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

interface Scenario {
  name: string;
  ours: Side;
  peer?: Side;
}

/** A table row: the figures of one server in one scenario over all rounds. */
type Row = Figures & { "peak RSS MB": number; "ours/peer"?: number };

/** Highest VmRSS sampled during each server's measured runs, MB. */
const peakRss = new Map<Instance, number>();

/**
 * The `prepare` of a side whose requests carry one-use JWTs: `setUp` (a token to use, then
 * bench/fapi.ts's targets of it) runs before the side's first run, and every run gets its
 * own requests.
 */
function oneUse(setUp: () => Promise<(seconds: number) => Target>): Side["prepare"] {
  let targets: Promise<(seconds: number) => Target> | undefined;
  return async (seconds) => (await (targets ??= setUp()))(seconds);
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

exitOnSignals();
const dir = makeTempDir("tollgate-bench-");
let ours: Instance | undefined;
let oidc: Instance | undefined;
let oidcFapi: Instance | undefined;
let upstream: Instance | undefined;
let proxy: Instance | undefined;
try {
  upstream = await startPeer("upstream.ts");
  proxy = await startPeer("proxy.ts", { UPSTREAM_URL: upstream.url });
  oidc = await startPeer("oidc-provider.ts");
  oidcFapi = await startPeer("oidc-provider-fapi.ts");
  const port = await freePort();
  ours = await startInstance({ DATABASE_URL: `file:${path.join(dir, "bench.db")}`, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` });
  const apiPath = await registerApi(ours.url, "bench", upstream.url);
  const metadata = (await (await fetch(`${oidc.url}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const peerToken = formPost(metadata.token_endpoint!, PEER_CLIENT, `grant_type=client_credentials&scope=${encodeURIComponent(PEER_CLIENT.scope)}`);
  const o = ours;
  const fapi = await tollgateFapi(o.url);
  const peerFapi = await oidcProviderFapi(oidcFapi.url, PEER_FAPI_CLIENT.clientId);
  const scenarios: Scenario[] = [
    {
      name: "issuance",
      ours: { server: "Tollgate", instance: o, prepare: async () => tokenTarget(o.url) },
      peer: { server: "oidc-provider", instance: oidc, prepare: async () => peerToken },
    },
    {
      name: "gateway",
      ours: { server: "Tollgate", instance: o, prepare: () => gatewayTarget(o.url, apiPath) },
      // The same request bytes as ours (the proxy forwards the Authorization header unread).
      peer: { server: "bare proxy", instance: proxy, prepare: async () => ({ ...(await gatewayTarget(o.url, apiPath)), url: `${proxy!.url}${apiPath}` }) },
    },
    {
      name: "introspection",
      ours: {
        server: "Tollgate",
        instance: o,
        prepare: async () => introspectionTarget(`${o.url}/oauth2/v1/introspect`, DEMO.strictApp, await accessToken(tokenTarget(o.url))),
      },
      peer: {
        server: "oidc-provider",
        instance: oidc,
        prepare: async () => introspectionTarget(metadata.introspection_endpoint!, PEER_CLIENT, await accessToken(peerToken)),
      },
    },
    {
      name: "refresh",
      ours: { server: "Tollgate", instance: o, prepare: async () => refreshTarget(o.url, await refreshTokens(o.url, connections + 1)) },
    },
    {
      name: "gateway-dpop",
      ours: {
        server: "Tollgate, DPoP token",
        instance: o,
        prepare: oneUse(async () => dpopGatewayTargets(`${o.url}${apiPath}`, await dpopClientCredentialsToken(fapi), INITIAL_RATE.gateway)),
      },
      // The issue's yardstick: our own gateway with a bearer token, scenario 2's request.
      peer: { server: "Tollgate, Bearer token", instance: o, prepare: () => gatewayTarget(o.url, apiPath) },
    },
    {
      name: "refresh-fapi",
      ours: { server: "Tollgate", instance: o, prepare: oneUse(async () => fapiRefreshTargets(fapi, await fapiRefreshToken(fapi), INITIAL_RATE.refresh)) },
      peer: {
        server: "oidc-provider (FAPI 2.0)",
        instance: oidcFapi,
        prepare: oneUse(async () => fapiRefreshTargets(peerFapi, await fapiRefreshToken(peerFapi), INITIAL_RATE.refresh)),
      },
    },
  ];

  const only = process.env.BENCH_SCENARIOS?.split(",");
  if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => only.includes(s.name)));
  console.log(`${connections} connections, ${duration} s per run, ${rounds} round(s) per scenario and server\n`);
  const table: Record<string, Row> = {};
  const figures = new Map<string, { ours: Figures; peer?: Figures }>();
  for (const s of scenarios) {
    const sides = s.peer ? [s.ours, s.peer] : [s.ours];
    const runs = sides.map((): Figures[] => []);
    const rssRuns: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const [i, side] of sides.entries()) {
        // The warm-up gets its own request set: a refresh scenario's tokens in flight when
        // a run stops are spent, and so are one-use JWTs, so each run starts from freshly
        // prepared ones.
        if (warmup > 0) await load([await side.prepare(warmup)], { duration: warmup, warmup: 0 });
        const target = await side.prepare(duration);
        const rss = sampleRss(side.instance.child.pid!);
        const result = await load([target], { warmup: 0 });
        const runPeak = rss.stop();
        rssRuns[i] = Math.max(rssRuns[i] ?? 0, runPeak);
        peakRss.set(side.instance, Math.max(peakRss.get(side.instance) ?? 0, runPeak));
        runs[i]!.push(result);
        console.log(`${s.name}, ${side.server}, round ${round + 1}: ${result["req/s"]} req/s, p99 ${result["p99 ms"]} ms`);
      }
    }
    const [oursFigures, peerFigures] = runs.map(combine);
    figures.set(s.name, { ours: oursFigures!, peer: peerFigures });
    for (const [i, side] of sides.entries()) {
      const f = i === 0 ? oursFigures! : peerFigures!;
      table[`${s.name}: ${side.server}`] = {
        ...f,
        "peak RSS MB": rssRuns[i]!,
        ...(i === 0 && peerFigures ? { "ours/peer": Math.round((oursFigures!["req/s"] / peerFigures["req/s"]) * 100) / 100 } : {}),
      };
    }
  }
  console.log();
  console.table(table);

  const ratio = (name: string) => figures.get(name)!.ours["req/s"] / figures.get(name)!.peer!["req/s"];
  const p99s = [...figures].map(([name, f]) => `${name} ${f.ours["p99 ms"]} ms`).join(", ");
  const worstP99 = Math.max(...[...figures.values()].map((f) => f.ours["p99 ms"]));
  const rss = peakRss.get(o)!;
  const refresh = figures.get("refresh")?.ours;
  const ratioTarget = (name: string, label: string, min: number, show: (r: number) => string) => {
    if (figures.has(name)) console.log(verdict(`  ${label}`, show(ratio(name)), ratio(name) >= min));
  };
  console.log("\nTargets (issue 6):");
  ratioTarget("issuance", "issuance ≥ 1.5× oidc-provider", 1.5, (r) => `${r.toFixed(2)}×`);
  ratioTarget("gateway", "gateway ≥ 70% of the bare proxy", 0.7, (r) => `${(r * 100).toFixed(0)}%`);
  ratioTarget("introspection", "introspection ≥ 2× oidc-provider", 2, (r) => `${r.toFixed(2)}×`);
  console.log(verdict("  p99 ≤ 25 ms in every scenario of ours", p99s, worstP99 <= 25));
  console.log(verdict("  peak RSS of our server ≤ 200 MB (during the runs)", `${rss.toFixed(1)} MB`, rss <= 200));
  console.log(`  (process peak including start, seeding and the refresh set-up's sign-ins: VmHWM ${memoryMb(o.child.pid!, "VmHWM").toFixed(1)} MB)`);
  if (refresh) console.log(verdict("  refresh with rotation: no non-2xx", `${refresh["non-2xx"]} non-2xx, ${refresh.errors} errors`, refresh["non-2xx"] === 0));
  if (figures.has("gateway-dpop")) {
    console.log("\nTargets (issue 15):");
    ratioTarget("gateway-dpop", "DPoP gateway ≥ 60% of the Bearer gateway", 0.6, (r) => `${(r * 100).toFixed(0)}%`);
  }
} finally {
  await stopAll(ours, oidc, oidcFapi, proxy, upstream);
  removeTempDir(dir);
}
