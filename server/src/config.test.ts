/**
 * The transaction guard's setting (db/database.ts OuterStoreInTransaction): on unless
 * NODE_ENV=production, and TRANSACTION_GUARD overrides either way.
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
