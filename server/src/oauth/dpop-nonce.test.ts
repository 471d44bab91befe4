import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dpopNonces } from "./dpop-nonce.js";

const SECRET = "a-secret-shared-by-every-instance";
/** The start of a 300-second window. */
const WINDOW_START = new Date(Math.floor(Date.UTC(2026, 2, 1, 12) / 300_000) * 300_000);
const at = (seconds: number) => new Date(WINDOW_START.getTime() + seconds * 1000);

describe("dpopNonces (RFC 9449 §8)", () => {
  const nonces = dpopNonces(SECRET, 300);

  it("is base64url(HMAC-SHA256(secret, window)) cut to 22 characters", () => {
    const window = WINDOW_START.getTime() / 1000 / 300;
    const expected = createHmac("sha256", SECRET).update(String(window)).digest("base64url").slice(0, 22);
    expect(nonces.current(WINDOW_START)).toBe(expected);
    expect(expected).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("is the same through a window and changes with the next", () => {
    expect(nonces.current(at(299.999))).toBe(nonces.current(WINDOW_START));
    expect(nonces.current(at(300))).not.toBe(nonces.current(WINDOW_START));
  });

  it("accepts the current window's nonce", () => {
    expect(nonces.accepts(nonces.current(WINDOW_START), at(10))).toBe(true);
  });

  it("accepts the previous window's nonce, to the end of the next window", () => {
    const nonce = nonces.current(WINDOW_START);
    expect(nonces.accepts(nonce, at(300))).toBe(true);
    expect(nonces.accepts(nonce, at(599.999))).toBe(true);
  });

  it("refuses a nonce two windows old", () => {
    expect(nonces.accepts(nonces.current(WINDOW_START), at(600))).toBe(false);
  });

  it("refuses the next window's nonce", () => {
    expect(nonces.accepts(nonces.current(at(300)), WINDOW_START)).toBe(false);
  });

  it("is stateless: another instance with the same secret issues and accepts the same nonces", () => {
    const other = dpopNonces(SECRET, 300);
    expect(other.current(WINDOW_START)).toBe(nonces.current(WINDOW_START));
    expect(other.accepts(nonces.current(WINDOW_START), at(1))).toBe(true);
  });

  it("refuses the nonces of another secret", () => {
    expect(nonces.accepts(dpopNonces("another-secret", 300).current(WINDOW_START), WINDOW_START)).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["one character short", () => nonces.current(WINDOW_START).slice(0, 21)],
    ["one character long", () => nonces.current(WINDOW_START) + "A"],
    ["22 non-ASCII characters (more than 22 bytes)", "é".repeat(22)],
    ["11 two-byte characters (22 bytes)", "é".repeat(11)],
  ])("refuses a nonce that is %s, without throwing", (_what, nonce) => {
    expect(nonces.accepts(typeof nonce === "function" ? nonce() : nonce, WINDOW_START)).toBe(false);
  });

  it("takes the window length in seconds", () => {
    const short = dpopNonces(SECRET, 60);
    expect(short.accepts(short.current(WINDOW_START), at(119))).toBe(true);
    expect(short.accepts(short.current(WINDOW_START), at(120))).toBe(false);
  });

  it.each([
    ["an empty secret", "", 300],
    ["a zero window", SECRET, 0],
    ["a fractional window", SECRET, 1.5],
  ])("refuses %s", (_what, secret, window) => {
    expect(() => dpopNonces(secret, window)).toThrow();
  });
});
