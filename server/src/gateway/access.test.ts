import { describe, expect, it } from "vitest";
import { BearerError } from "../kernel/errors.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { PresentedToken } from "../oauth/tokens.js";
import { checkAccess } from "./access.js";

describe("checkAccess (RFC 6750 §3.1, decisions.md 'Errors')", () => {
  const API: ApiRoute = {
    name: "accounts",
    upstream: { origin: "http://upstream.example", basePath: "" },
    requiredScopes: ["aisp"],
    productNames: ["PSD2-AISP-v1"],
    passCookies: false,
  };
  const token = (over: Partial<PresentedToken> = {}): PresentedToken => ({
    active: true,
    scopes: ["aisp"],
    apiProducts: ["PSD2-AISP-v1"],
    clientId: "ck",
    appName: "Demo",
    jkt: null,
    userId: null,
    ...over,
  });

  /** The BearerError checkAccess throws. @throws when it throws nothing or something else. */
  function denial(t: PresentedToken | undefined, api: ApiRoute = API): BearerError {
    try {
      checkAccess(t, api, "tollgate");
    } catch (err) {
      expect(err).toBeInstanceOf(BearerError);
      return err as BearerError;
    }
    return expect.unreachable();
  }

  it("lets through an active token whose product grants the API and that has every required scope", () => {
    expect(() => checkAccess(token(), API, "tollgate")).not.toThrow();
  });

  it("lets through a token with more scopes and products than the API needs", () => {
    expect(() => checkAccess(token({ scopes: ["pisp", "aisp"], apiProducts: ["PSD2-PISP-v1", "PSD2-AISP-v1"] }), API, "tollgate")).not.toThrow();
  });

  it("lets through any token of a granting product when the API requires no scope", () => {
    expect(() => checkAccess(token({ scopes: [] }), { ...API, requiredScopes: [] }, "tollgate")).not.toThrow();
  });

  it.each([
    ["an unknown token", undefined],
    ["an inactive (expired, revoked) token, even with the right product and scope", { active: false }],
  ] as const)("§3.1 invalid_token: refuses %s with 401", (_what, over) => {
    const err = denial(over === undefined ? undefined : token(over));
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_token");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token", error_description="the access token is invalid, expired or revoked"');
  });

  it("§3.1 insufficient_scope: 403 naming the API's required scope when no product of the token grants the API", () => {
    const err = denial(token({ apiProducts: ["PSD2-PISP-v1"] }));
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.headers["WWW-Authenticate"]).toMatch(/^Bearer realm="tollgate", error="insufficient_scope", error_description="[^"]*accounts[^"]*", scope="aisp"$/);
  });

  it("refuses a token without products, even if it has the scopes", () => {
    expect(denial(token({ apiProducts: [] })).status).toBe(403);
  });

  it("§3.1 insufficient_scope: 403 when a required scope is missing; scope= lists every scope the API requires", () => {
    const api = { ...API, requiredScopes: ["aisp", "extended_transaction_history"] };
    const err = denial(token({ scopes: ["aisp"] }), api);
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.message).toContain("extended_transaction_history");
    expect(err.headers["WWW-Authenticate"]).toMatch(/, scope="aisp extended_transaction_history"$/);
  });

  it("compares scopes case-sensitively (RFC 6749 §3.3)", () => {
    expect(denial(token({ scopes: ["AISP"] })).status).toBe(403);
  });

  it("leaves scope= out of the challenge when the API requires no scope", () => {
    const err = denial(token({ apiProducts: ["other"] }), { ...API, requiredScopes: [] });
    expect(err.status).toBe(403);
    expect(err.headers["WWW-Authenticate"]).not.toContain("scope=");
  });
});
