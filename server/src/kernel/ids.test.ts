/**
 * Unit tests of `newId()` (kernel/ids.ts): cuid-shaped (25 characters, "c" first, lowercase
 * base 36), the creation time encoded after the "c", ids sorting by creation time (across
 * milliseconds and within a burst), a random tail, and uniqueness over 10,000 ids.
 */
import { describe, expect, it } from "vitest";
import { newId } from "./ids.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("newId", () => {
  it("is 25 lowercase base-36 characters starting with c", () => {
    for (let i = 0; i < 100; i++) {
      const id = newId();
      expect(id).toHaveLength(25);
      expect(id.startsWith("c")).toBe(true);
      expect(id).toMatch(/^c[0-9a-z]{24}$/);
    }
  });

  it("carries its creation time (ms, base 36) in characters 2 to 9", () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    const at = parseInt(id.slice(1, 9), 36);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });

  it("sorts ids created later after earlier ones", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(newId());
      await sleep(3);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sorts a burst of ids (many per millisecond) in creation order", () => {
    const ids = Array.from({ length: 2000 }, () => newId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it("ends in 12 random hex digits, what keeps ids of other processes apart", () => {
    const suffixes = Array.from({ length: 1000 }, () => newId().slice(13));
    for (const s of suffixes) expect(s).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(suffixes).size).toBe(suffixes.length);
  });

  it("gives 10,000 distinct ids", () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    expect(new Set(ids).size).toBe(10_000);
  });
});
