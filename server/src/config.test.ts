/**
 * Settings with rules of their own: the transaction guard (db/database.ts
 * OuterStoreInTransaction), on unless NODE_ENV=production, and TRANSACTION_GUARD overrides
 * either way; the brand of the end-user pages, whose logo is an http(s) URL or a path on
 * this origin, never a script or data URL.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig: TRANSACTION_GUARD", () => {
  it.each([
    [{}, true],
    [{ NODE_ENV: "test" }, true],
    [{ NODE_ENV: "production" }, false],
    [{ NODE_ENV: "production", TRANSACTION_GUARD: "true" }, true],
    [{ TRANSACTION_GUARD: "false" }, false],
  ])("%j: guard %s", (env, on) => {
    expect(loadConfig(env).transactionGuard).toBe(on);
  });

  it("refuses a value that is not a boolean, naming the variable", () => {
    expect(() => loadConfig({ TRANSACTION_GUARD: "sometimes" })).toThrow(/TRANSACTION_GUARD/);
  });
});

describe("loadConfig: BRAND_NAME and BRAND_LOGO_URL", () => {
  it("defaults to Tollgate and no logo", () => {
    expect(loadConfig({}).brand).toEqual({ name: "Tollgate", logoUrl: undefined });
  });

  it("takes the bank's name, trimmed, and a logo URL or a path on this origin", () => {
    expect(loadConfig({ BRAND_NAME: "  Acme Bank ", BRAND_LOGO_URL: "https://cdn.acme.example/logo.svg" }).brand).toEqual({
      name: "Acme Bank",
      logoUrl: "https://cdn.acme.example/logo.svg",
    });
    expect(loadConfig({ BRAND_LOGO_URL: "/brand/logo.svg" }).brand.logoUrl).toBe("/brand/logo.svg");
    expect(loadConfig({ BRAND_LOGO_URL: "http://localhost:8080/logo.png" }).brand.logoUrl).toBe("http://localhost:8080/logo.png");
  });

  it.each(["", "   ", "Acme\nBank", "A".repeat(101)])("refuses the name %j, naming the variable", (name) => {
    expect(() => loadConfig({ BRAND_NAME: name })).toThrow(/BRAND_NAME/);
  });

  it.each([
    "javascript:alert(1)",
    "data:image/svg+xml,<svg/>",
    "ftp://files.acme.example/logo.svg",
    "logo.svg",
    "brand/logo.svg",
    "//evil.example/logo.svg",
    "/\\evil.example/logo.svg",
    "/brand/my logo.svg",
    "",
  ])("refuses the logo %j, naming the variable", (logo) => {
    expect(() => loadConfig({ BRAND_LOGO_URL: logo })).toThrow(/BRAND_LOGO_URL/);
  });
});
