/**
 * A small client for the admin GraphQL API (`POST /graphql`, JSON) in HTTP suites: as
 * nobody, with a bearer token (e.g. the automation app's admin token), with any raw
 * `Authorization` header, or with a browser's session cookie (after /session/login).
 * Every request goes through support/flow.ts `request` (no 5xx), and every answer is
 * checked for internals ({@link expectNoInternals}). {@link captureLog} keeps what the
 * server logs, so a suite can check that malformed requests leave no error or stack trace
 * in the log.
 */
import { pino, type Logger } from "pino";
import { afterAll, beforeAll, expect } from "vitest";
import { DEMO } from "../../src/demo/seed.js";
import { answerFactor, Browser, clientCredentialsToken, json, read, request, type Answer, type Json } from "./flow.js";
import { startTestServer, type TestServer } from "./server.js";

/** One answer of /graphql. */
export interface GqlAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body. */
  body: Json;
  /** The raw body. */
  text: string;
}

/** The first error of an answer, flattened. */
export interface GqlFailure {
  status: number;
  code: string | undefined;
  message: string;
  path: unknown;
  body: Json;
}

/** Who calls: nothing, an Authorization header, or a browser's cookies. */
export type Caller = { kind: "anonymous" } | { kind: "authorization"; header: string } | { kind: "browser"; browser: Browser };

export class GraphQLClient {
  constructor(
    readonly baseUrl: string,
    readonly caller: Caller = { kind: "anonymous" },
  ) {}

  /** POSTs `{query, variables}` as application/json; never throws on GraphQL errors. */
  async post(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<GqlAnswer> {
    return this.send({ method: "POST", body: JSON.stringify({ query, variables }), headers: { "Content-Type": "application/json", ...headers } });
  }

  /** Sends a raw request to /graphql (path may carry a query string) with this caller's credentials. */
  async send(init: { method?: string; path?: string; body?: string; headers?: Record<string, string> } = {}): Promise<GqlAnswer> {
    const path = init.path ?? "/graphql";
    const headers: Record<string, string> = { ...init.headers };
    if (this.caller.kind === "authorization") headers.Authorization = this.caller.header;
    const res =
      this.caller.kind === "browser"
        ? await this.caller.browser.fetch(path, { method: init.method ?? "POST", headers, body: init.body })
        : await request(new URL(path, this.baseUrl), { method: init.method ?? "POST", headers, body: init.body });
    const text = await res.text();
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = undefined;
    }
    const answer = { status: res.status, headers: res.headers, body, text };
    expectNoInternals(answer);
    return answer;
  }

  /** The `data` of a successful answer. @throws with the answer when it has errors or no data. */
  async data<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const answer = await this.post(query, variables);
    if (answer.status !== 200 || answer.body?.errors !== undefined || answer.body?.data == null) {
      throw new Error(`GraphQL call failed (${answer.status}): ${answer.text.slice(0, 1000)}\nquery: ${query}`);
    }
    return answer.body.data as T;
  }

  /** The first error of an answer. @throws when the answer has no error. */
  async failure(query: string, variables?: Record<string, unknown>): Promise<GqlFailure> {
    const answer = await this.post(query, variables);
    return firstError(answer, query);
  }
}

/**
 * Asserts that an error answer (not 200, or with GraphQL errors) shows no internals: no
 * stack trace, source location, internal path or Prisma message, and a string
 * `extensions.code` on every GraphQL error.
 */
export function expectNoInternals(answer: GqlAnswer): void {
  if (answer.status === 200 && answer.body?.errors === undefined) return;
  expect(answer.text).not.toMatch(/stacktrace/i);
  expect(answer.text).not.toMatch(/\bat .*\(?[\w/\\.-]+:\d+:\d+\)?/);
  expect(answer.text).not.toMatch(/node_modules|\/server\/src\/|prisma\.|Invalid `/);
  if (Array.isArray(answer.body?.errors)) {
    for (const e of answer.body.errors) expect(typeof e.extensions?.code, answer.text).toBe("string");
  }
}

/** The first error of an answer. @throws when there is none. */
export function firstError(answer: GqlAnswer, what = ""): GqlFailure {
  const error = answer.body?.errors?.[0];
  if (!error) throw new Error(`expected a GraphQL error (${answer.status}) but got: ${answer.text.slice(0, 1000)} ${what}`);
  return { status: answer.status, code: error.extensions?.code, message: String(error.message), path: error.path, body: answer.body };
}

export function anonymous(baseUrl: string): GraphQLClient {
  return new GraphQLClient(baseUrl);
}

export function withBearer(baseUrl: string, token: string): GraphQLClient {
  return new GraphQLClient(baseUrl, { kind: "authorization", header: `Bearer ${token}` });
}

/** Any raw `Authorization` header (Basic, malformed, ...). */
export function withAuthorization(baseUrl: string, header: string): GraphQLClient {
  return new GraphQLClient(baseUrl, { kind: "authorization", header });
}

export function withSession(browser: Browser): GraphQLClient {
  return new GraphQLClient(browser.baseUrl, { kind: "browser", browser });
}

/** POST /session/login as JSON with the session's CSRF token (from GET /session). @returns the answer. */
export async function sessionLogin(browser: Browser, user: { username: string; password: string }): Promise<Answer> {
  const session = await json(await browser.fetch("/session"));
  return read(await browser.fetch("/session/login", { json: user, headers: { "X-CSRF-Token": session.csrfToken as string } }));
}

/**
 * The console sign-in to its end: {@link sessionLogin} and, when the account has a second
 * factor (`{user: null, stage: "factor"}`), the user's software passkey at `/session/factor`
 * (support/flow.ts {@link answerFactor}).
 * @returns the answer of the last post.
 */
export async function sessionSignIn(browser: Browser, user: { username: string; password: string }): Promise<Answer> {
  const login = await sessionLogin(browser, user);
  if (login.status !== 200 || login.body?.stage !== "factor") return login;
  return read(await answerFactor(browser, "/session/factor", login.body.csrfToken as string, user.username));
}

/**
 * A browser signed in as `user` through /session/login (and /session/factor when the account
 * has a second factor, with the passkey enrolled by support/server.ts).
 * @throws when the sign-in fails or does not end signed in.
 */
export async function signIn(baseUrl: string, user: { username: string; password: string }): Promise<Browser> {
  const browser = new Browser(baseUrl);
  const { status, text, body } = await sessionSignIn(browser, user);
  if (status !== 200 || !body?.user) throw new Error(`sign-in of ${user.username} answered ${status}: ${text}`);
  return browser;
}

/** The admin API as the automation app (client credentials token with scope `admin`). */
export async function adminBearer(baseUrl: string): Promise<GraphQLClient> {
  return withBearer(baseUrl, await clientCredentialsToken(baseUrl, DEMO.adminApp));
}

/** The admin API as the demo administrator, signed in with a session cookie. */
export async function adminSession(baseUrl: string): Promise<GraphQLClient> {
  return withSession(await signIn(baseUrl, DEMO.admin));
}

/** A log line that is an error (pino level 50 or above) or carries a stack trace. */
export const TROUBLE_IN_LOG = /"level":(?:[5-9]\d)|"stack"|\\n\s+at /;

/**
 * From now on, keeps every line `logger` (a test server's `server.logger`, started with
 * LOG_LEVEL silent) writes, at level debug, in memory instead of stdout.
 * @returns the lines, growing as the server logs.
 */
export function captureLog(logger: Logger): string[] {
  const lines: string[] = [];
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (line: string) => lines.push(line) };
  logger.level = "debug";
  return lines;
}

/**
 * For a suite that drives the admin API: starts a test server before its tests and closes it
 * after; `admin` is the admin API as the demo's admin client (actor client:<its consumer key>).
 * Read the fields inside tests (they are set once the suite has started).
 */
export function adminSuite(): { readonly server: TestServer; readonly admin: GraphQLClient } {
  const suite = {} as { server: TestServer; admin: GraphQLClient };
  beforeAll(async () => {
    suite.server = await startTestServer();
    suite.admin = await adminBearer(suite.server.url);
  });
  afterAll(() => suite.server?.close());
  return suite;
}
