/**
 * A small client for the admin GraphQL API (`POST /graphql`, JSON) in HTTP suites: as
 * nobody, with a bearer token (e.g. the automation app's admin token), with any raw
 * `Authorization` header, or with a browser's session cookie (after /session/login).
 * Every answer is recorded in {@link responses}, so a suite can check them all at the end
 * (no stack traces, no 5xx). {@link captureLog} keeps what the server logs, so a suite can
 * check that malformed requests leave no error or stack trace in the log.
 */
import { pino, type Logger } from "pino";
import { DEMO } from "../../src/demo/seed.js";
import { Browser, json, tokenRequest, type DemoClient, type Json } from "./flow.js";

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

/** Every /graphql answer seen by any client of this module, in order. */
export const responses: { status: number; text: string }[] = [];

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
    let res: Response;
    if (this.caller.kind === "browser") {
      res = await this.caller.browser.fetch(path, { method: init.method ?? "POST", headers, body: init.body });
    } else {
      res = await fetch(new URL(path, this.baseUrl), { method: init.method ?? "POST", headers, body: init.body });
    }
    const text = await res.text();
    responses.push({ status: res.status, text });
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, body, text };
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

/** POST /session/login as JSON with the session's CSRF token. @returns the answer's status and body. */
export async function sessionLogin(browser: Browser, user: { username: string; password: string }): Promise<{ status: number; body: Json }> {
  const session = await json(await browser.fetch("/session"));
  const res = await browser.fetch("/session/login", { json: user, headers: { "X-CSRF-Token": session.csrfToken as string } });
  return { status: res.status, body: await json(res) };
}

/** A browser signed in as `user` through /session/login. @throws when the sign-in fails. */
export async function signIn(baseUrl: string, user: { username: string; password: string }): Promise<Browser> {
  const browser = new Browser(baseUrl);
  const { status, body } = await sessionLogin(browser, user);
  if (status !== 200) throw new Error(`sign-in of ${user.username} answered ${status}: ${JSON.stringify(body)}`);
  return browser;
}

/** A client credentials access token for `client` from the real token endpoint. */
export async function clientToken(baseUrl: string, client: DemoClient, scope?: string): Promise<string> {
  const answer = await tokenRequest(baseUrl, "/oauth2/v1/token", client, { grant_type: "client_credentials", scope });
  if (answer.status !== 200) throw new Error(`token endpoint answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.access_token as string;
}

/** The admin API as the automation app (client credentials token with scope `admin`). */
export async function adminBearer(baseUrl: string): Promise<GraphQLClient> {
  return withBearer(baseUrl, await clientToken(baseUrl, DEMO.adminApp));
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
