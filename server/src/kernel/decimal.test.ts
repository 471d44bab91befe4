/**
 * Decimal-string money arithmetic: exact parse, equality, sums and formatting, never a float.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalEquals, formatDecimal, parseDecimal, sumDecimals, type Decimal } from "./decimal.js";

/** parseDecimal for a string the test knows to be valid. */
function d(text: string): Decimal {
  const value = parseDecimal(text);
  if (!value) throw new Error(`not a decimal: ${text}`);
  return value;
}

describe("parseDecimal", () => {
  it.each([
    ["0", 0n, 0],
    ["1250", 1250n, 0],
    ["1250.00", 125000n, 2],
    ["0.5", 5n, 1],
    ["007.10", 710n, 2],
    ["123456789012345678901234567890.123456789", 123456789012345678901234567890123456789n, 9],
  ])("reads %s exactly as units %s at scale %i", (text, units, scale) => {
    expect(parseDecimal(text)).toEqual({ units, scale });
  });

  it.each(["", ".5", "5.", "-1", "+1", "1e3", "1,000", " 1", "1 ", "1.2.3", "0x10", "١٢", "Infinity", "NaN", "1_000"])("refuses %j", (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });

  it("reads 64 KB of digits quickly (cost linear in the length)", () => {
    const started = performance.now();
    expect(parseDecimal("9".repeat(65_536))?.scale).toBe(0);
    expect(parseDecimal(`${"9".repeat(65_535)}x`)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("decimalEquals", () => {
  it("compares numerically: 1250.00 = 1250.0 = 1250 = 01250", () => {
    for (const other of ["1250.0", "1250", "01250", "1250.000000"]) expect(decimalEquals(d("1250.00"), d(other))).toBe(true);
  });

  it("tells apart amounts one minor unit, or one digit far down, apart", () => {
    expect(decimalEquals(d("1250.00"), d("1250.01"))).toBe(false);
    expect(decimalEquals(d("0.1"), d("0.10000000000000001"))).toBe(false);
    expect(decimalEquals(d("0"), d("0.000"))).toBe(true);
  });
});

describe("sumDecimals and formatDecimal", () => {
  it("adds exactly where floats do not (0.1 + 0.2 = 0.30)", () => {
    expect(formatDecimal(sumDecimals([d("0.1"), d("0.2")]), 2)).toBe("0.30");
    expect(formatDecimal(sumDecimals([d("1250"), d("0.5"), d("0.05")]), 2)).toBe("1250.55");
  });

  it("sums an empty list to zero", () => {
    expect(formatDecimal(sumDecimals([]), 2)).toBe("0.00");
    expect(formatDecimal(sumDecimals([]), 0)).toBe("0");
  });

  it.each([
    [{ units: 125n, scale: 1 }, 2, "12.50"],
    [{ units: 5n, scale: 0 }, 0, "5"],
    [{ units: 5n, scale: 3 }, 3, "0.005"],
    [{ units: 12500n, scale: 3 }, 2, "12.50"],
    [{ units: 1200n, scale: 2 }, 0, "12"],
    [{ units: 0n, scale: 4 }, 2, "0.00"],
  ])("formats %o with %i fraction digits as %s", (value, digits, text) => {
    expect(formatDecimal(value, digits)).toBe(text);
  });

  it("never rounds: a non-zero digit beyond the fraction digits is a RangeError", () => {
    expect(() => formatDecimal(d("12.505"), 2)).toThrow(RangeError);
    expect(() => formatDecimal(d("0.5"), 0)).toThrow(RangeError);
  });

  it("refuses a fraction digit count that is not a non-negative integer", () => {
    for (const digits of [-1, 1.5, Number.NaN]) expect(() => formatDecimal(d("1"), digits)).toThrow(RangeError);
  });

  it("sums equal the BigInt sum, and format then parse gives the number back (property)", () => {
    const amount = fc.record({ units: fc.bigInt({ min: 0n, max: 10n ** 20n }), scale: fc.integer({ min: 0, max: 6 }) });
    fc.assert(
      fc.property(fc.array(amount, { maxLength: 30 }), (values) => {
        const texts = values.map((v) => formatDecimal(v, v.scale));
        const scale = Math.max(0, ...values.map((v) => v.scale));
        const expected = values.reduce((sum, v) => sum + v.units * 10n ** BigInt(scale - v.scale), 0n);
        const sum = sumDecimals(texts.map(d));
        expect(sum).toEqual({ units: expected, scale });
        expect(decimalEquals(d(formatDecimal(sum, scale + 2)), sum)).toBe(true);
      }),
    );
  });

  it("never accepts a string with anything but digits and one inner point (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: fc.constantFrom(..."0123456789.-+e ,"), maxLength: 12 })), (text) => {
        const value = parseDecimal(text);
        if (value) expect(text).toMatch(/^[0-9]+(\.[0-9]+)?$/);
      }),
    );
  });
});
