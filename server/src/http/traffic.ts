/**
 * Gateway traffic for the operations dashboard: every gateway call counted per UTC minute,
 * API, client and status class in a {@link Tally}, flushed to the traffic store every
 * AUDIT_REFUSAL_FLUSH_SECONDS and on shutdown. The keys are bounded by what is registered:
 * the API is a registered one or "", the client the id of a valid token or "".
 */
import { Tally } from "../kernel/tally.js";
import { contextOf } from "../kernel/request-context.js";
import type { Metrics } from "../kernel/metrics.js";
import type { TrafficCount, TrafficStore } from "../stores/traffic.js";
import { GATEWAY_ROUTE, UNMATCHED_ROUTE } from "./metrics.js";
import type { Middleware } from "./node.js";

const MINUTE_MS = 60_000;

/** Counts gateway calls and writes the counts through `traffic.add`. */
export class TrafficRecorder {
  readonly #tally: Tally<Omit<TrafficCount, "count">>;

  /**
   * @param flushSeconds - seconds between flushes.
   * @param onError - told when a flush fails (its counts are dropped: the database is failing).
   */
  constructor(traffic: Pick<TrafficStore, "add">, flushSeconds: number, onError: (err: unknown) => void) {
    this.#tally = new Tally((entries) => traffic.add(entries.map((e) => ({ ...e.first, count: e.count }))), flushSeconds, onError);
  }

  /**
   * Counts one call.
   * @param api - a registered API's name, or "".
   * @param clientId - the client id of a valid token, or "".
   * @param status - the HTTP status answered.
   * @param now - when, in milliseconds since the epoch.
   */
  record(api: string, clientId: string, status: number, now: number = Date.now()): void {
    const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const statusClass = Math.min(5, Math.max(1, Math.floor(status / 100)));
    this.#tally.add(`${minute}|${statusClass}|${api}|${clientId}`, () => ({ minute: new Date(minute), api, clientId, statusClass }));
  }

  /** Writes the counts held. Never rejects. */
  flush(): Promise<void> {
    return this.#tally.flush();
  }

  /** Stops the schedule and flushes what is held (on shutdown, before the database closes). */
  close(): Promise<void> {
    return this.#tally.close();
  }
}

/**
 * Middleware observing each gateway call once answered, with one `close` listener (a
 * listener per call is a cost the gateway's profile shows): its traffic count, by the API
 * and client the gateway found (the request context, gateway/router.ts); and with metrics
 * on, its timing under {@link GATEWAY_ROUTE} once the gateway found a registered API, else
 * {@link UNMATCHED_ROUTE}, and the count of calls to registered APIs by API and status.
 * Runs after the request log, which enters the request context.
 */
export function gatewayObserver(traffic: TrafficRecorder, metrics?: Metrics): Middleware {
  return (req, res, next) => {
    const method = metrics?.requestStarted(req.method);
    const started = metrics ? performance.now() : 0;
    res.once("close", () => {
      const request = contextOf(req);
      const api = request?.api;
      traffic.record(api ?? "", request?.clientId ?? "", res.statusCode);
      if (!metrics) return;
      metrics.requestFinished(method!, api === undefined ? UNMATCHED_ROUTE : GATEWAY_ROUTE, res.statusCode, (performance.now() - started) / 1000);
      if (api !== undefined) metrics.gatewayRequest(api, res.statusCode);
    });
    next();
  };
}
