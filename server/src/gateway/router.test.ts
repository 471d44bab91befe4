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
