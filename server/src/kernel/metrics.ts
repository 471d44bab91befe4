/**
 * Prometheus metrics (prom-client) of one server: its own `Registry`, never prom-client's
 * global one, so that several servers in one process (the test suites) count apart, and each
 * instance of a cluster serves its own. Built by server.ts when `METRICS_PORT` is set and
 * handed down explicitly, like the stores; code that gets `undefined` records nothing.
 *
 * Names and labels:
 * - HTTP, with the OpenTelemetry semantic conventions for HTTP servers
 *   (https://opentelemetry.io/docs/specs/semconv/http/http-metrics/) in Prometheus form:
 *   `http_server_request_duration_seconds` (histogram; `http_request_method`, `http_route`,
 *   `http_response_status_code`) and `http_server_active_requests` (`http_request_method`).
 *   The route is a template, never the raw path (http/metrics.ts), and the method one of
 *   RFC 9110's or `_OTHER`, so the label sets stay bounded.
 * - Domain, prefixed `tollgate_`; see each method. `client_id` is a label only when
 *   `clientIdLabel` is set (METRICS_CLIENT_ID_LABEL): one series per client otherwise
 *   multiplies every series by the number of registered clients.
 * - prom-client's default process metrics, event-loop lag included.
 *
 * On the hot paths (every request, token, introspection and gateway call) a label set is
 * bound once and counted in plain numbers, exported through prom-client when the registry
 * is read: prom-client's own `inc` and `observe` validate and hash the labels on every call,
 * which callgrind counted at about a tenth of a gateway call's instructions.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { CumulativeBucket } from "./histogram-quantile.js";

/**
 * Buckets of the latency histograms, seconds: the OpenTelemetry default for
 * `http.server.request.duration`.
 */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The request methods of RFC 9110 §9 and RFC 5789 (PATCH); any other is counted as `_OTHER` (OpenTelemetry semconv). */
const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];
const METHOD_INDEX: ReadonlyMap<string, number> = new Map(KNOWN_METHODS.map((m, i) => [m, i]));
const OTHER_METHOD = KNOWN_METHODS.length;

type Labels = Record<string, string>;

/**
 * One label set of a counter, counted in a plain number on the hot path and added to its
 * prom-client Counter when the registry is read (the counter's `collect`). prom-client's own
 * `inc` validates and hashes the labels on every call: with three such calls per gateway call,
 * the metrics cost the gateway about a tenth of its instructions per request (docs/operations.md, Metrics).
 */
class CounterSeries {
  pending = 0;
  constructor(readonly labels: Labels) {}
}

/** A prom-client Counter whose label sets are bound once ({@link CounterSeries}). */
class LeanCounter {
  readonly #series = new Map<string, CounterSeries>();

  /** @param config - as prom-client's Counter's (`collect` is this class's). */
  constructor(config: { name: string; help: string; labelNames: readonly string[]; registers: Registry[] }) {
    const series = this.#series;
    new Counter({
      ...config,
      collect() {
        for (const s of series.values()) {
          if (s.pending > 0) this.inc(s.labels, s.pending);
          s.pending = 0;
        }
      },
    });
  }

  /** The series of `key`, made from `labels()` the first time. */
  series(key: string, labels: () => Labels): CounterSeries {
    let s = this.#series.get(key);
    if (s === undefined) {
      s = new CounterSeries(labels());
      this.#series.set(key, s);
    }
    return s;
  }
}

/** One label set of a histogram: non-cumulative bucket counts (the last one: above every bound), sum and count. */
class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Counts one observation (seconds, for the latency histograms). */
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A prom-client Histogram whose label sets are bound once and counted in plain arrays
 * ({@link HistogramSeries}; prom-client's `observe` validates and hashes the labels on every
 * call). The registry reads it like any Histogram: `_bucket` (cumulative, `le`), `_sum`, `_count`.
 */
class LeanHistogram extends Histogram {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  constructor(config: { name: string; help: string; labelNames: readonly string[]; buckets: number[]; registers: Registry[] }) {
    super(config);
    this.#name = config.name;
    this.#help = config.help;
    this.#bounds = config.buckets;
  }

  /** The series of `key`, made from `labels()` the first time. */
  series(key: string, labels: () => Labels): HistogramSeries {
    let s = this.#series.get(key);
    if (s === undefined) {
      s = new HistogramSeries(labels(), this.#bounds);
      this.#series.set(key, s);
    }
    return s;
  }

  /** Each label set's cumulative buckets as read now, the last one `+Inf` (histogram-quantile.ts reads them). */
  cumulativeBuckets(): { labels: Labels; buckets: CumulativeBucket[] }[] {
    return [...this.#series.values()].map((s) => {
      let cumulative = 0;
      const buckets = this.#bounds.map((upperBound, i) => ({ upperBound, cumulativeCount: (cumulative += s.counts[i]!) }));
      return { labels: s.labels, buckets: [...buckets, { upperBound: Number.POSITIVE_INFINITY, cumulativeCount: s.count }] };
    });
  }

  /** What the registry formats (prom-client reads a histogram through this method). */
  async getForPromString(): Promise<Awaited<ReturnType<Histogram["get"]>>> {
    const name = this.#name;
    const values: { labels: Labels; value: number; metricName: string }[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { ...s.labels, le: String(le) }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: "+Inf" }, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return { name, help: this.#help, type: "histogram", values, aggregator: "sum" } as unknown as Awaited<ReturnType<Histogram["get"]>>;
  }

  override get(): ReturnType<Histogram["get"]> {
    return this.getForPromString();
  }
}

/** Settings of {@link Metrics}. */
export interface MetricsOptions {
  /** Add a `client_id` label to the per-client counters (METRICS_CLIENT_ID_LABEL). */
  clientIdLabel: boolean;
}

/** One server's metrics. */
export class Metrics {
  /** The registry `/metrics` serves (http/metrics.ts). */
  readonly registry = new Registry();
  /** When counting began: the histograms and counters hold what happened since. */
  readonly startedAt = new Date();
  readonly #clientIdLabel: boolean;
  readonly #active = new Array<number>(KNOWN_METHODS.length + 1).fill(0);

  readonly #requestDuration: LeanHistogram;
  readonly #tokensIssued: LeanCounter;
  readonly #refusals: LeanCounter;
  readonly #introspections: LeanCounter;
  readonly #refreshReuse: Counter;
  readonly #revocations: Counter<"token_type">;
  readonly #gatewayRequests: LeanCounter;
  readonly #upstreamDuration: LeanHistogram;
  readonly #signInFailures: Counter<"step" | "element">;
  readonly #rateLimited: Counter<"limiter">;
  readonly #purged: Counter<"table">;

  constructor(options: MetricsOptions) {
    this.#clientIdLabel = options.clientIdLabel;
    const registers = [this.registry];
    const client = this.#clientIdLabel ? (["client_id"] as const) : ([] as const);
    collectDefaultMetrics({ register: this.registry });

    this.#requestDuration = new LeanHistogram({
      name: "http_server_request_duration_seconds",
      help: "Duration of HTTP server requests, seconds (OpenTelemetry http.server.request.duration), by method, route template and status code.",
      labelNames: ["http_request_method", "http_route", "http_response_status_code"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    const active = this.#active;
    new Gauge({
      name: "http_server_active_requests",
      help: "HTTP server requests being served (OpenTelemetry http.server.active_requests), by method.",
      labelNames: ["http_request_method"],
      registers,
      // Counted in a plain array on the hot path; read only when scraped.
      collect() {
        for (let i = 0; i < active.length; i++) this.set({ http_request_method: KNOWN_METHODS[i] ?? "_OTHER" }, active[i]!);
      },
    });
    this.#tokensIssued = new LeanCounter({
      name: "tollgate_tokens_issued_total",
      help: "Tokens issued by the token endpoint, by grant type and token response profile.",
      labelNames: ["grant_type", "profile", ...client],
      registers,
    });
    this.#refusals = new LeanCounter({
      name: "tollgate_refusals_total",
      help: "Refused requests, by endpoint (token, par, revoke, introspect, gateway, interaction, admin) and reason (the RFC error code; no_token for a gateway call without a token).",
      labelNames: ["endpoint", "reason", ...client],
      registers,
    });
    this.#introspections = new LeanCounter({
      name: "tollgate_introspections_total",
      help: "Token introspections answered (RFC 7662), by the answer's active member.",
      labelNames: ["active"],
      registers,
    });
    this.#refreshReuse = new Counter({
      name: "tollgate_refresh_token_reuse_total",
      help: "Rotated refresh tokens presented again (RFC 9700 §4.14.2): each revoked its token family.",
      registers,
    });
    this.#revocations = new Counter({
      name: "tollgate_revocations_total",
      help: "Tokens revoked at the revocation endpoint (RFC 7009), by the presented token's type.",
      labelNames: ["token_type"],
      registers,
    });
    this.#gatewayRequests = new LeanCounter({
      name: "tollgate_gateway_requests_total",
      help: "Gateway calls answered, by registered API and status code (refusals included).",
      labelNames: ["api", "http_response_status_code"],
      registers,
    });
    this.#upstreamDuration = new LeanHistogram({
      name: "tollgate_gateway_upstream_duration_seconds",
      help: "Time from forwarding a gateway call to the upstream's response headers, seconds, by API.",
      labelNames: ["api"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    this.#signInFailures = new Counter({
      name: "tollgate_signin_failures_total",
      help: "Failed sign-ins, by step (password or factor) and the element that failed (password, account, totp, webauthn).",
      labelNames: ["step", "element"],
      registers,
    });
    this.#rateLimited = new Counter({
      name: "tollgate_rate_limit_refusals_total",
      help: "Requests refused by a rate limit or the sign-in throttle, by limiter.",
      labelNames: ["limiter"],
      registers,
    });
    this.#purged = new Counter({
      name: "tollgate_purged_rows_total",
      help: "Rows deleted by the purge of expired data, by table.",
      labelNames: ["table"],
      registers,
    });
  }

  /** The label value of a client id: itself when client ids are labels, else nothing. */
  #client(clientId: string): string {
    return this.#clientIdLabel ? clientId : "";
  }

  /**
   * A request started.
   * @returns the method's index, to hand to {@link requestFinished}.
   */
  requestStarted(method: string | undefined): number {
    const index = method === undefined ? OTHER_METHOD : (METHOD_INDEX.get(method) ?? OTHER_METHOD);
    this.#active[index]!++;
    return index;
  }

  /**
   * A request ended.
   * @param methodIndex - what {@link requestStarted} returned.
   * @param route - the route template (never the raw path) or a fixed value such as "unmatched".
   * @param seconds - duration, seconds.
   */
  requestFinished(methodIndex: number, route: string, status: number, seconds: number): void {
    this.#active[methodIndex]!--;
    const method = KNOWN_METHODS[methodIndex] ?? "_OTHER";
    this.#requestDuration
      .series(`${methodIndex} ${status} ${route}`, () => ({ http_request_method: method, http_route: route, http_response_status_code: String(status) }))
      .observe(seconds);
  }

  /** `tollgate_tokens_issued_total`: a token response was sent. @param profile - the app's token response profile (apigee, rfc6749). */
  tokenIssued(grantType: string, profile: string, clientId: string): void {
    const client = this.#client(clientId);
    this.#tokensIssued.series(`${grantType} ${profile} ${client}`, () => ({ grant_type: grantType, profile, ...(this.#clientIdLabel ? { client_id: client } : {}) })).pending++;
  }

  /**
   * `tollgate_refusals_total`: a request was refused.
   * @param reason - the RFC error code (bounded: codes, not descriptions).
   * @param clientId - a registered client's id, or "".
   */
  refusal(endpoint: string, reason: string, clientId: string): void {
    const client = this.#client(clientId);
    this.#refusals.series(`${endpoint} ${reason} ${client}`, () => ({ endpoint, reason, ...(this.#clientIdLabel ? { client_id: client } : {}) })).pending++;
  }

  /** `tollgate_introspections_total`. */
  introspection(active: boolean): void {
    const value = active ? "true" : "false";
    this.#introspections.series(value, () => ({ active: value })).pending++;
  }

  /** `tollgate_refresh_token_reuse_total`. */
  refreshTokenReuse(): void {
    this.#refreshReuse.inc();
  }

  /** `tollgate_revocations_total`. */
  revocation(tokenType: string): void {
    this.#revocations.inc({ token_type: tokenType });
  }

  /** `tollgate_gateway_requests_total`. @param api - a registered API's name. */
  gatewayRequest(api: string, status: number): void {
    this.#gatewayRequests.series(`${status} ${api}`, () => ({ api, http_response_status_code: String(status) })).pending++;
  }

  /** `tollgate_gateway_upstream_duration_seconds`. @param seconds - forwarding to response headers, seconds. */
  upstreamLatency(api: string, seconds: number): void {
    this.#upstreamDuration.series(api, () => ({ api })).observe(seconds);
  }

  /**
   * The buckets of `tollgate_gateway_upstream_duration_seconds` per API, cumulative, upper bounds
   * in seconds, since {@link startedAt}: what the dashboard's latency quantiles are computed from.
   */
  upstreamLatencyBuckets(): { api: string; buckets: CumulativeBucket[] }[] {
    return this.#upstreamDuration.cumulativeBuckets().map(({ labels, buckets }) => ({ api: labels.api ?? "", buckets }));
  }

  /** `tollgate_signin_failures_total`. @param step - "password" or "factor"; `element` - what failed. */
  signInFailure(step: "password" | "factor", element: string): void {
    this.#signInFailures.inc({ step, element });
  }

  /** `tollgate_rate_limit_refusals_total`. @param limiter - the limiter's name (kernel/limiter.ts), e.g. oauth-client. */
  rateLimited(limiter: string): void {
    this.#rateLimited.inc({ limiter });
  }

  /** `tollgate_purged_rows_total`: adds each table's deleted rows. */
  purged(counts: Readonly<Record<string, number>>): void {
    for (const table in counts) this.#purged.inc({ table }, counts[table]!);
  }
}
