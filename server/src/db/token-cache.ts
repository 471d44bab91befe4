/**
 * Token rows by row id, kept in this process for the gateway check and introspection, so
 * that a token's every use is not a database read.
 *
 * Exact, not time-bound: every committed change to a token row evicts it, here and, over
 * Redis, in every other instance (db/cache-events.ts).
 * - Revocation, rotation and family revocation (db/stores/tokens.ts) evict the rows they
 *   change once their statement has committed.
 * - A Prisma write that may change token rows (the admin API, cascades from users, apps
 *   and credentials) empties the cache, and again when its transaction commits
 *   (db/observed-adapter.ts).
 * - A row read from the database is stored only if nothing was evicted since the read
 *   began (the generation check). A read that saw a row as it was before a change began
 *   before the change committed, so before the eviction that follows the commit: it cannot
 *   store the old row after that eviction.
 * On SQLite this process makes every write, so the cache is exact by itself. On PostgreSQL
 * other instances write too: the cache starts suspended (it stores nothing) and serves rows
 * only while the Redis subscription that carries the others' evictions is up; without
 * Redis it never does. A row is also used at most `maxAgeMs` after its read, a bound that
 * holds even if an eviction never arrives (a network partition ioredis has not noticed yet).
 * The cache holds rows, not verdicts: the hash of the presented value, expiry, and the
 * status of the app, credential and products are checked on every use.
 */

/** What an eviction forgets: one row, a rotation family's rows, or every row. */
export type Eviction = { id: string } | { familyId: string } | { all: true };

export interface TokenCacheOptions {
  /** Longest time a row is used after it was read, milliseconds (default: no limit; 0: no row is stored). */
  maxAgeMs?: number;
  /** Start suspended: store nothing until {@link TokenCache.resume} (default false). */
  suspended?: boolean;
}

export class TokenCache<Row extends { familyId: string | null }> {
  readonly #rows = new Map<string, { row: Row; until: number }>();
  readonly #listeners: ((eviction: Eviction) => void)[] = [];
  readonly #maxAgeMs: number;
  #suspended: boolean;
  #generation = 0;

  /** @param maxEntries - rows held at most; past it the oldest stored row goes (0: none held). */
  constructor(
    private readonly maxEntries: number,
    options: TokenCacheOptions = {},
  ) {
    this.#maxAgeMs = options.maxAgeMs ?? Infinity;
    this.#suspended = options.suspended ?? false;
  }

  /** The cached row of `id`, if any, read less than `maxAgeMs` ago. */
  get(id: string): Row | undefined {
    const entry = this.#rows.get(id);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.row;
    this.#rows.delete(id);
    return undefined;
  }

  /** Changes at every eviction. Read it before reading a row from the database, and pass it to {@link set}. */
  get generation(): number {
    return this.#generation;
  }

  /** Stores the row `id` as read from the database, unless anything was evicted since `generation` was read, or the cache is suspended. */
  set(id: string, row: Row, generation: number): void {
    if (generation !== this.#generation || this.#suspended || this.maxEntries === 0 || this.#maxAgeMs === 0) return;
    if (this.#rows.size >= this.maxEntries) this.#rows.delete(this.#rows.keys().next().value!);
    this.#rows.set(id, { row, until: Date.now() + this.#maxAgeMs });
  }

  /** Forgets row `id`, and tells the listeners. */
  evict(id: string): void {
    this.#evict({ id });
  }

  /** Forgets every row of rotation family `familyId`, and tells the listeners. */
  evictFamily(familyId: string): void {
    this.#evict({ familyId });
  }

  /** Forgets every row, and tells the listeners. */
  clear(): void {
    this.#evict({ all: true });
  }

  /** Applies an eviction made by another instance (no listener is told). */
  apply(eviction: Eviction): void {
    this.#generation++;
    if ("id" in eviction) this.#rows.delete(eviction.id);
    else if ("familyId" in eviction) {
      for (const [id, { row }] of this.#rows) if (row.familyId === eviction.familyId) this.#rows.delete(id);
    } else this.#rows.clear();
  }

  /** Calls `listener` with each eviction made in this process. */
  onEvict(listener: (eviction: Eviction) => void): void {
    this.#listeners.push(listener);
  }

  /** Forgets every row and stores none until {@link resume}: the others' evictions may not reach this process. */
  suspend(): void {
    this.#suspended = true;
    this.apply({ all: true });
  }

  /**
   * Stores rows again: from now on every eviction reaches this process. A read begun
   * before is not stored (an eviction it raced may have been missed).
   */
  resume(): void {
    this.#suspended = false;
    this.#generation++;
  }

  #evict(eviction: Eviction): void {
    this.apply(eviction);
    for (const listener of this.#listeners) listener(eviction);
  }
}
