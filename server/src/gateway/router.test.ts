import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../kernel/errors.js";
import { splitPath } from "./router.js";

describe("splitPath", () => {
  it("splits the API name from the path to forward, keeping the query and ;parameters that are not dot segments", () => {
    expect(splitPath("/accounts/acc-001/balances?x=1")).toEqual({ name: "accounts", rest: "/acc-001/balances?x=1" });
    expect(splitPath("/accounts")).toEqual({ name: "accounts", rest: "/" });
    expect(splitPath("/accounts//a//b")).toEqual({ name: "accounts", rest: "/a/b" });
    expect(splitPath("/accounts/a;v=1/b;jsessionid=x/...;x/.x;y/;x")).toEqual({ name: "accounts", rest: "/a;v=1/b;jsessionid=x/...;x/.x;y/;x" });
    expect(splitPath("/accounts/a?p=/../;x")).toEqual({ name: "accounts", rest: "/a?p=/../;x" });
  });

  it.each([
    "/accounts/../x",
    "/accounts/./x",
    "/accounts/%2e%2e/x",
    "/accounts/.%2E/x",
    "/accounts/..;/x",
    "/accounts/..;x/y",
    "/accounts/.;/x",
    "/accounts/.;x=1;y=2",
    "/accounts/%2e%2e;x/y",
    "/accounts/%2E%2e;/y",
    "/accounts/.%2E;/x",
    "/accounts/%2e;jsessionid=1/x",
    "/accounts/..%3b/x",
    "/accounts/..%3Bx/x",
    "/accounts/%2e%2e%3b%2f",
    "/..;/accounts",
    "/accounts/a/..;",
  ])("refuses the dot segment in %s with 400 invalid_request", (url) => {
    expect(() => splitPath(url)).toThrow(InvalidRequest);
    try {
      splitPath(url);
    } catch (err) {
      expect((err as InvalidRequest).status).toBe(400);
      expect((err as InvalidRequest).error).toBe("invalid_request");
    }
  });

  it.each(["/accounts/a%2fb", "/accounts/a%5cb", "/accounts/a\\b", "/accounts/%zz", "/accounts/%C0%AE%C0%AE;/x"])("refuses the encoded slash, backslash or bad escape in %s", (url) => {
    expect(() => splitPath(url)).toThrow(InvalidRequest);
  });
});

describe("splitPath: the path forwarded (RFC 3986 §3.3 path, §3.4 query)", () => {
  it.each([
    ["/accounts?x=1", "accounts", "/?x=1"],
    ["/accounts/", "accounts", "/"],
    ["/accounts///", "accounts", "/"],
    ["/", "", "/"],
    ["//accounts/x", "", "/accounts/x"],
    ["/accounts/a//b?q=//x//y", "accounts", "/a/b?q=//x//y"],
    ["/accounts/a?b?c", "accounts", "/a?b?c"],
    ["/accounts/a%20b", "accounts", "/a%20b"],
    ["/accounts/%252e%252e/x", "accounts", "/%252e%252e/x"],
    ["/accounts/a?x=%zz&y=%2e%2e%2f", "accounts", "/a?x=%zz&y=%2e%2e%2f"],
  ])("splits %j into %j and %j", (url, name, rest) => {
    expect(splitPath(url)).toEqual({ name, rest });
  });

  it("never forwards a path starting with // (a network-path reference, RFC 3986 §4.2)", () => {
    for (const url of ["/accounts//evil.example/x", "/accounts////evil.example", "/accounts/%20//x"]) {
      expect(splitPath(url).rest.startsWith("//")).toBe(false);
    }
  });
});

describe("splitPath: refused segments (RFC 3986 §3.3 dot segments, §2.1 percent-encoding)", () => {
  it.each([
    ["a trailing .", "/accounts/a/."],
    ["a trailing ..", "/accounts/a/.."],
    [".. as the API name", "/../accounts"],
    ["upper-case %2E%2E", "/accounts/%2E%2E/x"],
    ["upper-case %2F", "/accounts/a%2Fb"],
    ["upper-case %5C", "/accounts/a%5Cb"],
    ["a backslash in the API name", "/acc\\ounts/x"],
    ["a lone %", "/accounts/%"],
    ["a truncated escape", "/accounts/%4"],
    ["an incomplete UTF-8 sequence", "/accounts/%C3"],
  ])("refuses %s (%s) with 400 invalid_request", (_what, url) => {
    let err: unknown;
    try {
      splitPath(url);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequest);
    expect((err as InvalidRequest).status).toBe(400);
  });
});
