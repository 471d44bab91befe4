/**
 * A tally: counts occurrences per key in memory and hands the counts to a writer every few
 * seconds and on close, so that a busy path (each refusal, each gateway call) costs a map
 * update, not a database write. Used by the refusal audit (http/refusal-audit.ts) and the
 * gateway traffic (http/traffic.ts).
 */

/** One key's count since the last flush, with what its first occurrence carried. */
export interface TallyEntry<T> {
  key: string;
  first: T;
  count: number;
}

/** Distinct keys held before a flush is started early (callers bound their keys anyway). */
const MAX_PENDING = 10_000;

/** Counts per key and writes the counts through `write`, periodically and on {@link close}. */
export class Tally<T> {
  readonly #write: (entries: TallyEntry<T>[]) => Promise<unknown>;
  readonly #onError: (err: unknown) => void;
  #pending = new Map<string, TallyEntry<T>>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  /**
   * @param write - stores one flush's entries; a rejection drops them (the database is failing) and is told to `onError`.
   * @param flushSeconds - seconds between flushes.
   */
  constructor(write: (entries: TallyEntry<T>[]) => Promise<unknown>, flushSeconds: number, onError: (err: unknown) => void) {
    this.#write = write;
    this.#onError = onError;
    this.#timer = setInterval(() => void this.flush(), flushSeconds * 1000);
    this.#timer.unref();
  }

  /**
   * Counts one occurrence of `key`.
   * @param first - kept when it is the key's first occurrence since the last flush; called only then.
   * @param again - told the kept value on every later occurrence (to gather from each, e.g. a few ids).
   */
  add(key: string, first: () => T, again?: (kept: T) => void): void {
    const pending = this.#pending.get(key);
    if (pending) {
      pending.count++;
      again?.(pending.first);
    } else {
      this.#pending.set(key, { key, first: first(), count: 1 });
      if (this.#pending.size >= MAX_PENDING) void this.flush();
    }
  }

  /** Writes every count held. Resolves when written (or failed, see `onError`); never rejects. */
  flush(): Promise<void> {
    const batch = this.#pending;
    if (batch.size === 0) return this.#flushing;
    this.#pending = new Map();
    const write = this.#write([...batch.values()]).then(
      () => {},
      (err: unknown) => this.#onError(err),
    );
    this.#flushing = this.#flushing.then(() => write);
    return this.#flushing;
  }

  /** Stops the schedule and flushes what is held (on shutdown, before the database closes). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
