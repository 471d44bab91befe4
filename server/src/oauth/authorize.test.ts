/** The pure parts of the authorization endpoint (the rest needs a database: server/test). */
import { describe, expect, it } from "vitest";
import { CODE_LIFETIME_SECONDS, errorRedirect, nonceRequired } from "./authorize.js";
import type { AuthorizationResponder, ResponseTarget } from "./authorization-response.js";

/** Query mode signs nothing and looks no client up. */
const responder = (issuer: string) => ({ issuer }) as AuthorizationResponder;
const target = (redirectUri: string, state: string | null): ResponseTarget => ({
  redirectUri,
  state,
  clientId: "c",
  responseMode: "query",
  appId: "a",
  userId: null,
  psd2ConsentId: null,
  requestObject: null,
});
const NOW = new Date("2026-12-01T00:00:00Z");

describe("CODE_LIFETIME_SECONDS (RFC 6749 §4.1.2: a maximum lifetime of 10 minutes is RECOMMENDED)", () => {
  it("is decisions.md's 60 s, within the RFC's 10 minutes", () => {
    expect(CODE_LIFETIME_SECONDS).toBe(60);
    expect(CODE_LIFETIME_SECONDS).toBeLessThanOrEqual(600);
  });
});

describe("errorRedirect (RFC 6749 §4.1.2.1, RFC 9207 §2)", () => {
  it("sends error, error_description, state and iss", async () => {
    const url = new URL((await errorRedirect(responder("https://auth.bank.example"), target("https://client.example/cb", "s1"), "access_denied", "the user denied consent", NOW)).redirectTo);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: "access_denied",
      error_description: "the user denied consent",
      state: "s1",
      iss: "https://auth.bank.example",
    });
  });

  it("§4.1.2.1: leaves state out when the request had none", async () => {
    const url = new URL((await errorRedirect(responder("https://auth.bank.example"), target("https://client.example/cb", null), "invalid_scope", "scope is required", NOW)).redirectTo);
    expect(url.searchParams.has("state")).toBe(false);
    expect(url.searchParams.get("iss")).toBe("https://auth.bank.example");
  });

  it("RFC 9207 §2: iss is the issuer identifier exactly, also with a path", async () => {
    const url = new URL((await errorRedirect(responder("https://bank.example/auth"), target("https://client.example/cb?x=1", "s"), "invalid_request", "d", NOW)).redirectTo);
    expect(url.searchParams.get("iss")).toBe("https://bank.example/auth");
    expect(url.searchParams.get("x")).toBe("1");
  });
});

describe("nonceRequired (OpenID Connect Core §3.1.2.1: nonce OPTIONAL in the code flow)", () => {
  it("is the app's choice, and always for a fapi2 app", () => {
    expect(nonceRequired({ requireNonce: false, securityProfile: "standard" })).toBe(false);
    expect(nonceRequired({ requireNonce: true, securityProfile: "standard" })).toBe(true);
    expect(nonceRequired({ requireNonce: false, securityProfile: "fapi2" })).toBe(true);
    expect(nonceRequired({ requireNonce: true, securityProfile: "fapi2" })).toBe(true);
  });
});
