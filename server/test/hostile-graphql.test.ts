/**
 * Property-based hostile GraphQL suite (fast-check) against a real Tollgate server (issue 13
 * H1, L1): generated documents — fragment fan-out, aliases, directives, deep nesting,
 * fragment cycles, token floods, deep literals, garbage — and generated variables — huge,
 * deep, wide, of the wrong type — are posted to /graphql over raw TCP
 * (server/test/support/hostile.ts), each once anonymously and once in alice's session (a
 * signed-in end user, role user). Every answer:
 *
 * - arrives within {@link BOUND_MS};
 * - is 200, 400, 401, 403 or 413, never a 5xx, with no stack trace or internals;
 * - is a GraphQL body: JSON whose `errors`, if any, each have a string `message` and
 *   `extensions.code`; a 4xx has at least one error. A body over the 32 KB limit is
 *   refused before GraphQL: 413 with the app's `invalid_request` error, as on every endpoint;
 * - leaves nothing at level error or above, and no stack trace, in the server's log.
 *
 * And while a worst-case document is being processed, a client credentials token request
 * is delayed by at most {@link DELAY_LIMIT_MS} over its unloaded latency: per try, the
 * slowest of six token requests started 0 to 16 ms after the document; the median of five
 * tries, so that one hiccup of a loaded machine does not decide. Each try's document is new
 * to the server (Apollo would not validate a document twice). Before the fix the delay was
 * 16 s.
 *
 * The seed is random per run and printed; HOSTILE_SEED=<n> replays a run, HOSTILE_SCALE=<k>
 * multiplies the number of runs of every property (as in hostile.test.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { Lexer, Source, TokenKind } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_TOKENS } from "../src/admin/limits.js";
import { DEMO } from "../src/demo/seed.js";
import { obtainCode, tokenRequest } from "./support/flow.js";
import { TROUBLE_IN_LOG, captureLog, signIn } from "./support/graphql.js";
import * as H from "./support/hostile.js";
import { startTestServer, type TestServer } from "./support/server.js";

const { SEED, runs } = H;
/** Per-test timeout: generous, because a failing property shrinks by sending more requests. */
const T = 180_000;
/** Longest time one answer may take, milliseconds. */
const BOUND_MS = 1_000;
/** Most a concurrent token request may be delayed by one document, milliseconds. */
const DELAY_LIMIT_MS = 50;
const STATUSES = new Set([200, 400, 401, 403, 413]);

let server: TestServer;
let log: string[];
/** alice's session cookie (`name=value; ...`). */
let aliceCookie = "";
const tally = new H.Tally();
const started = Date.now();

beforeAll(async () => {
  server = await startTestServer({ TOKEN_RATE_LIMIT_PER_CLIENT: "0", TOKEN_RATE_LIMIT_PER_IP: "0", PURGE_INTERVAL_SECONDS: "0" });
  log = captureLog(server.logger);
  // alice has a consent, so her own fields have something to read.
  await obtainCode(server.url, { user: DEMO.user });
  const alice = await signIn(server.url, DEMO.user);
  aliceCookie = [...alice.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  console.log(`hostile GraphQL: fast-check seed ${SEED} (replay with HOSTILE_SEED=${SEED})`);
}, 60_000);

afterAll(async () => {
  console.log(`${tally.summary()} in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}\nstatuses:\n${tally.statusSummary()}`);
  await server?.close();
});

// ---------------------------------------------------------------------------------------
// Requests and the rules every answer meets
// ---------------------------------------------------------------------------------------

type Caller = "anonymous" | "alice";

/** POST /graphql with a raw JSON body (raw, so that variables may nest deeper than JSON.stringify goes). */
function graphqlRequest(body: string, caller: Caller): H.RawRequest {
  const headers: [string, string][] = [["Content-Type", "application/json"]];
  if (caller === "alice") headers.push(["Cookie", aliceCookie]);
  return { method: "POST", target: "/graphql", headers, body: Buffer.from(body, "utf8") };
}

/** The body of a request: `query` as a JSON string, `variables` as raw JSON text. */
function bodyOf(query: string, variables?: string, operationName?: string): string {
  const parts = [`"query":${JSON.stringify(query)}`];
  if (variables !== undefined) parts.push(`"variables":${variables}`);
  if (operationName !== undefined) parts.push(`"operationName":${JSON.stringify(operationName)}`);
  return `{${parts.join(",")}}`;
}

/** Sends one request, times it, and checks what every answer must be. @returns the answer and its time. */
async function hit(group: string, req: H.RawRequest): Promise<{ res: H.RawResponse; ms: number }> {
  const before = log.length;
  const t0 = performance.now();
  let res: H.RawResponse;
  try {
    res = await H.send(server.url, req, 30_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${H.describeExchange(req)}`);
  }
  const ms = performance.now() - t0;
  tally.count(group, res.status);
  H.checkCommon(req, res);
  H.check(ms < BOUND_MS, `answered in ${ms.toFixed(0)} ms (bound ${BOUND_MS} ms)`, req, res);
  H.check(STATUSES.has(res.status), `status ${res.status} (expected one of ${[...STATUSES].join(", ")})`, req, res);
  expectGraphQLBody(req, res);
  const trouble = log.slice(before).filter((line) => TROUBLE_IN_LOG.test(line));
  H.check(trouble.length === 0, `the server logged an error or a stack trace:\n${trouble.join("\n").slice(0, 2000)}`, req, res);
  return { res, ms };
}

/**
 * A GraphQL response body: JSON with `data` or a non-empty `errors`, each error with a
 * string message and code; for a 413 (a body over the limit), the app's invalid_request.
 */
function expectGraphQLBody(req: H.RawRequest, res: H.RawResponse): void {
  if (res.status === 413) {
    H.check(H.oauthError(req, res).error === "invalid_request", "413 must be invalid_request", req, res);
    return;
  }
  H.check((H.header(res, "content-type") ?? "").startsWith("application/json"), "a GraphQL answer must be JSON", req, res);
  let body: { data?: unknown; errors?: unknown };
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    H.check(false, "the answer is not JSON", req, res);
  }
  const errors = body.errors;
  H.check(errors === undefined || (Array.isArray(errors) && errors.length > 0), "`errors` must be a non-empty array when present", req, res);
  H.check(res.status === 200 || errors !== undefined, "a refusal must carry errors", req, res);
  H.check(errors !== undefined || body.data !== undefined, "an answer needs data or errors", req, res);
  for (const e of (errors ?? []) as { message?: unknown; extensions?: { code?: unknown; stacktrace?: unknown } }[]) {
    H.check(typeof e.message === "string", "an error needs a string message", req, res);
    H.check(typeof e.extensions?.code === "string", "an error needs extensions.code", req, res);
    H.check(e.extensions?.stacktrace === undefined, "an error must not carry a stack trace", req, res);
  }
}

// ---------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------

/** An integer from 1, as often up to `usual` (within the limits) as above it (up to `max`). */
const upTo = (usual: number, max: number) => fc.oneof(fc.integer({ min: 1, max: usual }), fc.integer({ min: usual + 1, max }));

/** Selections at the bottom of generated documents, valid on Query (some only for an admin, some not at all). */
const QUERY_LEAVES = [
  "__typename",
  "a: __typename",
  "__typename @include(if: true)",
  "__typename @skip(if: false) @include(if: true)",
  "__typename @unknown",
  "me { id username role }",
  "myConsents { id appName organizationName scopes { name description } grantedAt lastUsedAt }",
  "apps { nodes { id name credentials { consumerKey } } }",
  "apps(first: 200) { nodes { credentials { products { product { apis { name } } } } } }",
  "tokens { nodes { id } }",
  "__schema { types { name fields { name } } }",
  'app(id: "x") { id }',
  "nosuchfield",
];
const leafArb = fc.constantFrom(...QUERY_LEAVES);

/** Fragments on Query, each spreading the next `width` ones, `levels` deep: width^levels paths. */
const fanOutArb = fc.record({ levels: upTo(6, 60), width: fc.integer({ min: 1, max: 4 }), leaf: leafArb }).map(({ levels, width, leaf }) => {
  const names = (level: number) => Array.from({ length: width }, (_, i) => `F${level}_${i}`);
  const spreads = (level: number) => names(level).map((n) => `...${n}`).join(" ");
  const lines = [`query { ${spreads(0)} }`];
  for (let level = 0; level < levels; level++) for (const n of names(level)) lines.push(`fragment ${n} on Query { ${spreads(level + 1)} }`);
  for (const n of names(levels)) lines.push(`fragment ${n} on Query { ${leaf} }`);
  return lines.join("\n");
});

/** Many aliased selections, alone or behind a fragment spread several times. */
const aliasesArb = fc.record({ n: upTo(20, 400), leaf: fc.constantFrom("__typename", "me { id }", "myConsents { id }", "apps { nodes { id } }"), spreads: fc.integer({ min: 0, max: 8 }) }).map(({ n, leaf, spreads }) => {
  const aliases = Array.from({ length: n }, (_, i) => `a${i}: ${leaf}`).join(" ");
  return spreads === 0 ? `{ ${aliases} __typename }` : `{ ${"...A ".repeat(spreads)} } fragment A on Query { ${aliases} __typename }`;
});

const DIRECTIVES = ["@include(if: true)", "@skip(if: false)", "@include(if: $yes)", "@unknown", "@deprecated", "@skip(if: true)", '@include(if: "yes")'];
/** Many directives, on many fields or piled on one. */
const directivesArb = fc
  .record({ fields: upTo(20, 200), perField: fc.integer({ min: 1, max: 6 }), directive: fc.constantFrom(...DIRECTIVES), declared: fc.boolean() })
  .map(({ fields, perField, directive, declared }) => `query${declared ? "($yes: Boolean = true)" : ""} { ${`__typename ${`${directive} `.repeat(perField)}`.repeat(fields)}}`);

/** Selections nested `depth` deep. */
const deepArb = fc
  .record({ depth: upTo(8, 700), field: fc.constantFrom("me", "a: me", "apps", "nodes", "developer", '__type(name: "Query")', "ofType", "...on Query") })
  .map(({ depth, field }) => `{ ${`${field} { `.repeat(depth)}__typename ${"} ".repeat(depth)}}`);

/** Fragments spreading each other in a ring of `length`, with or without other selections. */
const cycleArb = fc.record({ length: fc.integer({ min: 1, max: 60 }), leaf: leafArb }).map(({ length, leaf }) => {
  const lines = ["query { ...C0 }"];
  for (let i = 0; i < length; i++) lines.push(`fragment C${i} on Query { ${leaf} ...C${(i + 1) % length} }`);
  return lines.join("\n");
});

/** Around the token limit, made of one repeated selection. */
const tokenFloodArb = fc
  .record({ tokens: fc.integer({ min: MAX_TOKENS - 50, max: MAX_TOKENS + 50 }), unit: fc.constantFrom("__typename", "me { id }", "a: __typename", "...F", "@x", "$v") })
  .map(({ tokens, unit }) => {
    const per = unit.split(" ").length + (unit.startsWith("a:") ? 1 : 0);
    const body = `${unit} `.repeat(Math.max(1, Math.floor((tokens - 2) / per)));
    return unit === "...F" ? `{ ${body}} fragment F on Query { __typename }` : `{ ${body}}`;
  });

/** A list literal nested `depth` deep where an ID goes. */
const deepLiteralArb = fc
  .record({ depth: fc.integer({ min: 1, max: 600 }), open: fc.constantFrom("[", "{a: ", "{search: ") })
  .map(({ depth, open }) => {
    const close = open === "[" ? "]" : "}";
    return open === "[" ? `{ app(id: ${open.repeat(depth)}${close.repeat(depth)}) { id } }` : `{ apps(filter: ${open.repeat(depth)}"x"${close.repeat(depth)}) { nodes { id } } }`;
  });

/** Mostly none; sometimes hostile text, which names no operation. */
const operationNameArb = fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: H.shortHostile });

/** Any of the hostile documents above, or hostile text. */
const documentArb = fc.oneof(fanOutArb, aliasesArb, directivesArb, deepArb, cycleArb, tokenFloodArb, deepLiteralArb, H.hostileText, fc.constantFrom(...QUERY_LEAVES).map((l) => `{ ${l} }`));

// ---------------------------------------------------------------------------------------
// Variables
// ---------------------------------------------------------------------------------------

/** Documents taking variables, for the admin's fields and the user's own. */
const VARIABLE_DOCUMENTS = [
  "query($id: ID!) { app(id: $id) { id } }",
  "query($n: Int) { apps(first: $n) { nodes { id credentials { products { product { name } } } } } }",
  "query($f: AppFilter) { apps(filter: $f) { nodes { id } } }",
  "mutation($id: ID!) { revokeMyConsent(id: $id) }",
  'mutation($ids: [ID!]) { createApiProduct(input: { name: "hostile", apiIds: $ids }) { id } }',
  "mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey } }",
  "query($yes: Boolean!) { __typename @include(if: $yes) me @skip(if: $yes) { id } }",
  'query($id: ID = "x") { app(id: $id) { id } }',
];

/** JSON text nested `depth` deep, built as text (JSON.stringify would overflow the stack). */
const deepJson = (depth: number, open: string, close: string, inner: string) => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** The value of one variable as JSON text: hostile strings, numbers, huge, deep or wide values (up to a little over the body limit). */
const valueArb: fc.Arbitrary<string> = fc.oneof(
  H.hostileText.map((s) => JSON.stringify(s)),
  fc.constantFrom("null", "true", "0", "-1", "2147483648", "1e308", "-0", "1.5", "[]", "{}", '""'),
  fc.integer({ min: 1_000, max: 40_000 }).map((n) => JSON.stringify("x".repeat(n))),
  fc.integer({ min: 1, max: 20_000 }).map((d) => deepJson(d, "[", "]", "")),
  fc.integer({ min: 1, max: 8_000 }).map((d) => deepJson(d, '{"a":', "}", "1")),
  fc.integer({ min: 1, max: 4_000 }).map((n) => `[${Array.from({ length: n }, (_, i) => JSON.stringify(`id${i}`)).join(",")}]`),
  fc.integer({ min: 1, max: 3_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`),
  fc.constantFrom('{"search":"x","status":"revoked"}', '{"developerId":"x","name":"n","callbackUrls":["https://a.example/ b"]}', '{"__proto__":{"admin":true}}'),
);

/** A `variables` member: an object of generated values (named as the documents use them, or not), or no object at all. */
const variablesArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.tuple(fc.constantFrom("id", "n", "f", "ids", "input", "yes", "other", "__proto__"), valueArb), { maxLength: 4 }).map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, "null", "[]", '"{}"', "1", "true") },
);

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

const callers: Caller[] = ["anonymous", "alice"];

describe("hostile GraphQL documents (POST /graphql)", () => {
  it("every generated document is answered in time, 4xx or 200, as a GraphQL error without internals, and logs no error", async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, operationNameArb, async (query, operationName) => {
        for (const caller of callers) await hit(`documents (${caller})`, graphqlRequest(bodyOf(query, undefined, operationName), caller));
      }),
      runs(150),
    );
  }, T);

  it("every generated set of variables is answered the same way", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...VARIABLE_DOCUMENTS), variablesArb, async (query, variables) => {
        for (const caller of callers) await hit(`variables (${caller})`, graphqlRequest(bodyOf(query, variables), caller));
      }),
      runs(100),
    );
  }, T);
});

// ---------------------------------------------------------------------------------------
// Delay of a concurrent token request
// ---------------------------------------------------------------------------------------

/** Fragments on Query, each spreading the next two, `levels` deep (issue 13 H1). */
function fanOut(levels: number, leaf: string): string {
  const lines = ["query { ...F0 ...G0 }"];
  for (let i = 0; i < levels; i++) for (const f of ["F", "G"]) lines.push(`fragment ${f}${i} on Query { ...F${i + 1} ...G${i + 1} }`);
  lines.push(`fragment F${levels} on Query { ${leaf} }`, `fragment G${levels} on Query { ${leaf} }`);
  return lines.join("\n");
}

/** The largest document `make(n)` makes within the token limit. */
function largest(make: (n: number) => string): string {
  let n = 1;
  while (tokens(make(n + 1)) <= MAX_TOKENS) n += 1;
  return make(n);
}

function tokens(document: string): number {
  const lexer = new Lexer(new Source(document));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  return count;
}

/** The documents that cost the server most to refuse, each as large as the token limit allows. */
const WORST: { name: string; query: string; variables?: string }[] = [
  { name: "the issue's fan-out, 2^27 paths (over the token limit)", query: fanOut(26, "__typename") },
  { name: "largest fan-out", query: largest((n) => fanOut(n, "__typename")) },
  { name: "largest fan-out, aliased leaf", query: largest((n) => fanOut(n, "a: __typename")) },
  { name: "largest fan-out into me", query: largest((n) => fanOut(n, "me { id }")) },
  { name: "me { id } repeated (field merging)", query: largest((n) => `{ ${"me { id } ".repeat(n)}}`) },
  { name: "__typename repeated (field merging)", query: largest((n) => `{ ${"__typename ".repeat(n)}}`) },
  { name: "conflicting aliases", query: largest((n) => `{ ${Array.from({ length: n }, (_, i) => `a: ${i % 2 ? "__typename" : "me { id }"}`).join(" ")} }`) },
  { name: "fragments spread together", query: largest((n) => `{ ${Array.from({ length: n }, (_, i) => `...F${i}`).join(" ")} } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { x: me { id } }`).join(" ")}`) },
  { name: "nested selections", query: largest((n) => `{ ${"me { ".repeat(n)}id ${"} ".repeat(n)}}`) },
  { name: "nested list literal", query: largest((n) => `{ app(id: ${"[".repeat(n)}${"]".repeat(n)}) { id } }`) },
  { name: "variables nested 16 000 deep", query: "query($f: AppFilter) { apps(filter: $f) { nodes { id } } }", variables: `{"f":${deepJson(16_000, "[", "]", "")}}` },
  { name: "3 500 ids in a variable", query: 'mutation($ids: [ID!]) { createApiProduct(input: { name: "x", apiIds: $ids }) { id } }', variables: `{"ids":[${Array.from({ length: 3_500 }, (_, i) => `"i${i}"`).join(",")}]}` },
];
const TRIES = 5;
/** When the token requests of one try start, milliseconds after the document. */
const TOKEN_OFFSETS_MS = [0, 1, 2, 4, 8, 16];

/** Latency of one client credentials token request, milliseconds; Infinity when it fails (not a 200, or no answer). */
async function tokenLatency(): Promise<number> {
  const t0 = performance.now();
  try {
    const answer = await tokenRequest(server.url, "/oauth2/v1/token", DEMO.app, { grant_type: "client_credentials" });
    return answer.status === 200 ? performance.now() - t0 : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe("a token request while a worst-case document is processed", () => {
  it(`is delayed by at most ${DELAY_LIMIT_MS} ms`, async () => {
    for (let i = 0; i < 10; i++) await tokenLatency(); // warm up
    const unloaded: number[] = [];
    for (let i = 0; i < 15; i++) unloaded.push(await tokenLatency());
    expect(unloaded.every(Number.isFinite), "every unloaded token request succeeds").toBe(true);
    const baseline = median(unloaded);
    const rows = [`token request latency unloaded: median ${baseline.toFixed(1)} ms of ${unloaded.length}`];
    for (const { name, query, variables } of WORST) {
      const delays: number[] = [];
      const answers: { req: H.RawRequest; res: H.RawResponse; ms: number }[] = [];
      for (let i = 0; i < TRIES; i++) {
        // The document, then token requests while it is on its way and being processed: the
        // slowest of them is the delay the document caused.
        // A new comment each time: Apollo keeps documents that passed validation and would not validate them again.
        const req = graphqlRequest(bodyOf(`${query}\n# try ${i}`, variables), "anonymous");
        const t0 = performance.now();
        const document = H.send(server.url, req, 60_000).then((res) => answers.push({ req, res, ms: performance.now() - t0 }));
        const latencies = await Promise.all(TOKEN_OFFSETS_MS.map(async (offset) => (await sleep(offset), tokenLatency())));
        delays.push(Math.max(...latencies) - baseline);
        await document;
      }
      const delay = median(delays);
      rows.push(`  ${name}: document ${median(answers.map((a) => a.ms)).toFixed(1)} ms, token request delayed ${delay.toFixed(1)} ms (tries ${delays.map((d) => d.toFixed(0)).join(", ")})`);
      expect(delay, rows.join("\n")).toBeLessThanOrEqual(DELAY_LIMIT_MS);
      for (const { req, res, ms } of answers) {
        tally.count("worst cases (anonymous)", res.status);
        H.checkCommon(req, res);
        H.check(ms < BOUND_MS, `answered in ${ms.toFixed(0)} ms (bound ${BOUND_MS} ms)`, req, res);
        expectGraphQLBody(req, res);
      }
    }
    console.log(rows.join("\n"));
  }, T);
});
