import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStrictJson, StrictJsonError } from "./strict-json.js";

describe("parseStrictJson", () => {
  it("parses JSON as JSON.parse does when no object names a member twice", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseStrictJson(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it.each([
    ['{"amount":"1","amount":"9999"}', "amount"],
    ['{"a":{"iban":"DE1","iban":"GB2"}}', "iban"],
    ['{"payments":[{"x":1},{"y":2,"y":3}]}', "y"],
    ['{"a":"1","\\u0061":"2"}', "a"],
    ['{"k\\"":1, "k\\"" : 2}', 'k"'],
  ])("refuses %s, naming %s", (text, name) => {
    expect(() => parseStrictJson(text)).toThrow(new StrictJsonError(`the body names the member '${name}' twice in one object (RFC 8259 §4)`));
  });

  it("accepts one name in sibling objects and strings that look like names", () => {
    expect(parseStrictJson('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseStrictJson('{"a":"a","b":["a","a"],"c":{"a":{"a":1}}}')).toEqual({ a: "a", b: ["a", "a"], c: { a: { a: 1 } } });
  });

  it("refuses text that is not JSON", () => {
    expect(() => parseStrictJson("{")).toThrow("the body is not JSON");
  });
});
