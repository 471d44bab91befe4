import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashMatches, hashSecret, newSecret } from "./secrets.js";

/** FIPS 180-4 / RFC 6234 §8.5 SHA-256 test vectors. */
const SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const SHA256_EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("hashSecret (SHA-256 hex, FIPS 180-4)", () => {
  it('matches the published vectors for "abc" and ""', () => {
    expect(hashSecret("abc")).toBe(SHA256_ABC);
    expect(hashSecret("")).toBe(SHA256_EMPTY);
  });

  it("hashes the UTF-8 bytes of the secret (U+00E9 is C3 A9)", () => {
    expect(hashSecret("\u00e9")).toBe(createHash("sha256").update(Buffer.from([0xc3, 0xa9])).digest("hex"));
    expect(hashSecret("\u00e9")).not.toBe(createHash("sha256").update(Buffer.from([0xe9])).digest("hex"));
  });
});

describe("hashMatches (constant-time comparison of two SHA-256 hex digests)", () => {
  it("is true for the same digest", () => {
    expect(hashMatches(hashSecret("abc"), SHA256_ABC)).toBe(true);
  });

  it.each([
    ["another digest", SHA256_EMPTY, SHA256_ABC],
    ["a digest differing in its last digit", SHA256_ABC.slice(0, 63) + "e", SHA256_ABC],
    ["a truncated presented digest (length mismatch)", SHA256_ABC.slice(0, 62), SHA256_ABC],
    ["a truncated stored digest", SHA256_ABC, SHA256_ABC.slice(0, 62)],
    ["two empty strings", "", ""],
    ["two equal short hex strings (not SHA-256 digests)", "abcd", "abcd"],
    ["a digest with a trailing hex digit (Buffer.from would drop it)", SHA256_ABC + "0", SHA256_ABC],
    ["a digest with trailing non-hex characters", SHA256_ABC + "zz", SHA256_ABC],
    ["the digest in uppercase (hashSecret writes lowercase)", SHA256_ABC.toUpperCase(), SHA256_ABC],
    ["two equal non-hex strings of 64 characters", "z".repeat(64), "z".repeat(64)],
    ["a non-hex presented value", "z".repeat(64), SHA256_ABC],
    ["two equal SHA-512 sized digests", "ab".repeat(64), "ab".repeat(64)],
  ])("is false for %s", (_what, presented, stored) => {
    expect(hashMatches(presented, stored)).toBe(false);
  });
});

describe("newSecret (decisions.md: opaque, at least 256 bits, URL-safe)", () => {
  it("is 43 base64url characters (RFC 4648 §5) decoding to 32 bytes", () => {
    const s = newSecret();
    expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(s, "base64url")).toHaveLength(32);
  });

  it("never repeats, also across refills of its random pool (128 secrets a pool)", () => {
    const secrets = Array.from({ length: 400 }, newSecret);
    expect(new Set(secrets).size).toBe(400);
  });
});
