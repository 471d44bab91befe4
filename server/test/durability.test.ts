/**
 * The short durability check of issue 6 (the long one is `npm run bench:durability`): the
 * built server issues tokens to 20 concurrent clients on a SQLite file, is SIGKILLed after
 * 1.5 s (later on a busy machine, once 100 tokens are out) and restarted on the same file,
 * twice; every token a client got a 200 for must still validate at the gateway, and
 * `PRAGMA integrity_check` must say ok. It runs the built server (dist/, which `npm test`
 * builds first) and is about the SQLite file, so it runs in the SQLite pass only (see
 * vitest.config.ts).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runDurabilityCheck } from "./support/durability.js";
import { SERVER_ENTRY } from "./support/start-command.js";

/** Fewer tokens than this before a kill and the check would prove little. */
const MIN_TOKENS_PER_CYCLE = 50;

describe("durability: SIGKILL under token load", () => {
  // Vitest sets BASE_URL=/ (Vite's base) in process.env, which the child server inherits and
  // rejects as its BASE_URL setting.
  beforeAll(() => void vi.stubEnv("BASE_URL", undefined));
  afterAll(() => void vi.unstubAllEnvs());

  it("loses no token a client got a 200 for, and leaves a sound SQLite file", { timeout: 60_000 }, async () => {
    expect(existsSync(SERVER_ENTRY), `${path.resolve(SERVER_ENTRY)} is missing: run \`npm run build\` first`).toBe(true);
    // The kill waits past 1.5 s for 2 × MIN_TOKENS_PER_CYCLE tokens when the machine is busy.
    const result = await runDurabilityCheck({ concurrency: 20, killAfterMs: 1500, minTokensBeforeKill: 2 * MIN_TOKENS_PER_CYCLE, cycles: 2 });

    for (const cycle of result.cycles) {
      expect(cycle.recorded, `cycle ${cycle.cycle}: tokens recorded before the kill`).toBeGreaterThan(MIN_TOKENS_PER_CYCLE);
      expect(cycle.failuresBeforeKill, `cycle ${cycle.cycle}: failed requests before the kill`).toBe(0);
      expect({ cycle: cycle.cycle, lost: cycle.lost, answers: cycle.lostAnswers }).toEqual({ cycle: cycle.cycle, lost: 0, answers: {} });
      expect(cycle.integrityAtCrash, `cycle ${cycle.cycle}: integrity as the crash left the file`).toBe("ok");
      expect(cycle.integrityAfterRestart, `cycle ${cycle.cycle}: integrity after the restart`).toBe("ok");
    }
    expect({ lost: result.lost, answers: result.lostAnswers }).toEqual({ lost: 0, answers: {} });
    expect(result.unknownTokenAnswer, "a made-up token must be refused, or the check proves nothing").toBe("401");
    expect(result.accessTokenRows).toBeGreaterThanOrEqual(result.recorded);
    expect(result.integrity).toBe("ok");
  });
});
