/**
 * `npm run bench`: throughput and latency of Tollgate's two hot paths on a fresh SQLite
 * file, printed as a table with the server's peak RSS:
 *   1. client-credentials issuance: POST /oauth2/v1/token, Basic auth of the demo app;
 *   2. gateway calls: GET /accounts/ with one bearer token (including the hop to the demo
 *      upstream, which runs inside the server process).
 * Env: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 50).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connections, duration, gatewayTarget, load, peakRssMb, startInstance, stopInstance, tokenTarget } from "./support.js";

const dir = mkdtempSync(path.join(tmpdir(), "tollgate-bench-"));
const instance = await startInstance({ DATABASE_URL: `file:${path.join(dir, "bench.db")}` });
try {
  console.log(`Tollgate at ${instance.url} (SQLite): ${connections} connections, ${duration} s per scenario\n`);
  console.table({
    "POST /oauth2/v1/token (client_credentials)": await load([tokenTarget(instance.url)]),
    "GET /accounts/ (bearer, via gateway)": await load([await gatewayTarget(instance.url)]),
  });
  console.log(`Peak RSS of the server process (VmHWM): ${peakRssMb(instance.child.pid!)}`);
} finally {
  await stopInstance(instance);
  rmSync(dir, { recursive: true, force: true });
}
