/**
 * SQLite WAL checkpoints in a worker thread. A checkpoint copies committed pages from the
 * WAL into the database file and syncs it: run by the committing connection (SQLite's
 * automatic checkpoint every 1000 pages), it stalls the event loop for milliseconds. Here a
 * second connection in its own thread runs `PRAGMA wal_checkpoint(PASSIVE)` every
 * `intervalMs`, which waits for no reader or writer, and the main connection turns its
 * automatic checkpoints off (db/database.ts). Measured on issuance: p99 32 → 25 ms,
 * throughput +18 % (docs/performance.md).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** The worker's program (CommonJS, evaluated): checkpoint on a timer, once more on "stop", then exit. */
const PROGRAM = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
const checkpoint = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch { /* busy: next time */ } };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once("message", () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing the SQLite file `file` every `intervalMs` milliseconds.
 * The thread does not keep the process alive.
 */
export function startCheckpointer(file: string, intervalMs = 100): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(PROGRAM, { eval: true, workerData: { file, driver, intervalMs } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.on("error", () => {}); // a failed checkpoint thread leaves SQLite's WAL to grow; commits go on
  return {
    async stop() {
      worker.postMessage("stop");
      await exited;
    },
  };
}
