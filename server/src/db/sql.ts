/**
 * Direct SQL for the hot paths (token issuance and lookup, the gateway check, audit
 * appends): cached prepared statements on the same database as Prisma, without Prisma's
 * query compiler. Profiled on issuance, a Prisma query costs about 1 ms of CPU (its
 * WebAssembly compiler, client runtime and a fresh `prepare`), a prepared statement here
 * tens of microseconds.
 *
 * SQL is written once, with `?` placeholders and double-quoted identifiers (Prisma's table
 * and column names), and runs on both providers:
 * - SQLite: better-sqlite3 on the very connection Prisma's adapter opened, so there is one
 *   writer per process and no SQLITE_BUSY between Prisma and this module. A {@link SqliteGate}
 *   keeps the two from interleaving inside an open transaction.
 * - PostgreSQL: a node-postgres pool of its own, with group commit too (db/postgresql-sql.ts).
 *
 * Values are bound as Prisma stores them: dates as ISO-8601 text with `+00:00` on SQLite
 * (Prisma's better-sqlite3 format, so string comparisons between rows stay ordered) and as
 * UTC `timestamp(3)` on PostgreSQL; booleans as 0/1 on SQLite.
 */
import type BetterSqlite3 from "better-sqlite3";
import { splitList } from "../kernel/list.js";
import type { Authentication } from "../stores/tokens.js";

export type SqlValue = string | number | boolean | Date | null;
export type Row = Record<string, unknown>;
/** A statement and its bound values. */
export type Statement = readonly [text: string, params: readonly SqlValue[]];

/** Runs `statements` one after the other on `sql` (inside a transaction). @returns how many rows each changed. */
export async function runEach(sql: Pick<Sql, "run">, statements: readonly Statement[]): Promise<number[]> {
  const changed: number[] = [];
  for (const [text, params] of statements) changed.push(await sql.run(text, params));
  return changed;
}

export interface Sql {
  /** @returns the first row, or undefined. */
  get<T extends Row>(text: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** @returns every row. */
  all<T extends Row>(text: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs a write. @returns how many rows it changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Runs `statements` in order in one transaction, committed together or not at all: a
   * transaction with no logic between its statements, which PostgreSQL's group commit
   * pipelines (db/postgresql-sql.ts) where a {@link transaction} costs a round trip.
   * @returns how many rows each changed.
   */
  batch(statements: readonly Statement[]): Promise<number[]>;
  /**
   * Runs `fn` in one transaction (a savepoint of the next group commit on SQLite, see
   * {@link sqliteSql}; part of the next group commit on PostgreSQL, READ COMMITTED, see
   * db/postgresql-sql.ts), committed when `fn` resolves and rolled back when it throws. Inside, use only the `tx` given to `fn`, and no other I/O: on
   * SQLite the outer `sql`, or Prisma, would wait for this very transaction (a deadlock;
   * likewise `db.sql` inside a Prisma interactive transaction).
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Closes what this module opened (the PostgreSQL pool; the SQLite connection is Prisma's). */
  close(): Promise<void>;
}

/**
 * Reads a date column written by this module or Prisma (SQLite: ISO text with its offset;
 * PostgreSQL: a Date). Text without a zone, as SQLite's CURRENT_TIMESTAMP writes, would be
 * read as local time: no column read here holds such text.
 */
export function dateOf(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

/** The user's authentication of a code or token row, from its `acr`, `amr` (space-separated), `authTime` and `authenticatedBy` columns. */
export function authenticationOf(acr: string, amr: unknown, authTime: unknown, authenticatedBy: unknown): Authentication {
  return { acr, amr: splitList(typeof amr === "string" ? amr : ""), authTime: dateOf(authTime), ...(typeof authenticatedBy === "string" ? { authenticatedBy } : {}) };
}

/** Reads a boolean column (SQLite: 0 or 1; PostgreSQL: a boolean). */
export function booleanOf(value: unknown): boolean {
  return value === true || value === 1;
}

/** Reads a nullable date column. */
export function nullableDateOf(value: unknown): Date | null {
  return value === null || value === undefined ? null : dateOf(value);
}

/**
 * Serializes Prisma's interactive transactions and this module's statements on the one
 * SQLite connection. better-sqlite3 is synchronous, but a Prisma transaction spans awaits:
 * a statement run meanwhile on the same connection would silently join (and roll back
 * with) that transaction. So while a transaction is open, everyone else waits for it.
 * Callers wait with `while (gate.busy) await gate.closed()` and then run synchronously:
 * re-checking `busy` in their own code leaves no gap for another transaction to open.
 */
export class SqliteGate {
  #open: Promise<void> | undefined;

  /** True while a transaction holds the connection. */
  get busy(): boolean {
    return this.#open !== undefined;
  }

  /** Resolves when the open transaction (if any) ends. */
  closed(): Promise<void> {
    return this.#open ?? Promise.resolve();
  }

  /** Waits until no transaction is open, then opens one. @returns its release function. */
  async enter(): Promise<() => void> {
    while (this.#open) await this.#open;
    let release!: () => void;
    this.#open = new Promise<void>((resolve) => {
      release = () => {
        this.#open = undefined;
        resolve();
      };
    });
    return release;
  }
}

function sqliteParam(value: SqlValue): string | number | null {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/** Milliseconds between the group writer's own (finishing) WAL checkpoints. */
const FINISH_CHECKPOINT_INTERVAL_MS = 1000;

/** A write or a transaction waiting for the next group commit. */
interface Queued {
  /** A single statement or statements run together (synchronous), or a transaction's function (runs in a savepoint). */
  work:
    | { stmt: BetterSqlite3.Statement; params: (string | number | null)[] }
    | { statements: { stmt: BetterSqlite3.Statement; params: (string | number | null)[] }[] }
    | { fn: (tx: Sql) => Promise<unknown> };
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/**
 * Direct SQL on the better-sqlite3 connection `db` (Prisma's), gated by `gate`.
 *
 * Group commit: writes and transactions outside a transaction are queued, and what is
 * queued during one turn of the event loop commits together in one SQLite transaction: a
 * write that fails (on a constraint, say) fails alone, and each transaction runs in its own
 * savepoint, rolled back alone if it throws. Every promise settles only after the commit,
 * so nothing is acknowledged before it is durable, and a commit's cost (its WAL pages, and
 * the fsync under `synchronous = FULL`) is shared by all the requests of the turn. A
 * transaction's function must only await its `tx` (no other I/O): the batch waits for it.
 */
export function sqliteSql(db: BetterSqlite3.Database, gate: SqliteGate): SqliteSql {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (text: string) => {
    let stmt = statements.get(text);
    if (!stmt) {
      // Prisma's adapter turns on safe integers for the connection; these rows hold small numbers.
      stmt = db.prepare(text);
      if (stmt.reader) stmt.safeIntegers(false);
      statements.set(text, stmt);
    }
    return stmt;
  };
  const bind = (params: readonly SqlValue[]) => params.map(sqliteParam);

  // db/checkpointer.ts copies the WAL into the database file from another thread, but while
  // commits keep coming it can never catch up with the last one, and the WAL only starts
  // over once a checkpoint has. So right after a group commit, at most once a second, this
  // connection checkpoints the few pages left: nothing can commit in between.
  let nextCheckpoint = 0;
  const finishCheckpoint = () => {
    if (Date.now() < nextCheckpoint) return;
    nextCheckpoint = Date.now() + FINISH_CHECKPOINT_INTERVAL_MS;
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch {
      // SQLITE_BUSY: the checkpoint thread is at it; the next one finishes.
    }
  };

  /** Runs one queued item inside the open batch transaction. @throws only when the batch itself failed. */
  const perform = async ({ work }: Queued): Promise<{ result: unknown } | { err: unknown }> => {
    if ("stmt" in work) {
      try {
        return { result: work.stmt.run(...work.params).changes };
      } catch (err) {
        // A failed statement is backed out alone and the transaction goes on (SQLite's ABORT
        // resolution); an I/O error ends the transaction, failing the batch.
        if (!db.inTransaction) throw err;
        return { err };
      }
    }
    prepare("SAVEPOINT tx").run();
    try {
      const result = "statements" in work ? work.statements.map(({ stmt, params }) => stmt.run(...params).changes) : await work.fn(inside);
      prepare("RELEASE tx").run();
      return { result };
    } catch (err) {
      if (!db.inTransaction) throw err;
      prepare("ROLLBACK TO tx").run();
      prepare("RELEASE tx").run();
      return { err };
    }
  };

  let queue: Queued[] = [];
  const enqueue = (work: Queued["work"]) =>
    new Promise<unknown>((resolve, reject) => {
      if (queue.length === 0) setImmediate(() => void flush());
      queue.push({ work, resolve, reject });
    });
  const flush = async () => {
    // Held while transactions' functions run, so nothing else uses the connection meanwhile.
    const release = await gate.enter();
    const batch = queue;
    queue = [];
    const outcomes: Awaited<ReturnType<typeof perform>>[] = [];
    try {
      prepare("BEGIN IMMEDIATE").run();
      for (const item of batch) outcomes.push(await perform(item));
      prepare("COMMIT").run();
    } catch (err) {
      if (db.inTransaction) prepare("ROLLBACK").run();
      for (const item of batch) item.reject(err);
      return;
    } finally {
      release();
    }
    finishCheckpoint();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if ("err" in outcome) item.reject(outcome.err);
      else item.resolve(outcome.result);
    });
  };

  // Inside a batch the gate is held already; outside, statements wait until it is free.
  const make = (inTransaction: boolean): Sql => {
    const sql: Sql = {
      async get<T extends Row>(text: string, params: readonly SqlValue[] = []) {
        while (!inTransaction && gate.busy) await gate.closed();
        return prepare(text).get(...bind(params)) as T | undefined;
      },
      async all<T extends Row>(text: string, params: readonly SqlValue[] = []) {
        while (!inTransaction && gate.busy) await gate.closed();
        return prepare(text).all(...bind(params)) as T[];
      },
      async run(text: string, params: readonly SqlValue[] = []) {
        const stmt = prepare(text);
        if (inTransaction) return stmt.run(...bind(params)).changes;
        return (await enqueue({ stmt, params: bind(params) })) as number;
      },
      async batch(statements: readonly Statement[]) {
        if (inTransaction) return sql.transaction((tx) => runEach(tx, statements));
        return (await enqueue({ statements: statements.map(([text, params]) => ({ stmt: prepare(text), params: bind(params) })) })) as number[];
      },
      async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
        if (!inTransaction) return (await enqueue({ fn })) as T;
        prepare("SAVEPOINT nested").run();
        try {
          const result = await fn(inside);
          prepare("RELEASE nested").run();
          return result;
        } catch (err) {
          if (db.inTransaction) {
            prepare("ROLLBACK TO nested").run();
            prepare("RELEASE nested").run();
          }
          throw err;
        }
      },
      async close() {},
    };
    return sql;
  };
  const inside = make(true);
  return Object.assign(make(false), { joined: inside });
}

/** Direct SQL on SQLite (see {@link sqliteSql}). */
export interface SqliteSql extends Sql {
  /**
   * The statements run at once on the connection, without waiting for the gate: for use
   * only inside a transaction that holds it (a Prisma interactive transaction), which they
   * then belong to.
   */
  readonly joined: Sql;
}
