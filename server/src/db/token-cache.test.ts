/**
 * Unit tests of the token cache (db/token-cache.ts): rows are stored only when nothing was
 * evicted since their read began, evictions by id, by family and in full, and the bound.
 */
import { describe, expect, it } from "vitest";
import { TokenCache } from "./token-cache.js";

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

  it("holds nothing when built with room for nothing (PostgreSQL)", () => {
    const cache = new TokenCache<Row>(0);
    cache.set("a", row("approved"), cache.generation);
    expect(cache.get("a")).toBeUndefined();
  });
});
