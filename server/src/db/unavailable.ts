/**
 * Connection-level database failures as {@link ServiceUnavailable} (503
 * `temporarily_unavailable` with `Retry-After`), in one place at the database layer: the
 * stores of a PostgreSQL database pass every error through {@link unavailableError}
 * (db/database.ts), so a stopped, restarting or unreachable server never becomes a 500
 * `server_error`, and http/ never has to know a driver's errors.
 *
 * What counts as connection-level, seen on the driver stack of this project (pg 8,
 * @prisma/adapter-pg 6.19, Prisma 6.19), anywhere along the error's `cause` chain or in
 * Prisma's `meta.driverAdapterError`:
 * - socket errors: ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, ENOTFOUND, EHOSTUNREACH,
 *   ENETUNREACH, EAI_AGAIN;
 * - PostgreSQL SQLSTATE class 08 (connection exception), 57P01 admin_shutdown, 57P02
 *   crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), 53300
 *   too_many_connections;
 * - Prisma P1001 (cannot reach), P1002 (timed out), P1008 (operation timed out), P1017
 *   (server closed the connection), P2024 (timed out waiting for a pool connection), P2028
 *   (a transaction could not start or ended by its timeout);
 * - driver adapter kinds DatabaseNotReachable, ConnectionClosed, SocketTimeout,
 *   TooManyConnections;
 * - node-postgres's errors without a code, by their fixed messages: "Connection terminated
 *   (unexpectedly | due to connection timeout)", "timeout exceeded when trying to connect"
 *   (the pool's connectionTimeoutMillis), "Query read timeout" (query_timeout), "Client has
 *   encountered a connection error and is not queryable".
 * Everything else (a constraint, a syntax error, a bug) is left as it is.
 */
import { ServiceUnavailable } from "../kernel/errors.js";

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const PG_MESSAGES = /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error and is not queryable)$/;

/** How far down `cause` chains to look. */
const MAX_DEPTH = 6;

/** The description clients get: fixed, never the driver's text. */
const DESCRIPTION = "the database is temporarily unavailable; retry later";

/** True when `err`, or an error it wraps, is a connection-level database failure (see the module comment). */
export function isConnectionFailure(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > MAX_DEPTH) return false;
  const e = err as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  if (typeof e.code === "string") {
    if (SOCKET_CODES.has(e.code) || SQLSTATES.has(e.code) || PRISMA_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)) return true;
    // A PostgreSQL error in the adapter's shape ({kind: "postgres", code}) is covered by the SQLSTATE test above.
  }
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  return isConnectionFailure(e.meta?.driverAdapterError, depth + 1) || isConnectionFailure(e.cause, depth + 1);
}

/**
 * @returns a {@link ServiceUnavailable} (503, `Retry-After`) carrying `err` as its cause
 *   when `err` is a connection-level database failure; otherwise `err` itself, unchanged.
 */
export function unavailableError(err: unknown): unknown {
  if (err instanceof ServiceUnavailable || !isConnectionFailure(err)) return err;
  return new ServiceUnavailable(DESCRIPTION, err);
}
