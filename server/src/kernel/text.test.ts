import { describe, expect, it } from "vitest";
import { escapeHtml, isCleanText } from "./text.js";

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

describe("escapeHtml", () => {
  it("turns the five HTML-significant characters into references and leaves the rest", () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe("&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
    expect(escapeHtml("Bank AG – Zürich")).toBe("Bank AG – Zürich");
    expect(escapeHtml("&amp;")).toBe("&amp;amp;");
  });
});
