/**
 * A throwaway redis-server for the fault tests, on a free port of 127.0.0.1, without
 * persistence (`--save "" --appendonly no`), so that a test can SIGKILL it under load and
 * start it again on the same port. The machine's own Redis (127.0.0.1:6379) is never touched.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";

/** Longest wait for redis-server to accept connections, milliseconds. */
const START_TIMEOUT_MS = 10_000;

/** A redis-server child process. */
export interface RedisProcess {
  port: number;
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** SIGKILLs the server (as a crash would) and waits for the process to end. */
  kill(): Promise<void>;
  /** Starts a new, empty server on the same port, returning once it answers PING. */
  start(): Promise<void>;
  /** SIGSTOPs the server: connections stay open and nothing answers (a hang, not a crash). */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** A client of the server, for the test's own looks at keys (disconnect it when done). */
  client(): Redis;
  /** Kills the server if it runs. */
  stop(): Promise<void>;
}

/** Waits until `port` answers PING, or throws after {@link START_TIMEOUT_MS}. */
async function waitForPing(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output()}`);
    const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") return;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${START_TIMEOUT_MS} ms: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts redis-server (from PATH) on a free port.
 * @returns the running server; call `stop()` when done.
 * @throws when redis-server is missing or does not answer within 10 s.
 */
export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    let output = "";
    const spawned = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
    spawned.stdout?.on("data", (d: Buffer) => void (output += d.toString()));
    spawned.stderr?.on("data", (d: Buffer) => void (output += d.toString()));
    spawned.on("error", (err) => void (output += String(err)));
    child = spawned;
    await waitForPing(port, spawned, () => output.slice(-2000));
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
    client: () => new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 }),
    stop: kill,
  };
}
