/**
 * Direct SQL on PostgreSQL (the `Sql` of db/sql.ts): a node-postgres pool of its own, named
 * prepared statements, and group commit as on SQLite.
 *
 * - Each statement text is prepared once per connection under a name of its own, so
 *   PostgreSQL parses and plans it once rather than on every request.
 * - Group commit: the writes and transactions issued during one turn of the event loop run
 *   on one connection in one transaction and commit together, and each settles only after
 *   that commit: nothing is acknowledged before it is durable, and a commit's WAL flush is
 *   shared by the requests of the turn. If anything in the batch fails (a constraint, a
 *   deadlock with another instance's batch, a transaction's function throwing), the batch
 *   rolls back and each of its items runs again alone, so it fails alone, as on SQLite.
 *   A connection-level failure fails the whole batch at once (db/unavailable.ts): running
 *   its items again would only double the wait of a database that is away.
 * Reads run at once on the pool, outside any batch.
 */
import type { Duplex } from "node:stream";
import pg from "pg";
import type { Row, Sql, SqlValue } from "./sql.js";
import { isConnectionFailure } from "./unavailable.js";

/** `?` placeholders as PostgreSQL's `$1, $2, ...`. */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** Prisma's `timestamp(3)` columns hold UTC without a zone; read them as UTC. */
const TIMESTAMP_OID = 1114;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID ? (s: string) => new Date(`${s.replace(" ", "T")}Z`) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

function pgParam(value: SqlValue): string | number | boolean | null {
  // A zoned literal into `timestamp without time zone` keeps the UTC wall clock.
  return value instanceof Date ? value.toISOString() : value;
}

/** Time limits of a PostgreSQL pool, milliseconds (db/database.ts sets them from the configuration). */
export interface PoolTimeouts {
  /** Longest wait for a new connection or a free one of the pool (pg's `connectionTimeoutMillis`). */
  connectionTimeoutMillis?: number;
  /** Longest wait for a query's answer (pg's `query_timeout`); the connection is then dropped. */
  query_timeout?: number;
}

/** A write or a transaction waiting for the next group commit. */
type Work = { text: string; params: readonly SqlValue[] } | { fn: (tx: Sql) => Promise<unknown> };

interface Queued {
  work: Work;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/**
 * Direct SQL on PostgreSQL at `connectionString`, with a pool of `max` connections and
 * `timeouts` (none by default), as this module's header describes.
 */
export function postgresqlSql(connectionString: string, max: number, timeouts: PoolTimeouts = {}): Sql {
  const pool = new pg.Pool({ connectionString, max, types, pipeline: true, ...timeouts });
  // An idle connection the server closed (restart, failover) is dropped from the pool and
  // replaced on the next query; without a listener the error would end the process.
  pool.on("error", () => {});
  // Likewise for a connection that drops while checked out (a batch, a transaction): its
  // queries fail by themselves; unheard, the client's error event would end the process.
  pool.on("connect", (client) => client.on("error", () => {}));

  const statements = new Map<string, { name: string; text: string }>();
  const query = (client: pg.Pool | pg.PoolClient, text: string, params: readonly SqlValue[]) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = { name: `tollgate_${statements.size}`, text: numbered(text) }));
    return client.query({ ...statement, values: params.map(pgParam) });
  };

  /** The statements of `client` (the pool: each on any connection, committed on its own). */
  const over = (client: pg.Pool | pg.PoolClient): Omit<Sql, "transaction" | "close"> => ({
    async get<T extends Row>(text: string, params: readonly SqlValue[] = []) {
      return (await query(client, text, params)).rows[0] as T | undefined;
    },
    async all<T extends Row>(text: string, params: readonly SqlValue[] = []) {
      return (await query(client, text, params)).rows as T[];
    },
    async run(text: string, params: readonly SqlValue[] = []) {
      return (await query(client, text, params)).rowCount ?? 0;
    },
  });

  /** The statements of `client` inside its open transaction; a transaction inside is a savepoint. */
  const inside = (client: pg.PoolClient): Sql => {
    const tx: Sql = {
      ...over(client),
      async transaction(inner) {
        await client.query("SAVEPOINT nested");
        try {
          const result = await inner(tx);
          await client.query("RELEASE SAVEPOINT nested");
          return result;
        } catch (err) {
          await client.query("ROLLBACK TO SAVEPOINT nested");
          throw err;
        }
      },
      close: async () => {},
    };
    return tx;
  };

  /** Runs `fn` in a READ COMMITTED transaction on a connection of its own. */
  const inTransaction = async <T>(fn: (tx: Sql) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    const tx = inside(client);
    try {
      await client.query("BEGIN");
      const result = await fn(tx);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };

  /** Runs `work` on its own: a statement commits by itself, a transaction in one of its own. */
  const alone = (work: Work): Promise<unknown> => ("fn" in work ? inTransaction(work.fn) : over(pool).run(work.text, work.params));
  const settle = (item: Queued, outcome: Promise<unknown>) => outcome.then(item.resolve, item.reject);

  /**
   * Runs `batch` in one transaction on `client`. The statements are pipelined: sent in one
   * write with BEGIN and COMMIT, without waiting for each other's answers; a transaction's
   * function runs in its turn (its first statement queued behind the ones before).
   * @returns each item's result, once committed.
   * @throws the first failure, the transaction rolled back: PostgreSQL answers the COMMIT of
   *   a transaction in which a statement failed with a rollback, and a function that throws
   *   gets a ROLLBACK sent instead.
   */
  const commitTogether = async (client: pg.PoolClient, batch: Queued[]): Promise<unknown[]> => {
    const tx = inside(client);
    const stream = (client as unknown as { connection: { stream: Duplex } }).connection.stream;
    const outcomes: Promise<unknown>[] = [];
    let functionFailed = false;
    stream.cork();
    outcomes.push(query(client, "BEGIN", []));
    for (const { work } of batch) {
      if (!("fn" in work)) {
        outcomes.push(tx.run(work.text, work.params));
        continue;
      }
      stream.uncork();
      const done = work.fn(tx);
      outcomes.push(done);
      await done.catch(() => (functionFailed = true));
      stream.cork();
    }
    outcomes.push(query(client, functionFailed ? "ROLLBACK" : "COMMIT", []));
    stream.uncork();
    const settled = await Promise.allSettled(outcomes);
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failure) throw failure.reason;
    if (functionFailed || (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value.command !== "COMMIT") throw new Error("the batch was rolled back");
    return settled.slice(1, -1).map((s) => (s as PromiseFulfilledResult<unknown>).value);
  };

  let queue: Queued[] = [];
  const flushing = new Set<Promise<unknown>>();
  const flush = async () => {
    const batch = queue;
    queue = [];
    if (batch.length === 1) return settle(batch[0]!, alone(batch[0]!.work));
    let results: unknown[];
    try {
      const client = await pool.connect();
      try {
        results = await commitTogether(client, batch);
      } finally {
        client.release();
      }
    } catch (err) {
      if (isConnectionFailure(err)) {
        for (const item of batch) item.reject(err);
        return;
      }
      // Each runs again alone, and fails alone.
      return Promise.all(batch.map((item) => settle(item, alone(item.work))));
    }
    batch.forEach((item, i) => item.resolve(results[i]));
  };
  const enqueue = (work: Work) =>
    new Promise<unknown>((resolve, reject) => {
      if (queue.length === 0) {
        setImmediate(() => {
          const done = flush().finally(() => flushing.delete(done));
          flushing.add(done);
        });
      }
      queue.push({ work, resolve, reject });
    });

  return {
    ...over(pool),
    async run(text: string, params: readonly SqlValue[] = []) {
      return (await enqueue({ text, params })) as number;
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      return (await enqueue({ fn })) as T;
    },
    async close() {
      // The writes queued or committing finish first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await Promise.allSettled([...flushing]);
      await pool.end();
    },
  };
}

/** The raw query methods of a Prisma (transaction) client. */
interface RawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/**
 * Direct SQL inside a Prisma interactive transaction on PostgreSQL, through the
 * transaction's own connection (Prisma's raw queries), so that the statements commit or
 * roll back with it. Dates are bound as timestamps and read back as Date.
 */
export function prismaTransactionSql(tx: RawClient): Sql {
  const sql: Sql = {
    async get<T extends Row>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
      return (await tx.$queryRawUnsafe<T[]>(numbered(text), ...params))[0];
    },
    all<T extends Row>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
      return tx.$queryRawUnsafe<T[]>(numbered(text), ...params);
    },
    run(text: string, params: readonly SqlValue[] = []) {
      return tx.$executeRawUnsafe(numbered(text), ...params);
    },
    // A transaction inside is a savepoint of Prisma's.
    async transaction<T>(fn: (inner: Sql) => Promise<T>): Promise<T> {
      await tx.$executeRawUnsafe("SAVEPOINT nested");
      try {
        const result = await fn(sql);
        await tx.$executeRawUnsafe("RELEASE SAVEPOINT nested");
        return result;
      } catch (err) {
        await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT nested");
        throw err;
      }
    },
    async close() {},
  };
  return sql;
}
