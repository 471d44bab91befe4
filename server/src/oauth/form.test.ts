/**
 * readForm: application/x-www-form-urlencoded bodies of the OAuth endpoints (RFC 6749 §3.1,
 * §3.2, Appendix B), as body-parser's text parser leaves them on req.body.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../kernel/errors.js";
import { readForm } from "./form.js";

const req = (body: unknown) => ({ body }) as IncomingMessage & { body?: unknown };

function refusal(body: unknown): InvalidRequest {
  try {
    readForm(req(body));
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequest);
    return err as InvalidRequest;
  }
  return expect.unreachable();
}

describe("readForm: decoding (RFC 6749 Appendix B)", () => {
  it("reads each parameter, + as space and percent escapes as UTF-8", () => {
    expect(readForm(req("grant_type=client_credentials&scope=aisp+pisp&state=a%2Bb%26c%C3%A9"))).toEqual({
      grant_type: "client_credentials",
      scope: "aisp pisp",
      state: "a+b&c\u00e9",
    });
  });

  it("reads an empty body as no parameters", () => {
    expect(readForm(req(""))).toEqual({});
  });

  it("treats names as case-sensitive: Scope and scope are two parameters", () => {
    expect(readForm(req("Scope=a&scope=b"))).toEqual({ Scope: "a", scope: "b" });
  });

  it("keeps __proto__ and constructor as plain parameters (the result has no prototype)", () => {
    const params = readForm(req("__proto__=x&constructor=y"));
    expect(Object.getPrototypeOf(params)).toBeNull();
    expect(params["__proto__"]).toBe("x");
    expect(params.constructor).toBe("y");
    expect(Object.keys(params)).toEqual(["__proto__", "constructor"]);
  });
});

describe("readForm: empty values are omitted (RFC 6749 §3.1)", () => {
  it.each(["scope=&grant_type=x", "scope&grant_type=x", "grant_type=x&scope="])("%j has no scope", (body) => {
    const params = readForm(req(body));
    expect(params).toEqual({ grant_type: "x" });
    expect("scope" in params).toBe(false);
  });
});

describe("readForm: a parameter MUST NOT be included more than once (RFC 6749 §3.1, §3.2)", () => {
  it.each(["scope=a&scope=b", "scope=a&scope=a", "scope=&scope=a", "scope=a&scope=", "a=1&b=2&a=3"])("refuses %j with 400 invalid_request", (body) => {
    const err = refusal(body);
    expect(err.status).toBe(400);
    expect(err.error).toBe("invalid_request");
    expect(err.message).toMatch(/repeated/);
  });

  it("counts the name after decoding: scope and sc%6Fpe are the same parameter", () => {
    expect(refusal("scope=a&sc%6Fpe=b").message).toContain("scope");
  });
});

describe("readForm: resource may be sent more than once (RFC 8707 §2)", () => {
  it("joins its values with spaces, in order, dropping empty ones", () => {
    expect({ ...readForm(req("resource=https%3A%2F%2Fa.example%2Fx&scope=s&resource=&resource=https://b.example/y")) }).toEqual({
      resource: "https://a.example/x https://b.example/y",
      scope: "s",
    });
  });
});

describe("readForm: not a form body (wrong Content-Type)", () => {
  it.each([
    ["no body", undefined],
    ["a JSON body", { grant_type: "client_credentials" }],
    ["a raw Buffer", Buffer.from("grant_type=client_credentials")],
    ["null", null],
  ])("refuses %s with invalid_request naming the content type", (_what, body) => {
    const err = refusal(body);
    expect(err.error).toBe("invalid_request");
    expect(err.message).toContain("application/x-www-form-urlencoded");
  });
});

describe("readForm: text a database cannot hold", () => {
  it.each(["code=a%00b", "co%00de=x", "code=%00"])("refuses NUL in %j", (body) => {
    expect(refusal(body).error).toBe("invalid_request");
  });

  it.each(["code=\ud800", "code=%ED%A0%80", "c\udc00=x"])("never returns a lone surrogate from %j", (body) => {
    let params: Record<string, string> = {};
    try {
      params = readForm(req(body));
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidRequest);
    }
    for (const [key, value] of Object.entries(params)) {
      expect(key.isWellFormed()).toBe(true);
      expect(value.isWellFormed()).toBe(true);
    }
  });
});

describe("readForm: percent-escapes that are not UTF-8 (RFC 6749 Appendix B: values are UTF-8)", () => {
  it.each([
    ["a lone continuation byte", "code=%80"],
    ["a byte never in UTF-8", "code=%FF"],
    ["a truncated two-byte sequence", "state=a%C3"],
    ["a truncated sequence before another escape", "state=%E2%82%41"],
    ["an overlong encoding of /", "redirect_uri=%C0%AF"],
    ["an encoded surrogate", "code=%ED%A0%80"],
    ["a code point above U+10FFFF", "code=%F4%90%80%80"],
    ["an invalid name", "sc%FFope=a"],
  ])("refuses %s (%j) with 400 invalid_request instead of reading U+FFFD", (_what, body) => {
    const err = refusal(body);
    expect(err.status).toBe(400);
    expect(err.error).toBe("invalid_request");
    expect(err.message).toMatch(/UTF-8/);
  });

  it("still reads valid multi-byte escapes, and a % that starts no escape as itself", () => {
    expect(readForm(req("state=%F0%9F%98%80%E2%82%AC&nonce=100%&x=%zz"))).toEqual({ state: "\u{1F600}\u20ac", nonce: "100%", x: "%zz" });
  });

  it("reads a literal U+FFFD sent as its escape", () => {
    expect(readForm(req("state=%EF%BF%BD"))).toEqual({ state: "\ufffd" });
  });
});
