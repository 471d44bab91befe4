/**
 * Tests of db/postgresql-sql.ts on the machine's PostgreSQL (TEST_POSTGRES_URL), in a
 * database of their own: group commit (one transaction per turn of the event loop, each
 * write settled only after the commit, a failing item failing alone), transactions in a
 * batch, named prepared statements, and a database that is away.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postgresqlSql } from "./postgresql-sql.js";
import type { Sql } from "./sql.js";

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
const name = `tollgate_sql_${randomBytes(6).toString("hex")}`;
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
const INSERT = `INSERT INTO "Item" ("name") VALUES (?)`;

async function admin(text: string, connectionString = ADMIN_URL): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query(text).finally(() => client.end());
}

/** Other connections: they see only what is committed. */
let other: pg.Pool;
let sql: Sql;

beforeAll(async () => {
  await admin(`CREATE DATABASE ${name}`);
  // Each row records the transaction that wrote it.
  await admin(`CREATE TABLE "Item" ("id" serial PRIMARY KEY, "name" text NOT NULL UNIQUE, "xid" bigint NOT NULL DEFAULT txid_current())`, url);
  other = new pg.Pool({ connectionString: url, max: 3 });
  // A client still closing when afterAll drops the database WITH (FORCE) is told 57P01.
  other.on("error", () => {});
  // One connection: the prepared statements below are that connection's.
  sql = postgresqlSql(url, 1);
});

afterAll(async () => {
  await sql?.close();
  await other?.end();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

beforeEach(async () => {
  await other.query(`TRUNCATE "Item"`);
});

/** The committed rows, as another connection sees them. */
const committed = async () => (await other.query<{ name: string; xid: string }>(`SELECT "name", "xid" FROM "Item" ORDER BY "name"`)).rows;

describe("postgresqlSql: group commit", () => {
  it("commits the writes of one turn in one transaction and settles each only after the commit", async () => {
    const seen: string[][] = [];
    const observe = (p: Promise<unknown>) => p.then(async (value) => (seen.push((await committed()).map((r) => r.name)), value));
    const results = await Promise.all([observe(sql.run(INSERT, ["a"])), observe(sql.transaction((tx) => tx.run(INSERT, ["b"]))), observe(sql.run(INSERT, ["c"]))]);
    expect(results).toEqual([1, 1, 1]);
    for (const names of seen) expect(names).toEqual(["a", "b", "c"]);
    expect(new Set((await committed()).map((r) => r.xid)).size).toBe(1);
  });

  it("commits a write alone in its turn by itself, and writes of later turns in transactions of their own", async () => {
    await sql.run(INSERT, ["a"]);
    await sql.run(INSERT, ["b"]);
    expect(new Set((await committed()).map((r) => r.xid)).size).toBe(2);
  });

  it("fails a write that violates a UNIQUE constraint alone; the rest of its batch commits", async () => {
    await sql.run(INSERT, ["taken"]);
    const results = await Promise.allSettled([sql.run(INSERT, ["a"]), sql.run(INSERT, ["taken"]), sql.run(INSERT, ["b"])]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23505" });
    expect((await committed()).map((r) => r.name)).toEqual(["a", "b", "taken"]);
  });

  it("rolls back only a transaction whose function throws; the other writes of its batch commit", async () => {
    const results = await Promise.allSettled([
      sql.run(INSERT, ["a"]),
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["doomed"]);
        throw new Error("changed its mind");
      }),
      sql.run(INSERT, ["b"]),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error("changed its mind"));
    expect((await committed()).map((r) => r.name)).toEqual(["a", "b"]);
  });

  it("runs a transaction's function after the batch's earlier writes, reading them and its own", async () => {
    const [, count] = await Promise.all([
      sql.run(INSERT, ["a"]),
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["b"]);
        return (await tx.get<{ n: number }>(`SELECT count(*)::int AS "n" FROM "Item"`))!.n;
      }),
    ]);
    expect(count).toBe(2);
  });

  it("rolls back only a nested transaction that throws when the function catches it", async () => {
    await Promise.all([
      sql.run(INSERT, ["a"]),
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["b"]);
        await tx.transaction(async (inner) => {
          await inner.run(INSERT, ["nested"]);
          throw new Error("nested");
        }).catch(() => {});
      }),
    ]);
    expect((await committed()).map((r) => r.name)).toEqual(["a", "b"]);
  });

  it("commits a batch's statements together, or none of them when one fails; the other writes of the turn commit", async () => {
    await sql.run(INSERT, ["taken"]);
    const results = await Promise.allSettled([
      sql.batch([
        [INSERT, ["x"]],
        [INSERT, ["y"]],
      ]),
      sql.batch([
        [INSERT, ["z"]],
        [INSERT, ["taken"]],
      ]),
      sql.run(INSERT, ["a"]),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[0] as PromiseFulfilledResult<number[]>).value).toEqual([1, 1]);
    expect((await committed()).map((r) => r.name)).toEqual(["a", "taken", "x", "y"]);
  });

  it("prepares each statement once per connection, under a name", async () => {
    await sql.run(INSERT, ["a"]);
    await sql.get(`SELECT "name" FROM "Item" WHERE "name" = ?`, ["a"]);
    const prepared = await sql.all<{ name: string; statement: string }>(`SELECT "name", "statement" FROM pg_prepared_statements ORDER BY "name"`);
    expect(prepared.map((p) => p.statement)).toEqual(expect.arrayContaining([`INSERT INTO "Item" ("name") VALUES ($1)`, `SELECT "name" FROM "Item" WHERE "name" = $1`]));
    expect(prepared.every((p) => p.name.startsWith("tollgate_"))).toBe(true);
  });
});

describe("postgresqlSql: a database that is away", () => {
  it("fails every write of a batch with the connection error, without running them again", async () => {
    // A port that accepts no connection: listened on, then closed.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const away = postgresqlSql(`postgresql://root@127.0.0.1:${port}/none`, 2, { connectionTimeoutMillis: 1000 });
    try {
      const results = await Promise.allSettled([away.run(INSERT, ["a"]), away.run(INSERT, ["b"])]);
      for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "ECONNREFUSED" });
    } finally {
      await away.close();
    }
  });
});
