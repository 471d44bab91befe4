/**
 * Steady request load for the fault tests: a few concurrent workers, each sending one
 * request at a time in a loop until stopped, every answer recorded with its timing. A
 * request that takes longer than its time limit is aborted and recorded with status 0, so
 * a hang fails the test's assertions instead of stalling it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { read, type Answer } from "./flow.js";

/** Longest wait for one answer, milliseconds: far beyond any bound the tests assert. */
const REQUEST_TIMEOUT_MS = 15_000;

/** One recorded request. */
export interface Sample {
  /** What was asked, e.g. `token`, `gateway`. */
  kind: string;
  /** Which worker sent it. */
  worker: number;
  /** Date.now() when it was sent and when its answer had been read, milliseconds. */
  sentAt: number;
  answeredAt: number;
  /** HTTP status; 0 when the request failed or timed out (the error in `text`). */
  status: number;
  headers: Headers;
  text: string;
  body: Answer["body"];
}

/** A request a worker sends: its kind, URL and fetch options. */
export interface LoadRequest {
  kind: string;
  url: string | URL;
  init?: RequestInit;
}

/**
 * Sends `url` with `init` (no redirects followed), aborted after {@link REQUEST_TIMEOUT_MS}.
 * @returns the recorded sample; never throws (a failure is status 0).
 */
export async function timedRequest(kind: string, worker: number, url: string | URL, init: RequestInit = {}): Promise<Sample> {
  const sentAt = Date.now();
  try {
    const answer = await read(await fetch(url, { redirect: "manual", ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }));
    return { kind, worker, sentAt, answeredAt: Date.now(), ...answer };
  } catch (err) {
    return { kind, worker, sentAt, answeredAt: Date.now(), status: 0, headers: new Headers(), text: String(err), body: undefined };
  }
}

/** A running load. */
export interface Load {
  /** Every sample so far (the array keeps growing until `stop`). */
  readonly samples: Sample[];
  /** Stops the workers after their current request. @returns every sample. */
  stop(): Promise<Sample[]>;
}

/**
 * Starts `workers` workers; worker `w` sends `next(w, n)` for n = 0, 1, …, with `pauseMs`
 * (milliseconds) between its requests, and hands each sample to `onSample` (to keep a
 * token for later requests, say).
 */
export function startLoad(o: { workers: number; pauseMs: number; next: (worker: number, n: number) => LoadRequest; onSample?: (sample: Sample) => void }): Load {
  const samples: Sample[] = [];
  let stopped = false;
  const run = async (worker: number) => {
    for (let n = 0; !stopped; n++) {
      const { kind, url, init } = o.next(worker, n);
      const sample = await timedRequest(kind, worker, url, init);
      samples.push(sample);
      o.onSample?.(sample);
      await sleep(o.pauseMs);
    }
  };
  const running = Promise.all(Array.from({ length: o.workers }, (_, w) => run(w)));
  return {
    samples,
    async stop() {
      stopped = true;
      await running;
      return samples;
    },
  };
}
