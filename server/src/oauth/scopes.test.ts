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

describe("parseScope (RFC 6749 §3.3 scope = scope-token *( SP scope-token ))", () => {
  it.each([
    ["an empty parameter", "", []],
    ["only spaces", "   ", []],
    ["one name", "aisp", ["aisp"]],
    ["leading and trailing spaces", " aisp pisp ", ["aisp", "pisp"]],
    ["names differing only in case (case-sensitive)", "AISP aisp", ["AISP", "aisp"]],
    ["the boundary characters %x21 %x23 %x5B %x5D %x7E", "! # [ ] ~", ["!", "#", "[", "]", "~"]],
    ["URL-like scope names", "https://api.bank.example/accounts:read", ["https://api.bank.example/accounts:read"]],
  ])("reads %s", (_what, scope, names) => {
    expect(parseScope(scope)).toEqual(names);
  });

  it.each([
    ["a TAB delimiter (only SP delimits)", "aisp\tpisp"],
    ["a newline", "aisp\npisp"],
    ["DEL %x7F", "ai\x7fsp"],
    ["a control character", "ai\x01sp"],
    ["a non-ASCII letter", "cons\u00e9nt"],
    ["NUL", "aisp\0"],
  ])("refuses %s with 400 invalid_scope", (_what, scope) => {
    let err: unknown;
    try {
      parseScope(scope);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidScope);
    expect((err as InvalidScope).error).toBe("invalid_scope");
    expect((err as InvalidScope).status).toBe(400);
  });
});

describe("grantScopes (RFC 6749 §3.3: the server may fully or partially ignore, here refuse)", () => {
  it("grants the requested scopes in request order, not the allowed order", () => {
    expect(grantScopes(["pisp", "aisp"], ["aisp", "piisp", "pisp"])).toEqual(["pisp", "aisp"]);
  });

  it("grants nothing when nothing is requested and nothing is allowed", () => {
    expect(grantScopes([], [])).toEqual([]);
  });

  it("compares case-sensitively", () => {
    expect(() => grantScopes(["AISP"], ["aisp"])).toThrow(InvalidScope);
  });

  it("names the first scope outside the allowed set (quotes sanitized to ' by RFC 6749 §5.2)", () => {
    expect(() => grantScopes(["aisp", "x1", "x2"], ["aisp"])).toThrow("scope 'x1' is not available");
  });

  it("returns a new array: the caller's allowed list is not shared", () => {
    const allowed = ["aisp"];
    const granted = grantScopes([], allowed);
    granted.push("admin");
    expect(allowed).toEqual(["aisp"]);
  });
});
