/**
 * Token rows by row id, kept in this process for the gateway check and introspection, so
 * that a token's every use is not a database read.
 *
 * Exact, not time-bound: it is used only where this process makes every write to the
 * tokens (SQLite, one instance per database file), and every such write evicts.
 * - Revocation, rotation and family revocation (db/stores/tokens.ts) evict the rows they
 *   change, before and after their statement.
 * - A Prisma write that may change token rows (the admin API, cascades from users, apps
 *   and credentials) empties the cache (db/observed-adapter.ts).
 * - A row read from the database is stored only if nothing was evicted since the read
 *   began (the generation check), so a read racing a revocation cannot store the old row.
 * On PostgreSQL, where other instances revoke too, the cache is built with room for
 * nothing and every use reads the database.
 * The cache holds rows, not verdicts: the hash of the presented value, expiry, and the
 * status of the app, credential and products are checked on every use.
 */
export class TokenCache<Row extends { familyId: string | null }> {
  readonly #rows = new Map<string, Row>();
  #generation = 0;

  /** @param maxEntries - rows held at most; past it the oldest stored row goes (0: none held). */
  constructor(private readonly maxEntries: number) {}

  /** The cached row of `id`, if any. */
  get(id: string): Row | undefined {
    return this.#rows.get(id);
  }

  /** Changes at every eviction. Read it before reading a row from the database, and pass it to {@link set}. */
  get generation(): number {
    return this.#generation;
  }

  /** Stores the row `id` as read from the database, unless anything was evicted since `generation` was read. */
  set(id: string, row: Row, generation: number): void {
    if (generation !== this.#generation || this.maxEntries === 0) return;
    if (this.#rows.size >= this.maxEntries) this.#rows.delete(this.#rows.keys().next().value!);
    this.#rows.set(id, row);
  }

  /** Forgets row `id`. */
  evict(id: string): void {
    this.#generation++;
    this.#rows.delete(id);
  }

  /** Forgets every row of rotation family `familyId`. */
  evictFamily(familyId: string): void {
    this.#generation++;
    for (const [id, row] of this.#rows) if (row.familyId === familyId) this.#rows.delete(id);
  }

  /** Forgets every row. */
  clear(): void {
    this.#generation++;
    this.#rows.clear();
  }
}
