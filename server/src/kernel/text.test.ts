import { describe, expect, it } from "vitest";
import { escapeHtml, isCleanText, isDisplayText } from "./text.js";

describe("isCleanText (well-formed UTF-16, no U+0000)", () => {
  it.each([
    ["empty", ""],
    ["ASCII", "client-123"],
    ["a BMP letter", "caf\u00e9"],
    ["a surrogate pair (U+1F600)", "\ud83d\ude00"],
    ["U+FFFD", "\ufffd"],
    ["other control characters", "a\tb\x7f\x01"],
  ])("accepts %s", (_what, value) => {
    expect(isCleanText(value)).toBe(true);
  });

  it.each([
    ["NUL alone", "\0"],
    ["NUL inside", "abc\0def"],
    ["a lone high surrogate", "a\ud800"],
    ["a lone low surrogate", "\udc00a"],
    ["a pair in the wrong order", "\ude00\ud83d"],
  ])("refuses %s", (_what, value) => {
    expect(isCleanText(value)).toBe(false);
  });
});

/** Every code point of a general category, as strings (surrogates left out), from this runtime's Unicode tables. */
function everyCodePointOf(category: RegExp): string[] {
  const found: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    if (category.test(s)) found.push(s);
  }
  return found;
}

describe("isDisplayText (text another party wrote, shown to a person)", () => {
  it.each([
    ["a payee name", "ACME GmbH"],
    ["Latin letters with diacritics", "Société Générale Zürich"],
    ["Hebrew letters (right-to-left, but no control)", "\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de"],
    ["Arabic letters and Arabic-Indic digits", "\u0634\u0631\u0643\u0629 \u0661\u0662"],
    ["a no-break space", "ACME\u00a0GmbH"],
    ["an emoji (a surrogate pair)", "Caf\u00e9 \u2615 \ud83d\ude00"],
  ])("accepts %s", (_what, value) => {
    expect(isDisplayText(value)).toBe(true);
  });

  it.each([
    ["a right-to-left override hiding a fake IBAN", "ACME \u202e20 4002 41RF"],
    ["a left-to-right embedding", "\u202aACME"],
    ["a pop directional formatting", "ACME\u202c"],
    ["a first-strong isolate", "\u2068ACME\u2069"],
    ["a right-to-left isolate", "\u2067ACME"],
    ["an Arabic letter mark", "ACME\u061c"],
    ["a zero-width space", "AC\u200bME"],
    ["a zero-width joiner (even in an emoji sequence)", "\ud83d\udc68\u200d\ud83d\udc69"],
    ["a right-to-left mark", "ACME\u200f"],
    ["a soft hyphen", "AC\u00adME"],
    ["a byte order mark", "\ufeffACME"],
    ["a word joiner", "AC\u2060ME"],
    ["a tag character (outside the BMP)", "ACME\udb40\udc01"],
    ["a line separator", "ACME\u2028FR14"],
    ["a paragraph separator", "ACME\u2029FR14"],
    ["a line feed", "ACME\nFR14"],
    ["a tab", "ACME\tGmbH"],
    ["a C1 control", "ACME\u0085"],
    ["NUL", "ACME\0"],
    ["a lone surrogate", "ACME\ud800"],
  ])("refuses %s", (_what, value) => {
    expect(isDisplayText(value)).toBe(false);
  });

  it("refuses every format character (\\p{Cf}) and every control character (\\p{Cc}), wherever it stands", () => {
    const hidden = [...everyCodePointOf(/\p{Cf}/u), ...everyCodePointOf(/\p{Cc}/u)];
    expect(hidden.length).toBeGreaterThan(200);
    for (const c of hidden) {
      for (const value of [c, `ACME${c}`, `${c}ACME`, `AC${c}ME`]) expect(isDisplayText(value), `U+${c.codePointAt(0)!.toString(16)}`).toBe(false);
    }
  });
});

describe("escapeHtml", () => {
  it("turns the five HTML-significant characters into references and leaves the rest", () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe("&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
    expect(escapeHtml("Bank AG – Zürich")).toBe("Bank AG – Zürich");
    expect(escapeHtml("&amp;")).toBe("&amp;amp;");
  });
});
