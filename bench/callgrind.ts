/**
 * CPU instructions per request of our server on the hot paths, counted by callgrind
 * (valgrind): the counting behind `npm run bench:instructions` (bench/instructions.ts) and
 * the last phase of `npm run bench` (bench/run.ts). For comparing two builds where
 * requests/s are too noisy to tell (±15 % on this machine from one minute to the next;
 * these counts repeat to about ±1 % with 8,000 counted requests on a quiet machine, ±7 %
 * with 3,000; the gateway's moved by up to ±7 % between runs of 8,000 too, so compare two
 * builds by alternating runs of each and averaging, as docs/operations.md "Metrics" does for
 * METRICS_PORT unset and set). Counts only the server's user-space instructions
 * (JavaScript, V8, libuv, SQLite), not the kernel's work for its syscalls; valgrind slows
 * the server about fifty times, so it is driven over 10 connections (instrumented, on this
 * machine: about 120 issuances/s, 30 DPoP gateway calls/s and 5 code exchanges with an ID
 * token/s; all eight scenarios with the default counts take about twenty minutes).
 *
 * The built server starts under `valgrind --tool=callgrind --instr-atstart=no` (with the
 * flags of `npm start`) on a fresh SQLite file, on a port chosen beforehand with BASE_URL set
 * to it (the issuer and the `htu` of DPoP proofs), the gateway's API `bench` in front of the
 * bare upstream of bench/peers/upstream.ts. For each scenario: an unrecorded warm-up (the JIT
 * settles), then callgrind's counters zeroed, instrumentation on (`callgrind_control -i on`)
 * for a fixed number of requests, off again, and the dump's total divided by the requests
 * answered. The scenarios are those of `npm run bench` (bench/run.ts), ours alone:
 * issuance, gateway, introspection and `gateway-jwt` (API `bench-jwt` with a JWT access token of
 * an app whose one product issues them: support.ts registerJwtApi) send one request again and again; `refresh` chains
 * each connection through rotated refresh tokens (2 × 10 + 1 of them, from the authorization
 * code flow, alice signing in with a passkey: support.ts enrolDemoPasskey); `gateway-dpop`
 * and `refresh-fapi` send JWTs of their own in every request
 * (bench/fapi.ts), signed in batches just before each batch is sent, with instrumentation off
 * while they are signed: a batch is sized to last about 20 s at the rate of the batch before
 * (the first: 100 requests), since a DPoP proof is accepted for 60 s after its `iat`;
 * `code-openid` exchanges codes for scope=openid (bench/openid.ts: the demo strict app, an
 * ID token signed PS256 in every answer) made in the same batches through the authorization
 * endpoint with instrumentation off (a code lives 60 s; under valgrind the server makes a
 * few a second, so fewer are counted). With `code-openid`, the instructions of one
 * signIdToken alone follow, PS256 and ES256, counted over bench/id-token-signer.ts under
 * callgrind, all threads (see countIdTokenSigning): rows `signIdToken PS256 alone` and
 * `signIdToken ES256 alone`, per ID token signed.
 * Env: INSTR_REQUESTS (counted requests per scenario; default 8,000, 3,000 for the one-use
 * scenarios refresh, gateway-dpop and refresh-fapi, and 300 for code-openid), INSTR_WARMUP
 * (warm-up requests; default 15,000, 3,000 for the one-use scenarios and 100 for
 * code-openid), INSTR_THREAD=main (count only the main thread, where requests run, but not
 * the thread pool, where an ID token is signed: the totals of all threads include V8's
 * helper threads and the WAL checkpoint thread, whose share follows how long the run takes,
 * and moved by ±10 % between identical runs on a busy machine), INSTR_DUMP_DIR (keep each
 * scenario's callgrind dumps in <dir>/<scenario>/, the signIdToken counts' in
 * <dir>/signIdToken-<alg>/, to read with `callgrind_annotate`: where the instructions go, by
 * function of V8, Node, OpenSSL and SQLite; JIT-compiled JavaScript shows as `???`).
 * Needs valgrind (callgrind and callgrind_control) on the PATH: see {@link callgrindMissing}.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { DEMO } from "../server/src/demo/seed.js";
import { OWN_SIGNING_ALGORITHMS } from "../server/src/stores/signing-keys.js";
import { dpopClientCredentialsToken, dpopGatewayTargets, fapiRefreshTargets, fapiRefreshToken, tollgateFapi } from "./fapi.js";
import { codeExchangeTarget, tollgateCodes } from "./openid.js";
import {
  accessToken,
  freePort,
  gatewayTarget,
  introspectionTarget,
  makeTempDir,
  probe,
  refreshTarget,
  refreshTokens,
  registerApi,
  registerJwtApi,
  removeTempDir,
  startInstance,
  startPeer,
  startScript,
  stopAll,
  tokenTarget,
  type Instance,
  type Target,
} from "./support.js";

/** The scenarios that can be counted, in the order of `npm run bench`. */
export const INSTRUCTION_SCENARIOS = ["issuance", "gateway", "introspection", "refresh", "gateway-dpop", "refresh-fapi", "code-openid", "gateway-jwt"] as const;

/** Scenarios whose requests can be sent once only (a rotated refresh token, a DPoP proof, a client assertion): fewer are counted by default. */
const ONE_USE = new Set<string>(["refresh", "gateway-dpop", "refresh-fapi"]);

/**
 * Requests counted and sent before (warm-up) by default in `code-openid`: few, since under
 * valgrind our authorization endpoint makes only a few codes a second, and each must be
 * exchanged within 60 s of being made; and enough, since the ID token's signature is most of
 * the count.
 */
const CODE_EXCHANGES = { counted: 300, warmup: 100 };

/** ID tokens signed by signIdToken alone per algorithm: unrecorded first, then counted. */
const SIGNATURES = { warmup: 50, counted: 500 };

/** Connections the load is sent over. */
const CONNECTIONS = 10;
/** Seconds a batch of one-use requests should last at most: DPoP proofs are accepted for 60 s after their `iat`, and codes live 60 s. */
const BATCH_SECONDS = 20;
/** Requests of the first batch of a scenario with DPoP proofs, before its rate is known. */
const FIRST_BATCH = 100;

/** One scenario's count. */
export interface InstructionCount {
  scenario: string;
  /** Instructions per request answered, all threads (or the main thread's with INSTR_THREAD=main). */
  instructionsPerRequest: number;
  /** Requests answered while instrumentation was on. */
  counted: number;
  /** Of those, the answers that were not 2xx. */
  non2xx: number;
  /** Requests that got no answer (connection errors, timeouts) while counting. */
  errors: number;
}

/**
 * The tools of valgrind that counting needs and that are not on the PATH (`valgrind`,
 * `callgrind_control`): empty when counting can run.
 */
export function callgrindMissing(): string[] {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const found = (tool: string) =>
    dirs.some((dir) => {
      try {
        accessSync(path.join(dir, tool), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return ["valgrind", "callgrind_control"].filter((tool) => !found(tool));
}

/** A number from the environment, or `fallback` when the variable is unset or empty. @throws unless it is a whole number ≥ 0. */
function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${raw}: expected a whole number of requests`);
  return n;
}

/** Requests counted for `scenario` (INSTR_REQUESTS). */
export function countedRequests(scenario: string): number {
  return envCount("INSTR_REQUESTS", scenario === "code-openid" ? CODE_EXCHANGES.counted : ONE_USE.has(scenario) ? 3000 : 8000);
}

/** Warm-up requests for `scenario` (INSTR_WARMUP). */
function warmupRequests(scenario: string): number {
  return envCount("INSTR_WARMUP", scenario === "code-openid" ? CODE_EXCHANGES.warmup : ONE_USE.has(scenario) ? 3000 : 15000);
}

/** Where a scenario's requests come from. */
interface Source {
  /** The target for the next `count` requests. */
  next(count: number): Promise<Target>;
  /** Most requests the next batch may carry, given the requests per second of the batch before (undefined for the first). */
  batchSize(lastRate: number | undefined): number;
}

/** A source sending one target again and again (repeatable requests, or refresh's self-feeding chain), in one batch. */
function repeat(target: Target): Source {
  return { next: async () => target, batchSize: () => Infinity };
}

/**
 * A source of requests each sent once, made for each batch just before it is sent: JWTs of
 * their own (bench/fapi.ts), or authorization codes (bench/openid.ts).
 */
function oneUse(targets: { forCount(count: number, spare: number): Target | Promise<Target> }): Source {
  return {
    // Twice the connections spare: autocannon also asks for a request when it opens a connection.
    next: async (count) => targets.forCount(count, 2 * CONNECTIONS),
    batchSize: (lastRate) => (lastRate === undefined ? FIRST_BATCH : Math.max(50, Math.floor(lastRate * BATCH_SECONDS))),
  };
}

/** Seconds a request may take before autocannon gives up on it (its default, 10, is short for a server under valgrind). */
const REQUEST_TIMEOUT_SECONDS = 60;

/**
 * Sends `amount` requests like `target` over {@link CONNECTIONS} connections.
 * @returns how many got an answer, how many of those were not 2xx, and the errors (timeouts included).
 */
function send(target: Target, amount: number): Promise<{ answered: number; non2xx: number; errors: number }> {
  return new Promise((resolve, reject) =>
    autocannon({ ...target, connections: CONNECTIONS, amount, timeout: REQUEST_TIMEOUT_SECONDS }, (err, result) =>
      err ? reject(err as Error) : resolve({ answered: result.requests.total, non2xx: result.non2xx, errors: result.errors }),
    ),
  );
}

/** Runs callgrind_control `option` on a process under callgrind (the server, or bench/id-token-signer.ts). */
function control(server: Instance, ...option: string[]): void {
  execFileSync("callgrind_control", [...option, String(server.child.pid)], { stdio: "ignore" });
}

/**
 * Sum of the `totals:` lines of the callgrind dumps in `dir` (one file per dump and thread
 * part; with `mainThreadOnly`, only the main thread's, named `…-01`).
 */
function dumpedInstructions(dir: string, mainThreadOnly: boolean): number {
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith("callgrind.out") && (!mainThreadOnly || f.endsWith("-01")))) {
    for (const match of readFileSync(path.join(dir, file), "utf8").matchAll(/^totals: (\d+)/gm)) total += Number(match[1]);
  }
  return total;
}

/**
 * What a process is started behind to be counted: callgrind, instrumentation off until
 * `callgrind_control -i on`, its dumps written to `dumps`, threads apart with `mainThreadOnly`.
 */
function callgrindWrapper(dumps: string, mainThreadOnly: boolean): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    // V8 writes and rewrites machine code in its heap: callgrind must see the new code.
    "--smc-check=all-non-file",
    ...(mainThreadOnly ? ["--separate-threads=yes"] : []),
    `--callgrind-out-file=${path.join(dumps, "callgrind.out.%p")}`,
  ];
}

/**
 * Dumps what `counted` (a process under callgrind) counted since its counters were zeroed
 * into `dumps` (emptied first), copied to INSTR_DUMP_DIR/<keepAs> when that is set.
 * @returns the instructions counted (see {@link dumpedInstructions}).
 */
function dumpCounted(counted: Instance, dumps: string, mainThreadOnly: boolean, keepAs: string): number {
  for (const file of readdirSync(dumps)) rmSync(path.join(dumps, file));
  control(counted, "-d");
  const keep = process.env.INSTR_DUMP_DIR;
  if (keep) {
    mkdirSync(path.join(keep, keepAs), { recursive: true });
    for (const file of readdirSync(dumps)) copyFileSync(path.join(dumps, file), path.join(keep, keepAs, file));
  }
  return dumpedInstructions(dumps, mainThreadOnly);
}

/**
 * Counts the instructions per request of each of `scenarios` (names of
 * {@link INSTRUCTION_SCENARIOS}) on a server of its own under callgrind, as described at the
 * top of this file, and stops it (and the upstream it starts) before returning; with
 * `code-openid`, then the instructions of one signIdToken alone (see {@link countIdTokenSigning}).
 * @param log - gets a line when the server is up and as each scenario's count is known.
 * @returns one count per scenario, in the order given, then the signIdToken counts.
 * @throws on an unknown scenario name, when valgrind is missing (see {@link callgrindMissing}),
 *   when a probe does not answer 200, or when a scenario's set-up fails.
 */
export async function countInstructions(scenarios: readonly string[], log: (line: string) => void = console.log): Promise<InstructionCount[]> {
  const unknown = scenarios.filter((s) => !(INSTRUCTION_SCENARIOS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`no instruction count for scenario(s) ${unknown.join(", ")} (known: ${INSTRUCTION_SCENARIOS.join(", ")})`);
  const missing = callgrindMissing();
  if (missing.length > 0) throw new Error(`${missing.join(" and ")} not on the PATH`);
  const mainThreadOnly = process.env.INSTR_THREAD === "main";
  const dir = makeTempDir("tollgate-instructions-");
  const dumps = path.join(dir, "dumps");
  mkdirSync(dumps);
  let server: Instance | undefined;
  let upstream: Instance | undefined;
  const counts: InstructionCount[] = [];
  try {
    upstream = await startPeer("upstream.ts");
    const port = await freePort();
    server = await startInstance(
      { DATABASE_URL: `file:${path.join(dir, "bench.db")}`, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
      callgrindWrapper(dumps, mainThreadOnly),
    );
    const s = server;
    const upstreamUrl = upstream.url;
    const apiPath = await registerApi(s.url, "bench", upstreamUrl);
    let fapi: Awaited<ReturnType<typeof tollgateFapi>> | undefined;
    const fapiServer = async () => (fapi ??= await tollgateFapi(s.url));
    const prepare: Record<string, () => Promise<Source>> = {
      issuance: async () => repeat(tokenTarget(s.url)),
      gateway: async () => repeat(await gatewayTarget(s.url, apiPath)),
      introspection: async () => repeat(await introspectionTarget(`${s.url}/oauth2/v1/introspect`, DEMO.strictApp, await accessToken(tokenTarget(s.url)))),
      // More tokens than connections: a token whose answer a batch's end cuts off is lost to the chain.
      refresh: async () => repeat(refreshTarget(s.url, await refreshTokens(s.url, 2 * CONNECTIONS + 1))),
      "gateway-dpop": async () => oneUse(dpopGatewayTargets(`${s.url}${apiPath}`, await dpopClientCredentialsToken(await fapiServer()), 0)),
      "refresh-fapi": async () => {
        const f = await fapiServer();
        return oneUse(fapiRefreshTargets(f, await fapiRefreshToken(f), 0));
      },
      "code-openid": async () => {
        const codes = await tollgateCodes(s.url);
        return oneUse({ forCount: (count, spare) => codeExchangeTarget(codes, count, spare) });
      },
      "gateway-jwt": async () => {
        const jwt = await registerJwtApi(s.url, "bench-jwt", upstreamUrl);
        return repeat({ url: `${s.url}${jwt.apiPath}`, headers: { authorization: `Bearer ${await accessToken(jwt.token)}` } });
      },
    };
    log(`callgrind: ${CONNECTIONS} connections${mainThreadOnly ? ", main thread only" : ""}`);
    for (const name of scenarios) {
      const source = await prepare[name]!();
      let probed = false;
      /** Sends `total` requests in the batches the source allows, instrumentation on during each batch when `counting`. */
      const sendAll = async (total: number, counting: boolean) => {
        let answered = 0;
        let non2xx = 0;
        let errors = 0;
        let rate: number | undefined;
        let seconds = 0;
        for (let done = 0; done < total; ) {
          const amount = Math.min(total - done, source.batchSize(rate));
          const target = await source.next(amount);
          if (!probed) {
            await probe(target);
            probed = true;
          }
          if (counting) control(s, "-i", "on");
          const started = performance.now();
          const result = await send(target, amount);
          const batchSeconds = (performance.now() - started) / 1000;
          rate = result.answered / batchSeconds;
          if (counting) control(s, "-i", "off");
          seconds += batchSeconds;
          done += amount;
          answered += result.answered;
          non2xx += result.non2xx;
          errors += result.errors;
        }
        return { answered, non2xx, errors, seconds };
      };
      await sendAll(warmupRequests(name), false);
      control(s, "-z"); // drop whatever was counted so far
      const { answered, non2xx, errors, seconds } = await sendAll(countedRequests(name), true);
      const count = { scenario: name, instructionsPerRequest: dumpCounted(s, dumps, mainThreadOnly, name) / answered, counted: answered, non2xx, errors };
      counts.push(count);
      log(`${name}: ${thousands(count.instructionsPerRequest)} thousand instructions per request (${answered} requests in ${seconds.toFixed(0)} s, ${non2xx} non-2xx, ${errors} errors)`);
    }
  } finally {
    await stopAll(server, upstream);
    removeTempDir(dir);
  }
  return scenarios.includes("code-openid") ? [...counts, ...(await countIdTokenSigning(log))] : counts;
}

/** Instructions in thousands, for the log lines. */
const thousands = (instructions: number) => Math.round(instructions / 1000).toLocaleString("en");

/**
 * The instructions of one `signIdToken` (server/src/oauth/id-token.ts) alone, PS256 then
 * ES256: bench/id-token-signer.ts (a keyring as the server's, its keys in memory) under
 * callgrind, always all threads (node:crypto signs on the thread pool), signing
 * {@link SIGNATURES} `warmup` ID tokens unrecorded, then `counted` ones one after the other
 * with instrumentation on (the one request that asks for them is counted too: well under 1 %
 * of them). Named `signIdToken <alg> alone`.
 */
async function countIdTokenSigning(log: (line: string) => void): Promise<InstructionCount[]> {
  const dumps = makeTempDir("tollgate-id-token-signing-");
  let signer: Instance | undefined;
  try {
    signer = await startScript(fileURLToPath(new URL("./id-token-signer.ts", import.meta.url)), {}, callgrindWrapper(dumps, false));
    const counts: InstructionCount[] = [];
    for (const alg of OWN_SIGNING_ALGORITHMS) {
      const sign = (count: number) => probe({ url: `${signer!.url}/sign?alg=${alg}&count=${count}`, method: "POST", headers: {} });
      await sign(SIGNATURES.warmup);
      control(signer, "-z");
      control(signer, "-i", "on");
      await sign(SIGNATURES.counted);
      control(signer, "-i", "off");
      const name = `signIdToken ${alg} alone`;
      const count = { scenario: name, instructionsPerRequest: dumpCounted(signer, dumps, false, `signIdToken-${alg}`) / SIGNATURES.counted, counted: SIGNATURES.counted, non2xx: 0, errors: 0 };
      counts.push(count);
      log(`${name}: ${thousands(count.instructionsPerRequest)} thousand instructions per ID token (${SIGNATURES.counted} signed)`);
    }
    return counts;
  } finally {
    await stopAll(signer);
    removeTempDir(dumps);
  }
}

/**
 * Instructions per request each hot path may cost on SQLite, counted as {@link countInstructions}
 * counts with its defaults (docs/performance.md states them with today's figures).
 */
export const INSTRUCTION_BUDGETS: Readonly<Partial<Record<string, number>>> = {
  issuance: 550_000,
  gateway: 380_000,
  introspection: 420_000,
  "gateway-dpop": 900_000,
};

/** How far over its budget a count may be before it fails (`npm run bench:instructions`): counts repeat to a few per cent. */
export const BUDGET_TOLERANCE = 0.05;

/** The budget verdict of a count: undefined for a scenario without a budget. */
export function budgetVerdict(count: InstructionCount): { budget: number; within: boolean } | undefined {
  const budget = INSTRUCTION_BUDGETS[count.scenario];
  return budget === undefined ? undefined : { budget, within: count.instructionsPerRequest <= budget * (1 + BUDGET_TOLERANCE) };
}

/**
 * The counts as a console.table: instructions per request in thousands, the budget in
 * thousands (0 when the scenario has none), requests counted, non-2xx, errors.
 */
export function instructionTable(counts: readonly InstructionCount[]): Record<string, Record<string, number>> {
  return Object.fromEntries(
    counts.map((c) => [
      c.scenario,
      {
        "instructions/request (thousands)": Math.round(c.instructionsPerRequest / 1000),
        "budget (thousands)": Math.round((INSTRUCTION_BUDGETS[c.scenario] ?? 0) / 1000),
        "requests counted": c.counted,
        "non-2xx": c.non2xx,
        errors: c.errors,
      },
    ]),
  );
}

/** A line per budgeted count: within its budget, or over it by more than {@link BUDGET_TOLERANCE}. */
export function budgetLines(counts: readonly InstructionCount[]): string[] {
  return counts.flatMap((c) => {
    const verdict = budgetVerdict(c);
    if (!verdict) return [];
    const figures = `${Math.round(c.instructionsPerRequest / 1000)}k of ${verdict.budget / 1000}k`;
    return [`  ${c.scenario}: ${figures} — ${verdict.within ? "within budget" : `OVER BUDGET (more than ${BUDGET_TOLERANCE * 100} % over)`}`];
  });
}
