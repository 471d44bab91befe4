/**
 * Property-based hostile-input suite (fast-check) against a real Tollgate server: the token
 * endpoint (both paths), /authorize, revocation, introspection, the interaction API, the
 * console sign-in and the gateway receive malformed and adversarial requests over raw TCP
 * (server/test/support/hostile.ts), and every answer is checked:
 *
 * - never a 5xx, never a stack trace or internal path;
 * - OAuth/JSON errors are JSON with string `error` and `error_description` (the /authorize
 *   error page is HTML with status 400);
 * - the status is the one the request deserves (a small model per endpoint, from
 *   decisions.md "Errors" and the RFCs), or at least a 4xx where the model is loose;
 * - a 302 from /authorize goes only to the exact registered callback or to /login, /consent;
 * - 401 on the token, revocation and introspection endpoints carries `WWW-Authenticate:
 *   Basic`; gateway 401/403 carry `WWW-Authenticate: Bearer`;
 * - every gateway answer carries `X-Content-Type-Options: nosniff`, and none carries an
 *   upstream's `Set-Cookie` unless the API passes cookies; the upstream never gets a
 *   forwarding field (`Forwarded`, `X-Forwarded-*`, `X-Real-IP` …) as the caller sent it;
 * - rejected requests do not write: every table is fingerprinted through `server.prisma` before
 *   and after each request; only the audit log (exactly one row per failed client
 *   authentication or sign-in), sessions and, for /authorize, one new interaction per
 *   redirect to /login may change;
 * - no password answer is a sign-in: the demo's PSD2 products require strong customer
 *   authentication (issue 16), so a well-formed password for their interaction IA, and one for
 *   alice (who has a second factor) at /session/login, is answered by the factor stage, whatever
 *   the password: exactly `{stage: "factor", csrfToken}` (`{user: null, ...}` at /session/login),
 *   no audit event yet, IA moved to the factor stage and no other write; the test then ends
 *   that attempt (a factor post without the pending sign-in sends IA back to login).
 *
 * Rate limits and sign-in throttling are turned off (or raised) on the main server so 429s
 * do not mask other answers; a second server with small limits checks the 429s.
 *
 * The seed is random per run and printed; HOSTILE_SEED=<n> replays a run, HOSTILE_SCALE=<k>
 * multiplies the number of runs of every property.
 */
import fc from "fast-check";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_UPSTREAM_COOKIES } from "../src/demo/upstream.js";
import { SIGN_IN_PASSWORD_MAX_LENGTH, SIGN_IN_USERNAME_MAX_LENGTH } from "../src/kernel/limits.js";
import { isTollgatePath } from "../src/kernel/paths.js";
import {
  authorizeParams,
  authorizePath,
  basic,
  Browser,
  clientCredentialsToken,
  FORM,
  interactionIdFrom,
  json,
  obtainCode,
  pkcePair,
  request,
  REVOCATION_ENDPOINT,
  signInInteraction,
  tokenRequest,
  userTokens,
  type DemoClient,
} from "./support/flow.js";
import { sessionLogin } from "./support/graphql.js";
import * as H from "./support/hostile.js";
import { createPasswordOnlyApp, startTestServer, type TestServer } from "./support/server.js";

const { SEED, runs } = H;
/** Per-test timeout: generous, because a failing property shrinks by sending more requests. */
const T = 120_000;

/** The main server: rate limits off, sign-in throttling out of reach, no purge. */
const ENV = {
  TOKEN_RATE_LIMIT_PER_CLIENT: "0",
  TOKEN_RATE_LIMIT_PER_IP: "0",
  AUTHORIZE_RATE_LIMIT_PER_IP: "0",
  SIGNIN_MAX_FAILURES_PER_USER: "1000000",
  SIGNIN_MAX_FAILURES_PER_IP: "1000000",
  PURGE_INTERVAL_SECONDS: "0",
};
const FORM_LIMIT = 16_384;
const JSON_LIMIT = 4_096;
const REALM = "tollgate";
const TOKEN_PATHS = ["/oauth2/v1/token", "/token", "/token/", "/TOKEN", "/oauth2/v1/token/"];
const SUPPORTED_GRANTS = new Set(H.GRANT_TYPES);
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const CALLBACK = H.CALLBACK;
const DEMO_KEYS = H.DEMO_CLIENTS.map((c) => c.consumerKey);
/** Every client registered with the demo callback: the demo clients and, from setup on, {@link openApp}. */
const registeredKeys = [...DEMO_KEYS];

let server: TestServer;
let watch: H.DbWatch;
let issuer: string;
const tally = new H.Tally();
const started = Date.now();

/** Secrets and browsers made during setup. */
const real = {
  /** alice's access token of DEMO.app, scope aisp, after SCA: may call /accounts (account data needs the PSU). */
  aisp: "",
  /** alice's user id, which the upstream gets with that token. */
  aliceId: "",
  /** DEMO.app with scope pisp only: its products cover /accounts but not the scope. */
  pispOnly: "",
  payments: "",
  admin: "",
  revoked: "",
  /** refresh token of alice's authorization (DEMO.app, aisp); never used as a grant in the no-write properties. */
  refresh: "",
};
let A: Browser; // not signed in (a flow cookie, no session); interaction IA (DEMO.app, aisp: SCA) at the login stage
let B: Browser; // alice signed in (password and passkey), consented DEMO.app aisp; interaction IB at the consent stage
let C: Browser; // a flow cookie with a CSRF token, nothing else
let IA = "";
let IB = "";
let IDONE = ""; // B's denied (finished) interaction
/**
 * An app whose product does not require SCA (scopes aisp, pisp, piisp), which B consented to:
 * B's session is reused for it, so it is where "signed in with remembered consent" still
 * means a code without any page (a request for a PSD2 scope never reuses a session).
 */
let openApp: DemoClient;
const csrf = { A: "", B: "", C: "" };

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/** Sends a request, counts it, and applies the rules every answer must meet. */
async function hit(group: string, req: H.RawRequest, strict = true): Promise<H.RawResponse> {
  let res: H.RawResponse;
  try {
    res = await H.send(server.url, req);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${H.describeExchange(req)}`);
  }
  tally.count(group, res.status);
  H.checkCommon(req, res);
  const host = new URL(server.url).host;
  // Requests that Node's HTTP parser accepts must reach the application (else the generator is only testing Node).
  if (strict && H.headSize(req, host) < 16_000 && /^[\x21-\x7e]+$/.test(req.target) && !(req.headers ?? []).some(([n, v]) => n === "" || /[\x00-\x08\x0a-\x1f\x7f]/.test(n + v) || /[\s:]/.test(n))) {
    H.check(res.byApp, "a well-formed HTTP request was not answered by the application", req, res);
  }
  return res;
}

interface WriteRules {
  /** Exact number of audit events this request must add (default 0). */
  audit?: number;
  /** Types those audit events may have. */
  auditTypes?: string[];
  /** Interactions this request may add (default 0). */
  interactions?: number;
  /** The request may move an existing interaction to another stage (the factor stage), adding none. */
  interactionStage?: boolean;
  /** The request is the verdict of a pending sign-in, which it must record as answered (a UsedJti row: answered once). */
  answersSignIn?: boolean;
}

/** Rejected requests write nothing but the allowed audit events, sessions and interactions, and the gateway's traffic counts. */
async function expectWrites(before: H.Fingerprint, req: H.RawRequest, res: H.RawResponse, rules: WriteRules = {}): Promise<void> {
  const after = await fingerprint();
  const allowed = [...H.REJECTED_WRITES, ...(rules.interactions || rules.interactionStage ? ["Interaction"] : []), ...(rules.answersSignIn ? ["UsedJti"] : [])];
  const changed = H.DbWatch.changed(before, after, allowed);
  H.check(changed.length === 0, `the request changed table(s) ${changed.join(", ")}`, req, res);
  if (rules.answersSignIn) H.check(before.tables.UsedJti !== after.tables.UsedJti, "the verdict must record the sign-in as answered", req, res);
  const newInteractions = after.interactions - before.interactions;
  H.check(newInteractions >= 0 && newInteractions <= (rules.interactions ?? 0), `the request added ${newInteractions} interaction(s)`, req, res);
  // Refusals are audited aggregated (docs/behaviour.md "Audit of refusals"): a request adds one occurrence, as a
  // new row or as one more in the count of its (type, client, reason, minute) row, never more rows than that.
  const occurrences = after.auditOccurrences - before.auditOccurrences;
  H.check(occurrences === (rules.audit ?? 0), `expected ${rules.audit ?? 0} audit event(s), the request wrote ${occurrences}`, req, res);
  const rows = after.auditCount - before.auditCount;
  H.check(rows >= 0 && rows <= occurrences, `the request added ${rows} audit rows for ${occurrences} event(s)`, req, res);
  const types = H.DbWatch.auditTypesGrown(before, after);
  H.check(types.every((t) => (rules.auditTypes ?? []).includes(t)), `unexpected audit event types ${types.join(", ")}`, req, res);
}

/**
 * A fingerprint of the database once the refusal audit has written what it holds: refusals are
 * aggregated in memory and written on flush, not per request (docs/behaviour.md "Audit of refusals"), so
 * each request's aggregate is written before the next fingerprint.
 */
async function fingerprint(): Promise<H.Fingerprint> {
  await server.flushCounts();
  return watch.fingerprint();
}

/** Endpoints whose refusals are audited (http/refusals.ts): every 4xx of the token endpoint, a failed client authentication (401) of the others. */
type Audited = "token" | "client-auth";

/** The path of a request target as the dispatcher matches it (http/dispatch.ts): no query, lower case, one trailing slash dropped. */
const endpointPath = (target: string) => target.split("?")[0]!.toLowerCase().replace(/(.)\/$/, "$1");

/** The audit a refused request of `endpoint` writes: one occurrence of a refusal type when the application refused it. */
function refusalRules(req: H.RawRequest, res: H.RawResponse, endpoint: Audited): WriteRules {
  const isToken = endpoint === "token" && (TOKEN_PATHS as readonly string[]).includes(endpointPath(req.target));
  const refused = res.byApp && res.status >= 400 && res.status < 500 && (isToken || res.status === 401);
  return { audit: refused ? 1 : 0, auditTypes: ["client.authentication_failed", "token.refused"] };
}

/** The fields of a sign-in body as the server reads it (UTF-8, a leading BOM dropped), or undefined when it is not a JSON object. */
function loginFields(body: Buffer): { username: unknown; password: unknown } | undefined {
  try {
    const v: unknown = JSON.parse(body.toString("utf8").replace(/^\ufeff/, ""));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as { username: unknown; password: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the sign-in schema (server/src/interaction/bodies.ts loginBody) takes these fields: well-formed text without NUL, 1 to the maximum UTF-16 units. */
function wellFormedLogin(f: { username: unknown; password: unknown } | undefined): boolean {
  const clean = (v: unknown, max: number) => typeof v === "string" && v.length >= 1 && v.length <= max && v.isWellFormed() && !v.includes("\0");
  return f !== undefined && clean(f.username, SIGN_IN_USERNAME_MAX_LENGTH) && clean(f.password, SIGN_IN_PASSWORD_MAX_LENGTH);
}

/**
 * A password answered by the factor stage (issue 16): 200, JSON, exactly `{stage: "factor",
 * csrfToken}`, or at /session/login `{user: null, stage: "factor", csrfToken}`; never a
 * signed-in user, a consent stage or a redirect.
 */
function expectFactorStage(req: H.RawRequest, res: H.RawResponse, atSession: boolean): void {
  H.check(res.status === 200, "the factor stage answers 200", req, res);
  H.check((res.headers["content-type"]?.[0] ?? "").startsWith("application/json"), "the factor stage is JSON", req, res);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  const keys = Object.keys(body).sort().join(",");
  H.check(keys === (atSession ? "csrfToken,stage,user" : "csrfToken,stage"), "the factor stage has exactly its fields", req, res);
  H.check(body.stage === "factor" && typeof body.csrfToken === "string" && (!atSession || body.user === null), "a password alone is never a sign-in", req, res);
}

/**
 * Ends an attempt left at IA's factor stage the way a browser that lost its pending sign-in
 * would: a factor post with A's flow cookie and CSRF token but no session is refused (409)
 * and sends IA back to the login stage, for the next runs.
 */
async function endFactorStage(): Promise<void> {
  const res = await request(new URL(`/interaction/${IA}/factor`, server.url), {
    method: "POST",
    headers: { Cookie: jarCookies(A)[0]![1], "X-CSRF-Token": csrf.A, "Content-Type": "application/json" },
    body: JSON.stringify({ method: "totp", code: "000000" }),
  });
  expect(res.status, await res.text()).toBe(409);
  expect((await json(await A.fetch(`/interaction/${IA}`))).stage).toBe("login");
}

/** 405 with Allow (and a JSON error unless HEAD). */
function expectMethodNotAllowed(req: H.RawRequest, res: H.RawResponse, allow: string): void {
  H.check(res.status === 405, `${req.method} must answer 405`, req, res);
  H.check(H.header(res, "allow") === allow, `405 must carry Allow: ${allow}`, req, res);
  if (req.method !== "HEAD") H.check(H.oauthError(req, res).error === "invalid_request", "405 error code", req, res);
}

/** 401 invalid_client with a Basic challenge (RFC 6749 §5.2, RFC 7617). */
function expectInvalidClient(req: H.RawRequest, res: H.RawResponse): void {
  H.check(res.status === 401, "a request without valid client authentication must answer 401", req, res);
  H.check((H.header(res, "www-authenticate") ?? "").startsWith(`Basic realm="${REALM}"`), "401 must carry WWW-Authenticate: Basic realm=...", req, res);
  H.check(H.oauthError(req, res).error === "invalid_client", "401 error must be invalid_client", req, res);
}

function methodArb(main: string, others: string[] = ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "PROPFIND"]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 12, arbitrary: fc.constant(main) }, { weight: 1, arbitrary: fc.constantFrom(...others) });
}

/** Harmless-for-HTTP but semantically hostile extra headers. */
const extraHeadersArb: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ["Origin", "http://evil.example"], ["X-Forwarded-For", "127.0.0.1, 10.0.0.1"], ["X-Forwarded-Host", "evil.example"], ["X-Forwarded-Proto", "https"],
      ["X-HTTP-Method-Override", "GET"], ["X-Method-Override", "DELETE"], ["Accept", "application/xml"], ["Accept", "*/*;q=0"], ["X-Client-Id", "spoofed"],
      ["X-Original-URL", "/admin"], ["X-Rewrite-URL", "/admin"], ["Referer", "http://evil.example/"], ["Accept-Encoding", "gzip, br"], ["Range", "bytes=0-1"],
      ["Expect", "100-continue"], ["Accept-Charset", "utf-7"], ["Forwarded", "for=1.2.3.4;host=evil.example;proto=https"], ["Content-Language", "de"],
    ),
    fc.tuple(fc.constantFrom("X-Request-Id", "X-Fuzz", "User-Agent", "Accept-Language"), H.shortHostile).map(([n, v]): [string, string] => [n, H.headerSafe(v)]),
  ),
  { maxLength: 3 },
);

/** A form body: parameters, an optional duplicate, a separator and framing; `text` is the wire text before framing. */
function formText(params: H.Param[], dup: number | undefined, sep: string): string {
  const list = dup !== undefined && params.length > 0 ? [...params, params[dup % params.length]!] : params;
  return H.joinParams(list, sep);
}

/**
 * True when the percent-escapes of form text decode to UTF-8: the WHATWG percent-decode of its
 * UTF-8 bytes (a `%` that starts no escape stays itself) read by a fatal UTF-8 decoder.
 */
function escapesDecodeToUtf8(text: string): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(H.percentDecodeBytes(text));
    return true;
  } catch {
    return false;
  }
}

/**
 * What the server reads from a framed form body: a form is readable when its content type
 * and charset are, its percent-escapes decode to UTF-8, and no parameter name or value is
 * malformed text (NUL or a lone surrogate): readForm refuses the rest with invalid_request
 * before authenticating the client.
 */
function readable(body: H.FormBody) {
  const text = body.plain.toString(body.charset ?? "utf8");
  const parsed = H.parsedParams(text);
  const clean = (t: string) => t.isWellFormed() && !t.includes("\0");
  const formOk = body.charset !== undefined && escapesDecodeToUtf8(text) && [...parsed.all].every(([k, values]) => clean(k) && values.every(clean));
  return { formOk, tooBig: body.plain.length > FORM_LIMIT, parsed };
}

/** The one non-empty value of a form parameter as the OAuth endpoints read it (readForm drops empty values). */
function formValue(p: ReturnType<typeof H.parsedParams>, name: string): string | undefined {
  const v = p.all.get(name);
  return v && v.length === 1 && v[0] !== "" ? v[0] : undefined;
}

/** parseScope + grantScopes (RFC 6749 §3.3): undefined when the scope is acceptable. */
function scopeError(scope: string | undefined, allowed: readonly string[]): string | undefined {
  if (scope === undefined) return undefined;
  const names = scope.split(" ").filter((s) => s !== "");
  if (names.some((n) => !SCOPE_TOKEN.test(n) || !allowed.includes(n))) return "invalid_scope";
  return undefined;
}

/** The Cookie field a browser sends: every cookie in its jar (the session, or before a sign-in the flow cookie). */
function jarCookies(browser: Browser): [string, string][] {
  return [["Cookie", [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ")]];
}

function cookie(jar: string): [string, string][] {
  switch (jar) {
    case "A":
      return jarCookies(A);
    case "B":
      return jarCookies(B);
    case "C":
      return jarCookies(C);
    case "garbage":
      return [["Cookie", "tollgate.sid=garbage; tollgate.flow=garbage.x; other=1"]];
    case "forged":
      return [["Cookie", `tollgate.sid=s%3Aforged-session-id.${"A".repeat(43)}; tollgate.flow=${Buffer.from(JSON.stringify({ c: csrf.A, i: [IA] })).toString("base64url")}.${"A".repeat(43)}`]];
    case "tampered":
      return [["Cookie", `tollgate.sid=${(B.sessionCookie ?? "").slice(0, -2)}AA; tollgate.flow=${(A.cookies.get("tollgate.flow") ?? "").slice(0, -2)}AA`]];
    default:
      return [];
  }
}

function csrfFor(choice: string): [string, string][] {
  switch (choice) {
    case "A":
    case "B":
    case "C":
      return [["X-CSRF-Token", csrf[choice]]];
    case "B+x":
      return [["X-CSRF-Token", `${csrf.B}x`]];
    case "B-upper":
      return [["X-CSRF-Token", csrf.B.toUpperCase()]];
    case "wrong":
      return [["X-CSRF-Token", "A".repeat(43)]];
    case "empty":
      return [["X-CSRF-Token", ""]];
    default:
      return [];
  }
}

const jarArb = (main: string) => fc.oneof({ weight: 6, arbitrary: fc.constant(main) }, { weight: 2, arbitrary: fc.constantFrom("none", "A", "B", "C", "garbage", "forged", "tampered") });
const csrfArb = (main: string) => fc.oneof({ weight: 6, arbitrary: fc.constant(main) }, { weight: 2, arbitrary: fc.constantFrom("none", "A", "B", "C", "B+x", "B-upper", "wrong", "empty") });

/** The interaction id a path segment names, or undefined when Express would not route it to /interaction/:id. */
function routedId(segment: string): string | undefined {
  const s = segment.split("?")[0]!.replace(/\/$/, "");
  if (s === "" || s.includes("/")) return undefined;
  return decodeURIComponent(s);
}

const idArb: fc.Arbitrary<{ id: string; raw: boolean }> = fc.record({
  id: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("<IA>", "<IB>", "<IDONE>") },
    { weight: 3, arbitrary: H.shortHostile },
    { weight: 1, arbitrary: fc.constantFrom("<IA>x", "<IA-upper>", "<IB> ", "c".repeat(25), "0", "-1", "undefined", "null", "%2e%2e", "..") },
  ),
  raw: fc.boolean(),
});

function resolveId(id: string): string {
  return id.replace("<IA-upper>", IA.toUpperCase()).replace("<IA>", IA).replace("<IB>", IB).replace("<IDONE>", IDONE);
}

/** Login bodies that never hold valid credentials (the real password only with usernames that are not alice). */
const loginBodyArb: fc.Arbitrary<{ text: string; garbage?: Buffer; at: number }> = fc.record({
  text: fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .record({
          username: fc.oneof(fc.constantFrom("alice", "admin", "Alice", "ALICE", "alice ", " alice", "nobody"), H.shortHostile, fc.integer({ min: 190, max: 260 }).map((n) => "a".repeat(n))),
          password: fc.oneof(fc.constantFrom(`${DEMO.user.password}x`, DEMO.user.password.toUpperCase(), DEMO.user.password.slice(0, -1), `${DEMO.admin.password} `, ""), H.shortHostile, fc.integer({ min: 990, max: 1100 }).map((n) => "p".repeat(n))),
        })
        .filter((o) => !(o.password === DEMO.user.password || o.password === DEMO.admin.password))
        .map((o) => JSON.stringify(o)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...H.SQL_INJECTION, "alice\u0000", "alice%00", "alice\t", "ali\u200bce").map((u) => JSON.stringify({ username: u, password: DEMO.user.password })),
    },
    { weight: 2, arbitrary: fc.record({ username: fc.jsonValue(), password: fc.jsonValue(), extra: fc.jsonValue() }, { requiredKeys: [] }).map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "", "{", "}", "null", "[]", "\"alice\"", "{'username':'alice'}", "{\"username\":\"alice\",}", "\ufeff{}", "{\"username\":\"alice\",\"password\":\"x\"}garbage",
        "{\"__proto__\":{\"username\":\"alice\",\"password\":\"alice-demo-password\"}}", "{\"constructor\":{\"prototype\":{\"admin\":true}},\"username\":\"a\",\"password\":\"b\"}",
"{\"username\":[\"alice\"],\"password\":[\"alice-demo-password\"]}", "{\"username\":{\"$ne\":null},\"password\":{\"$ne\":null}}",
        "username=alice&password=alice-demo-password", `{"username":"alice","password":"${"x".repeat(5000)}"}`,
      ),
    },
  ),
  garbage: fc.option(H.invalidUtf8, { nil: undefined, freq: 6 }),
  at: fc.nat(),
  // Lone surrogates in JSON strings have their own property below.
}).filter((b) => !H.LONE_SURROGATE_ESCAPE.test(b.text));

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "Application/JSON"];
const NOT_JSON_TYPES = ["text/plain", FORM, "multipart/form-data; boundary=x", "application/vnd.api+json", "text/json", "application/json-patch", ""];
/** Content types for the interaction API: kind json (parsed), bad-charset (json but refused), other (415), none. */
const jsonTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES).map((t) => ({ kind: "json" as const, type: t as string | undefined })) },
  { weight: 1, arbitrary: fc.constantFrom("application/json; charset=latin1", "application/json; charset=foo").map((t) => ({ kind: "bad-charset" as const, type: t as string | undefined })) },
  { weight: 2, arbitrary: fc.constantFrom(...NOT_JSON_TYPES, undefined).map((t) => ({ kind: "other" as const, type: t })) },
);

function jsonBody(text: string, garbage: Buffer | undefined, at: number): Buffer {
  return H.bodyBytes(text, garbage, at, 0);
}

function jsonHeaders(t: { type: string | undefined }): [string, string][] {
  return t.type === undefined ? [] : [["Content-Type", t.type]];
}

/** Is this JSON body a valid answer to the consent step (so it must not be in a "rejected" batch)? Conservative. */
function consentValid(body: Buffer): boolean {
  let v: unknown;
  try {
    v = JSON.parse(body.toString("utf8").replace(/^\ufeff/, ""));
  } catch {
    return false;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as { approve?: unknown; scopes?: unknown };
  if (o.approve === false) return true;
  return o.approve === true && Array.isArray(o.scopes) && o.scopes.length > 0 && o.scopes.every((s) => s === "aisp");
}

// ---------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------

/**
 * A new interaction of B at the consent stage: DEMO.app with prompt=consent. Scope aisp needs
 * SCA, which never reuses B's session: alice signs in again (password and passkey), which
 * renews B's session, so csrf.B is read again. The consent stage must be answered within the
 * inactivity limit (SCA_IDLE_SECONDS) of that sign-in.
 * @returns the interaction id.
 */
async function consentStageOfB(): Promise<string> {
  const res = await B.fetch(authorizePath(authorizeParams(DEMO.app, { prompt: "consent" })));
  expect(res.status).toBe(302);
  const id = interactionIdFrom(res.headers.get("location"));
  const signedIn = await signInInteraction(B, id, (await json(await B.fetch(`/interaction/${id}`))).csrfToken as string);
  const body = await json(signedIn);
  expect(signedIn.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual({ stage: "consent", csrfToken: expect.any(String) });
  csrf.B = body.csrfToken as string;
  return id;
}

beforeAll(async () => {
  server = await startTestServer(ENV);
  watch = await H.DbWatch.create(server.prisma);
  issuer = (await json(await request(`${server.url}/.well-known/oauth-authorization-server`))).issuer as string;

  real.pispOnly = await clientCredentialsToken(server.url, DEMO.app, "pisp");
  real.payments = await clientCredentialsToken(server.url, DEMO.paymentsApp);
  real.admin = await clientCredentialsToken(server.url, DEMO.adminApp);
  real.revoked = await clientCredentialsToken(server.url, DEMO.app, "aisp");
  expect((await tokenRequest(server.url, REVOCATION_ENDPOINT, DEMO.app, `token=${real.revoked}`)).status).toBe(200);

  // alice signs in in browser B (password and passkey) and consents to DEMO.app (aisp); the code gives a refresh token.
  const first = await userTokens(server.url, { scope: "aisp" });
  B = first.browser;
  real.refresh = first.tokens.refresh_token as string;
  real.aisp = first.tokens.access_token as string;
  real.aliceId = (await server.db.users.byUsername(DEMO.user.username))!.id;

  IB = await consentStageOfB();
  IDONE = await consentStageOfB();
  const denied = await B.fetch(`/interaction/${IDONE}/consent`, { json: { approve: false }, headers: { "X-CSRF-Token": csrf.B } });
  expect(denied.status).toBe(200);
  openApp = await createPasswordOnlyApp(server);
  registeredKeys.push(openApp.consumerKey);
  // B's session is reused for it: the consent page at once, no sign-in.
  await obtainCode(server.url, { client: openApp, browser: B });

  A = new Browser(server.url);
  const started = await A.fetch(authorizePath(authorizeParams(DEMO.app)));
  expect(started.headers.get("location")).toMatch(/^\/login\?interaction=/);
  IA = interactionIdFrom(started.headers.get("location"));
  csrf.A = (await json(await A.fetch(`/interaction/${IA}`))).csrfToken as string;

  C = new Browser(server.url);
  csrf.C = (await json(await C.fetch("/session"))).csrfToken as string;
  console.log(`hostile input: fast-check seed ${SEED} (replay with HOSTILE_SEED=${SEED})`);
}, 60_000);

afterAll(async () => {
  console.log(`${tally.summary()} in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}\nstatuses:\n${tally.statusSummary()}`);
  await server?.close();
});

// ---------------------------------------------------------------------------------------
// Token endpoint
// ---------------------------------------------------------------------------------------

const TOKEN_NAMES = ["grant_type", "scope", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "client_secret", "state", "username", "password", "token", "assertion"];
const tokenNameArb = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...TOKEN_NAMES) }, { weight: 1, arbitrary: H.shortHostile });
const tokenValueArb = fc.oneof(H.grantTypeArb, H.scopeArb, H.secretArb, H.redirectVariant, fc.constantFrom(CALLBACK, ...DEMO_KEYS), H.hostileText);

const bodyShape = {
  params: fc.array(H.paramArb(tokenNameArb, tokenValueArb), { maxLength: 8 }),
  dup: fc.option(fc.nat(), { nil: undefined, freq: 5 }),
  sep: fc.constantFrom("&", "&", "&", "&", ";", "&&", "&amp;"),
  framing: H.framingArb,
};

function tokenRequestOf(c: { path: string; method: string; auth: H.Auth; body: H.FormBody; extra: [string, string][] }): H.RawRequest {
  const headers: [string, string][] = [...H.bodyHeaders(c.body), ...c.extra];
  if (c.auth.header !== undefined) headers.push(["Authorization", c.auth.header]);
  return { method: c.method, target: c.path, headers, body: c.method === "GET" || c.method === "HEAD" ? undefined : c.body.wire };
}

/**
 * RFC 6749 §2.3: an `Authorization` header (of any scheme; an empty one is none) and a
 * `client_secret` in the body are two client authentication methods in one request.
 */
function twoMethods(header: string | undefined, parsed: ReturnType<typeof H.parsedParams>): boolean {
  return header !== undefined && header !== "" && formValue(parsed, "client_secret") !== undefined;
}

describe("token endpoint (POST /oauth2/v1/token and /token)", () => {
  it("without valid client authentication: 401 Basic when the form is readable, else 400/413 invalid_request; writes only the audit event", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ path: fc.constantFrom(...TOKEN_PATHS), method: methodArb("POST"), auth: H.badAuthArb, extra: extraHeadersArb, ...bodyShape }),
        async (c) => {
          const body = H.frame(formText(c.params, c.dup, c.sep), c.framing);
          const req = tokenRequestOf({ ...c, body });
          const before = await fingerprint();
          const res = await hit("token", req);
          const { formOk, tooBig, parsed } = readable(body);
          if (c.method !== "POST") {
            expectMethodNotAllowed(req, res, "POST");
          } else if (formOk && tooBig) {
            H.check(res.status === 413 && H.oauthError(req, res).error === "invalid_request", "a form over 16 KiB must answer 413 invalid_request", req, res);
          } else if (formOk && parsed.repeated.length === 0 && !twoMethods(c.auth.header, parsed)) {
            expectInvalidClient(req, res);
          } else {
            // A repeated parameter or two authentication methods is 400; a body that is not a readable form is 400, or 413 when it is also over the limit.
            const statuses = formOk ? [400] : [400, 413];
            H.check(statuses.includes(res.status) && H.oauthError(req, res).error === "invalid_request", "an unreadable form, a repeated parameter or two authentication methods must answer 400 invalid_request", req, res);
          }
          await expectWrites(before, req, res, refusalRules(req, res, "token"));
        },
      ),
      runs(300),
    );
  }, T);

  /** The token endpoint's expected error codes for an authenticated request (undefined: the request is valid). */
  function tokenModel(client: DemoClient, body: H.FormBody): { status: number; errors: string[] } | undefined {
    const { formOk, tooBig, parsed } = readable(body);
    if (!formOk) return { status: tooBig ? 413 : 400, errors: ["invalid_request"] };
    if (tooBig) return { status: 413, errors: ["invalid_request"] };
    if (parsed.repeated.length > 0) return { status: 400, errors: ["invalid_request"] };
    if (formValue(parsed, "client_secret") !== undefined) return { status: 400, errors: ["invalid_request"] };
    const errors = new Set<string>();
    const clientId = formValue(parsed, "client_id");
    if (clientId !== undefined && clientId !== client.consumerKey) errors.add("invalid_request");
    const grant = formValue(parsed, "grant_type");
    let grantError: string | undefined;
    if (grant === undefined) grantError = "invalid_request";
    else if (!SUPPORTED_GRANTS.has(grant)) grantError = "unsupported_grant_type";
    else if (grant === "client_credentials") grantError = scopeError(formValue(parsed, "scope"), H.CLIENT_SCOPES.get(client.consumerKey)!);
    else if (grant === "authorization_code") grantError = formValue(parsed, "code") === undefined || formValue(parsed, "redirect_uri") === undefined ? "invalid_request" : "invalid_grant";
    else grantError = formValue(parsed, "refresh_token") === undefined ? "invalid_request" : "invalid_grant";
    if (grantError) errors.add(grantError);
    return errors.size === 0 ? undefined : { status: 400, errors: [...errors] };
  }

  const authedArb = fc
    .record({
      path: fc.constantFrom(...TOKEN_PATHS),
      auth: H.goodAuthArb(),
      extra: extraHeadersArb,
      grant: fc.option(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...H.GRANT_TYPES) }, { weight: 1, arbitrary: H.grantTypeArb }), { nil: undefined, freq: 8 }),
      ...bodyShape,
    })
    .map((c) => {
      const params = c.grant === undefined ? c.params : [H.exact("grant_type", c.grant), ...c.params];
      return { ...c, body: H.frame(formText(params, c.dup, c.sep), c.framing) };
    })
    .filter((c) => tokenModel(c.auth.client!, c.body) !== undefined);

  it("with valid client authentication but an invalid grant: the error the request deserves, no write at all", async () => {
    await fc.assert(
      fc.asyncProperty(authedArb, async (c) => {
        const req = tokenRequestOf({ ...c, method: "POST" });
        const before = await fingerprint();
        const res = await hit("token", req);
        const expected = tokenModel(c.auth.client!, c.body)!;
        const body = H.oauthError(req, res);
        H.check(res.status === expected.status || (!readable(c.body).formOk && [400, 413].includes(res.status)), `expected status ${expected.status}`, req, res);
        H.check(expected.errors.includes(body.error), `expected error ${expected.errors.join(" or ")}`, req, res);
        H.check(H.header(res, "cache-control") === "no-store", "token endpoint errors must not be cached", req, res);
        // Refused: audited once as token.refused (aggregated), and nothing else is written.
        await expectWrites(before, req, res, refusalRules(req, res, "token"));
      }),
      runs(250),
    );
  }, T);

  it("near misses on real codes and refresh tokens (wrong redirect_uri, verifier, client, scope, mutated value) are rejected and burn nothing", async () => {
    // A pool of live codes: DEMO.app without PKCE, DEMO.strictApp with PKCE. Scope aisp needs SCA, which never
    // reuses a session: each code comes from a sign-in (password and passkey) in a browser of its own, straight
    // from the remembered consent (no consent page) once alice has consented to the app.
    const signedInCode = async (client: DemoClient, challenge?: string): Promise<string> => {
      const { code, params } = await obtainCode(server.url, { client, pkce: challenge === undefined ? undefined : { challenge } });
      expect(params.iss).toBe(issuer);
      return code;
    };
    const plain = [await signedInCode(DEMO.app), await signedInCode(DEMO.app), await signedInCode(DEMO.app)];
    const strictFirst = await userTokens(server.url, { client: DEMO.strictApp, pkce: pkcePair() });
    const pkce: { code: string; verifier: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const p = pkcePair();
      pkce.push({ code: await signedInCode(DEMO.strictApp, p.challenge), verifier: p.verifier });
    }
    const refresh = { [DEMO.app.consumerKey]: real.refresh, [DEMO.strictApp.consumerKey]: strictFirst.tokens.refresh_token as string };

    const mutate = (v: string, how: string): string => {
      switch (how) {
        case "append":
          return `${v}A`;
        case "drop":
          return v.slice(0, -1);
        case "flip": {
          const i = v.search(/[A-Za-z]/);
          return v.slice(0, i) + (v[i] === v[i]!.toUpperCase() ? v[i]!.toLowerCase() : v[i]!.toUpperCase()) + v.slice(i + 1);
        }
        case "space":
          return ` ${v}`;
        default:
          return `${v}\u0000`;
      }
    };
    const mutationArb = fc.constantFrom("append", "drop", "flip", "space", "nul");
    const widening = H.scopeArb.filter((s) => {
      const names = s.split(" ").filter((n) => n !== "");
      return names.some((n) => n !== "aisp");
    });
    const caseArb = fc.oneof(
      fc
        .record({
          kind: fc.constant("code" as const),
          pkce: fc.boolean(),
          index: fc.nat(2),
          who: fc.oneof({ weight: 4, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.constantFrom("other", "wrong-secret") }),
          redirect: fc.option(fc.oneof({ weight: 5, arbitrary: H.redirectVariant }, { weight: 1, arbitrary: fc.constant("<missing>") }), { nil: undefined, freq: 2 }),
          codeMut: fc.option(mutationArb, { nil: undefined, freq: 3 }),
          verifier: fc.option(fc.oneof(fc.constantFrom("<missing>", "<other>", "<truncated>", "<plain-challenge>"), H.secretArb.map((s) => s.slice(0, 200))), { nil: undefined, freq: 2 }),
          scope: fc.option(H.scopeArb, { nil: undefined, freq: 3 }),
          path: fc.constantFrom(...TOKEN_PATHS),
        })
        .filter((c) => c.who !== "same" || c.redirect !== undefined || c.codeMut !== undefined || (c.verifier !== undefined && (c.pkce || (c.verifier !== "<missing>" && c.verifier !== "")))),
      fc
        .record({
          kind: fc.constant("refresh" as const),
          strict: fc.boolean(),
          who: fc.oneof({ weight: 3, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.constantFrom("other", "wrong-secret") }),
          tokenMut: fc.option(mutationArb, { nil: undefined, freq: 2 }),
          scope: fc.option(widening, { nil: undefined, freq: 2 }),
          path: fc.constantFrom(...TOKEN_PATHS),
        })
        .filter((c) => c.who !== "same" || c.tokenMut !== undefined || c.scope !== undefined),
    );

    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const owner = c.kind === "code" ? (c.pkce ? DEMO.strictApp : DEMO.app) : c.strict ? DEMO.strictApp : DEMO.app;
        const other = owner === DEMO.app ? DEMO.strictApp : DEMO.app;
        const authClient = c.who === "other" ? other : owner;
        const secret = c.who === "wrong-secret" ? `${owner.consumerSecret}x` : authClient.consumerSecret;
        const form: [string, string][] = [];
        if (c.kind === "code") {
          const entry = c.pkce ? pkce[c.index]! : { code: plain[c.index]!, verifier: undefined };
          form.push(["grant_type", "authorization_code"], ["code", c.codeMut ? mutate(entry.code, c.codeMut) : entry.code]);
          if (c.redirect !== "<missing>") form.push(["redirect_uri", c.redirect ?? CALLBACK]);
          // The verifier sent: the right one unless mutated; for a code without PKCE any verifier is wrong.
          const verifiers: Record<string, string | undefined> = {
            "<missing>": undefined,
            "<other>": pkce[(c.index + 1) % 3]!.verifier,
            "<truncated>": (entry.verifier ?? pkce[0]!.verifier).slice(0, 42),
            "<plain-challenge>": "x".repeat(43),
          };
          const verifier = c.verifier === undefined ? entry.verifier : Object.hasOwn(verifiers, c.verifier) ? verifiers[c.verifier] : c.verifier;
          if (verifier !== undefined) form.push(["code_verifier", verifier]);
        } else {
          const value = refresh[owner.consumerKey]!;
          form.push(["grant_type", "refresh_token"], ["refresh_token", c.tokenMut ? mutate(value, c.tokenMut) : value]);
        }
        if (c.scope !== undefined) form.push(["scope", c.scope]);
        const body = Buffer.from(form.map(([k, v]) => `${H.pct(k, true)}=${H.pct(v, true)}`).join("&"));
        const req: H.RawRequest = {
          method: "POST",
          target: c.path,
          headers: [["Content-Type", FORM], ["Authorization", `Basic ${H.b64(`${authClient.consumerKey}:${secret}`)}`]],
          body,
        };
        const before = await fingerprint();
        const res = await hit("token", req);
        // A NUL makes the form unreadable: 400 before client authentication. A lone surrogate is not sent as such:
        // H.pct encodes UTF-8, which has none, so it arrives as U+FFFD, readable text.
        const malformed = form.some(([, v]) => v.includes("\0"));
        if (c.who === "wrong-secret" && !malformed) expectInvalidClient(req, res);
        else {
          H.check(res.status === 400, "a near-miss grant must answer 400", req, res);
          H.check(["invalid_grant", "invalid_request", "invalid_scope"].includes(H.oauthError(req, res).error), "error must be invalid_grant, invalid_request or invalid_scope", req, res);
        }
        await expectWrites(before, req, res, refusalRules(req, res, "token"));
      }),
      runs(120),
    );

    // Nothing was burnt: the real code and refresh token still work when presented correctly.
    const ok = await tokenRequest(server.url, "/token", DEMO.app, { grant_type: "authorization_code", code: plain[0], redirect_uri: CALLBACK });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const okPkce = await tokenRequest(server.url, "/token", DEMO.strictApp, { grant_type: "authorization_code", code: pkce[0]!.code, redirect_uri: CALLBACK, code_verifier: pkce[0]!.verifier });
    expect(okPkce.status, JSON.stringify(okPkce.body)).toBe(200);
    const okRefresh = await tokenRequest(server.url, "/token", DEMO.strictApp, { grant_type: "refresh_token", refresh_token: refresh[DEMO.strictApp.consumerKey] });
    expect(okRefresh.status, JSON.stringify(okRefresh.body)).toBe(200);
  }, T);

  it("Basic and body credentials mixed (client_id, client_secret: repeated, empty, right or wrong): 400 for two methods, 401 for a method the app does not allow, never a token by two methods", async () => {
    /** Demo apps that allow client_secret_post (server/src/demo/seed.ts); the others allow only Basic. */
    const POST_ALLOWED = new Set<string>([DEMO.strictApp.consumerKey]);
    const bodyValue = (choices: fc.Arbitrary<string>) =>
      fc.oneof({ weight: 1, arbitrary: fc.constant<string[]>([]) }, { weight: 5, arbitrary: choices.map((v) => [v]) }, { weight: 1, arbitrary: fc.tuple(choices, choices) });
    const mixArb = fc
      .record({
        path: fc.constantFrom(...TOKEN_PATHS),
        auth: fc.oneof(
          { weight: 3, arbitrary: H.goodAuthArb() },
          { weight: 2, arbitrary: H.badAuthArb },
          { weight: 2, arbitrary: fc.constantFrom<H.Auth>({ header: undefined, client: undefined, label: "none" }, { header: "", client: undefined, label: "empty" }) },
        ),
        // Whose credentials the body carries.
        body: fc.constantFrom(...H.DEMO_CLIENTS),
        other: fc.constantFrom(...H.DEMO_CLIENTS),
        ids: bodyValue(fc.constantFrom("<own>", "<other>", "", "zz-unknown-client")),
        secrets: bodyValue(fc.oneof({ weight: 4, arbitrary: fc.constantFrom("<own>", "<other>", "") }, { weight: 1, arbitrary: H.secretArb.map((v) => v.slice(0, 200)) })),
        secretFirst: fc.boolean(),
      })
      .map((c) => {
        const resolve = (v: string) => (v === "<own>" ? c.body : v === "<other>" ? c.other : undefined);
        const ids = c.ids.map((v) => resolve(v)?.consumerKey ?? v);
        const secrets = c.secrets.map((v) => resolve(v)?.consumerSecret ?? v);
        const idParams = ids.map((v) => H.exact("client_id", v));
        const secretParams = secrets.map((v) => H.exact("client_secret", v));
        const params = [H.exact("grant_type", "client_credentials"), ...(c.secretFirst ? [...secretParams, ...idParams] : [...idParams, ...secretParams])];
        return { ...c, ids, secrets, text: H.joinParams(params) };
      })
      .filter((c) => c.ids.length + c.secrets.length > 0 && [...c.ids, ...c.secrets].every((v) => v.isWellFormed() && !v.includes("\0")));

    /** The answer the request deserves: 200 with the client authenticated, or an error status. */
    function mixModel(c: { auth: H.Auth; ids: string[]; secrets: string[] }): { status: 200; client: string } | { status: 400 | 401 } {
      if (c.ids.length > 1 || c.secrets.length > 1) return { status: 400 };
      const id = c.ids[0] || undefined;
      const secret = c.secrets[0] || undefined;
      if (secret !== undefined) {
        if (c.auth.header !== undefined && c.auth.header !== "") return { status: 400 };
        const owner = H.DEMO_CLIENTS.find((d) => d.consumerKey === id && d.consumerSecret === secret);
        return owner && POST_ALLOWED.has(owner.consumerKey) ? { status: 200, client: owner.consumerKey } : { status: 401 };
      }
      if (!c.auth.client) return { status: 401 };
      if (id !== undefined && id !== c.auth.client.consumerKey) return { status: 400 };
      return { status: 200, client: c.auth.client.consumerKey };
    }

    await fc.assert(
      fc.asyncProperty(mixArb, async (c) => {
        const headers: [string, string][] = [["Content-Type", FORM]];
        if (c.auth.header !== undefined) headers.push(["Authorization", c.auth.header]);
        const req: H.RawRequest = { method: "POST", target: c.path, headers, body: Buffer.from(c.text) };
        const before = await fingerprint();
        const res = await hit("token", req);
        const expected = mixModel(c);
        if (expected.status === 200) {
          H.check(res.status === 200, "one valid client authentication method must answer 200", req, res);
          H.check((JSON.parse(res.text) as { client_id?: unknown }).client_id === expected.client, "the token must be issued to the authenticated client", req, res);
          return;
        }
        if (expected.status === 401) expectInvalidClient(req, res);
        else H.check(res.status === 400 && H.oauthError(req, res).error === "invalid_request", "two authentication methods, a repeated parameter or a client_id other than Basic's must answer 400 invalid_request", req, res);
        await expectWrites(before, req, res, refusalRules(req, res, "token"));
      }),
      runs(200),
    );
  }, T);

  it("a failed client authentication answers 401 Basic and is audited, whatever the length and characters of the client id", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          path: fc.constantFrom("/oauth2/v1/token", "/token", "/oauth2/v1/revoke", "/oauth2/v1/introspect"),
          // Mostly ids whose 200th UTF-16 unit is near a character outside the BMP (the audit actor is cut at 200), some fully random.
          id: fc.oneof(
            {
              weight: 3,
              arbitrary: fc
                .tuple(fc.integer({ min: 185, max: 200 }), fc.array(fc.oneof({ weight: 8, arbitrary: fc.constantFrom("\u{1F600}", "\u{1D49C}", "\u{10FFFF}") }, { weight: 1, arbitrary: fc.constantFrom("a", "\u00e9", "\u4e2d") }), { minLength: 1, maxLength: 12 }))
                .map(([n, tail]) => `z${"z".repeat(n)}${tail.join("")}`),
            },
            { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 300 }).map((s) => `z${s}`) },
          ),
        }),
        async (c) => {
          const id = c.id;
          const req: H.RawRequest = {
            method: "POST",
            target: c.path,
            headers: [["Content-Type", FORM], ["Authorization", `Basic ${H.b64(`${H.pct(id, true)}:wrong-secret`)}`]],
            body: Buffer.from("grant_type=client_credentials&token=abc"),
          };
          const before = await fingerprint();
          const res = await hit("token", req);
          expectInvalidClient(req, res);
          await expectWrites(before, req, res, refusalRules(req, res, "token"));
          H.check(refusalRules(req, res, "token").audit === 1, "a failed client authentication is audited", req, res);
        },
      ),
      runs(60),
    );
  }, T);

  it("error_description stays within the RFC 6749 §5.2 character set (%x20-21 / %x23-5B / %x5D-7E)", async () => {
    await fc.assert(
      fc.asyncProperty(authedArb, async (c) => {
        const req = tokenRequestOf({ ...c, method: "POST" });
        const res = await hit("token", req);
        const body = H.oauthError(req, res);
        H.check(H.RFC6749_DESCRIPTION.test(body.error_description), "error_description has characters RFC 6749 §5.2 forbids (e.g. a double quote, or echoed input)", req, res);
      }),
      runs(100),
    );
  }, T);

  it("a Content-Encoding body that does not decompress answers 400 invalid_request, not 500", async () => {
    const targets = [
      { target: "/token", type: FORM },
      { target: "/oauth2/v1/revoke", type: FORM },
      { target: "/oauth2/v1/introspect", type: FORM },
      { target: "/session/login", type: "application/json" },
      { target: "/interaction/x/login", type: "application/json" },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          to: fc.constantFrom(...targets),
          encoding: fc.constantFrom("gzip", "deflate", "br", "GZIP"),
          body: fc.oneof(
            fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
            fc.constantFrom(Buffer.from("grant_type=client_credentials"), Buffer.from("{}"), H.gzip(Buffer.from("grant_type=client_credentials")).subarray(0, 12)),
          ),
        }),
        async (c) => {
          const req: H.RawRequest = { method: "POST", target: c.to.target, headers: [["Content-Type", c.to.type], ["Content-Encoding", c.encoding]], body: c.body };
          const res = await hit("token", req);
          H.check(res.status >= 400 && res.status < 500, "a body that cannot be decompressed must answer 4xx", req, res);
          H.oauthError(req, res);
        },
      ),
      runs(40),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// /authorize
// ---------------------------------------------------------------------------------------

const SINGLE = ["client_id", "response_type", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "prompt"];
const AUTHORIZE_ERRORS = ["invalid_request", "unsupported_response_type", "invalid_scope", "login_required", "consent_required", "unauthorized_client", "access_denied"];
const pkceValue = fc.string({ unit: fc.constantFrom(..."ABCDEFabcdef0123456789-._~".split("")), minLength: 43, maxLength: 128 });

const authorizeFields = {
  clientId: fc.option(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(DEMO.app.consumerKey) },
      { weight: 2, arbitrary: fc.constantFrom(...DEMO_KEYS) },
      { weight: 2, arbitrary: H.shortHostile },
      { weight: 1, arbitrary: fc.mixedCase(fc.constant(DEMO.app.consumerKey)) },
    ),
    { nil: undefined, freq: 12 },
  ),
  redirect: fc.option(fc.oneof({ weight: 5, arbitrary: fc.constant(CALLBACK) }, { weight: 5, arbitrary: H.redirectVariant }), { nil: undefined, freq: 12 }),
  responseType: fc.option(fc.oneof({ weight: 6, arbitrary: fc.constant("code") }, { weight: 2, arbitrary: fc.constantFrom("token", "code id_token", "CODE", "code ", "id_token", "none", "code,token") }, { weight: 1, arbitrary: H.shortHostile }), { nil: undefined, freq: 8 }),
  scope: fc.option(fc.oneof({ weight: 3, arbitrary: fc.constant("aisp") }, { weight: 3, arbitrary: H.scopeArb }), { nil: undefined, freq: 8 }),
  state: fc.option(H.hostileText, { nil: undefined, freq: 6 }),
  codeChallenge: fc.option(fc.oneof(pkceValue, H.shortHostile), { nil: undefined, freq: 2 }),
  challengeMethod: fc.option(fc.oneof(fc.constantFrom("S256", "plain", "s256", "S512", ""), H.shortHostile), { nil: undefined, freq: 2 }),
  prompt: fc.option(fc.oneof(fc.constantFrom("none", "login", "consent", "select_account", "none login", "NONE"), H.shortHostile), { nil: undefined, freq: 3 }),
  encs: fc.array(H.encArb, { minLength: 8, maxLength: 8 }),
  frags: fc.array(fc.tuple(fc.constantFrom(...H.BAD_PERCENT), fc.nat()), { minLength: 8, maxLength: 8 }),
  noise: fc.array(H.paramArb(fc.oneof(fc.constantFrom(...SINGLE, "nonce", "request", "request_uri", "response_mode", "claims"), H.shortHostile), fc.oneof(H.hostileText, H.redirectVariant, fc.constant(CALLBACK))), { maxLength: 3 }),
};

function authorizeQuery(c: { [K in keyof typeof authorizeFields]: typeof authorizeFields[K] extends fc.Arbitrary<infer V> ? V : never }): string {
  const values: [string, string | undefined][] = [
    ["client_id", c.clientId], ["redirect_uri", c.redirect], ["response_type", c.responseType], ["scope", c.scope], ["state", c.state],
    ["code_challenge", c.codeChallenge], ["code_challenge_method", c.challengeMethod], ["prompt", c.prompt],
  ];
  const params: H.Param[] = values
    .map(([name, value], i): H.Param | undefined => (value === undefined ? undefined : { name, value, enc: c.encs[i]!, frag: c.frags[i]![0], at: c.frags[i]![1] }))
    .filter((p): p is H.Param => p !== undefined);
  return H.targetSafe(H.joinParams([...params, ...c.noise]));
}

/** A parameter as /authorize reads it: its one non-empty value, unless malformed text (NUL, lone surrogate), which counts as absent. */
function authorizeValue(p: ReturnType<typeof H.parsedParams>, name: string): string | undefined {
  const v = formValue(p, name);
  return v !== undefined && v.isWellFormed() && !v.includes("\0") ? v : undefined;
}

/** A `prompt` /authorize takes (OpenID Connect Core §3.1.2.1): space-separated none, login, consent, select_account; none alone. */
function validPrompt(value: string): boolean {
  const values = value.split(" ").filter((v) => v !== "");
  return values.length > 0 && values.every((v) => ["none", "login", "consent", "select_account"].includes(v)) && (!values.includes("none") || values.every((v) => v === "none"));
}

/** Rules for every /authorize answer; returns the kind of answer. */
function checkAuthorize(req: H.RawRequest, res: H.RawResponse, query: string): "page" | "callback" | "login" | "other" {
  const p = H.parsedParams(query);
  const clientIds = p.all.get("client_id") ?? [];
  const redirects = p.all.get("redirect_uri") ?? [];
  const clientOk = clientIds.length === 1 && registeredKeys.includes(clientIds[0]!);
  const redirectOk = redirects.length === 1 && redirects[0] === CALLBACK;
  if (H.refusedBySize(req, res, new URL(server.url).host)) return "other";
  if (req.method !== "GET" && req.method !== "HEAD") {
    expectMethodNotAllowed(req, res, "GET");
    return "other";
  }
  if (res.status === 302) {
    const location = H.header(res, "location") ?? "";
    H.check(clientOk && redirectOk, "/authorize redirected although client_id or redirect_uri is not exactly registered", req, res);
    const url = new URL(location, server.url);
    if (url.origin === new URL(server.url).origin && location.startsWith("/")) {
      H.check(/^\/(login|consent)\?interaction=[A-Za-z0-9_-]+$/.test(location), "a redirect to Tollgate must go to /login or /consent with an interaction id", req, res);
      // A page is only started for a valid request.
      H.check(authorizeValue(p, "response_type") === "code" && authorizeValue(p, "state") !== undefined && !SINGLE.some((n) => (p.all.get(n) ?? []).length > 1), "an invalid request started the sign-in flow", req, res);
      return "login";
    }
    H.check(`${url.origin}${url.pathname}` === CALLBACK && location.startsWith(`${CALLBACK}?`), "a 302 from /authorize must go to the exact registered callback", req, res);
    const error = url.searchParams.get("error");
    H.check(error !== null && AUTHORIZE_ERRORS.includes(error), "a redirect to the callback here must carry an OAuth error", req, res);
    H.check(typeof url.searchParams.get("error_description") === "string", "error redirect without error_description", req, res);
    H.check(url.searchParams.get("iss") === issuer, "error redirect without iss (RFC 9207)", req, res);
    H.check(url.searchParams.get("state") === (authorizeValue(p, "state") ?? null), "the error redirect returns the request's one state, and invents none", req, res);
    return "callback";
  }
  H.check(res.status === 400, "/authorize must answer 302 or 400", req, res);
  // With a request_uri (RFC 9126 §4) the pushed request's parameters replace the query's, and with a request (a request
  // object by value, RFC 9101 §5) the object's: the query's redirect_uri is not the request's, and a request_uri or a
  // request object that cannot be used (these are all made up) gets the error page.
  const replaced = (p.all.get("request_uri") ?? []).length > 0 || (p.all.get("request") ?? []).some((v) => v !== "");
  H.check(!(clientOk && redirectOk) || replaced, "a request with a registered client_id and redirect_uri must be answered by a redirect, not the error page", req, res);
  H.check((res.headers["content-type"]?.[0] ?? "").startsWith("text/html"), "the /authorize error page is HTML", req, res);
  H.check(res.headers.location === undefined, "the error page must not redirect", req, res);
  H.check(H.header(res, "x-frame-options") === "DENY", "the error page cannot be framed", req, res);
  if (req.method === "GET") H.check(res.text.includes("Authorization error") && !/<script|onerror=/i.test(res.text), "the error page must be the fixed page, with no script", req, res);
  return "page";
}

/** The premise of the signed-in properties: B's valid request for openApp gets a code without any page. */
async function expectSilentCodeForOpenApp(): Promise<void> {
  const res = await B.fetch(authorizePath(authorizeParams(openApp, { prompt: "none" })));
  expect(res.status).toBe(302);
  expect(new URL(res.headers.get("location") ?? "", server.url).searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{43,}$/);
}

describe("GET /authorize", () => {
  it("without a session: 400 page unless client_id and redirect_uri are exactly registered; a 302 goes only to the callback or /login", async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ method: methodArb("GET", ["HEAD", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]), extra: extraHeadersArb, ...authorizeFields }), async (c) => {
        const query = authorizeQuery(c);
        const req: H.RawRequest = { method: c.method, target: `/authorize?${query}`, headers: c.extra };
        const before = await fingerprint();
        const res = await hit("authorize", req);
        const kind = checkAuthorize(req, res, query);
        await expectWrites(before, req, res, { interactions: kind === "login" ? 1 : 0 });
      }),
      runs(300),
    );
  }, T);

  it("signed in with remembered consent: a redirect_uri that is not exactly registered is never redirected to, and nothing is written", async () => {
    await expectSilentCodeForOpenApp();
    await fc.assert(
      fc.asyncProperty(
        fc
          .record({ ...authorizeFields, redirect: fc.option(H.redirectVariant, { nil: undefined, freq: 10 }), dupRedirect: fc.boolean(), open: fc.boolean() })
          // Half of DEMO.app's requests go to openApp instead, whose requests reuse B's session.
          .map((c) => ({ ...c, clientId: c.open && c.clientId === DEMO.app.consumerKey ? openApp.consumerKey : c.clientId }))
          .map((c) => ({ ...c, noise: c.dupRedirect ? [...c.noise, H.exact("redirect_uri", CALLBACK)] : c.noise }))
          .filter((c) => {
            const r = H.parsedParams(authorizeQuery(c)).all.get("redirect_uri") ?? [];
            return !(r.length === 1 && r[0] === CALLBACK);
          }),
        async (c) => {
          const query = authorizeQuery(c);
          const req: H.RawRequest = { method: "GET", target: `/authorize?${query}`, headers: cookie("B") };
          const before = await fingerprint();
          const res = await hit("authorize", req);
          H.check(res.status === 400 || !res.byApp, "an unregistered redirect_uri must get the error page", req, res);
          checkAuthorize(req, res, query);
          await expectWrites(before, req, res);
        },
      ),
      runs(150),
    );
  }, T);

  it("signed in with remembered consent: any invalid request with the exact callback redirects an error, never a code", async () => {
    await expectSilentCodeForOpenApp();
    const breaker = fc.oneof(
      fc.oneof(fc.constantFrom("token", "CODE", "code id_token", "", " code"), H.shortHostile).filter((v) => v !== "code").map((v) => ({ response_type: v as string | undefined })),
      fc.constant({ response_type: undefined as string | undefined }),
      fc.constantFrom("", undefined).map((v) => ({ state: v })),
      fc.oneof(H.scopeArb, fc.constantFrom("", "admin", "aisp admin")).filter((s) => s === "" || scopeError(s, ["aisp", "extended_transaction_history", "pisp", "piisp"]) !== undefined).map((v) => ({ scope: v as string | undefined })),
      fc.constant({ scope: undefined as string | undefined }),
      pkceValue.map((v) => ({ code_challenge: v, code_challenge_method: "plain" })),
      pkceValue.map((v) => ({ code_challenge: v, code_challenge_method: undefined as string | undefined })),
      H.shortHostile.filter((v) => v !== "" && !/^[A-Za-z0-9\-._~]{43,128}$/.test(v)).map((v) => ({ code_challenge: v, code_challenge_method: "S256" })),
      fc.constantFrom("S256", "plain").map((m) => ({ code_challenge_method: m })),
      H.shortHostile.filter((v) => v.trim() !== "" && !validPrompt(v)).map((v) => ({ prompt: v })),
    );
    const dup = fc.constantFrom("response_type", "scope", "state", "code_challenge", "code_challenge_method", "prompt");
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          state: H.hostileText.filter((s) => s !== "" && s.length < 4000),
          // Breakers touch distinct parameters, so that a second one cannot repair the first.
          breakers: fc.array(breaker, { minLength: 0, maxLength: 2 }).filter((bs) => new Set(bs.flatMap((b) => Object.keys(b))).size === bs.reduce((n, b) => n + Object.keys(b).length, 0)),
          dups: fc.array(fc.tuple(dup, fc.constantFrom("code", "", "aisp", "x", "S256")), { maxLength: 2 }),
          noise: fc.array(H.paramArb(fc.constantFrom("nonce", "login_hint", "resource", "claims", "x", "foo[]", "Client_ID", "REDIRECT_URI"), H.shortHostile, fc.constantFrom<H.Enc>("form", "pct")), { maxLength: 3 }),
          enc: fc.constantFrom<"form" | "pct">("form", "pct"),
          // DEMO.app (aisp needs SCA: never B's session) or openApp (B's session and remembered consent would give a code).
          open: fc.boolean(),
        }).filter((c) => c.breakers.length + c.dups.length > 0),
        async (c) => {
          const clientId = c.open ? openApp.consumerKey : DEMO.app.consumerKey;
          const values: Record<string, string | undefined> = { client_id: clientId, redirect_uri: CALLBACK, response_type: "code", scope: "aisp", state: c.state };
          for (const b of c.breakers) Object.assign(values, b);
          const params: H.Param[] = Object.entries(values)
            .filter((e): e is [string, string] => e[1] !== undefined)
            .map(([k, v]) => H.exact(k, v, c.enc));
          for (const [name, value] of c.dups) params.push(H.exact(name, value), H.exact(name, value));
          const query = H.joinParams([...params, ...c.noise]);
          const req: H.RawRequest = { method: "GET", target: `/authorize?${query}`, headers: cookie("B") };
          const before = await fingerprint();
          const res = await hit("authorize", req);
          const kind = checkAuthorize(req, res, query);
          H.check(kind === "callback" || !res.byApp, "an invalid request must be answered with an error redirect", req, res);
          if (kind === "callback") H.check(!new URL(H.header(res, "location")!).searchParams.has("code"), "an invalid request got a code", req, res);
          await expectWrites(before, req, res);
        },
      ),
      runs(150),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Revocation and introspection
// ---------------------------------------------------------------------------------------

const tokenParamArb = fc.option(fc.oneof({ weight: 4, arbitrary: H.secretArb }, { weight: 1, arbitrary: fc.constantFrom("<ADMIN>", "") }), { nil: undefined, freq: 8 });

function revocationLikeArb(clients: DemoClient[]) {
  return fc.record({
    method: methodArb("POST"),
    auth: fc.oneof(H.badAuthArb, H.goodAuthArb(fc.constantFrom(...clients))),
    token: tokenParamArb,
    tokenEnc: fc.constantFrom<"form" | "pct">("form", "pct"),
    hint: fc.option(fc.oneof(fc.constantFrom("access_token", "refresh_token", "", "id_token", "ACCESS_TOKEN"), H.shortHostile), { nil: undefined, freq: 2 }),
    extra: extraHeadersArb,
    ...bodyShape,
    params: fc.array(H.paramArb(fc.oneof(fc.constantFrom("token_type_hint", "client_id", "x", "token_type"), H.shortHostile), H.hostileText), { maxLength: 3 }),
  });
}

function revocationBody(c: { token: string | undefined; tokenEnc: "form" | "pct"; hint: string | undefined; params: H.Param[]; dup: number | undefined; sep: string; framing: H.Framing }): H.FormBody {
  const params: H.Param[] = [...c.params];
  if (c.token !== undefined) params.unshift(H.exact("token", c.token === "<ADMIN>" ? real.admin : c.token, c.tokenEnc));
  if (c.hint !== undefined) params.push(H.exact("token_type_hint", c.hint));
  return H.frame(formText(params, c.dup, c.sep), c.framing);
}

/** Common model part of the three client-authenticated endpoints; returns true when the request gets past form reading and client authentication. */
function checkClientRequest(req: H.RawRequest, res: H.RawResponse, body: H.FormBody, auth: H.Auth): boolean {
  const { formOk, tooBig, parsed } = readable(body);
  if (req.method !== "POST") {
    expectMethodNotAllowed(req, res, "POST");
    return false;
  }
  if (formOk && tooBig) {
    H.check(res.status === 413 && H.oauthError(req, res).error === "invalid_request", "a form over 16 KiB must answer 413", req, res);
    return false;
  }
  if (!formOk || parsed.repeated.length > 0) {
    const statuses = formOk ? [400] : [400, 413];
    H.check(statuses.includes(res.status) && H.oauthError(req, res).error === "invalid_request", "an unreadable form or a repeated parameter must answer 400 invalid_request", req, res);
    return false;
  }
  if (!auth.client) {
    expectInvalidClient(req, res);
    return false;
  }
  const clientId = formValue(parsed, "client_id");
  if (clientId !== undefined && clientId !== auth.client.consumerKey) {
    H.check(res.status === 400 && H.oauthError(req, res).error === "invalid_request", "a body client_id other than the authenticated client's must answer 400 invalid_request", req, res);
    return false;
  }
  return true;
}

describe("POST /oauth2/v1/revoke and /oauth2/v1/introspect", () => {
  it("revocation: 401 Basic, 400 invalid_request, or 200 with an empty body for a token that is not the caller's to revoke; no write", async () => {
    await fc.assert(
      fc.asyncProperty(revocationLikeArb([DEMO.app, DEMO.strictApp, DEMO.paymentsApp]), async (c) => {
        const body = revocationBody(c);
        const req = tokenRequestOf({ path: "/oauth2/v1/revoke", method: c.method, auth: c.auth, body, extra: c.extra });
        const before = await fingerprint();
        const res = await hit("revoke", req);
        if (checkClientRequest(req, res, body, c.auth)) {
          const token = formValue(readable(body).parsed, "token");
          if (token === undefined || token === real.admin) {
            H.check(res.status === 400 && H.oauthError(req, res).error === "invalid_request", "a missing token or another client's token must answer 400 invalid_request", req, res);
          } else {
            H.check(res.status === 200 && res.body.length === 0, "revoking an unknown token answers 200 with an empty body (RFC 7009 §2.2)", req, res);
            H.check(H.header(res, "cache-control") === "no-store", "revocation answers are not cached", req, res);
          }
        }
        await expectWrites(before, req, res, refusalRules(req, res, "client-auth"));
      }),
      runs(200),
    );
  }, T);

  it("introspection: 401 Basic, 403 for clients that may not introspect, 400, or 200 {active:false} for unknown tokens; no write", async () => {
    await fc.assert(
      fc.asyncProperty(revocationLikeArb([DEMO.strictApp, DEMO.strictApp, DEMO.app, DEMO.paymentsApp]), async (c) => {
        const body = revocationBody(c);
        const req = tokenRequestOf({ path: "/oauth2/v1/introspect", method: c.method, auth: c.auth, body, extra: c.extra });
        const before = await fingerprint();
        const res = await hit("introspect", req);
        if (checkClientRequest(req, res, body, c.auth)) {
          const token = formValue(readable(body).parsed, "token");
          if (c.auth.client !== DEMO.strictApp) {
            H.check(res.status === 403 && H.oauthError(req, res).error === "unauthorized_client", "a client that may not introspect gets 403 unauthorized_client", req, res);
          } else if (token === undefined) {
            H.check(res.status === 400 && H.oauthError(req, res).error === "invalid_request", "a missing token must answer 400 invalid_request", req, res);
          } else {
            H.check(res.status === 200, "introspection of a token answers 200", req, res);
            const answer = JSON.parse(res.text) as { active: unknown };
            if (token === real.admin) H.check(answer.active === true, "a live token is active", req, res);
            else H.check(JSON.stringify(answer) === '{"active":false}', "an unknown token is {\"active\":false} and nothing more (RFC 7662 §2.2)", req, res);
          }
        }
        await expectWrites(before, req, res, refusalRules(req, res, "client-auth"));
      }),
      runs(200),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Interaction API and console sign-in
// ---------------------------------------------------------------------------------------

function interactionSegment(c: { id: string; raw: boolean }): string {
  const id = resolveId(c.id);
  return c.raw ? H.targetSafe(id) : H.pct(id);
}

describe("interaction API and POST /session/login", () => {
  it("GET /interaction/:id: 200 only for this browser's open interaction, else 403/404/410; no write", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ id: idArb, jar: jarArb("A"), method: methodArb("GET", ["HEAD", "POST", "PUT", "DELETE"]) }).filter((c) => H.uriDecodable(interactionSegment(c.id).split("?")[0]!)),
        async (c) => {
          const segment = interactionSegment(c.id);
          const req: H.RawRequest = { method: c.method, target: `/interaction/${segment}`, headers: cookie(c.jar) };
          const before = await fingerprint();
          const res = await hit("interaction", req);
          const id = routedId(segment);
          if (id === undefined || (c.method !== "GET" && c.method !== "HEAD")) {
            H.check([400, 404, 405].includes(res.status), "an unrouted interaction path must answer 400/404/405", req, res);
          } else {
            const owner = id === IA ? "A" : id === IB || id === IDONE ? "B" : undefined;
            const expected = owner === undefined ? 404 : owner !== c.jar ? 403 : id === IDONE ? 410 : 200;
            H.check(res.status === expected, `expected ${expected}`, req, res);
            if (c.method === "GET" && expected === 200) {
              const view = JSON.parse(res.text) as { id: string; stage: string; csrfToken: unknown };
              H.check(view.id === id && view.stage === (owner === "A" ? "login" : "consent") && typeof view.csrfToken === "string", "the interaction view", req, res);
            }
          }
          if (c.method === "GET" && res.status >= 400) H.oauthError(req, res);
          await expectWrites(before, req, res);
        },
      ),
      runs(150),
    );
  }, T);

  it("POST /interaction/:id/login with wrong credentials, CSRF, content type or body: never a sign-in (a well-formed password of IA's own browser gets the factor stage: SCA); exactly one audit event per failed sign-in", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .record({ id: fc.oneof({ weight: 4, arbitrary: fc.constant({ id: "<IA>", raw: false }) }, { weight: 1, arbitrary: idArb }), jar: jarArb("A"), token: csrfArb("A"), type: jsonTypeArb, body: loginBodyArb, method: methodArb("POST", ["GET", "PUT", "DELETE"]) })
          .filter((c) => H.uriDecodable(interactionSegment(c.id).split("?")[0]!)),
        async (c) => {
          const body = jsonBody(c.body.text, c.body.garbage, c.body.at);
          const req: H.RawRequest = {
            method: c.method,
            target: `/interaction/${interactionSegment(c.id)}/login`,
            headers: [...cookie(c.jar), ...csrfFor(c.token), ...jsonHeaders(c.type)],
            body: c.method === "GET" ? undefined : body,
          };
          const before = await fingerprint();
          const res = await hit("interaction", req);
          H.check([200, 400, 401, 403, 404, 405, 409, 410, 413, 415].includes(res.status), "unexpected status", req, res);
          const routed = c.method === "POST" && /^[^/?]+$/.test(interactionSegment(c.id));
          if (routed && c.type.kind === "other") H.check(res.status === 415, "a non-JSON sign-in must answer 415", req, res);
          if (routed && c.type.kind === "json" && body.length > JSON_LIMIT) H.check(res.status === 413, "a JSON body over 4 KiB must answer 413", req, res);
          // IA needs SCA: its own browser's well-formed password, whatever it is, gets the factor stage, and only that.
          const ownBrowser = routed && routedId(interactionSegment(c.id)) === IA && c.jar === "A" && c.token === "A" && c.type.kind === "json";
          if (ownBrowser && c.body.garbage === undefined && body.length <= JSON_LIMIT && wellFormedLogin(loginFields(body))) H.check(res.status === 200, "a well-formed password for a request that needs SCA must get the factor stage", req, res);
          if (res.status === 200) {
            H.check(ownBrowser, "only IA's own browser, with its CSRF token and a JSON body, gets the factor stage", req, res);
            expectFactorStage(req, res, false);
          }
          if (res.status === 401) H.check(H.oauthError(req, res).error === "invalid_credentials", "401 error", req, res);
          if (res.status >= 400 && res.body.length > 0) H.oauthError(req, res);
          // The factor stage writes no audit event (the attempt is counted; the verdict comes after the factor) and moves IA to that stage.
          await expectWrites(before, req, res, res.status === 200 ? { interactionStage: true } : { audit: res.status === 401 ? 1 : 0, auditTypes: ["signin.failed"] });
          if (res.status === 200) await endFactorStage();
        },
      ),
      runs(150),
    );
    // The interactions are where they were.
    expect((await json(await A.fetch(`/interaction/${IA}`))).stage).toBe("login");
  }, T);

  it("POST /interaction/:id/consent with invalid answers, CSRF or session: never 200, no consent, code or interaction change", async () => {
    const consentBodyArb = fc.oneof(
      { weight: 4, arbitrary: fc.record({ approve: fc.constant(true), scopes: fc.array(fc.oneof(fc.constantFrom("aisp", "pisp", "admin", "AISP", "aisp ", ""), H.shortHostile), { maxLength: 5 }) }).map((o) => JSON.stringify(o)) },
      { weight: 2, arbitrary: fc.record({ approve: fc.oneof(fc.constantFrom<unknown>("true", "false", 1, 0, null, "yes", [true]), fc.jsonValue()), scopes: fc.jsonValue() }, { requiredKeys: [] }).map((o) => JSON.stringify(o)) },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.integer({ min: 101, max: 130 }).map((n) => JSON.stringify({ approve: true, scopes: Array.from({ length: n }, () => "aisp") })) },
      { weight: 1, arbitrary: fc.constant(JSON.stringify({ approve: true, scopes: ["a".repeat(201)] })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "", "{", "{\"approve\":true}", "{\"approve\":\"false\"}", "{\"__proto__\":{\"approve\":false}}", "{\"constructor\":{\"approve\":false}}",
          "{\"approve\":true,\"scopes\":\"aisp\"}", "{\"approve\":true,\"scopes\":[[\"aisp\"]]}", "{\"approve\":true,\"scopes\":[\"aisp\",\"pisp\"]}", "[{\"approve\":false}]", "approve=false",
        ),
      },
    );
    // An approval is judged only within the inactivity limit of the sign-in (RTS Art. 4(3)(d), SCA_IDLE_SECONDS, at most
    // 5 minutes): past it, even an invalid one sends the interaction back to login. A fresh IB, signed in for just now.
    IB = await consentStageOfB();
    await fc.assert(
      fc.asyncProperty(
        fc
          .record({ id: fc.oneof({ weight: 4, arbitrary: fc.constant({ id: "<IB>", raw: false }) }, { weight: 1, arbitrary: idArb }), jar: jarArb("B"), token: csrfArb("B"), type: jsonTypeArb, text: consentBodyArb, garbage: fc.option(H.invalidUtf8, { nil: undefined, freq: 8 }), at: fc.nat() })
          .map((c) => ({ ...c, body: jsonBody(c.text, c.garbage, c.at) }))
          .filter((c) => !consentValid(c.body) && H.uriDecodable(interactionSegment(c.id).split("?")[0]!)),
        async (c) => {
          const req: H.RawRequest = { method: "POST", target: `/interaction/${interactionSegment(c.id)}/consent`, headers: [...cookie(c.jar), ...csrfFor(c.token), ...jsonHeaders(c.type)], body: c.body };
          const before = await fingerprint();
          const res = await hit("interaction", req);
          H.check([400, 403, 404, 409, 410, 413, 415].includes(res.status), "an invalid consent answer must be refused with 4xx", req, res);
          if (res.body.length > 0) H.oauthError(req, res);
          await expectWrites(before, req, res);
        },
      ),
      runs(120),
    );
    expect((await json(await B.fetch(`/interaction/${IB}`))).stage).toBe("consent");
  }, T);

  it("POST /session/login with wrong credentials, CSRF, content type or body: never a sign-in (alice and the admin, who have a second factor, get the factor stage); exactly one audit event per failed sign-in", async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ jar: jarArb("C"), token: csrfArb("C"), type: jsonTypeArb, body: loginBodyArb, method: methodArb("POST", ["GET", "PUT", "DELETE"]) }), async (c) => {
        const body = jsonBody(c.body.text, c.body.garbage, c.body.at);
        const req: H.RawRequest = { method: c.method, target: "/session/login", headers: [...cookie(c.jar), ...csrfFor(c.token), ...jsonHeaders(c.type)], body: c.method === "GET" ? undefined : body };
        const before = await fingerprint();
        const res = await hit("session", req);
        H.check([200, 400, 401, 403, 404, 405, 413, 415].includes(res.status), "unexpected status", req, res);
        if (c.method === "POST" && c.type.kind === "other") H.check(res.status === 415, "a non-JSON sign-in must answer 415", req, res);
        const csrfMatches = (c.jar === "A" && c.token === "A") || (c.jar === "B" && c.token === "B") || (c.jar === "C" && c.token === "C");
        if (c.method === "POST" && c.type.kind === "json" && body.length <= JSON_LIMIT && !csrfMatches && res.status !== 400) {
          H.check(res.status === 403, "a sign-in without this session's CSRF token must answer 403", req, res);
        }
        // alice and the admin have a second factor: their usernames with any well-formed password get the factor stage, and only theirs.
        const fields = loginFields(body);
        const wellFormed = c.method === "POST" && c.type.kind === "json" && csrfMatches && body.length <= JSON_LIMIT && wellFormedLogin(fields);
        const withFactor = wellFormed && ([DEMO.user.username, DEMO.admin.username] as unknown[]).includes(fields!.username);
        if (wellFormed && c.body.garbage === undefined && withFactor) H.check(res.status === 200, "a password of an account with a second factor must get the factor stage", req, res);
        if (wellFormed && c.body.garbage === undefined && !withFactor) H.check(res.status === 401, "a wrong password of an account without a factor, or an unknown user, must answer 401", req, res);
        if (res.status === 200) {
          H.check(withFactor, "only a well-formed sign-in of alice or the admin, who have a second factor, gets the factor stage", req, res);
          expectFactorStage(req, res, true);
        }
        if (res.status >= 400 && res.body.length > 0) H.oauthError(req, res);
        // The factor stage writes no audit event: the verdict comes after the factor.
        await expectWrites(before, req, res, { audit: res.status === 401 ? 1 : 0, auditTypes: ["signin.failed"] });
      }),
      runs(120),
    );
  }, T);

  it("POST /session/factor after alice's right password, with anything but her factor: never a sign-in; a malformed proof is refused before any work, a wrong one ends the attempt with one audit event", async () => {
    const b64 = fc.oneof(fc.base64String({ maxLength: 64 }).map((s) => s.replace(/[+/=]/g, "A") || "A"), H.shortHostile);
    const assertion = fc.record({
      id: b64,
      rawId: b64,
      type: fc.constantFrom("public-key", "password", ""),
      response: fc.record({ clientDataJSON: b64, authenticatorData: b64, signature: b64, userHandle: fc.option(b64, { nil: undefined }) }),
      clientExtensionResults: fc.constantFrom({}, { appid: true }, null, "x"),
    });
    const proofArb = fc.oneof(
      { weight: 4, arbitrary: fc.record({ method: fc.constant("totp"), code: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.stringMatching(/^\d{1,8}$/), H.shortHostile, fc.integer({ min: 30, max: 40 }).map((n) => "1".repeat(n))) }) },
      { weight: 3, arbitrary: fc.record({ method: fc.constant("webauthn"), response: assertion }) },
      { weight: 1, arbitrary: fc.record({ method: fc.oneof(fc.constantFrom("sms", "TOTP", "", "webauthn"), H.shortHostile), code: fc.string({ maxLength: 8 }) }) },
    );
    const bodyArb = fc.oneof(
      { weight: 8, arbitrary: proofArb.map((p) => Buffer.from(JSON.stringify(p))) },
      { weight: 1, arbitrary: fc.constantFrom("", "null", "[]", '"totp"', "{", '{"method":"totp","code":123456}').map((t) => Buffer.from(t)) },
      { weight: 1, arbitrary: fc.integer({ min: 16_400, max: 20_000 }).map((n) => Buffer.from(JSON.stringify({ method: "totp", code: "1".repeat(n) }))) },
    );
    /** alice's codes the server would accept now (RFC 6238, ±1 step), which no generated body may carry. */
    const validCodes = async (): Promise<string[]> => {
      const now = Math.floor(Date.now() / 1000);
      return Promise.all([-30, 0, 30].map((d) => generate({ secret: DEMO.user.totpSecret, epoch: now + d })));
    };
    await fc.assert(
      fc.asyncProperty(fc.record({ type: jsonTypeArb, body: bodyArb }), async (c) => {
        const text = c.body.toString();
        fc.pre(!(await validCodes()).some((code) => text.includes(`"${code}"`)));
        const browser = new Browser(server.url);
        const pending = await sessionLogin(browser, DEMO.user);
        expect(pending.body.stage).toBe("factor");
        const req: H.RawRequest = {
          method: "POST",
          target: "/session/factor",
          headers: [...jarCookies(browser), ["X-CSRF-Token", pending.body.csrfToken], ...jsonHeaders(c.type)],
          body: c.body,
        };
        const before = await fingerprint();
        const res = await hit("session", req);
        H.check([400, 401, 413, 415].includes(res.status), "a factor answer without alice's factor must answer 400, 401, 413 or 415", req, res);
        if (c.type.kind === "other") H.check(res.status === 415, "a non-JSON factor answer must answer 415", req, res);
        if (c.body.length > 16_384 && c.type.kind === "json") H.check(res.status === 413, "a JSON body over 16 KiB must answer 413", req, res);
        H.oauthError(req, res);
        if (res.status === 401) H.check(H.oauthError(req, res).error === "invalid_credentials", "401 error", req, res);
        // Only a verdict ends the attempt, and it is the one audit event; a malformed proof leaves the attempt pending.
        await expectWrites(before, req, res, { audit: res.status === 401 ? 1 : 0, auditTypes: ["sca.failed"], answersSignIn: res.status === 401 });
        const after = await json(await browser.fetch("/session"));
        expect(after.user).toBeNull();
        expect(after.factorPending).toBe(res.status !== 401);
      }),
      runs(60),
    );
  }, T);

  it("ill-formed UTF-16 (lone surrogates) in a JSON sign-in body answers 400/401, not 500", async () => {
    const lone = fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff");
    const withLone = fc.tuple(fc.string({ maxLength: 8 }), lone, fc.string({ maxLength: 8 })).map(([a, l, b]) => a + l + b);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          to: fc.constantFrom("session", "interaction"),
          username: fc.oneof(withLone, fc.constantFrom("alice", "nobody")),
          password: fc.oneof(withLone, fc.constantFrom("x", `${DEMO.user.password}x`)),
        }).filter((c) => !(c.username.isWellFormed() && c.password.isWellFormed())),
        async (c) => {
          const [target, jar] = c.to === "session" ? ["/session/login", "C"] : [`/interaction/${IA}/login`, "A"];
          const req: H.RawRequest = {
            method: "POST",
            target,
            headers: [...cookie(jar), ...csrfFor(jar), ["Content-Type", "application/json"]],
            body: Buffer.from(JSON.stringify({ username: c.username, password: c.password })),
          };
          const before = await fingerprint();
          const res = await hit(c.to === "session" ? "session" : "interaction", req);
          H.check(res.status === 400 || res.status === 401, "an ill-formed username or password must answer 400 or 401", req, res);
          H.oauthError(req, res);
          await expectWrites(before, req, res, { audit: res.status === 401 ? 1 : 0, auditTypes: ["signin.failed"] });
        },
      ),
      runs(30),
    );
  }, T);

  it("malformed percent-encoding in a route parameter answers 4xx, not 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          route: fc.constantFrom("GET /interaction/%s", "POST /interaction/%s/login", "POST /interaction/%s/consent", "GET /login/%s", "GET /consent/%s", "GET /account/%s", "GET /admin/%s"),
          value: H.shortHostile,
          frag: fc.constantFrom(...H.BAD_PERCENT),
          at: fc.nat(),
        }).filter((c) => !H.uriDecodable(H.encode(c.value, "bad", c.frag, c.at))),
        async (c) => {
          const segment = H.encode(c.value, "bad", c.frag, c.at);
          const [method, path] = c.route.split(" ") as [string, string];
          const req: H.RawRequest = { method, target: path.replace("%s", segment), headers: method === "POST" ? [["Content-Type", "application/json"]] : [], body: method === "POST" ? Buffer.from("{}") : undefined };
          const res = await hit("paths", req);
          H.check(res.status >= 400 && res.status < 500, "must answer 4xx", req, res);
          H.oauthError(req, res);
        },
      ),
      runs(40),
    );
  }, T);

  it("a missing static asset answers 404, not 500 (a directory may redirect, but only within /assets/)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(H.shortHostile.map((s) => H.pct(s)), fc.constantFrom("", "nope.js", "index.html", "..%2findex.html", "%2e%2e/%2e%2e/package.json", ".vite/manifest.json", "/evil.example", "%2f%2fevil.example", "\\evil.example", ".", "%2e")), async (name) => {
        const req: H.RawRequest = { method: "GET", target: `/assets/${name}` };
        const res = await hit("paths", req);
        if (res.status === 301) H.check(/^\/assets\/[^/\\]/.test(H.header(res, "location") ?? ""), "a directory redirect must stay under /assets/", req, res);
        else H.check(res.status >= 400 && res.status < 500, "a missing asset must answer 4xx", req, res);
      }),
      runs(20),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Identifiers that reach the database
// ---------------------------------------------------------------------------------------

describe("identifiers that reach the database (PostgreSQL refuses NUL in text)", () => {
  it("NUL and control characters in a client id, client_id, interaction id or username answer 4xx, not 500", async () => {
    const withControl = fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom("\u0000", "\u0000\u0000", "\u0001", "\u001f", "\u007f"), fc.string({ maxLength: 8 })).map(([a, c, b]) => a + c + b);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          where: fc.constantFrom("/oauth2/v1/token", "/oauth2/v1/revoke", "/oauth2/v1/introspect", "/authorize", "/interaction/:id", "/session/login", "/interaction/:id/login"),
          value: fc.oneof(withControl, withControl.map((v) => `${DEMO.app.consumerKey}${v}`)),
          enc: fc.constantFrom<"form" | "pct">("form", "pct"),
        }),
        async (c) => {
          let req: H.RawRequest;
          let expected: number[];
          if (c.where.startsWith("/oauth2/")) {
            req = { method: "POST", target: c.where, headers: [["Content-Type", FORM], ["Authorization", `Basic ${H.b64(`${H.pct(c.value, c.enc === "form")}:x`)}`]], body: Buffer.from("grant_type=client_credentials&token=abc") };
            expected = [401];
          } else if (c.where === "/authorize") {
            req = { method: "GET", target: `/authorize?client_id=${H.pct(c.value, c.enc === "form")}&redirect_uri=${H.pct(CALLBACK)}&response_type=code&state=s&scope=aisp` };
            expected = [400];
          } else if (c.where === "/interaction/:id") {
            req = { method: "GET", target: `/interaction/${H.pct(c.value)}`, headers: cookie("A") };
            expected = [400, 404];
          } else {
            const [target, jar] = c.where === "/session/login" ? ["/session/login", "C"] : [`/interaction/${IA}/login`, "A"];
            req = { method: "POST", target, headers: [...cookie(jar), ...csrfFor(jar), ["Content-Type", "application/json"]], body: Buffer.from(JSON.stringify({ username: c.value, password: "x" })) };
            // IA needs SCA: a username the sign-in schema takes (control characters other than NUL) gets the factor stage there, whoever it names.
            expected = c.where === "/session/login" ? [400, 401] : c.value.includes("\0") ? [400] : [200];
          }
          const before = await fingerprint();
          const res = await hit("identifiers", req);
          H.check(expected.includes(res.status), `expected ${expected.join(" or ")}`, req, res);
          if (c.where === "/authorize") H.check((res.headers["content-type"]?.[0] ?? "").startsWith("text/html"), "the /authorize error page", req, res);
          else if (res.status === 200) expectFactorStage(req, res, false);
          else H.oauthError(req, res);
          if (c.where.startsWith("/oauth2/")) expectInvalidClient(req, res);
          await expectWrites(before, req, res, res.status === 200 ? { interactionStage: true } : { audit: res.status === 401 ? 1 : 0, auditTypes: ["client.authentication_failed", "signin.failed"] });
          if (res.status === 200) await endFactorStage();
        },
      ),
      runs(40),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Gateway
// ---------------------------------------------------------------------------------------

const GATEWAY_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

type BearerKind = "none" | "invalid" | "insufficient" | "valid";

const bearerArb: fc.Arbitrary<{ header: string | undefined; kind: BearerKind }> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ header: undefined, kind: "none" as BearerKind }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      basic(DEMO.app.consumerKey, DEMO.app.consumerSecret), "Basic Zm9vOmJhcg==", "Digest x", "Negotiate abc", "Token abc", "<aisp-tab>", "",
      "BearerTokens <aisp>", "Bearer-Token <aisp>", "Bearer_Token <aisp>", "Token <aisp>",
    ).map((header) => ({ header, kind: "none" as BearerKind })),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom("Bearer", "bearer", "Bearer =", "Bearer <aisp>x", "Bearer <aisp> x", "Bearer <revoked>", "Bearer <refresh>", "Bearer <aisp>,Bearer <aisp>", "BearerToken", "BearerToken <aisp>x", "bearertoken <revoked>"),
      H.secretArb.map((s) => `Bearer ${H.headerSafe(s)}`),
      fc.string({ unit: fc.constantFrom(..."ABCabc019-._~+/".split("")), minLength: 1, maxLength: 80 }).map((s) => `Bearer ${s}`),
    ).map((header) => ({ header, kind: "invalid" as BearerKind })),
  },
  { weight: 2, arbitrary: fc.constantFrom("Bearer <payments>", "Bearer <admin>", "Bearer <pisp-only>", "bearer <admin>", "BearerToken <payments>", "bearertoken <admin>").map((header) => ({ header, kind: "insufficient" as BearerKind })) },
  { weight: 2, arbitrary: fc.constantFrom("Bearer <aisp>", "bearer <aisp>", "BEARER <aisp>", "Bearer  <aisp>", "Bearer <aisp> ").map((header) => ({ header, kind: "valid" as BearerKind })) },
  // BearerToken, the apigee profile's token_type, is an alias of Bearer in any case.
  { weight: 2, arbitrary: fc.mixedCase(fc.constant("BearerToken")).map((scheme) => ({ header: `${scheme} <aisp>`, kind: "valid" as BearerKind })) },
);

function resolveBearer(h: string): string {
  return h
    .replace("<aisp-tab>", `Bearer\t${real.aisp}`)
    .replaceAll("<aisp>", real.aisp)
    .replace("<revoked>", real.revoked)
    .replace("<refresh>", real.refresh)
    .replace("<payments>", real.payments)
    .replace("<admin>", real.admin)
    .replace("<pisp-only>", real.pispOnly);
}

/** The gateway's path rules (decisions.md "Errors"; server/src/gateway/router.ts splitPath): a dot segment is one also with `;` parameters. */
function gatewayPath(target: string): { bad: boolean; name: string } {
  const path = target.split("?")[0]!;
  const segments = path.split("/");
  const bad = segments.some((s) => {
    if (!H.uriDecodable(s)) return true;
    const d = decodeURIComponent(s);
    const bare = d.split(";")[0];
    return bare === "." || bare === ".." || d.includes("/") || d.includes("\\");
  });
  return { bad, name: segments[1] ?? "" };
}

/**
 * The account API's allow-list (gateway/account-path.ts), for a target `gatewayPath` finds
 * good: after the API name, the segments percent-decoded, without `;` parameters, empty ones
 * dropped, are none (the list), an account, or an account and `balances`, `transactions` (in
 * any case) or `transactions/<id>`.
 */
function onAccountAllowList(target: string): boolean {
  const segments = target.split("?")[0]!.split("/").slice(2).map((s) => decodeURIComponent(s).split(";")[0]!).filter((s) => s !== "");
  const data = segments[1]?.toLowerCase();
  return segments.length <= 1 || (segments.length === 2 && (data === "balances" || data === "transactions")) || (segments.length === 3 && data === "transactions");
}

/** Every gateway answer: nosniff, and no upstream cookie (the accounts API does not pass cookies; its upstream sets some under /echo/). */
function checkGatewayAnswer(req: H.RawRequest, res: H.RawResponse, passCookies = false): void {
  if (!res.byApp) return;
  H.check(H.header(res, "x-content-type-options") === "nosniff", "every gateway answer must carry X-Content-Type-Options: nosniff", req, res);
  if (!passCookies) H.check(res.headers["set-cookie"] === undefined, "an upstream's Set-Cookie must not reach the caller of an API that does not pass cookies", req, res);
}

describe("gateway (/accounts/...)", () => {
  it("400 for dot segments and bad encodings, 404 unknown API, 405, 401/403 with a Bearer challenge; only a valid token reaches the upstream", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...GATEWAY_METHODS) }, { weight: 1, arbitrary: fc.constantFrom("HEAD", "OPTIONS", "TRACE", "PROPFIND") }),
          prefix: fc.oneof(
            { weight: 8, arbitrary: fc.constant("/accounts") },
            { weight: 1, arbitrary: fc.constantFrom("/ACCOUNTS", "/Accounts", "/accounts%2F", "//accounts", "/./accounts", "/accounts;x", "/%61ccounts", "/accounts%00", "/accounts.json", "/accountsx", "/accounts-v2", "/accounts/..", "/accounts/%2e%2e", "/accounts/.%2e", "/..;/accounts", "/accounts/..;", "/accounts/%2e%2e;x") },
          ),
          segments: fc.array(
            fc.oneof(
              { weight: 3, arbitrary: fc.constantFrom("acc-001", "acc-002", "balances", "", "acc-001/balances", "echo") },
              { weight: 2, arbitrary: H.shortHostile.map((s) => H.pct(s)) },
              { weight: 1, arbitrary: H.dotParamSegmentArb },
              { weight: 2, arbitrary: fc.constantFrom(...H.PATH_TRAVERSAL) },
              { weight: 1, arbitrary: fc.constantFrom(...H.BAD_PERCENT) },
              { weight: 1, arbitrary: H.shortHostile.map((s) => H.targetSafe(s)) },
            ),
            { maxLength: 4 },
          ),
          query: fc.option(H.shortHostile.map((s) => H.targetSafe(s)), { nil: undefined, freq: 3 }),
          auth: bearerArb,
          spoof: fc.subarray<[string, string]>([["X-Client-Id", "spoofed"], ["X_Client_Id", "spoofed"], ["X-User-Id", "spoofed"], ["X-Scopes", "admin"], ["Cookie", "tollgate.sid=x"]]),
          body: fc.option(H.hostileText.map((s) => Buffer.from(s.slice(0, 2000))), { nil: undefined, freq: 3 }),
        }),
        async (c) => {
          const target = `${c.prefix}${c.segments.map((s) => `/${s}`).join("")}${c.query === undefined ? "" : `?${c.query}`}`;
          const headers: [string, string][] = [...c.spoof];
          if (c.auth.header !== undefined) headers.push(["Authorization", resolveBearer(c.auth.header)]);
          const withBody = c.body !== undefined && c.method !== "GET" && c.method !== "HEAD";
          if (withBody) headers.push(["Content-Type", "application/json"]);
          const req: H.RawRequest = { method: c.method, target, headers, body: withBody ? c.body : undefined };
          const before = await fingerprint();
          const res = await hit("gateway", req);
          const { bad, name } = gatewayPath(target);
          const challenge = H.header(res, "www-authenticate") ?? "";
          const head = c.method === "HEAD";
          if (H.refusedBySize(req, res, new URL(server.url).host)) {
            // An over-long Authorization header: Node answers 431 before the gateway.
          } else if (bad) {
            H.check(res.status === 400 && (head || H.oauthError(req, res).error === "invalid_request"), "dot segments, encoded slashes and bad encodings must answer 400", req, res);
          } else if (name !== "accounts") {
            H.check(res.status === 404, "an unknown API must answer 404", req, res);
          } else if (!GATEWAY_METHODS.includes(c.method)) {
            H.check(res.status === 405 && H.header(res, "allow") === GATEWAY_METHODS.join(", "), "another method must answer 405 with Allow", req, res);
          } else if (c.auth.kind === "none") {
            H.check(res.status === 401 && challenge === `Bearer realm="${REALM}", DPoP realm="${REALM}", algs="PS256 ES256 EdDSA"`, "no bearer token: 401 with a bare Bearer challenge (RFC 6750 §3.1) and the DPoP one (RFC 9449 §7.1)", req, res);
          } else if (c.auth.kind === "invalid") {
            H.check(res.status === 401 && challenge.startsWith(`Bearer realm="${REALM}"`) && challenge.includes('error="invalid_token"'), "a bad token: 401 invalid_token with a Bearer challenge", req, res);
          } else if (c.auth.kind === "insufficient") {
            H.check(res.status === 403 && challenge.startsWith(`Bearer realm="${REALM}"`) && challenge.includes('error="insufficient_scope"'), "a token without the API: 403 insufficient_scope with a Bearer challenge", req, res);
          } else if (!onAccountAllowList(target)) {
            H.check(res.status === 404 && H.oauthError(req, res).error === "not_found", "a path off the account API's allow-list must answer 404 from the gateway", req, res);
          } else {
            H.check(res.status === 200 || res.status === 404, "a valid call is answered by the upstream", req, res);
            const echoed = JSON.parse(res.text) as { caller?: { clientId?: string; userId?: string; scopes?: string } };
            H.check(echoed.caller?.clientId === DEMO.app.consumerKey && echoed.caller.userId === real.aliceId && echoed.caller.scopes === "aisp", "the upstream must see the token's identity, not the caller's headers", req, res);
          }
          if (res.status === 401 || res.status === 403) {
            H.check(challenge.startsWith("Bearer "), "gateway 401/403 must carry WWW-Authenticate: Bearer", req, res);
            if (c.method !== "HEAD") H.oauthError(req, res);
          }
          H.check(!res.text.includes(DEMO.app.consumerSecret) && !/Basic [A-Za-z0-9+/=]{8,}/.test(res.text), "Basic credentials must never be echoed", req, res);
          checkGatewayAnswer(req, res);
          // A call the gateway itself refused (not an upstream's answer, nor one Express served for a path of ours) is audited once.
          const byGateway = res.byApp && !isTollgatePath(target.split("?")[0]!) && !H.refusedBySize(req, res, new URL(server.url).host);
          const upstreamAnswered = !bad && name === "accounts" && GATEWAY_METHODS.includes(c.method) && c.auth.kind === "valid" && onAccountAllowList(target);
          const refused = byGateway && !upstreamAnswered && res.status >= 400 && res.status < 500;
          await expectWrites(before, req, res, { audit: refused ? 1 : 0, auditTypes: ["gateway.refused"] });
        },
      ),
      runs(300),
    );
  }, T);

  describe("forwarding fields and cookies (APIs on the demo upstream's /echo/, no trusted proxy)", () => {
    /** The gateway's own forwarding fields, the only ones the upstream may get (gateway/forward.ts). */
    const OURS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip"];
    const OTHERS = H.FORWARDING_FIELDS.map((n) => n.toLowerCase()).filter((n) => !OURS.includes(n));

    beforeAll(async () => {
      const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
      for (const [name, passCookies] of [["echo", false], ["echo-cookies", true]] as const) {
        await server.prisma.api.create({
          data: { name, upstreamUrl: `${server.demoUpstreamUrl}/echo`, requiredScopes: "aisp", passCookies, products: { create: [{ apiProductId: aisp.id }] } },
        });
      }
    });

    it("the upstream gets only the gateway's own forwarding fields, whatever the caller sends (names in any case, CGI spellings, repeated); Set-Cookie only with passCookies; nosniff", async () => {
      const host = new URL(server.url).host;
      const expected: Record<string, string> = {
        forwarded: `for=127.0.0.1;host="${host}";proto=http`,
        "x-forwarded-for": "127.0.0.1",
        "x-forwarded-host": host,
        "x-forwarded-proto": "http",
        "x-forwarded-port": new URL(server.url).port,
        "x-real-ip": "127.0.0.1",
      };
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            api: fc.constantFrom("echo", "echo-cookies"),
            method: fc.constantFrom(...GATEWAY_METHODS),
            path: fc.array(fc.constantFrom("a", "b", "acc-001", "%C3%A9", "x;v=1"), { maxLength: 3 }),
            auth: fc.constantFrom("Bearer", "bearer", "BearerToken", "bearertoken", "BEARERTOKEN"),
            spoof: fc.array(H.spoofedForwardingArb, { minLength: 1, maxLength: 10 }),
            body: fc.option(H.shortHostile.map((s) => Buffer.from(s)), { nil: undefined, freq: 2 }),
          }),
          async (c) => {
            const headers: [string, string][] = [...c.spoof, ["Authorization", `${c.auth} ${real.aisp}`]];
            const withBody = c.body !== undefined && c.method !== "GET";
            if (withBody) headers.push(["Content-Type", "text/plain"]);
            const req: H.RawRequest = { method: c.method, target: `/${c.api}/${c.path.join("/")}`, headers, body: withBody ? c.body : undefined };
            const before = await fingerprint();
            const res = await hit("gateway", req);
            H.check(res.status === 200, "a valid call to the echo API must reach the upstream", req, res);
            const received = (JSON.parse(res.text) as { request: { headers: Record<string, unknown> } }).request.headers;
            for (const [name, value] of Object.entries(expected)) {
              H.check(received[name] === value, `the upstream must get the gateway's own ${name}: ${JSON.stringify(value)}, not ${JSON.stringify(received[name])}`, req, res);
            }
            for (const name of OTHERS) H.check(received[name] === undefined, `the caller's ${name} must not reach the upstream`, req, res);
            const cgi = Object.keys(received).filter((n) => n.includes("_"));
            H.check(cgi.length === 0, `fields spelt with _ must not reach the upstream: ${cgi.join(", ")}`, req, res);
            checkGatewayAnswer(req, res, c.api === "echo-cookies");
            if (c.api === "echo-cookies") H.check(JSON.stringify(res.headers["set-cookie"]) === JSON.stringify(DEMO_UPSTREAM_COOKIES), "an API that passes cookies passes the upstream's Set-Cookie", req, res);
            await expectWrites(before, req, res);
          },
        ),
        runs(150),
      );
    }, T);
  });
});

// ---------------------------------------------------------------------------------------
// Raw protocol abuse: CR/LF and NUL in headers, broken framing, odd request lines
// ---------------------------------------------------------------------------------------

describe("raw HTTP (node:net): header injection, framing, request lines", () => {
  it("every request is answered with a 4xx, and nothing injected comes back in the response headers", async () => {
    const bases: H.RawRequest[] = [
      { method: "POST", target: "/token", headers: [["Content-Type", FORM]], body: Buffer.from("grant_type=client_credentials") },
      { method: "POST", target: "/oauth2/v1/revoke", headers: [["Content-Type", FORM]], body: Buffer.from("token=abc") },
      { method: "POST", target: "/oauth2/v1/introspect", headers: [["Content-Type", FORM]], body: Buffer.from("token=abc") },
      { method: "GET", target: "/authorize?client_id=nobody&redirect_uri=http%3A%2F%2Fevil.example&response_type=code&state=s&scope=aisp" },
      { method: "GET", target: "/accounts/acc-001" },
      { method: "POST", target: "/session/login", headers: [["Content-Type", "application/json"]], body: Buffer.from('{"username":"alice","password":"x"}') },
      { method: "GET", target: "/interaction/nope" },
    ];
    type Mutation = (r: H.RawRequest) => H.RawRequest;
    const injectedHeader = fc
      .tuple(
        fc.constantFrom("X-Request-Id", "X-Fuzz", "Authorization", "Cookie", "Content-Type", "Host", "X-Forwarded-For", "Origin"),
        fc.constantFrom("\r\n", "\n", "\r", "\r\n ", "\r\n\t", "\u0000", "\r\n\r\n", "\u0085", "\u2028"),
        fc.constantFrom("Set-Cookie: INJECTED=1", "X-Injected: INJECTED", "Location: http://INJECTED.example", "Content-Length: 0", "Transfer-Encoding: chunked", "GET /healthz HTTP/1.1", "Access-Control-Allow-Origin: INJECTED"),
      )
      .map(([name, sep, payload]): Mutation => (r) => ({ ...r, headers: [...(r.headers ?? []), [name, `ok${H.utf8Latin1(sep)}${payload}`]] }));
    const mutation: fc.Arbitrary<Mutation> = fc.oneof(
      { weight: 4, arbitrary: injectedHeader },
      { weight: 1, arbitrary: fc.constantFrom("INJECTED<script>", "a".repeat(65), "../../x", "valid-id_1.2", "id with space", "%0d%0aSet-Cookie:INJECTED").map((v): Mutation => (r) => ({ ...r, headers: [...(r.headers ?? []), ["X-Request-Id", v]] })) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<Mutation>(
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Content-Length", "0"], ["Content-Length", "5"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Transfer-Encoding", "chunked"]] }),
          (r) => ({ ...r, contentLength: false, headers: [...(r.headers ?? []), ["Transfer-Encoding", "chunked"]], body: Buffer.from(`${(r.body ?? Buffer.alloc(0)).length.toString(16)}\r\n${(r.body ?? Buffer.alloc(0)).toString("latin1")}\r\n0\r\n\r\n`, "latin1") }),
          (r) => ({ ...r, contentLength: false, headers: [...(r.headers ?? []), ["Transfer-Encoding", "chunked"]], body: Buffer.from("zz\r\nabc\r\n0\r\n\r\n") }),
          (r) => ({ ...r, contentLength: false, headers: [...(r.headers ?? []), ["Transfer-Encoding", "gzip, chunked"]], body: Buffer.from("0\r\n\r\n") }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Transfer-Encoding", "gzip"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Transfer-Encoding", " chunked"]] }),
          (r) => ({ ...r, host: false }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Host", "evil.example"]] }),
          (r) => ({ ...r, host: false, headers: [...(r.headers ?? []), ["Host", "evil.example"]] }),
          (r) => ({ ...r, target: `http://evil.example${r.target}` }),
          (r) => ({ ...r, target: `${r.target}\xff\xfe` }),
          (r) => ({ ...r, target: `${r.target} extra` }),
          (r) => ({ ...r, target: `${r.target}\t` }),
          (r) => ({ ...r, target: "*" }),
          (r) => ({ ...r, version: "HTTP/1.0" }),
          (r) => ({ ...r, version: "HTTP/1.2" }),
          (r) => ({ ...r, version: "http/1.1" }),
          (r) => ({ ...r, version: "HTTP/1.1 junk" }),
          (r) => ({ ...r, method: r.method.toLowerCase() }),
          (r) => ({ ...r, method: "FOO" }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["X-Big", "b".repeat(17_000)]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ...Array.from({ length: 120 }, (_, i): [string, string] => [`X-Many-${i}`, "v".repeat(100)])] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["X Space", "v"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["", "v"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["X-Colon:", "v"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["X-Obs", "a\r\n folded"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["X-Nul\u0000", "v"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Authorization", "Basic \u0000"]] }),
          (r) => ({ ...r, headers: [...(r.headers ?? []), ["Authorization", "Bearer a\r\nAuthorization: Basic ZGVtby1idWRnZXRpbmcta2V5OmRlbW8tYnVkZ2V0aW5nLXNlY3JldC03UW00elg="]] }),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.record({ base: fc.constantFrom(...bases), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) }), async (c) => {
        const req = c.mutations.reduce((r, m) => m(r), c.base);
        const before = await fingerprint();
        const res = await hit("raw", req, false);
        H.check(res.status >= 400 && res.status < 500, "a rejected request must stay rejected, with a 4xx", req, res);
        for (const [name, values] of Object.entries(res.headers)) {
          if (name === "x-request-id") continue;
          H.check(!values.some((v) => /injected/i.test(v)), `injected text came back in response header ${name}`, req, res);
        }
        if (res.byApp) {
          H.check(/^[A-Za-z0-9._-]{1,64}$/.test(H.header(res, "x-request-id") ?? ""), "X-Request-Id must be well-formed", req, res);
          if (req.method !== "HEAD" && !(res.headers["content-type"]?.[0] ?? "").startsWith("text/html")) H.oauthError(req, res);
        }
        const after = await fingerprint();
        const changed = H.DbWatch.changed(before, after, [...H.REJECTED_WRITES]);
        H.check(changed.length === 0, `the request changed ${changed.join(", ")}`, req, res);
        H.check(after.auditOccurrences - before.auditOccurrences <= 1 && after.auditCount - before.auditCount <= 1, "at most one audit event per rejected request", req, res);
      }),
      runs(200),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Rate limits on
// ---------------------------------------------------------------------------------------

describe("rate limits (second server with small limits)", () => {
  let limited: TestServer;
  let limitedBrowser: Browser;
  let limitedCsrf = "";
  let serial = 0;

  beforeAll(async () => {
    limited = await startTestServer({ TOKEN_RATE_LIMIT_PER_CLIENT: "3", TOKEN_RATE_LIMIT_PER_IP: "1000000", SIGNIN_MAX_FAILURES_PER_USER: "2", SIGNIN_MAX_FAILURES_PER_IP: "1000000", PURGE_INTERVAL_SECONDS: "0" });
    limitedBrowser = new Browser(limited.url);
    limitedCsrf = (await json(await limitedBrowser.fetch("/session"))).csrfToken as string;
  }, 60_000);

  afterAll(async () => {
    await limited?.close();
  });

  async function limitedHit(req: H.RawRequest): Promise<H.RawResponse> {
    const res = await H.send(limited.url, req);
    tally.count("ratelimit", res.status);
    H.checkCommon(req, res);
    return res;
  }

  function expect429(req: H.RawRequest, res: H.RawResponse, error: string): void {
    H.check(res.status === 429, "the request over the limit must answer 429", req, res);
    const retryAfter = H.header(res, "retry-after") ?? "";
    H.check(/^\d+$/.test(retryAfter) && Number(retryAfter) >= 1, "429 must carry Retry-After in seconds", req, res);
    H.check(H.oauthError(req, res).error === error, `429 error must be ${error}`, req, res);
  }

  it("the 4th token/revoke/introspect request of a client id within a minute answers 429 with Retry-After, whatever its body", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id: H.shortHostile,
          secret: H.shortHostile,
          calls: fc.array(fc.record({ path: fc.constantFrom("/oauth2/v1/token", "/token", "/oauth2/v1/revoke", "/oauth2/v1/introspect"), ...bodyShape }), { minLength: 4, maxLength: 4 }),
        }),
        async (c) => {
          const id = `rl${serial++}-${c.id}`;
          const auth = `Basic ${H.b64(`${H.pct(id, true)}:${H.pct(c.secret, true)}`)}`;
          for (const [i, call] of c.calls.entries()) {
            const body = H.frame(formText(call.params, call.dup, call.sep), call.framing);
            const req: H.RawRequest = { method: "POST", target: call.path, headers: [...H.bodyHeaders(body), ["Authorization", auth]], body: body.wire };
            const res = await limitedHit(req);
            if (i < 3) H.check(res.status !== 429 && res.status >= 400 && res.status < 500, "requests under the limit are not throttled", req, res);
            else expect429(req, res, "too_many_requests");
          }
        },
      ),
      runs(15),
    );
  }, T);

  it("the 3rd failed sign-in for a username answers 429 with Retry-After", async () => {
    // Well-formed text: a NUL or lone surrogate is refused as malformed (400) before it can count as a failure.
    const clean = (t: string) => t.isWellFormed() && !t.includes("\0");
    await fc.assert(
      fc.asyncProperty(fc.record({ user: H.shortHostile.filter(clean), password: H.shortHostile.filter((p) => p !== "" && clean(p)) }), async (c) => {
        const username = `th${serial++}-${c.user}`.slice(0, 200);
        for (let i = 0; i < 3; i++) {
          const req: H.RawRequest = {
            method: "POST",
            target: "/session/login",
            headers: [...jarCookies(limitedBrowser), ["X-CSRF-Token", limitedCsrf], ["Content-Type", "application/json"]],
            body: Buffer.from(JSON.stringify({ username, password: c.password })),
          };
          const res = await limitedHit(req);
          if (i < 2) H.check(res.status === 401, "failures under the limit answer 401", req, res);
          else expect429(req, res, "too_many_attempts");
        }
      }),
      runs(8),
    );
  }, T);
});

it("generated at least 2,000 requests", () => {
  expect(tally.total).toBeGreaterThanOrEqual(2000);
});
