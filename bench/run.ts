/**
 * `npm run bench`: throughput and latency of Tollgate's two hot paths, printed as a table.
 *
 * Spawns the built server (`node dist/server/src/main.js`, so `npm run build` first) as a
 * child process on a fresh SQLite file in a temp dir, with the demo seeded, so that the
 * load generator and the server do not share one event loop. Then autocannon measures:
 *   1. client-credentials issuance: POST /oauth2/v1/token, Basic auth of the demo app;
 *   2. gateway calls: GET /accounts/ with one bearer token obtained up front (this
 *      includes the hop to the demo upstream, which runs inside the server process).
 * Finally prints the server's peak RSS (VmHWM from /proc/<pid>/status) and cleans up.
 *
 * Env: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 50).
 * It prints figures, it does not assert: non-2xx responses and errors are counted and shown.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { DEMO } from "../server/src/demo/seed.js";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

const basic = `Basic ${Buffer.from(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).toString("base64")}`;
const tokenRequest = {
  method: "POST" as const,
  headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
  body: "grant_type=client_credentials",
};

/** Starts the built server with PORT 0 and resolves with its URL, read from its start banner. */
function startChild(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["dist/server/src/main.js"], {
    env: {
      ...process.env,
      PORT: "0",
      DEMO_UPSTREAM_PORT: "0",
      LOG_LEVEL: "silent",
      SEED_DEMO: "true",
      DATABASE_URL: `file:${path.join(dir, "bench.db")}`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        child.stdout!.removeAllListeners("data").resume();
        resolve({ child, url: match[1] });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with code ${code} before listening:\n${out}`)));
  });
}

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${url}/healthz did not answer 200`);
}

/** One request as both fetch and autocannon take it. */
interface Target {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** Sends one request like the scenario's. @returns its body. @throws unless it answers 200. */
async function probe({ url, method, headers, body }: Target): Promise<string> {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return text;
}

function peakRssMb(pid: number): string {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? `${(Number(match[1]) / 1024).toFixed(1)} MB` : "n/a";
}

const dir = mkdtempSync(path.join(tmpdir(), "tollgate-bench-"));
const { child, url } = await startChild(dir);
try {
  await waitForHealth(url);
  const tokenOptions: Target = { url: `${url}/oauth2/v1/token`, ...tokenRequest };
  const token = (JSON.parse(await probe(tokenOptions)) as { access_token: string }).access_token;
  const scenarios: [string, Target][] = [
    ["POST /oauth2/v1/token (client_credentials)", tokenOptions],
    ["GET /accounts/ (bearer, via gateway)", { url: `${url}/accounts/`, headers: { authorization: `Bearer ${token}` } }],
  ];
  console.log(`Tollgate at ${url}: ${connections} connections, ${duration} s per scenario\n`);
  const rows = [];
  for (const [scenario, options] of scenarios) {
    await probe(options);
    const r = await autocannon({ ...options, connections, duration });
    const codes = Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => `${code}×${s.count ?? 0}`).join(" ");
    rows.push({
      scenario,
      "req/s (avg)": Math.round(r.requests.average),
      "p50 ms": r.latency.p50,
      "p99 ms": r.latency.p99,
      "non-2xx": r.non2xx,
      errors: r.errors,
      "status codes": codes,
    });
  }
  console.table(rows);
  console.log(`Peak RSS of the server process (VmHWM): ${peakRssMb(child.pid!)}`);
} finally {
  child.removeAllListeners("exit");
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
