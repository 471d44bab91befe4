/**
 * A small typed client for the admin GraphQL API (`POST /graphql`, same origin, session
 * cookie). A document carries its result and variables types, so call sites are typed
 * without generated code:
 *
 *   const APP = gql<{ app: App | null }, { id: string }>(`query App($id: ID!) { app(id: $id) { id name } }`);
 *   const { app } = await graphql(APP, { id });
 *
 * Any error in the answer is thrown as a {@link GraphQLRequestError} (partial data is not used).
 */
import { noteServerAnswer } from "../lib/activity";

/** `extensions.code` of the server's errors, plus the client's own for failures without a GraphQL answer. */
export type GraphQLErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "BAD_USER_INPUT"
  | "NOT_FOUND"
  | "CONFLICT"
  | "GRAPHQL_VALIDATION_FAILED"
  | "GRAPHQL_PARSE_FAILED"
  | "INTERNAL_SERVER_ERROR"
  /** No answer from the server. */
  | "NETWORK_ERROR"
  /** An answer that is not a GraphQL response (e.g. a proxy's error page). */
  | "BAD_RESPONSE";

/** A query or mutation document tagged with its result and variables types. */
export type Document<TData, TVariables> = string & { readonly __types?: [TData, TVariables] };

export type Variables = Record<string, unknown>;

/** The variables of a document that takes none. */
export type NoVariables = Record<never, never>;

/** Tags a document with its types. */
export function gql<TData, TVariables extends Variables = NoVariables>(source: string): Document<TData, TVariables> {
  return source as Document<TData, TVariables>;
}

export interface GraphQLErrorEntry {
  message: string;
  code: GraphQLErrorCode | (string & {});
  path?: ReadonlyArray<string | number>;
}

/** A failed request: the first error's code and message; every error in `errors`. */
export class GraphQLRequestError extends Error {
  override readonly name = "GraphQLRequestError";
  readonly code: GraphQLErrorCode | (string & {});
  /** HTTP status, 0 when there was no answer. */
  readonly status: number;
  readonly errors: readonly GraphQLErrorEntry[];

  constructor(status: number, errors: readonly GraphQLErrorEntry[]) {
    const first = errors[0] ?? { message: "Unknown error", code: "BAD_RESPONSE" };
    super(first.message);
    this.code = first.code;
    this.status = status;
    this.errors = errors;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function toErrorEntry(value: unknown, status: number): GraphQLErrorEntry {
  if (!isRecord(value)) return { message: "Unknown error", code: "BAD_RESPONSE" };
  const message = typeof value.message === "string" && value.message !== "" ? value.message : "Unknown error";
  const ext = isRecord(value.extensions) ? value.extensions : {};
  const fallback = status === 401 ? "UNAUTHENTICATED" : status === 403 ? "FORBIDDEN" : "INTERNAL_SERVER_ERROR";
  const code = typeof ext.code === "string" && ext.code !== "" ? ext.code : fallback;
  const path = Array.isArray(value.path) ? (value.path as Array<string | number>) : undefined;
  return path ? { message, code, path } : { message, code };
}

/** Runs a query or mutation; variables are optional for documents that take none. @throws GraphQLRequestError */
export function graphql<TData, TVariables extends Variables>(
  document: Document<TData, TVariables>,
  ...[variables, options]: keyof TVariables extends never
    ? [variables?: TVariables, options?: RequestOptions]
    : [variables: TVariables, options?: RequestOptions]
): Promise<TData> {
  return execute(document, variables, options);
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** {@link graphql} for generic callers. @throws GraphQLRequestError */
export async function execute<TData, TVariables extends Variables>(
  document: Document<TData, TVariables>,
  variables: TVariables | undefined,
  options?: RequestOptions,
): Promise<TData> {
  let res: Response;
  try {
    res = await fetch("/graphql", {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/graphql-response+json, application/json" },
      body: JSON.stringify({ query: document, variables: variables ?? {} }),
      signal: options?.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new GraphQLRequestError(0, [{ message: "The server could not be reached. Check your connection and try again.", code: "NETWORK_ERROR" }]);
  }
  noteServerAnswer();
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    body = undefined;
  }
  if (isRecord(body) && Array.isArray(body.errors) && body.errors.length > 0) {
    throw new GraphQLRequestError(res.status, body.errors.map((e) => toErrorEntry(e, res.status)));
  }
  if (!res.ok || !isRecord(body) || !isRecord(body.data)) {
    const code = res.status === 401 ? "UNAUTHENTICATED" : res.status === 403 ? "FORBIDDEN" : "BAD_RESPONSE";
    throw new GraphQLRequestError(res.status, [{ message: `The server sent an unexpected response (HTTP ${res.status}).`, code }]);
  }
  return body.data as TData;
}
