/**
 * Unit tests of db/catalog-cache.ts: hits within the time to live, shared concurrent
 * misses, peek, expiry, invalidate(), rejected loads not cached (and not evicting a newer entry),
 * ttlMs 0 (no caching) and the maxEntries bound. Date.now is faked (vi.useFakeTimers on
 * Date only), so expiry is exact and nothing depends on real time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CatalogCache } from "./catalog-cache.js";

const START = new Date("2030-01-01T00:00:00Z").getTime();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(START);
});

afterEach(() => {
  vi.useRealTimers();
});

/** A load that resolves to `value` and counts its calls. */
const loader = <T>(value: T) => vi.fn(async () => value);

/** A load whose result the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("CatalogCache", () => {
  it("returns the cached value within the time to live without loading again", async () => {
    const cache = new CatalogCache(1000);
    const load = loader({ name: "a" });
    const first = await cache.get("k", load);
    vi.setSystemTime(START + 999);
    const second = await cache.get("k", load);
    expect(second).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("caches an undefined result too", async () => {
    const cache = new CatalogCache(1000);
    const load = loader(undefined);
    expect(await cache.get("missing", load)).toBeUndefined();
    expect(await cache.get("missing", load)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("keeps keys apart", async () => {
    const cache = new CatalogCache(1000);
    expect(await cache.get("a", loader("A"))).toBe("A");
    expect(await cache.get("b", loader("B"))).toBe("B");
    const again = loader("other");
    expect(await cache.get("a", again)).toBe("A");
    expect(again).not.toHaveBeenCalled();
  });

  it("peek answers a fresh entry without loading, and nothing for a missing or expired one", async () => {
    const cache = new CatalogCache(1000);
    expect(cache.peek("k")).toBeUndefined();
    await cache.get("k", loader("v"));
    expect(await cache.peek("k")).toBe("v");
    vi.setSystemTime(START + 1000);
    expect(cache.peek("k")).toBeUndefined();
    expect(new CatalogCache(0).peek("k")).toBeUndefined();
  });

  it("shares one load between concurrent misses of a key", async () => {
    const cache = new CatalogCache(1000);
    const pending = deferred<string>();
    const load = vi.fn(() => pending.promise);
    const a = cache.get("k", load);
    const b = cache.get("k", load);
    expect(load).toHaveBeenCalledTimes(1);
    pending.resolve("v");
    expect(await Promise.all([a, b])).toEqual(["v", "v"]);
  });

  it("loads again once ttlMs has passed", async () => {
    const cache = new CatalogCache(1000);
    let version = 0;
    const load = vi.fn(async () => ++version);
    expect(await cache.get("k", load)).toBe(1);
    vi.setSystemTime(START + 999);
    expect(await cache.get("k", load)).toBe(1);
    vi.setSystemTime(START + 1000);
    expect(await cache.get("k", load)).toBe(2);
    expect(load).toHaveBeenCalledTimes(2);
    // The reloaded entry lives ttlMs from its own load.
    vi.setSystemTime(START + 1999);
    expect(await cache.get("k", load)).toBe(2);
    vi.setSystemTime(START + 2000);
    expect(await cache.get("k", load)).toBe(3);
  });

  it("loads again after invalidate()", async () => {
    const cache = new CatalogCache(60_000);
    let version = 0;
    const load = vi.fn(async () => ++version);
    expect(await cache.get("a", load)).toBe(1);
    expect(await cache.get("b", load)).toBe(2);
    cache.invalidate();
    expect(await cache.get("a", load)).toBe(3);
    expect(await cache.get("b", load)).toBe(4);
    expect(load).toHaveBeenCalledTimes(4);
  });

  it("does not cache a rejected load; concurrent callers share the rejection", async () => {
    const cache = new CatalogCache(60_000);
    const pending = deferred<string>();
    const failing = vi.fn(() => pending.promise);
    const a = cache.get("k", failing);
    const b = cache.get("k", failing);
    const err = new Error("database down");
    pending.reject(err);
    await expect(a).rejects.toBe(err);
    await expect(b).rejects.toBe(err);
    expect(failing).toHaveBeenCalledTimes(1);

    const ok = loader("v");
    expect(await cache.get("k", ok)).toBe("v");
    expect(ok).toHaveBeenCalledTimes(1);
    expect(await cache.get("k", ok)).toBe("v");
    expect(ok).toHaveBeenCalledTimes(1);
  });

  it("does not drop a newer entry when an older, invalidated load rejects", async () => {
    const cache = new CatalogCache(60_000);
    const old = deferred<string>();
    const stale = cache.get("k", () => old.promise);
    cache.invalidate();
    expect(await cache.get("k", loader("fresh"))).toBe("fresh");
    old.reject(new Error("late failure"));
    await expect(stale).rejects.toThrow("late failure");
    const again = loader("reloaded");
    expect(await cache.get("k", again)).toBe("fresh");
    expect(again).not.toHaveBeenCalled();
  });

  it("does not cache at all with ttlMs 0", async () => {
    const cache = new CatalogCache(0);
    let version = 0;
    const load = vi.fn(async () => ++version);
    expect(await cache.get("k", load)).toBe(1);
    expect(await cache.get("k", load)).toBe(2);
    // Not even concurrent misses share a load.
    expect(await Promise.all([cache.get("k", load), cache.get("k", load)])).toEqual([3, 4]);
    expect(load).toHaveBeenCalledTimes(4);
  });

  it("starts afresh when a new key would pass maxEntries", async () => {
    const cache = new CatalogCache(60_000, 2);
    const loads = { a: loader("A"), b: loader("B"), c: loader("C") };
    await cache.get("a", loads.a);
    await cache.get("b", loads.b);
    // Full: a hit neither loads nor clears.
    expect(await cache.get("a", loads.a)).toBe("A");
    expect(await cache.get("b", loads.b)).toBe("B");
    expect(loads.a).toHaveBeenCalledTimes(1);
    expect(loads.b).toHaveBeenCalledTimes(1);
    // A third key empties the cache, then is cached alone.
    expect(await cache.get("c", loads.c)).toBe("C");
    expect(await cache.get("c", loads.c)).toBe("C");
    expect(loads.c).toHaveBeenCalledTimes(1);
    expect(await cache.get("a", loads.a)).toBe("A");
    expect(loads.a).toHaveBeenCalledTimes(2);
    expect(await cache.get("b", loads.b)).toBe("B");
    expect(loads.b).toHaveBeenCalledTimes(2);
  });
});
