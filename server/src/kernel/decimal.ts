/**
 * Exact arithmetic on money amounts written as decimal strings ("1250.00"), with BigInt:
 * an amount is never a float, so sums and comparisons are exact whatever the digits.
 */

/** A non-negative decimal number `units / 10^scale`: "12.50" is `{ units: 1250n, scale: 2 }`. */
export interface Decimal {
  readonly units: bigint;
  /** Fraction digits as written, trailing zeros included. */
  readonly scale: number;
}

/** Unsigned plain decimal notation: digits, then optionally a point and digits. */
const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Reads an unsigned decimal string: digits, optionally followed by "." and digits ("0.5",
 * "1250", "007.10"); no sign, exponent, spaces, grouping, or bare ".5" / "5.". The scale is
 * the number of fraction digits written ("1.50" has scale 2). Cost linear in the length.
 * @returns undefined when `text` is not such a string.
 */
export function parseDecimal(text: string): Decimal | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? "";
  return { units: BigInt(match[1]! + fraction), scale: fraction.length };
}

/** `value` with `scale` fraction digits (`scale` ≥ value.scale), so values of one scale compare and add as integers. */
function rescaled(value: Decimal, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

/** Numeric equality: "1250.00", "1250.0" and "1250" are equal. */
export function decimalEquals(a: Decimal, b: Decimal): boolean {
  const scale = Math.max(a.scale, b.scale);
  return rescaled(a, scale) === rescaled(b, scale);
}

/** The exact sum of `values`, at the largest scale among them (0 for an empty list). */
export function sumDecimals(values: readonly Decimal[]): Decimal {
  const scale = Math.max(0, ...values.map((v) => v.scale));
  return { units: values.reduce((sum, v) => sum + rescaled(v, scale), 0n), scale };
}

/**
 * `value` as a decimal string with exactly `fractionDigits` fraction digits (no point when
 * 0): `formatDecimal({units: 125n, scale: 1}, 2)` is "12.50". Digits beyond `fractionDigits`
 * may only be zeros: an amount is never rounded.
 * @throws RangeError when `fractionDigits` is not a non-negative integer, or `value` would lose a non-zero digit.
 */
export function formatDecimal(value: Decimal, fractionDigits: number): string {
  if (!Number.isSafeInteger(fractionDigits) || fractionDigits < 0) throw new RangeError(`fraction digits must be a non-negative integer, not ${fractionDigits}`);
  let units = value.units;
  if (value.scale > fractionDigits) {
    const divisor = 10n ** BigInt(value.scale - fractionDigits);
    if (units % divisor !== 0n) throw new RangeError(`the amount has more than ${fractionDigits} fraction digits`);
    units /= divisor;
  } else {
    units *= 10n ** BigInt(fractionDigits - value.scale);
  }
  const digits = units.toString().padStart(fractionDigits + 1, "0");
  const whole = digits.slice(0, digits.length - fractionDigits);
  return fractionDigits > 0 ? `${whole}.${digits.slice(whole.length)}` : whole;
}
