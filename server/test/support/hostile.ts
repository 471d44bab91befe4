/**
 * Helpers for the hostile-input suite (server/test/hostile.test.ts):
 *
 * - a raw HTTP/1.1 client over node:net, so CR/LF, NUL, raw bytes, duplicate headers and
 *   broken framing reach the server untouched and the server (not a client library)
 *   decides what to answer;
 * - fast-check arbitraries for adversarial parameters (bad percent-encodings, invalid
 *   UTF-8, SQL injection, path traversal, open-redirect variants of the demo callback,
 *   huge values, broken Basic/Bearer values, dot segments with `;` parameters, spoofed
 *   forwarding fields);
 * - the suite's oracle helpers (form parsing as the WHATWG URL standard does it) and
 *   response checks (no 5xx, no stack traces, RFC 6749 §5.2 error bodies);
 * - a database fingerprint (one SQL statement over every table) for the
 *   "rejected requests do not write" checks.
 */
import { createHash } from "node:crypto";
import { connect } from "node:net";
import { deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import type { PrismaClient } from "../../src/generated/prisma/client.js";
import { DEMO } from "../../src/demo/seed.js";

// ---------------------------------------------------------------------------------------
// Raw HTTP client
// ---------------------------------------------------------------------------------------

/** One request, serialized byte for byte as given. */
export interface RawRequest {
  method: string;
  /** Request target exactly as sent; latin1 (each char is one byte), so raw bytes 0x80-0xff are possible. */
  target: string;
  /** Header lines in order; names and values are sent as latin1 and may hold CR, LF or NUL on purpose. */
  headers?: [string, string][];
  body?: Buffer;
  /** Add `Host: <server>` (default true). */
  host?: boolean;
  /** Add `Content-Length` for the body (default true; always for POST/PUT/PATCH). */
  contentLength?: boolean;
  /** Protocol token of the request line (default HTTP/1.1). */
  version?: string;
}

/** One parsed response. */
export interface RawResponse {
  status: number;
  /** Header values by lower-case name, in order. */
  headers: Record<string, string[]>;
  body: Buffer;
  /** The body decoded as UTF-8. */
  text: string;
  /** True when Express answered (the request logger sets X-Request-Id); false for Node's own parser errors. */
  byApp: boolean;
  /** The response head as received. */
  head: string;
}

/** The serialized request (request line and header block in latin1, then the body). */
export function serialize(req: RawRequest, host: string): Buffer {
  const body = req.body ?? Buffer.alloc(0);
  const lines = [`${req.method} ${req.target} ${req.version ?? "HTTP/1.1"}`];
  if (req.host !== false) lines.push(`Host: ${host}`);
  for (const [name, value] of req.headers ?? []) lines.push(`${name}: ${value}`);
  if (req.contentLength !== false && (body.length > 0 || ["POST", "PUT", "PATCH"].includes(req.method))) lines.push(`Content-Length: ${body.length}`);
  lines.push("Connection: close");
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

/** Size of the request line and header block, for Node's 16 KiB header limit. */
export function headSize(req: RawRequest, host: string): number {
  return serialize({ ...req, body: undefined, contentLength: false }, host).length;
}

function parseResponse(buf: Buffer, isHead: boolean, closed: boolean): RawResponse | undefined {
  let offset = 0;
  for (;;) {
    const end = buf.indexOf("\r\n\r\n", offset, "latin1");
    if (end < 0) return undefined;
    const head = buf.subarray(offset, end).toString("latin1");
    const [statusLine = "", ...lines] = head.split("\r\n");
    const m = /^HTTP\/\d\.\d (\d{3})/.exec(statusLine);
    if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(head.slice(0, 200))}`);
    const status = Number(m[1]);
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    const headers: Record<string, string[]> = {};
    for (const line of lines) {
      const i = line.indexOf(":");
      (headers[line.slice(0, i).trim().toLowerCase()] ??= []).push(line.slice(i + 1).trim());
    }
    const done = (body: Buffer): RawResponse => ({ status, headers, body, text: body.toString("utf8"), byApp: headers["x-request-id"] !== undefined, head });
    if (isHead || status === 204 || status === 304) return done(Buffer.alloc(0));
    if ((headers["transfer-encoding"] ?? []).join(",").toLowerCase().includes("chunked")) {
      const parts: Buffer[] = [];
      let p = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", p, "latin1");
        if (lineEnd < 0) return undefined;
        const size = parseInt(buf.subarray(p, lineEnd).toString("latin1").split(";")[0]!, 16);
        if (Number.isNaN(size)) throw new Error("malformed chunked response");
        p = lineEnd + 2;
        if (size === 0) return buf.indexOf("\r\n", p, "latin1") < 0 ? undefined : done(Buffer.concat(parts));
        if (buf.length < p + size + 2) return undefined;
        parts.push(buf.subarray(p, p + size));
        p += size + 2;
      }
    }
    const length = headers["content-length"]?.[0];
    if (length !== undefined) {
      const n = Number(length);
      return buf.length - bodyStart >= n ? done(buf.subarray(bodyStart, bodyStart + n)) : undefined;
    }
    return closed ? done(buf.subarray(bodyStart)) : undefined;
  }
}

/**
 * Sends one request on a fresh connection and reads one response.
 * @throws when the server closes the connection or stays silent without a complete response.
 */
export function send(baseUrl: string, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const bytes = serialize(req, url.host);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      let res: RawResponse | undefined;
      try {
        res = parseResponse(Buffer.concat(chunks), req.method === "HEAD", closed);
      } catch (err) {
        settled = true;
        socket.destroy();
        reject(err as Error);
        return;
      }
      if (res) {
        settled = true;
        socket.destroy();
        resolve(res);
      } else if (closed) {
        settled = true;
        reject(new Error(`the server closed the connection without a complete response (${Buffer.concat(chunks).length} bytes received)`));
      }
    };
    socket.setTimeout(timeoutMs, () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      settle(false);
    });
    // A write error (the server answered early and closed) is decided on close, from what was read.
    socket.on("error", () => {});
    socket.on("close", () => settle(true));
    socket.write(bytes);
  });
}

/** Requests sent per endpoint group and statuses answered, for the closing summary. */
export class Tally {
  readonly requests = new Map<string, number>();
  readonly statuses = new Map<string, Map<number, number>>();

  count(group: string, status: number): void {
    this.requests.set(group, (this.requests.get(group) ?? 0) + 1);
    const s = this.statuses.get(group) ?? new Map<number, number>();
    s.set(status, (s.get(status) ?? 0) + 1);
    this.statuses.set(group, s);
  }

  get total(): number {
    return [...this.requests.values()].reduce((a, b) => a + b, 0);
  }

  summary(): string {
    const parts = [...this.requests].map(([g, n]) => `${g} ${n}`);
    return `hostile input: ${this.total} requests (${parts.join(", ")})`;
  }

  statusSummary(): string {
    return [...this.statuses]
      .map(([g, s]) => `  ${g}: ${[...s].sort((a, b) => a[0] - b[0]).map(([st, n]) => `${st}x${n}`).join(" ")}`)
      .join("\n");
  }
}

// ---------------------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes of `s` except unreserved characters; `form` writes space as `+`. Safe for lone surrogates. */
export function pct(s: string, form = false): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e) out += String.fromCharCode(b);
    else if (form && b === 0x20) out += "+";
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Keeps printable ASCII (including `& = + % ;`) and percent-encodes the rest, so the text can sit in a request line. */
export function targetSafe(s: string): string {
  return s.replace(/[^\x21-\x22\x24-\x7e]/gu, (c) => pct(c));
}

/** The UTF-8 bytes of `s` as a latin1 string (for header values). */
export function utf8Latin1(s: string): string {
  return Buffer.from(s, "utf8").toString("latin1");
}

/** A header value Node's parser accepts: UTF-8 bytes as latin1, without control characters (CR, LF, NUL and DEL are the raw-socket property's job). */
export function headerSafe(s: string): string {
  return utf8Latin1(s).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, "");
}

/** Malformed percent sequences: bad syntax, and well-formed escapes of invalid UTF-8. */
export const BAD_PERCENT = [
  "%", "%z", "%zz", "%G1", "%%", "%2", "%E0%A4%A", "%u0041", "%%32%65",
  "%C0%AF", "%C0%AE", "%ED%A0%80", "%FF", "%FE%FF", "%F4%90%80%80", "%C3", "%80", "%E2%82",
];

/** True when decodeURIComponent accepts `s` (what Express does to route parameters). */
export function uriDecodable(s: string): boolean {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** How a value is put on the wire. */
export type Enc = "form" | "pct" | "raw" | "double" | "bad";

/** A value on the wire: `raw` leaves `& = + %` and non-ASCII as they are; `bad` inserts a malformed percent sequence. */
export function encode(value: string, enc: Enc, frag = "%zz", at = 0): string {
  switch (enc) {
    case "form":
      return pct(value, true);
    case "pct":
      return pct(value);
    case "raw":
      return value;
    case "double":
      return pct(pct(value));
    case "bad": {
      const e = pct(value);
      let i = at % (e.length + 1);
      // Do not split an existing %XX escape.
      while (i > 0 && (e[i - 1] === "%" || e[i - 2] === "%")) i--;
      return e.slice(0, i) + frag + e.slice(i);
    }
  }
}

/** One parameter: name and value (undefined: `name` without `=`), each with its encoding. */
export interface Param {
  name: string;
  value: string | undefined;
  enc: Enc;
  frag: string;
  at: number;
}

/** Joins parameters into a query string or form body (wire text, may contain non-ASCII for `raw`). */
export function joinParams(params: readonly Param[], sep = "&"): string {
  return params
    .map((p) => {
      const name = encode(p.name, p.enc === "bad" || p.enc === "double" ? "pct" : p.enc);
      return p.value === undefined ? name : `${name}=${encode(p.value, p.enc, p.frag, p.at)}`;
    })
    .join(sep);
}

/** True for the byte of an ASCII hex digit. */
const isHexByte = (b: number | undefined) => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/** The UTF-8 bytes of `text` with each `%XX` escape replaced by its byte; a `%` that starts no escape stays (WHATWG URL "percent-decode"). */
export function percentDecodeBytes(text: string): Uint8Array {
  const bytes = Buffer.from(text, "utf8");
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  return Uint8Array.from(out);
}

/** WHATWG "UTF-8 decode without BOM" (malformed sequences read as U+FFFD). */
const lossyUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The parameters as the server sees them: WHATWG `application/x-www-form-urlencoded`
 * parsing (split on `&`, then at the first `=`, `+` as a space, percent-decoded UTF-8),
 * written out here because Node's URLSearchParams turns a character outside the BMP that
 * a `%%` follows into two NULs (Node 20 and 24).
 */
export function parsedParams(wire: string): { all: Map<string, string[]>; repeated: string[] } {
  const all = new Map<string, string[]>();
  const decode = (s: string) => lossyUtf8.decode(percentDecodeBytes(s.replaceAll("+", " ")));
  for (const pair of wire.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const [k, v] = eq === -1 ? [decode(pair), ""] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
    all.set(k, [...(all.get(k) ?? []), v]);
  }
  return { all, repeated: [...all].filter(([, v]) => v.length > 1).map(([k]) => k) };
}

/** The single non-empty value of a parameter, as the OAuth endpoints read it (empty means omitted). */
export function single(p: ReturnType<typeof parsedParams>, name: string): string | undefined {
  const v = (p.all.get(name) ?? []).filter((x) => x !== "");
  return v.length === 1 ? v[0] : undefined;
}

export function gzip(b: Buffer): Buffer {
  return gzipSync(b);
}

export function deflate(b: Buffer): Buffer {
  return deflateSync(b);
}

// ---------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------

export const SQL_INJECTION = [
  "' OR '1'='1", "' OR 1=1 --", "\" OR \"\"=\"", "'; DROP TABLE \"AccessToken\"; --", "1; DELETE FROM User",
  "admin'--", "' UNION SELECT passwordHash FROM \"User\" --", "alice' --", "alice' OR 'a'='a", "%' OR username LIKE '%",
  "'||(SELECT sqlite_version())||'", "1' AND randomblob(100000000) --",
];

export const PATH_TRAVERSAL = [
  "../../../etc/passwd", "..%2f..%2fetc%2fpasswd", "%2e%2e/%2e%2e/etc/passwd", "..\\..\\windows\\win.ini", "....//....//",
  "..;/", "/etc/passwd%00.json", "..%252f..%252f", ".%2e/", "%2e%2e%5c", "..", ".", "%2e", "%2E%2E", "~root", "/proc/self/environ",
];

const ODD = [
  "", " ", "\u0000", "\r\n", "\r\nSet-Cookie: INJECTED=1", "\nLocation: http://evil.example", "\ud800", "\udfff", "\ufeff", "\u202e",
  "\u2028", "null", "undefined", "true", "0", "-1", "NaN", "__proto__", "constructor", "prototype", "[object Object]",
  "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "${7*7}", "{{7*7}}", "%s%s%s%n", "\\", "\"", "'", "&", "=", "#", "?", "+",
];

/** Hostile strings (decoded values). */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SQL_INJECTION) },
  { weight: 2, arbitrary: fc.constantFrom(...PATH_TRAVERSAL) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_PERCENT) },
  { weight: 1, arbitrary: fc.integer({ min: 500, max: 20_000 }).map((n) => "A".repeat(n)) },
);

/** Short hostile strings (for places where a huge value would only hit a size limit). */
export const shortHostile: fc.Arbitrary<string> = hostileText.map((s) => s.slice(0, 64));

/** Shortens long runs of one character in a report (fast-check prints generated values in full). */
export function shorten(text: string): string {
  return text.replace(/(.)\1{63,}/gsu, (run, c: string) => `${c.repeat(8)}…(${run.length}×)`).replace(/(Buffer\.from\(\[(?:\d+,){40})(?:\d+,)+/g, "$1…,");
}

/** The fast-check seed of this run: HOSTILE_SEED to replay one, else random (and printed by the suites). */
export const SEED = process.env.HOSTILE_SEED !== undefined ? Number(process.env.HOSTILE_SEED) : Math.floor(Math.random() * 2 ** 31);
/** HOSTILE_SCALE multiplies the number of runs of every property (default 1). */
const SCALE = Number(process.env.HOSTILE_SCALE ?? "1");

/** fast-check parameters of a property: `n` runs times HOSTILE_SCALE, this run's seed, the short reporter. */
export function runs(n: number): fc.Parameters<unknown> {
  return { numRuns: Math.max(1, Math.round(n * SCALE)), seed: SEED, reporter: shortReporter };
}

/** A fast-check reporter that throws the default report with long values shortened and the cause's message included. */
export function shortReporter<Ts>(details: fc.RunDetails<Ts>): void {
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? "property failed";
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(shorten(`${report}\n\nFailure: ${cause}`));
}

export const encArb: fc.Arbitrary<Enc> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Enc>("form") },
  { weight: 3, arbitrary: fc.constant<Enc>("pct") },
  { weight: 2, arbitrary: fc.constant<Enc>("raw") },
  { weight: 1, arbitrary: fc.constant<Enc>("double") },
  { weight: 1, arbitrary: fc.constant<Enc>("bad") },
);

/** A parameter with a name from `names` and a value from `values`. */
export function paramArb(names: fc.Arbitrary<string>, values: fc.Arbitrary<string>, enc: fc.Arbitrary<Enc> = encArb): fc.Arbitrary<Param> {
  return fc.record({
    name: names,
    value: fc.option(values, { nil: undefined, freq: 12 }),
    enc,
    frag: fc.constantFrom(...BAD_PERCENT),
    at: fc.nat(),
  });
}

/** A parameter with exactly this name and value, encoded so that the server decodes it back exactly. */
export function exact(name: string, value: string, enc: "form" | "pct" = "form"): Param {
  return { name, value, enc, frag: "", at: 0 };
}

/** An exact parameter whose (decodable) encoding is chosen by fast-check. */
export function exactArb(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Param> {
  return fc.tuple(value, fc.constantFrom<"form" | "pct">("form", "pct")).map(([v, e]) => exact(name, v, e));
}

export const CALLBACK = DEMO.callbackUrl;

/** redirect_uri values that are not the registered callback (open-redirect attempts), before decoding. */
export const REDIRECT_VARIANTS = [
  `${CALLBACK}/`, `${CALLBACK}?x=1`, `${CALLBACK}?redirect=http://evil.example`, `${CALLBACK}#`, `${CALLBACK}#frag`, `${CALLBACK}?`, `${CALLBACK}.`,
  "HTTP://localhost:8080/callback", "http://LOCALHOST:8080/callback", "http://localhost:8080/CALLBACK", "http://localhost:8080/Callback",
  "http://localhost:8080/callback/../callback", "http://localhost:8080//callback", "http://localhost:8080/./callback", "http://localhost:8080/%63allback",
  "http://localhost:8080/callback%2f", "http://localhost:8080/callback%00", "http://localhost:8080/callback;x", "http://localhost:8080/callback\\",
  "http://localhost:80/callback", "http://localhost/callback", "https://localhost:8080/callback", "http://localhost:08080/callback",
  "http://localhost.:8080/callback", "http://127.0.0.1:8080/callback", "http://[::1]:8080/callback", "http://0x7f.1:8080/callback",
  "http://localhost:8080@evil.example/callback", "http://evil.example@localhost:8080/callback", "http://user:pass@localhost:8080/callback",
  "http://localhost:8080%40evil.example/callback", "http://localhost:8080\\@evil.example/callback", "http://evil.example/callback",
  "http://evil.example#@localhost:8080/callback", "http://evil.example?@localhost:8080/callback", "http://localhost:8080.evil.example/callback",
  "http://localhost%2eevil.example:8080/callback", "//evil.example", "//evil.example/callback", "///evil.example", "\\\\evil.example", "\\/evil.example",
  "/\\evil.example", "https:evil.example", "http:/evil.example", "http:\\\\evil.example", "javascript:alert(1)", "JaVaScRiPt:alert(document.domain)//",
  "data:text/html,<script>alert(1)</script>", `${CALLBACK}\r\nLocation: http://evil.example`, ` ${CALLBACK}`, `${CALLBACK} `, `\t${CALLBACK}`,
  `${CALLBACK}\u0000`, `${CALLBACK}\u3002evil`, "http://ｌocalhost:8080/callback", "http://localhost:8080/callback\u2028", "/callback", "callback",
  "http://localhost:8080", "http://localhost:8080/", "http://localhost:8080/callbackx", "http://localhost:8080/callback/evil",
  encodeURIComponent(CALLBACK), `${CALLBACK}%23@evil.example`, "http://localhost:8080/%2e/callback",
];

/** Open-redirect attempts on redirect_uri (decoded values, never exactly the registered callback). */
export const redirectVariant: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 6, arbitrary: fc.constantFrom(...REDIRECT_VARIANTS) },
    { weight: 2, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
    { weight: 2, arbitrary: fc.mixedCase(fc.constant(CALLBACK)) },
    { weight: 2, arbitrary: fc.tuple(shortHostile, fc.boolean()).map(([s, before]) => (before ? s + CALLBACK : CALLBACK + s)) },
  )
  .filter((u) => u !== CALLBACK);

/** Scope strings: plausible, unknown and malformed. */
export const scopeArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("aisp", "pisp", "aisp pisp", "aisp extended_transaction_history", "piisp", "admin", "openid", "AISP", "aisp,pisp", "aisp  pisp", "aisp\tpisp", " aisp ", "aisp\u0000", "aisp%20pisp", "aisp\"", "aisp\\", "äisp") },
  { weight: 2, arbitrary: fc.array(fc.constantFrom("aisp", "pisp", "piisp", "extended_transaction_history", "admin", "x", "aisp2"), { maxLength: 5 }).map((a) => a.join(" ")) },
  { weight: 2, arbitrary: shortHostile },
);

/** Random secrets: opaque-looking values, PKCE-shaped values, and hostile strings. */
export const secretArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString("base64url")) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(..."ABCxyz0189-._~".split("")), minLength: 43, maxLength: 128 }) },
  { weight: 3, arbitrary: hostileText },
);

export const GRANT_TYPES = ["client_credentials", "authorization_code", "refresh_token"];

export const grantTypeArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...GRANT_TYPES) },
  { weight: 2, arbitrary: fc.constantFrom("password", "implicit", "urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:device_code", "CLIENT_CREDENTIALS", "client_credentials ", " client_credentials", "client_credentials\u0000", "client-credentials", "__proto__", "constructor", "toString", "hasOwnProperty") },
  { weight: 2, arbitrary: shortHostile },
);

// ---------------------------------------------------------------------------------------
// Client authentication (HTTP Basic) arbitraries
// ---------------------------------------------------------------------------------------

export interface DemoClient {
  consumerKey: string;
  consumerSecret: string;
}

export const DEMO_CLIENTS: readonly DemoClient[] = [DEMO.app, DEMO.strictApp, DEMO.paymentsApp, DEMO.adminApp];

/** Scopes each demo client's approved products offer (server/src/demo/seed.ts). */
export const CLIENT_SCOPES = new Map<string, string[]>([
  [DEMO.app.consumerKey, ["aisp", "extended_transaction_history", "pisp", "piisp"]],
  [DEMO.strictApp.consumerKey, ["aisp", "extended_transaction_history", "pisp", "piisp"]],
  [DEMO.paymentsApp.consumerKey, ["pisp"]],
  [DEMO.adminApp.consumerKey, ["admin"]],
]);

export function b64(s: string | Buffer): string {
  return (typeof s === "string" ? Buffer.from(s, "utf8") : s).toString("base64");
}

/** An Authorization header for a token-endpoint-style request, labelled with whether it authenticates. */
export interface Auth {
  /** Header value (latin1), or undefined for no header. */
  header: string | undefined;
  /** The demo client it authenticates as, if any. */
  client: DemoClient | undefined;
  label: string;
}

const clientArb = fc.constantFrom(...DEMO_CLIENTS);

/** Basic headers that never authenticate: absent, malformed, unknown client, wrong secret, another scheme. */
export const badAuthArb: fc.Arbitrary<Auth> = fc.oneof(
  fc.constant<Auth>({ header: undefined, client: undefined, label: "none" }),
  fc
    .constantFrom(
      "", "Basic", "Basic ", "Basic !!!!", "Basic ====", "Basic Zm9v", `Basic ${b64("nocolon")}`, `Basic ${b64(":secret")}`, `Basic ${b64(":")}`,
      `Basic ${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).slice(0, -1)}`, `Basic ${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`)} x`,
      `Basic\t${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`)}`, `Basic${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`)}`,
      `Basic ${b64(`%zz:${DEMO.app.consumerSecret}`)}`, `Basic ${b64(`${DEMO.app.consumerKey}:%E0%A4%A`)}`, `Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0xc0]))}`,
      `Bearer ${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`)}`, "Digest username=\"demo-budgeting-key\"", `Basic ${"A".repeat(12_000)}`,
      `Basic ${b64(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}:extra`)}`, `Basic ${b64(`${DEMO.app.consumerKey}\u0000:${DEMO.app.consumerSecret}`)}`,
      `Basic ${b64(`${DEMO.app.consumerKey.toUpperCase()}:${DEMO.app.consumerSecret}`)}`, `Basic ${b64(`${DEMO.app.consumerKey}:${DEMO.strictApp.consumerSecret}`)}`,
    )
    .map((header): Auth => ({ header, client: undefined, label: "malformed-or-wrong" })),
  fc
    .tuple(shortHostile, shortHostile)
    .map(([id, secret]): Auth => ({ header: `Basic ${b64(`${pct(`zz${id}`, true)}:${pct(secret, true)}`)}`, client: undefined, label: "unknown-client" })),
  fc
    .tuple(clientArb, shortHostile, fc.constantFrom("", "x", " ", "\u0000"))
    .filter(([c, s, suffix]) => s + suffix !== c.consumerSecret)
    .map(([c, s, suffix]): Auth => ({ header: `Basic ${b64(`${pct(c.consumerKey)}:${pct(s + suffix, true)}`)}`, client: undefined, label: "wrong-secret" })),
  fc.tuple(clientArb, fc.constantFrom("x", " ", "%00", "%20")).map(([c, suffix]): Auth => ({
    header: `Basic ${b64(`${c.consumerKey}:${c.consumerSecret}${suffix}`)}`,
    client: undefined,
    label: "secret-suffix",
  })),
);

/** Basic headers that do authenticate, spelled in the ways RFC 7617/6749 allow (scheme case, spaces, form-encoded halves). */
export function goodAuthArb(clients: fc.Arbitrary<DemoClient> = clientArb): fc.Arbitrary<Auth> {
  return fc
    .tuple(clients, fc.constantFrom("Basic", "basic", "BASIC", "bAsIc"), fc.integer({ min: 1, max: 3 }), fc.constantFrom("", " ", "  "), fc.constantFrom<"raw" | "pct">("raw", "pct"))
    .map(([c, scheme, spaces, trailing, enc]) => {
      const id = enc === "raw" ? c.consumerKey : pct(c.consumerKey);
      const secret = enc === "raw" ? c.consumerSecret : pct(c.consumerSecret);
      return { header: `${scheme}${" ".repeat(spaces)}${b64(`${id}:${secret}`)}${trailing}`, client: c, label: "valid" };
    });
}

// ---------------------------------------------------------------------------------------
// Content types and bodies
// ---------------------------------------------------------------------------------------

/** Content types the OAuth endpoints must read as a form, with the charset used to decode the body. */
export const FORM_TYPES: readonly [string, BufferEncoding][] = [
  ["application/x-www-form-urlencoded", "utf8"],
  ["application/x-www-form-urlencoded; charset=utf-8", "utf8"],
  ["application/x-www-form-urlencoded;charset=UTF-8", "utf8"],
  ["Application/X-WWW-Form-Urlencoded", "utf8"],
  ["application/x-www-form-urlencoded; charset=iso-8859-1", "latin1"],
];

/** Content types (and content encodings) that are not a readable form. */
export const NOT_FORM: readonly { type: string | undefined; encoding?: string }[] = [
  { type: undefined },
  { type: "" },
  { type: "application/json" },
  { type: "text/plain" },
  { type: "text/html; charset=utf-8" },
  { type: "multipart/form-data; boundary=----x" },
  { type: "application/x-www-form-urlencoded-foo" },
  { type: "application/x-www-form-urlencodedx" },
  { type: "x-www-form-urlencoded" },
  { type: "application/xml" },
  { type: "application/x-www-form-urlencoded, application/json" },
  { type: "application/x-www-form-urlencoded; charset=foo" },
  { type: "application/x-www-form-urlencoded", encoding: "x-foo" },
  { type: "application/x-www-form-urlencoded", encoding: "compress" },
  { type: "application/x-www-form-urlencoded", encoding: "gzip, br" },
  { type: "application/x-www-form-urlencoded", encoding: "zstd" },
];

/** How a form body goes out: content type, content encoding and the bytes on the wire. */
export interface FormBody {
  contentType: string | undefined;
  encoding: string | undefined;
  /** The bytes on the wire. */
  wire: Buffer;
  /** The bytes after content decoding (what the size limit applies to). */
  plain: Buffer;
  /** Charset the server decodes with, or undefined when the server must not read it as a form. */
  charset: BufferEncoding | undefined;
}

/** Random bytes that are not valid UTF-8 (lone continuation bytes, overlongs, surrogates, 0xff). */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    Buffer.from([0xff]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0x80, 0x80]), Buffer.from([0xe2, 0x82]),
    Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xfe, 0xff]), Buffer.from([0x00]),
  ),
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map((a) => Buffer.from(a)),
);

/** Builds the body bytes from wire text plus optional raw bytes spliced in and optional padding. */
export function bodyBytes(text: string, garbage: Buffer | undefined, garbageAt: number, pad: number): Buffer {
  const t = Buffer.from(text, "utf8");
  const at = garbage ? garbageAt % (t.length + 1) : t.length;
  const parts = [t.subarray(0, at), garbage ?? Buffer.alloc(0), t.subarray(at)];
  if (pad > 0) parts.push(Buffer.from(`&pad=${"A".repeat(pad)}`));
  return Buffer.concat(parts);
}

/** Body framing arbitrary: a form type most of the time, sometimes something else; content encoding; padding over the limit sometimes. */
export const framingArb = fc.record({
  form: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...FORM_TYPES).map((t) => ({ kind: "form" as const, t })) }, { weight: 1, arbitrary: fc.constantFrom(...NOT_FORM).map((n) => ({ kind: "other" as const, n })) }),
  compression: fc.oneof({ weight: 8, arbitrary: fc.constant<"none" | "identity" | "gzip" | "deflate" | "bomb">("none") }, { weight: 1, arbitrary: fc.constantFrom<"none" | "identity" | "gzip" | "deflate" | "bomb">("identity", "gzip", "deflate", "bomb") }),
  garbage: fc.option(invalidUtf8, { nil: undefined, freq: 6 }),
  garbageAt: fc.nat(),
  pad: fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 15_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 16_400, max: 40_000 }) }),
});

export type Framing = typeof framingArb extends fc.Arbitrary<infer T> ? T : never;

/** Applies a framing to the body text. */
export function frame(text: string, f: Framing): FormBody {
  let plain = bodyBytes(text, f.garbage, f.garbageAt, f.pad);
  if (f.compression === "bomb") plain = Buffer.concat([plain, Buffer.from(`&bomb=${"0".repeat(200_000)}`)]);
  if (f.form.kind === "other") return { contentType: f.form.n.type, encoding: f.form.n.encoding, wire: plain, plain, charset: undefined };
  const [type, charset] = f.form.t;
  switch (f.compression) {
    case "none":
      return { contentType: type, encoding: undefined, wire: plain, plain, charset };
    case "identity":
      return { contentType: type, encoding: "identity", wire: plain, plain, charset };
    case "gzip":
    case "bomb":
      return { contentType: type, encoding: "gzip", wire: gzip(plain), plain, charset };
    case "deflate":
      return { contentType: type, encoding: "deflate", wire: deflate(plain), plain, charset };
  }
}

/** Headers for a framed body. */
export function bodyHeaders(b: FormBody): [string, string][] {
  const h: [string, string][] = [];
  if (b.contentType !== undefined) h.push(["Content-Type", b.contentType]);
  if (b.encoding !== undefined) h.push(["Content-Encoding", b.encoding]);
  return h;
}

// ---------------------------------------------------------------------------------------
// Gateway arbitraries
// ---------------------------------------------------------------------------------------

/**
 * Dot segments with `;` parameters, which servlet containers read as `.` or `..` (`..;/`):
 * the dots plain or percent-encoded in any case, the `;` plain or encoded, any parameters.
 */
export const dotParamSegmentArb: fc.Arbitrary<string> = fc
  .record({
    dots: fc.constantFrom(".", "..", "%2e", "%2E", ".%2e", "%2e.", ".%2E", "%2E.", "%2e%2e", "%2E%2E", "%2e%2E"),
    semicolon: fc.constantFrom(";", ";", ";", "%3b", "%3B"),
    params: fc.oneof(fc.constantFrom("", "x", "jsessionid=0123", "a=b;c=d", ";", "..", "%2e%2e"), shortHostile.map((s) => targetSafe(s))),
  })
  .map(({ dots, semicolon, params }) => `${dots}${semicolon}${params}`);

/**
 * Fields from which servers and frameworks learn where a request came from (RFC 7239, the
 * X-Forwarded-* set, and those Spring, Tomcat, Rack, Symfony, IIS and CDNs use): a caller
 * who sets them passes itself off as another client, host or scheme.
 */
export const FORWARDING_FIELDS = [
  "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port", "X-Real-IP", "X-Forwarded-Prefix", "X-Forwarded-Ssl",
  "X-Forwarded-Scheme", "X-Forwarded-Server", "X-Forwarded-By", "Front-End-Https", "X-Url-Scheme", "X-Original-URL", "X-Rewrite-URL", "X-Original-Host",
  "X-Host", "Client-IP", "X-Client-IP", "True-Client-IP", "X-Cluster-Client-IP", "CF-Connecting-IP", "Fastly-Client-IP",
];

const SPOOFED_VALUES = [
  "203.0.113.7", "203.0.113.7, 203.0.113.8", "203.0.113.7,unknown", "for=203.0.113.7;host=evil.example;proto=https", 'for="[2001:db8::7]:4711";by=_hidden',
  "for=203.0.113.7, for=198.51.100.9", "evil.example", "evil.example:443", "https", "HTTPS", "on", "443", "/admin", "127.0.0.1", "::1", "unknown", "",
];

/** A caller's forwarding field: a name of FORWARDING_FIELDS in any case or spelt with `_` (CGI), and a spoofed value. */
export const spoofedForwardingArb: fc.Arbitrary<[string, string]> = fc.tuple(
  fc.tuple(fc.mixedCase(fc.constantFrom(...FORWARDING_FIELDS)), fc.boolean()).map(([name, cgi]) => (cgi ? name.replaceAll("-", "_") : name)),
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SPOOFED_VALUES) }, { weight: 1, arbitrary: shortHostile.map((s) => headerSafe(s)) }),
);

// ---------------------------------------------------------------------------------------
// Response checks
// ---------------------------------------------------------------------------------------

/** What a leaked stack trace or internal path looks like. */
const LEAKS: RegExp[] = [
  /\n\s+at\s/,
  /\bat (?:async )?[\w$.<>]+ \(/,
  /\(\/[^)\s]*:\d+:\d+\)/,
  /\/(?:work|home|root|tmp|usr)\/[\w.-]+\//,
  /node_modules/,
  /file:\/\//,
  /server\/src\//,
  /\.(?:ts|js|mjs):\d+/,
  /Prisma\w*Error|SqliteError|SQLITE_\w+/,
  /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|URIError)\b/,
];

/** A readable summary of an exchange for assertion messages (fast-check prints it with the counterexample). */
export function describeExchange(req: RawRequest, res?: RawResponse): string {
  const body = req.body ? req.body.toString("latin1") : "";
  const reqText = `${req.method} ${req.target.slice(0, 600)}${req.target.length > 600 ? `…(${req.target.length})` : ""}\n${(req.headers ?? [])
    .map(([n, v]) => `${n}: ${v.slice(0, 300)}`)
    .join("\n")}\n\n${body.slice(0, 600)}${body.length > 600 ? `…(${body.length} bytes)` : ""}`;
  if (!res) return JSON.stringify(reqText);
  const headers = Object.entries(res.headers)
    .filter(([k]) => !["content-security-policy", "cross-origin-opener-policy", "cross-origin-resource-policy", "origin-agent-cluster", "strict-transport-security", "x-dns-prefetch-control", "x-download-options", "x-permitted-cross-domain-policies", "x-xss-protection", "date", "connection", "keep-alive"].includes(k))
    .map(([k, v]) => `${k}: ${v.join(" | ")}`)
    .join("; ");
  return `request ${JSON.stringify(reqText)}\n -> ${res.status} [${headers}] ${JSON.stringify(res.text.slice(0, 400))}`;
}

/** Throws an assertion error carrying the exchange. */
export function check(condition: unknown, message: string, req: RawRequest, res?: RawResponse): asserts condition {
  if (!condition) throw new Error(`${message}\n${describeExchange(req, res)}`);
}

/** Rules for every answer: no 5xx, no stack trace or internal path in the body or headers. */
export function checkCommon(req: RawRequest, res: RawResponse): void {
  check(res.status >= 200 && res.status < 500, `status ${res.status} (never a 5xx)`, req, res);
  for (const re of LEAKS) check(!re.test(res.text), `body leaks internals (${re})`, req, res);
  const headerText = Object.entries(res.headers).map(([k, v]) => `${k}: ${v.join("\n")}`).join("\n");
  for (const re of LEAKS.slice(0, 4)) check(!re.test(headerText), `headers leak internals (${re})`, req, res);
}

/** The RFC 6749 §5.2 error body (JSON with string `error` and `error_description`). */
export function oauthError(req: RawRequest, res: RawResponse): { error: string; error_description: string } {
  check((res.headers["content-type"]?.[0] ?? "").startsWith("application/json"), "an error must be JSON", req, res);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    check(false, "error body is not JSON", req, res);
  }
  const b = body as { error?: unknown; error_description?: unknown };
  check(typeof b === "object" && b !== null && !Array.isArray(b), "error body is not a JSON object", req, res);
  check(typeof b.error === "string" && /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(b.error), "`error` must be a non-empty RFC 6749 error code string", req, res);
  check(typeof b.error_description === "string", "`error_description` must be a string", req, res);
  return b as { error: string; error_description: string };
}

/** RFC 6749 §5.2: error_description only holds %x20-21 / %x23-5B / %x5D-7E. */
export const RFC6749_DESCRIPTION = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** True when the request was refused by Node's HTTP parser for an over-long head (431); asserts that this is the only reason. */
export function refusedBySize(req: RawRequest, res: RawResponse, host: string): boolean {
  if (res.byApp) return false;
  check(res.status === 431 && headSize(req, host) > 16_000, "only an over-long request head may be refused by Node itself (431)", req, res);
  return true;
}

/** A JSON text with a lone UTF-16 surrogate escape (JSON.stringify escapes only lone surrogates). */
export const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

/** The first value of a response header. */
export function header(res: RawResponse, name: string): string | undefined {
  return res.headers[name.toLowerCase()]?.[0];
}

// ---------------------------------------------------------------------------------------
// Database fingerprint
// ---------------------------------------------------------------------------------------

/** Tables any rejected request may change: the audit log, browser sessions, the gateway's traffic counts (some may also add interactions). */
export const REJECTED_WRITES = ["AuditEvent", "Session", "GatewayTraffic"] as const;

/** One fingerprint: a digest per table (row count + every column of every row), the audit log's size and newest entry. */
export interface Fingerprint {
  tables: Record<string, string>;
  interactions: number;
  /** Audit rows. */
  auditCount: number;
  /** Audit occurrences: the sum of the rows' counts (an aggregated refusal row stands for `count` of them). */
  auditOccurrences: number;
  /** Audit occurrences per event type. */
  auditByType: Record<string, number>;
  /** The newest audit event: its rowid (SQLite) or time (PostgreSQL). */
  auditMarker: string;
}

type Dialect = "sqlite" | "postgresql";

/**
 * Fingerprints every table in one SQL statement through `server.prisma`: a digest of all rows of
 * every table except the append-only audit log (count and newest entry) and the session
 * table (count only: rolling sessions are touched on every request). Works on SQLite and on
 * PostgreSQL (TEST_DATABASE=postgresql).
 */
export class DbWatch {
  private constructor(
    private readonly db: PrismaClient,
    private readonly sql: string,
  ) {}

  static async create(db: PrismaClient): Promise<DbWatch> {
    const dialect: Dialect = await db.$queryRawUnsafe("SELECT sqlite_version()").then(
      () => "sqlite",
      () => "postgresql",
    );
    const tables = (
      dialect === "sqlite"
        ? await db.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name")
        : await db.$queryRawUnsafe<{ name: string }[]>(
            "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY table_name",
          )
    ).map((t) => t.name);
    if (!tables.includes("AccessToken") || !tables.includes("AuditEvent") || !tables.includes("Interaction")) throw new Error(`unexpected schema: ${tables.join(", ")}`);
    const parts: string[] = [];
    for (const t of tables) {
      if (dialect === "postgresql") {
        if (t === "AuditEvent") parts.push(`(SELECT count(*)::text || '|' || coalesce(sum("count"), 0)::text || '|' || coalesce(max("at")::text, '') FROM "AuditEvent") AS "AuditEvent"`);
        else if (t === "Session") parts.push(`(SELECT count(*)::text FROM "Session") AS "Session"`);
        else parts.push(`(SELECT count(*)::text || '|' || coalesce(md5(string_agg(x::text, ';' ORDER BY x::text)), '') FROM "${t}" x) AS "${t}"`);
        continue;
      }
      if (t === "AuditEvent") parts.push(`(SELECT count(*) || '|' || ifnull(sum("count"), 0) || '|' || ifnull(max(rowid), 0) FROM "AuditEvent") AS "AuditEvent"`);
      else if (t === "Session") parts.push(`(SELECT count(*) FROM "Session") || '' AS "Session"`);
      else {
        const cols = (await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM pragma_table_info('${t}')`)).map((c) => c.name);
        const row = cols.map((c) => `quote("${c}")`).join(` || ',' || `);
        parts.push(`(SELECT count(*) || '|' || ifnull(group_concat(r, ';'), '') FROM (SELECT ${row} AS r FROM "${t}" ORDER BY rowid)) AS "${t}"`);
      }
    }
    return new DbWatch(db, `SELECT ${parts.join(",\n")}`);
  }

  async fingerprint(): Promise<Fingerprint> {
    const [row] = await this.db.$queryRawUnsafe<Record<string, unknown>[]>(this.sql);
    const tables: Record<string, string> = {};
    for (const [k, v] of Object.entries(row!)) tables[k] = k === "AuditEvent" || k === "Session" ? String(v) : createHash("sha256").update(String(v)).digest("hex").slice(0, 16);
    const [rows, occurrences, ...marker] = String(row!.AuditEvent).split("|");
    const byType = await this.db.$queryRawUnsafe<{ type: string; n: unknown }[]>(`SELECT "type", sum("count") AS n FROM "AuditEvent" GROUP BY "type"`);
    return {
      tables,
      interactions: Number(String(row!.Interaction).split("|")[0]),
      auditCount: Number(rows),
      auditOccurrences: Number(occurrences),
      auditByType: Object.fromEntries(byType.map((r) => [r.type, Number(r.n)])),
      auditMarker: marker.join("|"),
    };
  }

  /** The event types whose audit occurrences grew between two fingerprints. */
  static auditTypesGrown(before: Fingerprint, after: Fingerprint): string[] {
    return Object.keys(after.auditByType).filter((t) => after.auditByType[t]! > (before.auditByType[t] ?? 0));
  }

  /** Tables whose content differs, except the ones in `allowed`. */
  static changed(a: Fingerprint, b: Fingerprint, allowed: readonly string[]): string[] {
    return Object.keys(a.tables).filter((t) => !allowed.includes(t) && a.tables[t] !== b.tables[t]);
  }
}
