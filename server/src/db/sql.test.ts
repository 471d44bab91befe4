/**
 * Unit tests of db/sql.ts on SQLite: `sqliteSql` (group commit, per-write failure, savepoint
 * transactions, reads inside and outside transactions, value binding and number reading,
 * the WAL checkpoint after commits) and `SqliteGate`, plus `dateOf` / `nullableDateOf`.
 * Real better-sqlite3 on a WAL file in os.tmpdir(), set up like Prisma's adapter
 * (`defaultSafeIntegers(true)`); a second connection checks what is committed.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dateOf, nullableDateOf, SqliteGate, sqliteSql, type Sql } from "./sql.js";

const INSERT = `INSERT INTO "Item" ("name") VALUES (?)`;
const INSERT_FULL = `INSERT INTO "Item" ("name", "n", "at", "flag") VALUES (?, ?, ?, ?)`;

let dir: string;
let file: string;
/** The connection under test (Prisma's, in the application). */
let db: Database.Database;
/** Another connection on the same file: sees only what is committed. */
let other: Database.Database;
let gate: SqliteGate;
let sql: Sql;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tollgate-sql-test-"));
  file = path.join(dir, "test.db");
  db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0"); // as db/database.ts does
  db.defaultSafeIntegers(true); // as @prisma/adapter-better-sqlite3 does
  db.exec(`CREATE TABLE "Item" (
    "id" INTEGER PRIMARY KEY,
    "name" TEXT NOT NULL UNIQUE,
    "n" INTEGER NOT NULL DEFAULT 0,
    "at" DATETIME,
    "flag" BOOLEAN
  )`);
  db.pragma("wal_checkpoint(TRUNCATE)"); // the schema into the database file itself
  other = new Database(file);
  gate = new SqliteGate();
  sql = sqliteSql(db, gate);
});

afterEach(() => {
  vi.useRealTimers();
  other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Names committed, as another connection sees them. */
const committedNames = (): string[] =>
  (other.prepare(`SELECT "name" FROM "Item" ORDER BY "name"`).all() as { name: string }[]).map((r) => r.name);

/** One turn of the event loop (and the microtasks before it). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `p` settles within a few turns of the event loop (it must not when it waits for something). */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await tick();
  return settled;
}

describe("sqliteSql: group commit", () => {
  it("resolves a write with the number of rows it changed, as a number, once committed", async () => {
    await sql.run(INSERT, ["a"]);
    await sql.run(INSERT, ["b"]);
    const changed = await sql.run(`UPDATE "Item" SET "n" = "n" + 1`);
    expect(changed).toBe(2);
    expect(typeof changed).toBe("number");
    expect(db.inTransaction).toBe(false);
    expect(other.prepare(`SELECT sum("n") AS "s" FROM "Item"`).get()).toEqual({ s: 2 });
  });

  it("commits the writes of one tick together and settles each only after the commit", async () => {
    const atSettlement: { inTransaction: boolean; committed: string[] }[] = [];
    const observe = <T>(p: Promise<T>) =>
      p.then((value) => {
        atSettlement.push({ inTransaction: db.inTransaction, committed: committedNames() });
        return value;
      });
    let firstSettled = false;
    let midBatch: { inTransaction: boolean; committed: string[]; firstSettled: boolean; ownView: number } | undefined;

    const first = observe(sql.run(INSERT, ["a"])).then((n) => ((firstSettled = true), n));
    const second = observe(
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["b"]);
        // Give a premature settlement of the first write every chance to run.
        await tick();
        await tick();
        const own = await tx.get<{ c: number }>(`SELECT count(*) AS "c" FROM "Item"`);
        midBatch = { inTransaction: db.inTransaction, committed: committedNames(), firstSettled, ownView: own!.c };
        return "done";
      }),
    );
    const third = observe(sql.run(INSERT, ["c"]));

    expect(await Promise.all([first, second, third])).toEqual([1, "done", 1]);
    // Mid-batch, the first write is done on this connection but neither committed nor acknowledged.
    expect(midBatch).toEqual({ inTransaction: true, committed: [], firstSettled: false, ownView: 2 });
    // Each promise settled after the one commit: no transaction open, every row visible elsewhere.
    expect(atSettlement).toHaveLength(3);
    for (const s of atSettlement) expect(s).toEqual({ inTransaction: false, committed: ["a", "b", "c"] });
  });

  it("puts writes issued while a batch runs into the next batch", async () => {
    let late: Promise<number> | undefined;
    const inBatch = sql.transaction(async (tx) => {
      await tx.run(INSERT, ["early"]);
      late = sql.run(INSERT, ["late"]); // queued for the next group commit
      expect(await settlesSoon(late)).toBe(false); // it cannot commit before this batch
      return committedNames();
    });
    expect(await inBatch).toEqual([]);
    expect(await late).toBe(1);
    expect(committedNames()).toEqual(["early", "late"]);
  });

  it("fails a write that violates a UNIQUE constraint alone; the rest of its batch commits", async () => {
    await sql.run(INSERT, ["taken"]);
    const results = await Promise.allSettled([
      sql.run(INSERT, ["x"]),
      sql.run(INSERT, ["taken"]), // conflicts with a committed row
      sql.run(INSERT, ["y"]),
      sql.run(INSERT, ["x"]), // conflicts with a row of the same batch
    ]);
    expect(results[0]).toEqual({ status: "fulfilled", value: 1 });
    expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_CONSTRAINT_UNIQUE" } });
    expect(results[2]).toEqual({ status: "fulfilled", value: 1 });
    expect(results[3]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_CONSTRAINT_UNIQUE" } });
    expect(committedNames()).toEqual(["taken", "x", "y"]);
    expect(db.inTransaction).toBe(false);
  });

  it("rejects every write of a batch that cannot begin (SQLITE_BUSY) and stays usable", async () => {
    db.pragma("busy_timeout = 0");
    other.exec("BEGIN IMMEDIATE"); // another process holds the write lock
    const fn = vi.fn(async (tx: Sql) => tx.run(INSERT, ["t"]));
    const results = await Promise.allSettled([sql.run(INSERT, ["a"]), sql.transaction(fn)]);
    other.exec("ROLLBACK");
    expect(results[0]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_BUSY" } });
    expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_BUSY" } });
    expect(fn).not.toHaveBeenCalled();
    expect(gate.busy).toBe(false);
    expect(db.inTransaction).toBe(false);

    expect(await sql.run(INSERT, ["b"])).toBe(1);
    expect(committedNames()).toEqual(["b"]);
  });
});

describe("sqliteSql: batch", () => {
  it("commits its statements together, or none of them when one fails; the other writes of the turn commit", async () => {
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
    expect(committedNames()).toEqual(["a", "taken", "x", "y"]);
  });
});

describe("sqliteSql: transaction", () => {
  it("commits all its statements when fn resolves, and resolves with fn's result", async () => {
    await sql.run(INSERT, ["old"]);
    const result = await sql.transaction(async (tx) => {
      await tx.run(INSERT, ["a"]);
      await tx.run(INSERT, ["b"]);
      return tx.run(`UPDATE "Item" SET "n" = 7 WHERE "name" IN ('a', 'old')`);
    });
    expect(result).toBe(2);
    expect(committedNames()).toEqual(["a", "b", "old"]);
    expect(other.prepare(`SELECT "name" FROM "Item" WHERE "n" = 7 ORDER BY "name"`).all()).toEqual([{ name: "a" }, { name: "old" }]);
  });

  it("rolls back only its own statements when fn throws; the other writes of its batch commit", async () => {
    await sql.run(INSERT, ["existing"]);
    const boom = new Error("boom");
    const results = await Promise.allSettled([
      sql.run(INSERT, ["before"]),
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["rolled-back"]);
        await tx.run(`UPDATE "Item" SET "n" = 99 WHERE "name" = 'existing'`);
        throw boom;
      }),
      sql.transaction(async (tx) => tx.run(INSERT, ["next-tx"])), // same savepoint name, after a rollback
      sql.run(INSERT, ["after"]),
    ]);
    expect(results[0]).toEqual({ status: "fulfilled", value: 1 });
    expect(results[1]).toEqual({ status: "rejected", reason: boom });
    expect(results[2]).toEqual({ status: "fulfilled", value: 1 });
    expect(results[3]).toEqual({ status: "fulfilled", value: 1 });
    expect(committedNames()).toEqual(["after", "before", "existing", "next-tx"]);
    expect(other.prepare(`SELECT "n" FROM "Item" WHERE "name" = 'existing'`).get()).toEqual({ n: 0 });
  });

  it("rolls back its earlier statements when one of them violates a constraint", async () => {
    await sql.run(INSERT, ["taken"]);
    const results = await Promise.allSettled([
      sql.transaction(async (tx) => {
        await tx.run(INSERT, ["first"]);
        await tx.run(INSERT, ["taken"]);
      }),
      sql.run(INSERT, ["other"]),
    ]);
    expect(results[0]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_CONSTRAINT_UNIQUE" } });
    expect(results[1]).toEqual({ status: "fulfilled", value: 1 });
    expect(committedNames()).toEqual(["other", "taken"]);
  });

  it("reads its own writes inside, with get and all", async () => {
    await sql.run(INSERT, ["committed"]);
    const seen = await sql.transaction(async (tx) => {
      await tx.run(INSERT, ["mine"]);
      await tx.run(`UPDATE "Item" SET "n" = 5 WHERE "name" = 'committed'`);
      const one = await tx.get<{ name: string; n: number }>(`SELECT "name", "n" FROM "Item" WHERE "name" = ?`, ["mine"]);
      const all = await tx.all<{ name: string; n: number }>(`SELECT "name", "n" FROM "Item" ORDER BY "name"`);
      return { one, all };
    });
    expect(seen).toEqual({
      one: { name: "mine", n: 0 },
      all: [
        { name: "committed", n: 5 },
        { name: "mine", n: 0 },
      ],
    });
  });

  it("keeps reads from outside waiting until the batch commits", async () => {
    let outside: Promise<{ c: number } | undefined> | undefined;
    await sql.transaction(async (tx) => {
      await tx.run(INSERT, ["a"]);
      outside = sql.get<{ c: number }>(`SELECT count(*) AS "c" FROM "Item"`);
      // Run now, it would see the uncommitted row (same connection) and settle.
      expect(await settlesSoon(outside)).toBe(false);
      await tx.run(INSERT, ["b"]);
    });
    expect(await outside).toEqual({ c: 2 });
  });

  it("runs a transaction nested in a transaction's tx within the same transaction", async () => {
    const boom = new Error("outer fails");
    await expect(
      sql.transaction(async (tx) => {
        await tx.transaction(async (inner) => inner.run(INSERT, ["nested"]));
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(committedNames()).toEqual([]);

    await sql.transaction(async (tx) => tx.transaction(async (inner) => inner.run(INSERT, ["nested"])));
    expect(committedNames()).toEqual(["nested"]);
  });

  it("rolls back only a nested transaction that throws when the outer one catches the error", async () => {
    await sql.transaction(async (tx) => {
      await tx.run(INSERT, ["outer"]);
      await tx
        .transaction(async (inner) => {
          await inner.run(INSERT, ["inner"]);
          throw new Error("inner fails");
        })
        .catch(() => {});
    });
    expect(committedNames()).toEqual(["outer"]);
  });
});

describe("sqliteSql: values", () => {
  it("reads integers as JS numbers although the connection uses safe integers", async () => {
    await sql.run(INSERT_FULL, ["a", 41, null, null]);
    // The connection as Prisma's adapter leaves it: BigInt for integers.
    expect(typeof (db.prepare(`SELECT "n" FROM "Item"`).get() as { n: unknown }).n).toBe("bigint");

    const row = await sql.get<{ id: number; n: number; c: number }>(`SELECT "id", "n", (SELECT count(*) FROM "Item") AS "c" FROM "Item"`);
    expect(row).toEqual({ id: 1, n: 41, c: 1 });
    expect(typeof row!.n).toBe("number");
    const rows = await sql.all<{ n: number }>(`SELECT "n" + 1 AS "n" FROM "Item"`);
    expect(rows).toEqual([{ n: 42 }]);
    const inside = await sql.transaction(async (tx) => tx.get<{ n: number }>(`SELECT "n" FROM "Item"`));
    expect(inside).toEqual({ n: 41 });
  });

  it("binds dates as ISO text with +00:00 (Prisma's format) and booleans as 0/1", async () => {
    const at = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 123));
    await sql.run(INSERT_FULL, ["yes", 0, at, true]);
    await sql.transaction(async (tx) => tx.run(INSERT_FULL, ["no", 0, at, false]));
    const stored = other.prepare(`SELECT "name", "at", typeof("at") AS "atType", "flag", typeof("flag") AS "flagType" FROM "Item" ORDER BY "name"`).all();
    expect(stored).toEqual([
      { name: "no", at: "2024-05-06T07:08:09.123+00:00", atType: "text", flag: 0, flagType: "integer" },
      { name: "yes", at: "2024-05-06T07:08:09.123+00:00", atType: "text", flag: 1, flagType: "integer" },
    ]);
    const back = await sql.get<{ at: string }>(`SELECT "at" FROM "Item" WHERE "name" = ?`, ["yes"]);
    expect(dateOf(back!.at).getTime()).toBe(at.getTime());
  });

  it("binds dates in conditions so they compare in time order with stored dates", async () => {
    const t = (ms: number) => new Date(Date.UTC(2024, 0, 1) + ms);
    // Fixed-width text (always milliseconds, always +00:00): text order is time order, even
    // across a second boundary (":00.999" before ":01.000").
    await sql.run(INSERT_FULL, ["early", 0, t(999), false]);
    await sql.run(INSERT_FULL, ["middle", 0, t(1000), false]);
    await sql.run(INSERT_FULL, ["late", 0, t(86_400_000), false]);
    const after = await sql.all<{ name: string }>(`SELECT "name" FROM "Item" WHERE "at" > ? ORDER BY "at"`, [t(999)]);
    expect(after).toEqual([{ name: "middle" }, { name: "late" }]);
    expect(await sql.get(`SELECT "name" FROM "Item" WHERE "at" = ?`, [t(1000)])).toEqual({ name: "middle" });
    expect(await sql.get(`SELECT "name" FROM "Item" WHERE "flag" = ?`, [false])).toBeDefined();
    expect(await sql.get(`SELECT "name" FROM "Item" WHERE "flag" = ?`, [true])).toBeUndefined();
  });

  it("close() leaves the shared connection open", async () => {
    await sql.close();
    expect(db.open).toBe(true);
    expect(await sql.run(INSERT, ["still"])).toBe(1);
  });
});

describe("sqliteSql: WAL checkpoint after a group commit", () => {
  /** Names in the database file alone, without its WAL. */
  const namesInDatabaseFile = (): string[] => {
    const copy = path.join(dir, `copy-${Math.random().toString(36).slice(2)}.db`);
    copyFileSync(file, copy);
    const c = new Database(copy);
    try {
      return (c.prepare(`SELECT "name" FROM "Item" ORDER BY "name"`).all() as { name: string }[]).map((r) => r.name);
    } finally {
      c.close();
    }
  };

  it("checkpoints right after a commit, at most once a second", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    await sql.run(INSERT, ["one"]);
    expect(namesInDatabaseFile()).toEqual(["one"]);
    await sql.run(INSERT, ["two"]); // same instant: the WAL keeps it
    expect(namesInDatabaseFile()).toEqual(["one"]);
    vi.setSystemTime(new Date("2030-01-01T00:00:00.999Z"));
    await sql.run(INSERT, ["three"]);
    expect(namesInDatabaseFile()).toEqual(["one"]);
    vi.setSystemTime(new Date("2030-01-01T00:00:01Z"));
    await sql.run(INSERT, ["four"]);
    expect(namesInDatabaseFile()).toEqual(["four", "one", "three", "two"]);
  });
});

describe("sqliteSql with a held SqliteGate (a Prisma interactive transaction)", () => {
  it("makes get and all wait until release, so they never join the open transaction", async () => {
    const release = await gate.enter();
    db.exec("BEGIN");
    db.prepare(INSERT).run("uncommitted");
    const one = sql.get<{ c: number }>(`SELECT count(*) AS "c" FROM "Item"`);
    const many = sql.all<{ name: string }>(`SELECT "name" FROM "Item"`);
    expect(await settlesSoon(one)).toBe(false);
    expect(await settlesSoon(many)).toBe(false);
    db.exec("ROLLBACK");
    release();
    expect(await one).toEqual({ c: 0 });
    expect(await many).toEqual([]);
  });

  it("makes writes wait until release, then commits them", async () => {
    const release = await gate.enter();
    db.exec("BEGIN");
    db.prepare(INSERT).run("prisma");
    const write = sql.run(INSERT, ["direct"]);
    expect(await settlesSoon(write)).toBe(false);
    expect(committedNames()).toEqual([]);
    db.exec("COMMIT");
    release();
    expect(await write).toBe(1);
    expect(committedNames()).toEqual(["direct", "prisma"]);
  });
});

describe("SqliteGate", () => {
  it("is free at first: not busy, closed() resolves", async () => {
    const g = new SqliteGate();
    expect(g.busy).toBe(false);
    expect(await settlesSoon(g.closed())).toBe(true);
  });

  it("is busy between enter and release; closed() resolves on release", async () => {
    const g = new SqliteGate();
    const release = await g.enter();
    expect(g.busy).toBe(true);
    const closed = g.closed();
    expect(await settlesSoon(closed)).toBe(false);
    release();
    expect(g.busy).toBe(false);
    await closed;
  });

  it("lets one waiter in at a time", async () => {
    const g = new SqliteGate();
    const release1 = await g.enter();
    const entered: string[] = [];
    const second = g.enter().then((r) => (entered.push("second"), r));
    const third = g.enter().then((r) => (entered.push("third"), r));
    for (let i = 0; i < 5; i++) await tick();
    expect(entered).toEqual([]);

    release1();
    for (let i = 0; i < 5; i++) await tick();
    expect(entered).toHaveLength(1);
    expect(g.busy).toBe(true);

    const releaseNext = await (entered[0] === "second" ? second : third);
    releaseNext();
    for (let i = 0; i < 5; i++) await tick();
    expect(entered).toHaveLength(2);
    expect(g.busy).toBe(true);
    (await (entered[1] === "second" ? second : third))();
    expect(g.busy).toBe(false);
  });
});

describe("dateOf / nullableDateOf", () => {
  it("returns a Date as it is", () => {
    const d = new Date();
    expect(dateOf(d)).toBe(d);
  });

  it("parses SQLite's ISO text, whatever its offset", () => {
    expect(dateOf("2024-05-06T07:08:09.123+00:00").toISOString()).toBe("2024-05-06T07:08:09.123Z");
    expect(dateOf("2024-05-06T09:08:09.123+02:00").toISOString()).toBe("2024-05-06T07:08:09.123Z");
    expect(dateOf("2024-05-06T07:08:09.123Z").toISOString()).toBe("2024-05-06T07:08:09.123Z");
  });

  it("gives an invalid Date for text that is no date", () => {
    expect(Number.isNaN(dateOf("not a date").getTime())).toBe(true);
  });

  it("maps null and undefined to null, anything else as dateOf does", () => {
    expect(nullableDateOf(null)).toBeNull();
    expect(nullableDateOf(undefined)).toBeNull();
    expect(nullableDateOf("2024-05-06T07:08:09.123+00:00")?.toISOString()).toBe("2024-05-06T07:08:09.123Z");
    const d = new Date(0);
    expect(nullableDateOf(d)).toBe(d);
  });
});
