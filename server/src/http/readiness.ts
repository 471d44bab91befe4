/**
 * Readiness, `GET /readyz`: can this instance serve requests right now? It checks the
 * dependencies the composition root hands it (server.ts: the database, and Redis when
 * REDIS_URL is set), each with its own time limit, all at once, so an answer comes within
 * about one limit (2 s by default) even when a dependency hangs rather than refuses.
 *
 * - 200 `{"status":"ready","checks":[{"name":"database","status":"up","durationMs":3},…]}`
 * - 503 `{"status":"unavailable","failed":["redis"],"checks":[…,{"name":"redis","status":"down","durationMs":0,"error":"…"}]}`
 *
 * Both with `Cache-Control: no-store`. `/healthz` (http/app.ts) stays liveness only: it
 * checks nothing, so an orchestrator restarts a process that is stuck, not one whose
 * database is away. A check's error text is shown only when it is known to be safe (a
 * {@link CheckFailed} or an OAuthError, e.g. the database layer's fixed 503 description);
 * other errors show "check failed" and go to the log. Changes of a check's state (up to
 * down and back) are logged once, not on every probe.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { sendJson } from "../kernel/json.js";
import { MethodNotAllowed, OAuthError } from "../kernel/errors.js";
import { sendError } from "./error-handler.js";
import { pathOf } from "./node.js";

/** Default time limit of each check, milliseconds. */
export const READINESS_CHECK_TIMEOUT_MS = 2000;

/** The path served. */
export const READINESS_PATH = "/readyz";

/** A dependency to check: `check` resolves when it is usable and rejects (or never settles) when not. */
export interface ReadinessCheck {
  /** Name in the answer, e.g. `database`, `redis`. */
  name: string;
  check(): Promise<void>;
}

/** The outcome of one check. */
export interface CheckResult {
  name: string;
  status: "up" | "down";
  /** Time the check took, or the time limit when it ran out, milliseconds. */
  durationMs: number;
  /** Why it is down; only when down. */
  error?: string;
}

/** The body of a `/readyz` answer. */
export interface ReadinessReport {
  status: "ready" | "unavailable";
  /** Names of the checks that are down; only when unavailable. */
  failed?: string[];
  checks: CheckResult[];
}

/** A check's failure whose message is safe to show in the answer. */
export class CheckFailed extends Error {}

export interface ReadinessOptions {
  /** Time limit of each check, milliseconds. Default {@link READINESS_CHECK_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Receives the state changes of the checks. */
  logger?: Logger;
}

/**
 * Runs readiness checks. A check still running from an earlier probe is shared rather
 * than started again, for at most one time limit, so frequent probes against a hanging
 * dependency do not pile up connections or queries.
 */
export class Readiness {
  readonly #checks: readonly ReadinessCheck[];
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #running = new Map<string, { since: number; outcome: Promise<void> }>();
  readonly #lastStatus = new Map<string, CheckResult["status"]>();

  constructor(checks: readonly ReadinessCheck[], options: ReadinessOptions = {}) {
    this.#checks = checks;
    this.#timeoutMs = options.timeoutMs ?? READINESS_CHECK_TIMEOUT_MS;
    this.#logger = options.logger;
  }

  /** Runs every check at once. @returns the report; never rejects. Resolves within about the time limit. */
  async report(): Promise<ReadinessReport> {
    const checks = await Promise.all(this.#checks.map((c) => this.#run(c)));
    const failed = checks.filter((c) => c.status === "down").map((c) => c.name);
    return failed.length === 0 ? { status: "ready", checks } : { status: "unavailable", failed, checks };
  }

  async #run(check: ReadinessCheck): Promise<CheckResult> {
    const started = Date.now();
    let running = this.#running.get(check.name);
    if (!running || started - running.since >= this.#timeoutMs) {
      const outcome = Promise.resolve().then(() => check.check());
      running = { since: started, outcome };
      this.#running.set(check.name, running);
      const mine = running;
      void outcome.then(
        () => this.#running.get(check.name) === mine && this.#running.delete(check.name),
        () => this.#running.get(check.name) === mine && this.#running.delete(check.name),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new CheckFailed(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
      timer.unref();
    });
    let result: CheckResult;
    try {
      await Promise.race([running.outcome, timeout]);
      result = { name: check.name, status: "up", durationMs: Date.now() - started };
    } catch (err) {
      const shown = err instanceof CheckFailed || err instanceof OAuthError;
      result = { name: check.name, status: "down", durationMs: Date.now() - started, error: shown ? err.message : "check failed" };
      if (this.#lastStatus.get(check.name) !== "down") this.#logger?.warn({ check: check.name, err }, "readiness check failed");
    } finally {
      clearTimeout(timer);
    }
    if (result.status === "up" && this.#lastStatus.get(check.name) === "down") this.#logger?.info({ check: check.name }, "readiness check passes again");
    this.#lastStatus.set(check.name, result.status);
    return result;
  }
}

/**
 * The readiness check of an ioredis connection: down at once while the client is not
 * connected (its `status` is not `ready`: connecting, reconnecting after the server went
 * away, closed), else a `PING`.
 * @throws CheckFailed naming the connection state, or the PING's error.
 */
export function redisCheck(redis: Redis, name = "redis"): ReadinessCheck {
  return {
    name,
    async check() {
      if (redis.status !== "ready") throw new CheckFailed(`not connected (${redis.status})`);
      const answer = await redis.ping();
      if (answer !== "PONG") throw new CheckFailed("unexpected PING answer");
    },
  };
}

/** True when `req` asks for {@link READINESS_PATH} (case-insensitive, one trailing slash allowed, as Express matches). */
function isReadinessPath(req: IncomingMessage): boolean {
  return pathOf(req).toLowerCase().replace(/(.)\/$/, "$1") === READINESS_PATH;
}

/**
 * Serves `GET`/`HEAD /readyz` from `readiness` in front of `listener`, which gets every
 * other request: 200 or 503 with the {@link ReadinessReport} as JSON, `Cache-Control:
 * no-store`; another method gets 405 with `Allow: GET, HEAD`.
 * @returns the listener for `http.createServer`.
 */
export function withReadiness(
  readiness: Readiness,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!isReadinessPath(req)) return listener(req, res);
    if (req.method !== "GET" && req.method !== "HEAD") return sendError(new MethodNotAllowed(["GET", "HEAD"]), req, res);
    readiness
      .report()
      .then((report) => sendJson(res, report.status === "ready" ? 200 : 503, report, { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" }))
      .catch((err: unknown) => sendError(err, req, res));
  };
}
