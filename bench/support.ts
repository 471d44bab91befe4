/**
 * Shared parts of the benchmarks: starting the built server as a child process (so the load
 * generator and the server do not share one event loop), autocannon scenarios, peak RSS.
 * Benchmarks print figures; they assert nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { DEMO } from "../server/src/demo/seed.js";

export const duration = Number(process.env.BENCH_DURATION ?? 10);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

/** One request as both fetch and autocannon take it. */
export interface Target {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface Instance {
  child: ChildProcess;
  url: string;
}

/**
 * Starts `node dist/server/src/main.js` with `env` (PORT 0, demo seeded, logs and rate
 * limits off) and resolves once /healthz answers.
 */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ["dist/server/src/main.js"], {
    env: {
      ...process.env,
      PORT: "0",
      DEMO_UPSTREAM_PORT: "0",
      LOG_LEVEL: "silent",
      SEED_DEMO: "true",
      TOKEN_RATE_LIMIT_PER_CLIENT: "0",
      TOKEN_RATE_LIMIT_PER_IP: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        child.stdout!.removeAllListeners("data").resume();
        child.removeAllListeners("exit");
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with code ${code} before listening:\n${out}`)));
  });
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) return { child, url };
    await sleep(100);
  }
  throw new Error(`${url}/healthz did not answer 200`);
}

/** Stops an instance: SIGTERM, then SIGKILL after 5 s. */
export async function stopInstance({ child }: Instance): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Sends one request like the scenario's. @returns its body. @throws unless it answers 200. */
export async function probe({ url, method, headers, body }: Target): Promise<string> {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return text;
}

/** The client-credentials token request of the demo app at `baseUrl`. */
export function tokenTarget(baseUrl: string): Target {
  return {
    url: `${baseUrl}/oauth2/v1/token`,
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  };
}

/** A gateway call to the demo accounts API at `baseUrl` with a fresh token. */
export async function gatewayTarget(baseUrl: string): Promise<Target> {
  const token = (JSON.parse(await probe(tokenTarget(baseUrl))) as { access_token: string }).access_token;
  return { url: `${baseUrl}/accounts/`, headers: { authorization: `Bearer ${token}` } };
}

export interface Figures {
  "req/s": number;
  "p50 ms": number;
  "p99 ms": number;
  "non-2xx": number;
  errors: number;
}

/**
 * Loads the targets at once (connections split between them) for `duration` seconds.
 * @returns summed req/s, the worst p50/p99 of the targets, and failure counts.
 */
export async function load(targets: Target[]): Promise<Figures> {
  for (const t of targets) await probe(t);
  const results = await Promise.all(
    targets.map((t) => autocannon({ ...t, connections: Math.max(1, Math.round(connections / targets.length)), duration })),
  );
  return {
    "req/s": Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    "p50 ms": Math.max(...results.map((r) => r.latency.p50)),
    "p99 ms": Math.max(...results.map((r) => r.latency.p99)),
    "non-2xx": results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** Peak resident memory of a process (VmHWM), MB. */
export function peakRssMb(pid: number): string {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? `${(Number(match[1]) / 1024).toFixed(1)} MB` : "n/a";
}
