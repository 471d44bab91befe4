/**
 * `npm run bench:instructions`: CPU instructions per request of our server on the hot
 * paths, counted by callgrind (valgrind), for comparing two builds where requests/s are too
 * noisy to tell (±15 % on this machine from one minute to the next; these counts repeat to
 * about ±1 % with 8,000 counted requests on a quiet machine, ±7 % with 3,000; the gateway's
 * moved by up to ±7 % between runs of 8,000 too, so compare two builds by alternating runs of
 * each and averaging, as README "Metrics" does for METRICS_PORT unset and set). Counts only the server's user-space instructions (JavaScript, V8, libuv,
 * SQLite), not the kernel's work for its syscalls; valgrind slows the server about fifty
 * times, so it is driven with few connections.
 *
 * The built server starts under `valgrind --tool=callgrind --instr-atstart=no` (with the
 * flags of `npm start`) on a fresh SQLite file. For each scenario: an unrecorded warm-up
 * (the JIT settles), then instrumentation on (`callgrind_control -i on`) for a fixed number
 * of requests, off again, and the dump's total divided by the requests answered.
 * Scenarios: issuance (POST /oauth2/v1/token), gateway (GET /bench/ to a bare upstream),
 * introspection (POST /oauth2/v1/introspect). Prints one line per scenario; asserts nothing.
 * Env: BENCH_SCENARIOS (comma-separated, default all three), INSTR_REQUESTS (counted
 * requests, default 8000), INSTR_WARMUP (warm-up requests, default 15000), INSTR_THREAD=main
 * (count only the main thread, where requests run: the totals of all threads include V8's
 * helper threads and the WAL checkpoint thread, whose share follows how long the run takes,
 * and moved by ±10 % between identical runs on a busy machine).
 * Needs valgrind (callgrind and callgrind_control) on the PATH.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { DEMO } from "../server/src/demo/seed.js";
import {
  accessToken,
  exitOnSignals,
  gatewayTarget,
  introspectionTarget,
  makeTempDir,
  probe,
  registerApi,
  removeTempDir,
  startInstance,
  startPeer,
  stopAll,
  tokenTarget,
  type Instance,
  type Target,
} from "./support.js";

const counted = Number(process.env.INSTR_REQUESTS ?? 8000);
const warmupRequests = Number(process.env.INSTR_WARMUP ?? 15000);
const scenarios = (process.env.BENCH_SCENARIOS ?? "issuance,gateway,introspection").split(",");
const mainThreadOnly = process.env.INSTR_THREAD === "main";

/** Sends `amount` requests like `target` over 10 connections. @returns how many got an answer. */
function send(target: Target, amount: number): Promise<{ answered: number; non2xx: number }> {
  return new Promise((resolve, reject) =>
    autocannon({ ...target, connections: 10, amount }, (err, result) =>
      err ? reject(err as Error) : resolve({ answered: result.requests.total, non2xx: result.non2xx }),
    ),
  );
}

/** Runs callgrind_control `option` on the server process. */
function control(server: Instance, ...option: string[]): void {
  execFileSync("callgrind_control", [...option, String(server.child.pid)], { stdio: "ignore" });
}

/**
 * Sum of the `totals:` lines of the callgrind dumps in `dir` (one file per dump and thread
 * part; with INSTR_THREAD=main, only the main thread's, named `…-01`).
 */
function dumpedInstructions(dir: string): number {
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith("callgrind.out") && (!mainThreadOnly || f.endsWith("-01")))) {
    for (const match of readFileSync(path.join(dir, file), "utf8").matchAll(/^totals: (\d+)/gm)) total += Number(match[1]);
  }
  return total;
}

exitOnSignals();
const dir = makeTempDir("tollgate-instructions-");
const dumps = path.join(dir, "dumps");
mkdirSync(dumps);
let server: Instance | undefined;
let upstream: Instance | undefined;
try {
  upstream = await startPeer("upstream.ts");
  server = await startInstance({ DATABASE_URL: `file:${path.join(dir, "bench.db")}` }, [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    // V8 writes and rewrites machine code in its heap: callgrind must see the new code.
    "--smc-check=all-non-file",
    ...(mainThreadOnly ? ["--separate-threads=yes"] : []),
    `--callgrind-out-file=${path.join(dumps, "callgrind.out.%p")}`,
  ]);
  const s = server;
  const apiPath = await registerApi(s.url, "bench", upstream.url);
  const prepare: Record<string, () => Promise<Target>> = {
    issuance: async () => tokenTarget(s.url),
    gateway: () => gatewayTarget(s.url, apiPath),
    introspection: async () => introspectionTarget(`${s.url}/oauth2/v1/introspect`, DEMO.strictApp, await accessToken(tokenTarget(s.url))),
  };
  console.log(`${counted} counted requests after ${warmupRequests} of warm-up, 10 connections${mainThreadOnly ? ", main thread only" : ""}\n`);
  for (const name of scenarios) {
    const target = await prepare[name]!();
    await probe(target);
    await send(target, warmupRequests);
    control(s, "-z"); // drop whatever was counted so far
    control(s, "-i", "on");
    const { answered, non2xx } = await send(target, counted);
    control(s, "-i", "off");
    for (const file of readdirSync(dumps)) rmSync(path.join(dumps, file));
    control(s, "-d");
    const perRequest = dumpedInstructions(dumps) / answered;
    console.log(`${name}: ${Math.round(perRequest / 1000).toLocaleString("en")} thousand instructions per request (${answered} requests, ${non2xx} non-2xx)`);
  }
} finally {
  await stopAll(server, upstream);
  removeTempDir(dir);
}
