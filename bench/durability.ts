/**
 * `npm run bench:durability`: the long durability check of issue 6 (the short one runs in
 * `npm test`, server/test/durability.test.ts). Concurrent clients take client-credentials
 * tokens from the built server on a SQLite file; the server is SIGKILLed mid-run and
 * restarted on the same file, several times. Every token a client got a 200 for must still
 * validate at the gateway, and `PRAGMA integrity_check` must say ok. Prints a table per
 * cycle, a summary per SQLite setting and a verdict line; exits 1 when anything was lost.
 *
 * Env: DURABILITY_CYCLES (kill cycles, default 3); BENCH_CONNECTIONS (concurrent clients,
 * default 50); DURABILITY_KILL_AFTER_MS (issuing time before each kill, ms, default 5000);
 * SQLITE_SYNCHRONOUS: comma-separated `synchronous` settings to compare (e.g. NORMAL,FULL,
 * each on a fresh file), used only when the built server reads that variable; otherwise
 * the server's own setting is used and the header says so.
 */
import { readFileSync } from "node:fs";
import { exitOnSignals } from "./support.js";
import { runDurabilityCheck, type DurabilityResult } from "../server/test/support/durability.js";
import { SERVER_ENTRY } from "../server/test/support/start-command.js";

exitOnSignals();
const cycles = Number(process.env.DURABILITY_CYCLES ?? 3);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 50);
const killAfterMs = Number(process.env.DURABILITY_KILL_AFTER_MS ?? 5000);

/** Whether the built server's configuration mentions `variable` (read from dist/, which this bench runs). */
function buildReads(variable: string): boolean {
  try {
    return readFileSync(SERVER_ENTRY.replace(/main\.js$/, "config.js"), "utf8").includes(variable);
  } catch {
    return false;
  }
}

const requested = (process.env.SQLITE_SYNCHRONOUS ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
const supported = buildReads("SQLITE_SYNCHRONOUS");
/** `undefined`: the server's own setting. */
const settings: (string | undefined)[] = supported && requested.length > 0 ? requested : [undefined];

console.log(`${cycles} kill cycles, ${concurrency} concurrent clients, SIGKILL after ${killAfterMs} ms of issuing each`);
if (!supported) {
  console.log(
    `SQLite synchronous: the server's built-in setting (this build does not read SQLITE_SYNCHRONOUS${requested.length > 0 ? `; ${requested.join(",")} ignored` : ""})`,
  );
}
console.log();

const summary: Record<string, Record<string, string | number>> = {};
const failures: string[] = [];
for (const setting of settings) {
  const label = setting === undefined ? "server default" : `synchronous=${setting}`;
  if (setting !== undefined) console.log(`SQLITE_SYNCHRONOUS=${setting}`);
  const result: DurabilityResult = await runDurabilityCheck({
    concurrency,
    killAfterMs,
    cycles,
    env: setting === undefined ? {} : { SQLITE_SYNCHRONOUS: setting },
  });
  console.table(
    result.cycles.map((c) => ({
      cycle: c.cycle,
      "tokens (200)": c.recorded,
      "tokens/s": c.tokensPerSecond,
      lost: c.lost,
      "in flight at kill": c.inFlightFailures,
      "failed before kill": c.failuresBeforeKill,
      "integrity at crash": c.integrityAtCrash,
      "integrity after restart": c.integrityAfterRestart,
      "restart ms": c.restartMs,
      "check ms": c.verifyMs,
    })),
  );
  const issuingMs = result.cycles.reduce((sum, c) => sum + c.issuingMs, 0);
  summary[label] = {
    "tokens (200)": result.recorded,
    "tokens/s": Math.round(result.recorded / (issuingMs / 1000)),
    "lost (final check)": result.lost,
    "AccessToken rows": result.accessTokenRows,
    "made-up token": result.unknownTokenAnswer,
    "integrity at end": result.integrity,
    "duration s": Number((result.durationMs / 1000).toFixed(1)),
  };
  const problems = [
    result.lost > 0 && `${result.lost} tokens lost (${JSON.stringify(result.lostAnswers)})`,
    result.cycles.some((c) => c.lost > 0) && "tokens lost after a restart",
    result.cycles.some((c) => c.integrityAtCrash !== "ok" || c.integrityAfterRestart !== "ok") && "integrity_check not ok after a kill",
    result.integrity !== "ok" && `integrity_check at end: ${result.integrity}`,
    result.accessTokenRows < result.recorded && `only ${result.accessTokenRows} AccessToken rows for ${result.recorded} tokens`,
    result.unknownTokenAnswer === "200" && "a made-up token validated: the gateway check proves nothing",
    result.cycles.some((c) => c.recorded === 0) && "a cycle recorded no token before its kill",
  ].filter((p): p is string => typeof p === "string");
  failures.push(...problems.map((p) => `${label}: ${p}`));
}

console.log();
console.table(summary);
const kills = cycles * settings.length;
const tokens = Object.values(summary).reduce((sum, s) => sum + Number(s["tokens (200)"]), 0);
console.log(
  failures.length === 0
    ? `\nVERDICT: PASS: 0 of ${tokens} tokens lost over ${kills} SIGKILLs; integrity_check ok after every kill`
    : `\nVERDICT: FAIL: ${failures.join("; ")}`,
);
if (failures.length > 0) process.exitCode = 1;
