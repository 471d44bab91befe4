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
 * - Reads are pipelined too: the reads of one turn are sent together on one connection,
 *   outside any transaction, each answered on its own.
 */
import type { Duplex } from "node:stream";
import pg from "pg";
import { runEach, type Row, type Sql, type SqlValue, type Statement } from "./sql.js";
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

/** A write, statements committed together, or a transaction, waiting for the next group commit. */
type Work = { text: string; params: readonly SqlValue[] } | { statements: readonly Statement[] } | { fn: (tx: Sql) => Promise<unknown> };

interface Queued {
  work: Work;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** A read waiting to be sent with the others of its turn. */
interface QueuedRead {
  text: string;
  params: readonly SqlValue[];
  resolve(result: pg.QueryResult): void;
  reject(err: unknown): void;
}

/** The socket of `client`'s connection, corked while a batch's messages are written, so that they leave in one write. */
function streamOf(client: pg.PoolClient): Duplex {
  return (client as unknown as { connection: { stream: Duplex } }).connection.stream;
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
  const over = (client: pg.Pool | pg.PoolClient, ask = (text: string, params: readonly SqlValue[]) => query(client, text, params)): Omit<Sql, "batch" | "transaction" | "close"> => ({
    async get<T extends Row>(text: string, params: readonly SqlValue[] = []) {
      return (await ask(text, params)).rows[0] as T | undefined;
    },
    async all<T extends Row>(text: string, params: readonly SqlValue[] = []) {
      return (await ask(text, params)).rows as T[];
    },
    async run(text: string, params: readonly SqlValue[] = []) {
      return (await ask(text, params)).rowCount ?? 0;
    },
  });

  const flushing = new Set<Promise<unknown>>();
  /** A queue whose items `run` gets together at the end of the current turn of the event loop. */
  const perTurn = <T>(run: (batch: T[]) => Promise<unknown>) => {
    let queue: T[] = [];
    return (item: T) => {
      if (queue.length === 0) {
        setImmediate(() => {
          const batch = queue;
          queue = [];
          const done = run(batch).finally(() => flushing.delete(done));
          flushing.add(done);
        });
      }
      queue.push(item);
    };
  };

  /**
   * Sends the reads of one turn pipelined on one connection, in one write, each settled by
   * its own answer (each query has its own implicit transaction: one failing fails alone).
   */
  const readTogether = async (batch: QueuedRead[]) => {
    if (batch.length === 1) return query(pool, batch[0]!.text, batch[0]!.params).then(batch[0]!.resolve, batch[0]!.reject);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      for (const read of batch) read.reject(err);
      return;
    }
    try {
      const stream = streamOf(client);
      stream.cork();
      let answers: Promise<pg.QueryResult>[];
      try {
        answers = batch.map((read) => query(client, read.text, read.params));
      } finally {
        stream.uncork();
      }
      await Promise.all(answers.map((answer, i) => answer.then(batch[i]!.resolve, batch[i]!.reject)));
    } catch (err) {
      // Only a query that could not even be sent gets here: no read is left unsettled.
      for (const read of batch) read.reject(err);
    } finally {
      client.release();
    }
  };
  const read = perTurn(readTogether);
  const reads = over(pool, (text, params) => new Promise<pg.QueryResult>((resolve, reject) => read({ text, params, resolve, reject })));

  /** The statements of `client` inside its open transaction; a transaction inside is a savepoint. */
  const inside = (client: pg.PoolClient): Sql => {
    const tx: Sql = {
      ...over(client),
      batch: (statements) => runEach(tx, statements),
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

  /** Runs `work` on its own: a statement commits by itself, statements and a transaction in one of their own. */
  const alone = (work: Work): Promise<unknown> => {
    if ("fn" in work) return inTransaction(work.fn);
    if ("statements" in work) return inTransaction((tx) => runEach(tx, work.statements));
    return over(pool).run(work.text, work.params);
  };
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
    const stream = streamOf(client);
    const outcomes: Promise<unknown>[] = [];
    let functionFailed = false;
    // Corked while statements are written; never released to the pool corked.
    let corked = false;
    const cork = (on: boolean) => {
      if (on === corked) return;
      corked = on;
      if (on) stream.cork();
      else stream.uncork();
    };
    try {
      cork(true);
      outcomes.push(query(client, "BEGIN", []));
      for (const { work } of batch) {
        if ("text" in work) {
          outcomes.push(tx.run(work.text, work.params));
          continue;
        }
        if ("statements" in work) {
          outcomes.push(Promise.all(work.statements.map(([text, params]) => tx.run(text, params))));
          continue;
        }
        cork(false);
        const done = work.fn(tx);
        outcomes.push(done);
        await done.catch(() => (functionFailed = true));
        cork(true);
      }
      outcomes.push(query(client, functionFailed ? "ROLLBACK" : "COMMIT", []));
    } finally {
      cork(false);
    }
    const settled = await Promise.allSettled(outcomes);
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failure) throw failure.reason;
    if (functionFailed || (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value.command !== "COMMIT") throw new Error("the batch was rolled back");
    return settled.slice(1, -1).map((s) => (s as PromiseFulfilledResult<unknown>).value);
  };

  const commit = perTurn(async (batch: Queued[]) => {
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
  });
  const enqueue = (work: Work) => new Promise<unknown>((resolve, reject) => commit({ work, resolve, reject }));

  return {
    ...reads,
    async run(text: string, params: readonly SqlValue[] = []) {
      return (await enqueue({ text, params })) as number;
    },
    async batch(statements: readonly Statement[]) {
      return (await enqueue({ statements })) as number[];
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
    batch: (statements) => runEach(sql, statements),
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
