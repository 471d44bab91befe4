/**
 * `npm run bench:instructions`: CPU instructions per request of our server on the hot paths,
 * counted by callgrind (valgrind), on their own: the counting of bench/callgrind.ts (which
 * describes the method, its precision and its env: INSTR_REQUESTS, INSTR_WARMUP,
 * INSTR_THREAD), which `npm run bench` also runs at its end. The built server runs under
 * callgrind on a fresh SQLite file.
 * Prints a line per scenario as it is counted, then a table: scenario, instructions per
 * request (thousands), its budget (thousands), requests counted, non-2xx, errors (with
 * code-openid, two more rows: one signIdToken alone, PS256 and ES256, per ID token); then a
 * verdict per budgeted scenario. Exits 1 when a scenario costs more than its budget
 * (INSTRUCTION_BUDGETS of bench/callgrind.ts) by more than 5 %. CI does not run it: it takes
 * about twenty minutes.
 * Env: BENCH_SCENARIOS (comma-separated, default all of issuance, gateway, introspection,
 * refresh, gateway-dpop, refresh-fapi, code-openid), and those of bench/callgrind.ts.
 * Needs valgrind (callgrind and callgrind_control) on the PATH.
 */
import { budgetLines, budgetVerdict, callgrindMissing, countInstructions, INSTRUCTION_SCENARIOS, instructionTable } from "./callgrind.js";
import { exitOnSignals } from "./support.js";

exitOnSignals();
const missing = callgrindMissing();
if (missing.length > 0) {
  console.error(`${missing.join(" and ")} not on the PATH: install valgrind`);
  process.exit(1);
}
const scenarios = process.env.BENCH_SCENARIOS?.split(",").filter(Boolean) ?? [...INSTRUCTION_SCENARIOS];
const counts = await countInstructions(scenarios);
console.log();
console.table(instructionTable(counts));
console.log("\nBudgets (instructions per request on SQLite):");
for (const line of budgetLines(counts)) console.log(line);
if (counts.some((c) => budgetVerdict(c)?.within === false)) process.exit(1);
