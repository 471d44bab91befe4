/**
 * Forwarding of a checked gateway call to its API's upstream, as an HTTP intermediary
 * (RFC 9110 §7.6): hop-by-hop fields are dropped both ways (§7.6.1), so are the caller's
 * credentials for the gateway (`Authorization`, `Cookie`), its method overrides and any
 * client certificate fields (only the gateway could vouch for one); the gateway's own fields
 * are set, any copy the caller sent dropped: the caller's identity, where the request came
 * from (`Forwarded`, RFC 7239, with `X-Forwarded-*` and `X-Real-IP`), the FAPI interaction id
 * the gateway answered with, and with tracing on the upstream call's W3C Trace Context; the
 * gateway adds itself to `Via` (§7.6.3). The answer is streamed back with the upstream's
 * status, without its `Set-Cookie` unless the API passes cookies, and with
 * `X-Content-Type-Options: nosniff`.
 *
 * The HTTP client is undici (the Node.js project's, under Node's own fetch): a keep-alive
 * connection pool per upstream origin, the answer written straight into the caller's
 * response. http-proxy-3 over node:http cost half of the gateway's throughput (docs/performance.md).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { isIPv6 } from "node:net";
import { Writable } from "node:stream";
import proxyaddr from "proxy-addr";
import { errors } from "undici";
import { guardedAgent } from "../kernel/outbound.js";
import { context, isSpanContextValid, propagation, trace } from "@opentelemetry/api";
import { sendJson } from "../kernel/json.js";
import { contextOf, INTERACTION_ID_HEADER } from "../kernel/request-context.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { Metrics } from "../kernel/metrics.js";
import type { UpstreamOutcome } from "../consents/lifecycle.js";

/** The gateway's own error answers are not cached, like every error the error handler answers. */
const NO_STORE = { "Cache-Control": "no-store" };

/**
 * Fields that describe one connection, not the message (RFC 9110 §7.6.1, and RFC 9112 §6.1
 * `Transfer-Encoding`): never forwarded. `Host` is the upstream's own (set by the client),
 * and `Expect` was answered by this server already (node:http sends 100 Continue).
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
]);

/**
 * Fields the caller may send but the upstream never gets from it (also spelt with `_` for
 * `-`, as CGI-style upstreams read them): the caller's credentials for the gateway, and
 * every field from which servers and frameworks take where a request came from (client
 * address, scheme, host, port, path), which only the gateway sets ({@link addForwardingFields}).
 */
const CALLER_FIELDS_DROPPED = new Set([
  // The caller's credentials for the gateway itself, never the upstream's business.
  "authorization",
  "cookie",
  // RFC 7239 and the de facto set the gateway writes itself.
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-real-ip",
  // Read for the same facts by Spring, Tomcat, Rack, Symfony, IIS and ASP.NET, or set by CDNs; the gateway sets none.
  "x-forwarded-prefix",
  "x-forwarded-ssl",
  "x-forwarded-scheme",
  "x-forwarded-server",
  "x-forwarded-by",
  "front-end-https",
  "x-url-scheme",
  "x-original-url",
  "x-rewrite-url",
  "x-original-host",
  "x-host",
  "client-ip",
  "x-client-ip",
  "true-client-ip",
  "x-cluster-client-ip",
  "cf-connecting-ip",
  "fastly-client-ip",
  // Method overrides (Rails, Laravel, Express's method-override, ASP.NET, Spring's filter): the
  // upstream would execute another method than the one the gateway checked.
  "x-http-method-override",
  "x-http-method",
  "x-method-override",
  // RFC 9440 and Envoy's: the client certificate a TLS-terminating proxy vouches for; only the gateway could.
  "client-cert",
  "client-cert-chain",
  "x-forwarded-client-cert",
]);

/**
 * The other fields a TLS-terminating proxy writes about the client's certificate (nginx's
 * `X-SSL-Client-Cert`, `X-SSL-Client-Verify`, `X-SSL-Client-S-DN`, Apache's `SSL_CLIENT_*`,
 * `X-Client-Cert`, `X-Client-Verify`, Traefik's `X-Forwarded-Tls-Client-Cert`, IIS ARR's
 * `X-ARR-ClientCert`, the AWS load balancer's `X-Amzn-Mtls-Clientcert-*`…): a caller's copy
 * would read to the upstream as a certificate the gateway checked.
 */
const CLIENT_CERTIFICATE_FIELD = /^(x-)?(ssl|tls)-|^x-client-(verify|dn|s-dn|i-dn)|client-?cert/;

/**
 * True for a field of the caller that the upstream never gets from it: one of
 * {@link CALLER_FIELDS_DROPPED} or {@link CLIENT_CERTIFICATE_FIELD}.
 * @param name - in lower case (as node:http gives it); `_` is read as `-`, as CGI-style upstreams do.
 */
export function isDroppedCallerField(name: string): boolean {
  const field = name.replaceAll("_", "-");
  return CALLER_FIELDS_DROPPED.has(field) || CLIENT_CERTIFICATE_FIELD.test(field);
}

/**
 * `headers` without the hop-by-hop fields, including those the `Connection` field names
 * (§7.6.1), and without any for which `drop(name)` is true.
 * @returns a new object; `headers` is not changed.
 */
export function endToEndHeaders(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
  drop: (name: string) => boolean = () => false,
): Record<string, string | string[]> {
  const connection = headers.connection;
  const named = typeof connection === "string" ? connection.toLowerCase().split(",").map((s) => s.trim()) : [];
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.includes(name) && !drop(name)) out[name] = value;
  }
  return out;
}

/** RFC 9110 §5.6.2 token: a Forwarded parameter value that needs no quotes (RFC 7239 §4). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A Forwarded parameter value: a token as it is, anything else (a host with its port, say) as a quoted-string. */
function forwardedValue(value: string): string {
  return TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, "\\$&")}"`;
}

/** A Forwarded node (RFC 7239 §6): an IPv6 address in brackets and quoted, anything else (IPv4, "unknown", "1.2.3.4:5678") a value. */
function forwardedNode(address: string): string {
  return address.includes(":") && isIPv6(address) ? `"[${address}]"` : forwardedValue(address);
}

const PORT = /^[0-9]{1,5}$/;

/** The port of a Host value (RFC 9110 §7.2), else the default port of `proto`. */
function portOf(host: string | undefined, proto: "http" | "https"): string {
  if (host) {
    const colon = host.lastIndexOf(":");
    if (colon > host.lastIndexOf("]") && PORT.test(host.slice(colon + 1))) return host.slice(colon + 1);
  }
  return proto === "https" ? "443" : "80";
}

/**
 * Sets the fields that tell the upstream where a request came from, all from what the
 * gateway knows or trusts (nothing the caller wrote itself):
 * - `Forwarded` (RFC 7239 §4): one element per address of `chain`, in order; the first also
 *   carries `host` and `proto`, where its readers (Spring among them) look for them. IPv6
 *   addresses are bracketed and quoted (§6), a host with a port quoted.
 * - `X-Forwarded-For`: `chain`, comma-separated; `X-Real-IP`: its first address, the client's.
 * - `X-Forwarded-Proto`: `proto`; `X-Forwarded-Host`: `host`; `X-Forwarded-Port`: the port in
 *   `host`, else 443 for https and 80 for http.
 * @param out - the fields of the forwarded request (lowercase names), changed in place.
 * @param chain - addresses, the client's first and the peer of the gateway's connection last; at least one.
 * @param host - the Host field as received; undefined or empty when the caller sent none (HTTP/1.0), and then no host is forwarded.
 * @param proto - the scheme the client used.
 */
export function addForwardingFields(
  out: Record<string, string | string[]>,
  chain: readonly string[],
  host: string | undefined,
  proto: "http" | "https",
): void {
  const client = chain[0]!;
  let forwarded = `for=${forwardedNode(client)}${host ? `;host=${forwardedValue(host)}` : ""};proto=${proto}`;
  for (let i = 1; i < chain.length; i++) forwarded += `, for=${forwardedNode(chain[i]!)}`;
  out.forwarded = forwarded;
  out["x-forwarded-for"] = chain.length === 1 ? client : chain.join(", ");
  out["x-forwarded-proto"] = proto;
  if (host) out["x-forwarded-host"] = host;
  out["x-forwarded-port"] = portOf(host, proto);
  out["x-real-ip"] = client;
}

/** How the gateway names itself in `Via`: a pseudonym, not its host name (RFC 9110 §7.6.3). */
const VIA_PSEUDONYM = "tollgate";

/**
 * Adds the gateway to `Via` (RFC 9110 §7.6.3: a gateway sends it in each request it forwards
 * inbound), after the intermediaries the caller's field lists: `<version> tollgate`.
 * @param out - the fields of the forwarded request (lowercase names), changed in place.
 * @param httpVersion - the version of the request as received, e.g. "1.1" (node:http `req.httpVersion`).
 */
export function addVia(out: Record<string, string | string[]>, httpVersion: string): void {
  const own = `${httpVersion} ${VIA_PSEUDONYM}`;
  const sent = out.via;
  out.via = sent === undefined ? own : [...[sent].flat(), own].join(", ");
}

/** The W3C Trace Context fields (W3C Trace Context §3.2, §3.3). */
const TRACE_FIELDS = new Set(["traceparent", "tracestate"]);

/**
 * True when a span with a valid context is active: tracing is on, and the forwarded request
 * carries that span's Trace Context in place of the caller's. When tracing is off no span is,
 * and the caller's `traceparent` and `tracestate` go to the upstream unchanged.
 */
function tracing(): boolean {
  const span = trace.getActiveSpan();
  return span !== undefined && isSpanContextValid(span.spanContext());
}

/**
 * Sets the fields the gateway takes from the request it serves rather than from the caller:
 * - `x-fapi-interaction-id`: the interaction id the gateway answered with (http/logger.ts;
 *   FAPI 1.0 Baseline §6.2.1 items 11–13), so the caller's value when it was a UUID, else a
 *   new one; none when `interactionId` is undefined;
 * - when `traced`, `traceparent` (and `tracestate` if any) of the active span, the upstream
 *   call's (gateway/upstream-span.ts), written by the registered W3C propagator.
 * @param out - the fields of the forwarded request (lowercase names), changed in place; the
 *   caller's copies of these fields must be dropped already.
 */
export function addRequestFields(out: Record<string, string | string[]>, interactionId: string | undefined, traced: boolean): void {
  if (interactionId !== undefined) out[INTERACTION_ID_HEADER] = interactionId;
  if (traced) propagation.inject(context.active(), out);
}

const isSetCookie = (name: string) => name === "set-cookie";

/**
 * The fields of an upstream's answer that the caller gets: its end-to-end fields (§7.6.1),
 * without `Set-Cookie` unless `passCookies` (else an upstream's cookie would land on
 * Tollgate's own origin, beside its session cookie), and with `X-Content-Type-Options:
 * nosniff` in place of any the upstream sent.
 * @returns a new object; `headers` is not changed.
 */
export function answerFields(headers: Record<string, string | string[] | undefined>, passCookies: boolean): Record<string, string | string[]> {
  const out = endToEndHeaders(headers, passCookies ? undefined : isSetCookie);
  out["x-content-type-options"] = "nosniff";
  return out;
}

/** The most bytes of an upstream's answer held back while its outcome is recorded (a payment's answer is a small JSON document). */
export const HELD_ANSWER_LIMIT_BYTES = 64 * 1024;

/** Collects an upstream's answer body up to {@link HELD_ANSWER_LIMIT_BYTES}, failing past it. */
class HeldAnswer extends Writable {
  readonly chunks: Buffer[] = [];
  private size = 0;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error) => void): void {
    this.size += chunk.length;
    if (this.size > HELD_ANSWER_LIMIT_BYTES) return done(new Error(`the upstream's answer is larger than ${HELD_ANSWER_LIMIT_BYTES} bytes`));
    this.chunks.push(chunk);
    done();
  }
}

/** An upstream's status line and fields as the caller gets them, and its body when held. */
interface ReceivedAnswer {
  status: number;
  fields: Record<string, string | string[]>;
  held?: HeldAnswer;
}

/**
 * Builds the forwarder of the gateway (gateway/router.ts).
 * @param timeoutMs - how long the upstream may take to send its headers, and then between
 *   two pieces of its body, milliseconds.
 * @param trustedHops - reverse proxies in front of Tollgate whose `X-Forwarded-For` and
 *   `X-Forwarded-Proto` are trusted (TRUST_PROXY_HOPS, as Express and proxy-addr count them).
 *   With none, the upstream learns the peer's address and `http`; with some, the
 *   `X-Forwarded-For` entries they appended from the client's on, and the scheme the first
 *   value of `X-Forwarded-Proto` names (https or else http). The host is always the Host
 *   field, which a proxy in front must pass on (docs/operations.md, Deployment).
 * @returns `forward(req, res, api, path, set, read?, observe?)`: sends `req` (method, end-to-end headers,
 *   body streamed, or `read` when the gateway read the body to check it) to `api`'s upstream origin at its base path followed by `path` (which
 *   starts with "/" and may carry a query), with the forwarding fields of
 *   {@link addForwardingFields}, {@link addVia}, those of {@link addRequestFields} and the fields of `set`
 *   (lowercase names; undefined: none), and answers `res` with what comes back
 *   ({@link answerFields}). A caller's field named in `set`, dropped by the gateway
 *   ({@link isDroppedCallerField}) or set by {@link addRequestFields}, also spelt with `_`
 *   for `-`, is not forwarded; its `traceparent` and `tracestate` are, unchanged, when
 *   tracing is off. It never throws: an upstream that cannot be reached or does
 *   not answer in time gets 502 `bad_gateway` (JSON) if nothing was sent yet, and a cut
 *   connection otherwise. With `observe` (a payment), the answer is held (up to
 *   {@link HELD_ANSWER_LIMIT_BYTES}) until `observe` has recorded what became of the request
 *   (consents/lifecycle.ts `UpstreamOutcome`: not sent when the connection failed, before any
 *   byte was written; sent with no status line; or answered, with the body that arrived), and
 *   only then answered: the upstream's answer, or 502 when it was cut or too large.
 * @param metrics - observes each upstream's latency (forwarding to its response headers, seconds) by API; undefined: nothing observed.
 */
export function createForwarder(timeoutMs: number, trustedHops: number, metrics?: Metrics) {
  // Connected only where an upstream may be: internal addresses, never link-local or metadata ones, checked after DNS.
  const dispatcher = guardedAgent("internal", { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  // undici fails the requests waiting for a connection with the very error it then emits as a connectionError:
  // such a request was never written to a socket.
  const unsent = new WeakSet<object>();
  dispatcher.on("connectionError", (_origin, _targets, err) => unsent.add(err));
  const trusted = (_address: string, hop: number) => hop < trustedHops;

  /** The client's address first, then the trusted proxies', the connection's peer last; "unknown" once the connection is closed. */
  const chainOf = (req: IncomingMessage): string[] => {
    const peer = req.socket?.remoteAddress;
    if (peer === undefined) return ["unknown"];
    // proxy-addr lists the peer, then X-Forwarded-For from right to left up to the first untrusted hop: the client.
    return trustedHops === 0 ? [peer] : proxyaddr.all(req, trusted).reverse();
  };

  const protoOf = (req: IncomingMessage): "http" | "https" => {
    const sent = trustedHops === 0 ? undefined : req.headers["x-forwarded-proto"];
    if (typeof sent !== "string") return "http";
    const comma = sent.indexOf(",");
    return (comma < 0 ? sent : sent.slice(0, comma)).trim().toLowerCase() === "https" ? "https" : "http";
  };

  /** The 502 of an upstream that failed; `description` says what is known of the request's fate. */
  const badGateway = (res: ServerResponse, description: string) =>
    sendJson(res, 502, { error: "bad_gateway", error_description: description }, NO_STORE);

  /** Has `observe` record what became of the request, then answers the caller (see createForwarder's `observe`). */
  async function answerObserved(
    res: ServerResponse,
    err: Error | null,
    answer: ReceivedAnswer | undefined,
    observe: (outcome: UpstreamOutcome) => Promise<void>,
  ): Promise<void> {
    const notSent = err !== null && (unsent.has(err) || err instanceof errors.InvalidArgumentError);
    const body = answer?.held ? Buffer.concat(answer.held.chunks) : Buffer.alloc(0);
    // A failure to record leaves the consent pending: refusing, never paying twice; the caller still gets the answer.
    await observe(answer ? { sent: true, status: answer.status, body } : notSent ? { sent: false } : { sent: true }).catch(() => undefined);
    if (answer && !err) return void res.writeHead(answer.status, { ...answer.fields, "content-length": String(body.length) }).end(body);
    if (err instanceof errors.InvalidArgumentError) {
      return sendJson(res, 400, { error: "invalid_request", error_description: "the request cannot be forwarded as sent" }, NO_STORE);
    }
    badGateway(
      res,
      answer
        ? `the upstream API's answer (${answer.status}) was cut off or too large`
        : notSent
          ? "the upstream API could not be reached: the request was not sent"
          : "the upstream API did not answer: the request may have reached it",
    );
  }

  return (
    req: IncomingMessage,
    res: ServerResponse,
    api: ApiRoute,
    path: string,
    set: Record<string, string | undefined>,
    read?: Buffer,
    observe?: (outcome: UpstreamOutcome) => Promise<void>,
  ): void => {
    const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (!hasBody) req.resume();
    const traced = tracing();
    const headers = endToEndHeaders(req.headers, (name) => {
      const field = name.replaceAll("_", "-");
      return isDroppedCallerField(field) || field in set || field === INTERACTION_ID_HEADER || (traced && TRACE_FIELDS.has(field));
    });
    // The document the gateway checked, which may differ from the caller's bytes (gateway/consent-check.ts).
    if (read) headers["content-length"] = String(read.length);
    addForwardingFields(headers, chainOf(req), req.headers.host, protoOf(req));
    addVia(headers, req.httpVersion);
    addRequestFields(headers, contextOf(req)?.interactionId, traced);
    for (const name in set) if (set[name] !== undefined) headers[name] = set[name];
    const sent = metrics ? performance.now() : 0;
    let answer: ReceivedAnswer | undefined;
    dispatcher.stream(
      {
        origin: api.upstream.origin,
        path: api.upstream.basePath + path,
        method: req.method as "GET",
        headers,
        body: read ?? (hasBody ? req : null),
      },
      ({ statusCode, headers }) => {
        metrics?.upstreamLatency(api.name, (performance.now() - sent) / 1000);
        answer = { status: statusCode, fields: answerFields(headers, api.passCookies) };
        if (observe) return (answer.held = new HeldAnswer());
        res.writeHead(statusCode, answer.fields);
        return res;
      },
      (err) => {
        if (observe) return void answerObserved(res, err, answer, observe);
        if (!err) return;
        if (res.headersSent) return void res.destroy();
        if (err instanceof errors.InvalidArgumentError) {
          sendJson(res, 400, { error: "invalid_request", error_description: "the request cannot be forwarded as sent" }, NO_STORE);
        } else {
          badGateway(res, "the upstream API did not answer");
        }
      },
    );
  };

}
