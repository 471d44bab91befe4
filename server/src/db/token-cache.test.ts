/**
 * Unit tests of the token cache (db/token-cache.ts): rows are stored only when nothing was
 * evicted since their read began, evictions by id, by family and in full, the bound, the
 * listeners of local evictions and the others' evictions applied, suspension, and the
 * longest age of a row.
 */
import { describe, expect, it, vi } from "vitest";
import { TokenCache, type Eviction } from "./token-cache.js";

type Row = { familyId: string | null; status: string };
const row = (status: string, familyId: string | null = null): Row => ({ familyId, status });

describe("TokenCache", () => {
  it("holds a row stored with the current generation", () => {
    const cache = new TokenCache<Row>(10);
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toEqual(row("approved"));
  });

  it("does not store a row whose read began before an eviction (a read racing a revocation)", () => {
    const cache = new TokenCache<Row>(10);
    const generation = cache.generation; // the read begins
    cache.evict("a"); // a revocation of a, or of any other token, happens meanwhile
    cache.set("a", row("approved"), generation); // the read ends with the row as it was
    expect(cache.get("a")).toBeUndefined();
    cache.set("a", row("revoked"), cache.generation);
    expect(cache.get("a")).toEqual(row("revoked"));
  });

  it.each([
    ["evict", (c: TokenCache<Row>) => c.evict("other")],
    ["evictFamily", (c: TokenCache<Row>) => c.evictFamily("f")],
    ["clear", (c: TokenCache<Row>) => c.clear()],
  ])("%s changes the generation", (_name, evict) => {
    const cache = new TokenCache<Row>(10);
    const generation = cache.generation;
    evict(cache);
    expect(cache.generation).not.toBe(generation);
  });

  it("evicts one row by id", () => {
    const cache = new TokenCache<Row>(10);
    cache.set("a", row("approved"), cache.generation);
    cache.set("b", row("approved"), cache.generation);
    cache.evict("a");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toEqual(row("approved"));
  });

  it("evicts every row of a rotation family and only those", () => {
    const cache = new TokenCache<Row>(10);
    cache.set("a", row("approved", "f"), cache.generation);
    cache.set("b", row("approved", "f"), cache.generation);
    cache.set("c", row("approved", "g"), cache.generation);
    cache.set("d", row("approved"), cache.generation);
    cache.evictFamily("f");
    expect([cache.get("a"), cache.get("b")]).toEqual([undefined, undefined]);
    expect(cache.get("c")).toBeDefined();
    expect(cache.get("d")).toBeDefined();
  });

  it("clear forgets every row", () => {
    const cache = new TokenCache<Row>(10);
    cache.set("a", row("approved"), cache.generation);
    cache.clear();
    expect(cache.get("a")).toBeUndefined();
  });

  it("holds at most maxEntries rows, dropping the oldest stored first", () => {
    const cache = new TokenCache<Row>(2);
    cache.set("a", row("1"), cache.generation);
    cache.set("b", row("2"), cache.generation);
    cache.set("c", row("3"), cache.generation);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toEqual(row("2"));
    expect(cache.get("c")).toEqual(row("3"));
  });

  it("holds nothing when built with room for nothing", () => {
    const cache = new TokenCache<Row>(0);
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toBeUndefined();
  });

  it("tells the listeners of its own evictions, not of evictions applied from other instances", () => {
    const cache = new TokenCache<Row>(10);
    const told: Eviction[] = [];
    cache.onEvict((e) => told.push(e));
    cache.evict("a");
    cache.evictFamily("f");
    cache.clear();
    cache.apply({ id: "b" });
    expect(told).toEqual([{ id: "a" }, { familyId: "f" }, { all: true }]);
  });

  it.each<[string, Eviction, string[]]>([
    ["a row", { id: "a" }, ["b", "c"]],
    ["a family", { familyId: "f" }, ["c"]],
    ["every row", { all: true }, []],
  ])("applies another instance's eviction of %s and changes the generation", (_name, eviction, left) => {
    const cache = new TokenCache<Row>(10);
    cache.set("a", row("approved", "f"), cache.generation);
    cache.set("b", row("approved", "f"), cache.generation);
    cache.set("c", row("approved", "g"), cache.generation);
    const generation = cache.generation;
    cache.apply(eviction);
    expect(cache.generation).not.toBe(generation);
    expect(["a", "b", "c"].filter((id) => cache.get(id))).toEqual(left);
  });

  it("stores nothing while suspended, forgets everything when suspended, and after resume stores no read begun before it", () => {
    const cache = new TokenCache<Row>(10, { suspended: true });
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toBeUndefined();
    const before = cache.generation; // a read begins while evictions may be missed
    cache.resume();
    cache.set("a", row("approved"), before);
    expect(cache.get("a")).toBeUndefined();
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toEqual(row("approved"));
    cache.suspend();
    expect(cache.get("a")).toBeUndefined();
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toBeUndefined();
  });

  it("uses a row at most maxAgeMs after it was stored", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const cache = new TokenCache<Row>(10, { maxAgeMs: 500 });
      cache.set("a", row("approved"), cache.generation);
      vi.setSystemTime(1_000_499);
      expect(cache.get("a")).toEqual(row("approved"));
      vi.setSystemTime(1_000_500);
      expect(cache.get("a")).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
