/**
 * A per-process cache of catalog lookups (clients by consumer key or credential id, APIs
 * by name): the rows every token request and gateway call needs, which change only
 * through the admin API.
 *
 * Freshness:
 * - In this process, every write Prisma makes to a catalog table (apps, credentials, API
 *   products, APIs, developers, organizations, callback URLs) empties the cache (see
 *   db/database.ts), so admin changes and revocations take effect on the next request.
 * - A change made by another instance is seen here once the entry's time to live has
 *   passed (`CATALOG_CACHE_TTL_MS`, default 1000 ms), or at once when the instances share
 *   Redis, which carries each instance's invalidations to the others (cache-events.ts).
 * Tokens are not held here (db/token-cache.ts caches token rows, exactly).
 */
export class CatalogCache {
  readonly #entries = new Map<string, { value: Promise<unknown>; until: number }>();
  readonly #listeners: (() => void)[] = [];

  /**
   * @param ttlMs - how long an entry is used, milliseconds (0: no caching).
   * @param maxEntries - bound on the number of entries; past it the cache starts afresh.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The cached value of `key`, else the value `load` resolves to (cached, an undefined
   * result too). Concurrent misses of one key share one load.
   */
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.peek<T>(key);
    if (hit) return hit;
    if (this.ttlMs === 0) return load();
    const now = Date.now();
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    const value = load();
    const entry = { value, until: now + this.ttlMs };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /** The cached value of `key` while its entry is fresh, without loading it; undefined when there is none. */
  peek<T>(key: string): Promise<T> | undefined {
    const hit = this.#entries.get(key);
    return hit && hit.until > Date.now() ? (hit.value as Promise<T>) : undefined;
  }

  /** Forgets every entry because a catalog table was written here; tells the listeners. */
  invalidate(): void {
    this.#entries.clear();
    for (const listener of this.#listeners) listener();
  }

  /** Forgets every entry because another instance wrote a catalog table (no listener is told). */
  clear(): void {
    this.#entries.clear();
  }

  /** Calls `listener` after each {@link invalidate}. */
  onInvalidate(listener: () => void): void {
    this.#listeners.push(listener);
  }
}
