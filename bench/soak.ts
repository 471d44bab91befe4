/**
 * `npm run bench:soak`: does Tollgate stay error-free and keep its memory flat under a long
 * steady load (issue 6)? Ours alone, on a fresh SQLite file in a temp dir, with the gateway
 * in front of the bare upstream of bench/peers/upstream.ts (API `bench`, as in `npm run bench`):
 *   1. the peak rate of issuance (POST /oauth2/v1/token) and gateway calls (GET /bench/)
 *      loaded together for BENCH_DURATION seconds;
 *   2. the same mix for BENCH_SOAK_MINUTES at half that rate (autocannon overallRate, split
 *      evenly between the two), printing the server's VmRSS and the responses of each minute.
 * Then prints the totals, and met / NOT met for "zero errors" (no connection error and no
 * non-2xx answer) and "RSS growth < 10%" (VmRSS at the end against minute 1). A soak longer
 * than 55 minutes first raises the demo app's access token lifetime to a day through the
 * admin API, so that the gateway's token outlives it (24 hours at most).
 * Asserts nothing; fails only if a probe fails.
 * Env: BENCH_DURATION (seconds of the peak run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_SOAK_MINUTES (default 10; fractions allowed).
 */
import path from "node:path";
import { DEMO } from "../server/src/demo/seed.js";
import {
  adminGraphql,
  connections,
  duration,
  exitOnSignals,
  gatewayTarget,
  load,
  makeTempDir,
  memoryMb,
  registerApi,
  removeTempDir,
  startInstance,
  startPeer,
  stopAll,
  tokenTarget,
  verdict,
  type Instance,
} from "./support.js";

const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const MINUTE_MS = 60_000;

/** Sets the demo app's access token lifetime through the admin API. */
async function setAccessTokenLifetime(baseUrl: string, seconds: number): Promise<void> {
  const { apps } = await adminGraphql<{ apps: { nodes: { id: string; name: string }[] } }>(
    baseUrl,
    "query ($search: String) { apps(filter: { search: $search }) { nodes { id name } } }",
    { search: DEMO.app.name },
  );
  const app = apps.nodes.find((a) => a.name === DEMO.app.name);
  if (!app) throw new Error(`no app ${DEMO.app.name} at ${baseUrl}`);
  await adminGraphql(baseUrl, "mutation ($id: ID!, $input: TokenLifetimesInput!) { setTokenLifetimes(appId: $id, input: $input) { id } }", {
    id: app.id,
    input: { accessTokenLifetimeSeconds: seconds },
  });
}

exitOnSignals();
const dir = makeTempDir("tollgate-bench-soak-");
let upstream: Instance | undefined;
let server: Instance | undefined;
let sampler: NodeJS.Timeout | undefined;
try {
  upstream = await startPeer("upstream.ts");
  server = await startInstance({ DATABASE_URL: `file:${path.join(dir, "bench.db")}` });
  const pid = server.child.pid!;
  const apiPath = await registerApi(server.url, "bench", upstream.url);
  if (minutes > 55) await setAccessTokenLifetime(server.url, 86_400);
  const targets = [tokenTarget(server.url), await gatewayTarget(server.url, apiPath)];

  const peak = await load(targets);
  const rate = Math.max(2, Math.round(peak["req/s"] / 2));
  console.log(`Peak: ${peak["req/s"]} req/s (issuance + gateway, ${connections} connections, ${duration} s). Soak: ${rate} req/s for ${minutes} min.\n`);

  const samples: number[] = [];
  let responses = 0;
  let failed = 0;
  /** Prints and keeps one VmRSS reading with the responses since the last one. */
  const sample = (label: string) => {
    const rss = memoryMb(pid, "VmRSS");
    samples.push(rss);
    console.log(`${label}: VmRSS ${rss.toFixed(1)} MB, ${responses} responses (${failed} non-2xx)`);
    responses = 0;
    failed = 0;
  };
  let minute = 0;
  sampler = setInterval(() => {
    minute++;
    // The reading at the end of the last minute is the final one below.
    if (minute < minutes) sample(`minute ${minute}`);
  }, MINUTE_MS);
  const soak = await load(targets, {
    duration: Math.round(minutes * 60),
    overallRate: rate,
    warmup: 0,
    onResponse: (status) => {
      responses++;
      if (status < 200 || status > 299) failed++;
    },
  });
  clearInterval(sampler);
  sample(`end (${minutes} min)`);

  console.log();
  console.table({ [`soak at ${rate} req/s`]: soak });
  const growth = ((samples.at(-1)! - samples[0]!) / samples[0]!) * 100;
  console.log("\nTargets (issue 6):");
  console.log(verdict("  zero errors", `${soak.errors} errors, ${soak["non-2xx"]} non-2xx`, soak.errors === 0 && soak["non-2xx"] === 0));
  if (samples.length < 2) console.log("  RSS growth < 10%: not measured (a soak under 2 minutes has one reading)");
  else console.log(verdict("  RSS growth < 10%", `${samples[0]!.toFixed(1)} MB at minute 1 → ${samples.at(-1)!.toFixed(1)} MB at the end: ${growth.toFixed(1)}%`, growth < 10));
} finally {
  clearInterval(sampler);
  await stopAll(server, upstream);
  removeTempDir(dir);
}
