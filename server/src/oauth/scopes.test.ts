import { describe, expect, it } from "vitest";
import { InvalidScope } from "../kernel/errors.js";
import { grantScopes, parseScope } from "./scopes.js";

describe("parseScope", () => {
  it("splits on spaces, drops empties and duplicates, keeps order", () => {
    expect(parseScope("pisp  aisp pisp")).toEqual(["pisp", "aisp"]);
    expect(parseScope(undefined)).toEqual([]);
  });
  it("rejects characters outside RFC 6749 §3.3", () => {
    expect(() => parseScope('ai"sp')).toThrow(InvalidScope);
    expect(() => parseScope("a\\b")).toThrow(InvalidScope);
  });
});

describe("grantScopes", () => {
  it("grants everything allowed when nothing is requested", () => {
    expect(grantScopes([], ["aisp", "pisp"])).toEqual(["aisp", "pisp"]);
  });
  it("grants exactly the requested subset", () => {
    expect(grantScopes(["pisp"], ["aisp", "pisp"])).toEqual(["pisp"]);
  });
  it("refuses a scope outside the allowed set", () => {
    expect(() => grantScopes(["admin"], ["aisp"])).toThrow(/admin/);
  });
});
