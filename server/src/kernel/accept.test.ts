import { describe, expect, it } from "vitest";
import { acceptQuality, parseAccept } from "./accept.js";

describe("Accept (RFC 9110 §12.5.1)", () => {
  it("reads media ranges in order, lowercase, q 1 unless given (§12.4.2), other parameters dropped", () => {
    expect(parseAccept("Application/JSON;charset=utf-8, text/*; q=0.5 ,*/*;q=0")).toEqual([
      { type: "application", subtype: "json", q: 1 },
      { type: "text", subtype: "*", q: 0.5 },
      { type: "*", subtype: "*", q: 0 },
    ]);
  });

  it("leaves out malformed elements: no subtype, */json, a q that is no qvalue", () => {
    expect(parseAccept("application, */json, a/b;q=1.5, a/c;q=0.1234, a/d;q=x, , a/e;q=0.25")).toEqual([{ type: "a", subtype: "e", q: 0.25 }]);
  });

  it("gives a media type the quality of its most specific matching range, 0 when none matches", () => {
    const ranges = parseAccept("*/*;q=0.1, application/*;q=0.5, application/json;q=0.9");
    expect(acceptQuality(ranges, "application/json")).toEqual({ q: 0.9, named: true });
    expect(acceptQuality(ranges, "application/jwt")).toEqual({ q: 0.5, named: false });
    expect(acceptQuality(ranges, "text/html")).toEqual({ q: 0.1, named: false });
    expect(acceptQuality(parseAccept("text/html"), "application/json")).toEqual({ q: 0, named: false });
  });
});
