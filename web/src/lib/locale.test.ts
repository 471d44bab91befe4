import { describe, expect, it } from "vitest";
import { pageLocale } from "./locale";

describe("pageLocale: the request's ui_locales before the browser's language", () => {
  it("takes the first tag the browser can format", () => {
    expect(pageLocale(["de-DE", "en"], "en-GB")).toBe("de-DE");
    expect(pageLocale(["x-klingon", "fr"], "en-GB")).toBe("fr");
  });

  it("falls back to the browser's language when none is usable or none was sent", () => {
    expect(pageLocale([], "en-GB")).toBe("en-GB");
    expect(pageLocale(["--", "x-klingon"], "en-GB")).toBe("en-GB");
  });
});
