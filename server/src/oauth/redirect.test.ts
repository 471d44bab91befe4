import { describe, expect, it } from "vitest";
import { redirectWith } from "./redirect.js";

describe("redirectWith (RFC 6749 §3.1.2, §4.1.2)", () => {
  it("appends the parameters to a redirect URI without a query", () => {
    const url = new URL(redirectWith("https://client.example/cb", { code: "abc", state: "xyz" }));
    expect(url.origin + url.pathname).toBe("https://client.example/cb");
    expect([...url.searchParams]).toEqual([
      ["code", "abc"],
      ["state", "xyz"],
    ]);
  });

  it("§3.1.2: retains the registered query's parameters, before the added ones", () => {
    const url = new URL(redirectWith("https://client.example/cb?tenant=7&lang=de", { code: "abc" }));
    expect([...url.searchParams]).toEqual([
      ["tenant", "7"],
      ["lang", "de"],
      ["code", "abc"],
    ]);
  });

  it("leaves out undefined and null values", () => {
    expect(redirectWith("https://client.example/cb", { code: "abc", state: null, iss: undefined })).toBe("https://client.example/cb?code=abc");
  });

  it("§4.1.2: returns state exactly as received, however it is escaped on the way", () => {
    const state = "a b&c=d/e?f#g+h%20\u00e9";
    expect(new URL(redirectWith("https://client.example/cb", { state })).searchParams.get("state")).toBe(state);
  });

  it("keeps the registered path and port, and works with loopback http URIs (RFC 8252 §7.3)", () => {
    const url = new URL(redirectWith("http://127.0.0.1:51004/oauth/callback", { code: "c" }));
    expect(url.host).toBe("127.0.0.1:51004");
    expect(url.pathname).toBe("/oauth/callback");
  });
});
