/**
 * The durability check of issue 6, shared by `server/test/durability.test.ts` (short) and
 * `bench/durability.ts` (long): the built server (dist/server/src/main.js, a child process)
 * issues client-credentials tokens to concurrent clients on a SQLite file, is killed with
 * SIGKILL mid-run, and is restarted on the same file. Every token a client got a 200 with a
 * complete JSON body for must still validate at the gateway (`GET /products/`, the demo's open data), the file
 * must pass `PRAGMA integrity_check`, and "AccessToken" must hold at least as many rows as
 * tokens were recorded.
 *
 * A SIGKILL is a process crash, not an OS crash: committed pages in the OS page cache
 * survive it whatever `synchronous` says, so this checks that the server answers 200 only
 * after its commit, not how much an OS crash or power loss may drop.
 */
import { freePort } from "./free-port.js";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { makeTempDir, removeTempDir, startInstance, stopInstance, tokenTarget, type Instance } from "../../../bench/support.js";
import { SERVER_ENTRY } from "./start-command.js";

export interface DurabilityOptions {
  /** SQLite file to use (created, migrated and seeded by the first start). Default: a new temp file, removed at the end. */
  databaseFile?: string;
  /** Concurrent issuing clients (each one request at a time on keep-alive connections). */
  concurrency: number;
  /** Time from the start of issuing to the SIGKILL, ms. */
  killAfterMs: number;
  /**
   * Delay the SIGKILL past `killAfterMs` until this many tokens are recorded (at most 20 s
   * more), so a slow or busy machine still kills a loaded server. Default 0.
   */
  minTokensBeforeKill?: number;
  /** Kill cycles: start (or restart), issue, SIGKILL; then a final restart for the checks. Default 1. */
  cycles?: number;
  /** Concurrent gateway calls when checking the recorded tokens. Default 16. */
  verifyConcurrency?: number;
  /** Extra server environment (e.g. a SQLite setting), on top of startInstance's defaults. */
  env?: Record<string, string>;
  /** Called as each cycle's figures are complete (after the restart that checks them). */
  onCycle?: (figures: CycleFigures) => void;
}

/** One kill cycle, checked on the restart after its SIGKILL. */
export interface CycleFigures {
  cycle: number;
  /** Distinct tokens whose response was 200 with a complete JSON body. */
  recorded: number;
  /** From the start of issuing to the SIGKILL, ms (killAfterMs, or more to reach minTokensBeforeKill). */
  issuingMs: number;
  /** Recorded tokens per second of issuing. */
  tokensPerSecond: number;
  /** Recorded tokens of this cycle that did not answer 200 at the gateway after the restart. */
  lost: number;
  /** Gateway answers of this cycle's lost tokens, e.g. { "401": 3, "error": 1 }. */
  lostAnswers: Record<string, number>;
  /** Requests that failed (error, truncated body, non-200) once the SIGKILL was sent: expected. */
  inFlightFailures: number;
  /** Requests that failed before the SIGKILL: should be 0 (a broken server or an overloaded machine). */
  failuresBeforeKill: number;
  /** PRAGMA integrity_check of the file as the crash left it (read-only, before the restart). */
  integrityAtCrash: string;
  /** PRAGMA integrity_check with the restarted server running. */
  integrityAfterRestart: string;
  /** From spawning the restarted server to its /healthz answering, ms. */
  restartMs: number;
  /** Checking this cycle's tokens at the gateway, ms. */
  verifyMs: number;
}

export interface DurabilityResult {
  cycles: CycleFigures[];
  /** Distinct tokens recorded over all cycles. */
  recorded: number;
  /** Recorded tokens (all cycles) not answering 200 at the gateway on the final instance. */
  lost: number;
  /** Gateway answers of the lost tokens, e.g. { "401": 3, "error": 1 }. */
  lostAnswers: Record<string, number>;
  /** Gateway answer to a made-up token on the final instance: not "200", or the check proves nothing. */
  unknownTokenAnswer: string;
  /** Rows in "AccessToken" at the end (≥ recorded unless tokens were lost). */
  accessTokenRows: number;
  /** PRAGMA integrity_check after the final graceful stop (read-only): "ok" when sound. */
  integrity: string;
  /** Whole run, including starts, stops and checks, ms. */
  durationMs: number;
}

/**
 * Runs `PRAGMA integrity_check` on `file`, read-only.
 * @returns the rows joined by "; " ("ok" when sound), or "cannot open: <reason>".
 */
export function integrityCheck(file: string): string {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    return `cannot open: ${(err as Error).message}`;
  }
  try {
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("; ");
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  } finally {
    db.close();
  }
}

/** Rows in "AccessToken" of `file`, read-only. */
function countAccessTokens(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM "AccessToken"').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Extra time allowed past `killAfterMs` to reach `minTokensBeforeKill`, ms. */
const MAX_EXTRA_ISSUING_MS = 20_000;

/**
 * Issues tokens from `concurrency` loops until `killAfterMs` has passed and `minTokens` are
 * recorded (or MAX_EXTRA_ISSUING_MS more has passed), then SIGKILLs the instance and waits
 * for it to exit. Loops stop starting requests at the kill.
 * @returns the recorded tokens, the issuing time (ms) and the failure counts before and after the kill.
 */
async function issueUntilKilled(instance: Instance, concurrency: number, killAfterMs: number, minTokens: number) {
  const target = tokenTarget(instance.url);
  const tokens = new Set<string>();
  let killed = false;
  let inFlightFailures = 0;
  let failuresBeforeKill = 0;
  const fail = () => (killed ? inFlightFailures++ : failuresBeforeKill++);
  const exited = new Promise((resolve) => instance.child.once("exit", resolve));

  const loop = async () => {
    while (!killed) {
      try {
        const res = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
        const text = await res.text();
        const token = res.status === 200 ? (JSON.parse(text) as { access_token?: unknown }).access_token : undefined;
        if (typeof token === "string" && token !== "") tokens.add(token);
        else fail();
      } catch {
        fail(); // connection reset or refused, body cut off, or a partial JSON body
      }
    }
  };
  const began = performance.now();
  const loops = Array.from({ length: concurrency }, loop);
  await sleep(killAfterMs);
  while (tokens.size < minTokens && performance.now() - began < killAfterMs + MAX_EXTRA_ISSUING_MS) await sleep(20);
  const issuingMs = Math.round(performance.now() - began);
  killed = true;
  instance.child.kill("SIGKILL");
  await Promise.all([exited, ...loops]);
  return { tokens: [...tokens], issuingMs, inFlightFailures, failuresBeforeKill };
}

/**
 * Calls `GET {url}/products/` (open data, which a client credentials token may read) with each token, `concurrency` at a time. A call that errors
 * (no HTTP answer) is tried up to 3 times.
 * @returns how many did not answer 200, by answer (status code or "error").
 */
async function verifyTokens(url: string, tokens: readonly string[], concurrency: number) {
  const answers: Record<string, number> = {};
  let lost = 0;
  let next = 0;
  const check = async (token: string): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`${url}/products/`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return String(res.status);
      } catch {
        if (attempt === 3) return "error";
      }
    }
  };
  const worker = async () => {
    while (next < tokens.length) {
      const answer = await check(tokens[next++]!);
      if (answer !== "200") {
        lost++;
        answers[answer] = (answers[answer] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tokens.length) }, worker));
  return { lost, answers };
}

/** Starts the built server on `databaseFile`; @returns the instance and how long the start took, ms. */
async function start(databaseFile: string, env: Record<string, string>): Promise<{ instance: Instance; ms: number }> {
  const began = performance.now();
  const instance = await startInstance({ ...env, DATABASE_URL: `file:${databaseFile}` });
  return { instance, ms: Math.round(performance.now() - began) };
}

/**
 * Runs the durability check (see the file's comment): `cycles` times start (or restart) the
 * server, issue tokens for `killAfterMs` ms (or until `minTokensBeforeKill`), SIGKILL; after each restart check the previous
 * cycle's tokens and the file; on the final restart check every token again, count the rows,
 * stop gracefully and check the file once more. Asserts nothing: the caller judges the figures.
 * @throws if dist/server/src/main.js is missing or the server does not start.
 */
export async function runDurabilityCheck(options: DurabilityOptions): Promise<DurabilityResult> {
  if (!existsSync(SERVER_ENTRY)) {
    throw new Error(`${path.resolve(SERVER_ENTRY)} is missing: run \`npm run build\` first (the durability check runs the built server)`);
  }
  const { concurrency, killAfterMs, minTokensBeforeKill = 0, cycles = 1, verifyConcurrency = 16, onCycle } = options;
  if (!(cycles >= 1 && concurrency >= 1 && killAfterMs > 0)) throw new Error("cycles and concurrency must be ≥ 1, killAfterMs > 0");
  const began = performance.now();
  const tempDir = options.databaseFile ? undefined : makeTempDir("tollgate-durability-");
  const databaseFile = options.databaseFile ?? path.join(tempDir!, "durability.db");
  // The seeded `accounts` API stores the demo upstream's URL: the upstream must come back on
  // the same port after each restart, so it gets one fixed port instead of PORT 0.
  const env = { ...options.env, DEMO_UPSTREAM_PORT: String(await freePort()) };

  let instance: Instance | undefined;
  try {
    const figures: CycleFigures[] = [];
    const recorded: string[] = [];
    instance = (await start(databaseFile, env)).instance;
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const run = await issueUntilKilled(instance, concurrency, killAfterMs, minTokensBeforeKill);
      instance = undefined;
      recorded.push(...run.tokens);
      const integrityAtCrash = integrityCheck(databaseFile);
      const restart = await start(databaseFile, env);
      instance = restart.instance;
      const verifyBegan = performance.now();
      const { lost, answers } = await verifyTokens(instance.url, run.tokens, verifyConcurrency);
      const done: CycleFigures = {
        cycle,
        recorded: run.tokens.length,
        issuingMs: run.issuingMs,
        tokensPerSecond: Math.round(run.tokens.length / (run.issuingMs / 1000)),
        lost,
        lostAnswers: answers,
        inFlightFailures: run.inFlightFailures,
        failuresBeforeKill: run.failuresBeforeKill,
        integrityAtCrash,
        integrityAfterRestart: integrityCheck(databaseFile),
        restartMs: restart.ms,
        verifyMs: Math.round(performance.now() - verifyBegan),
      };
      figures.push(done);
      onCycle?.(done);
    }
    // The last cycle's tokens were just checked on this instance; earlier cycles' tokens have
    // lived through more kills since their own check, so they are checked again.
    const last = figures.at(-1)!;
    const earlier = await verifyTokens(instance.url, recorded.slice(0, recorded.length - last.recorded), verifyConcurrency);
    const lostAnswers = { ...earlier.answers };
    for (const [answer, n] of Object.entries(last.lostAnswers)) lostAnswers[answer] = (lostAnswers[answer] ?? 0) + n;
    const control = await verifyTokens(instance.url, [randomBytes(32).toString("base64url")], 1);
    const accessTokenRows = countAccessTokens(databaseFile);
    await stopInstance(instance);
    instance = undefined;
    return {
      cycles: figures,
      recorded: recorded.length,
      lost: earlier.lost + last.lost,
      lostAnswers,
      unknownTokenAnswer: Object.keys(control.answers)[0] ?? "200",
      accessTokenRows,
      integrity: integrityCheck(databaseFile),
      durationMs: Math.round(performance.now() - began),
    };
  } finally {
    if (instance) await stopInstance(instance);
    if (tempDir) removeTempDir(tempDir);
  }
}
