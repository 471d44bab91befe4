import { describe, expect, it } from "vitest";
import { missingDescriptionsMessage, scopeDescriptionsInput, scopeRows, storedDescriptions, undescribedScopes } from "./scope-descriptions";

const stored = storedDescriptions([
  { name: "aisp", description: "Read your account details, balances and transactions" },
  { name: "pisp", description: "Initiate payments from your accounts" },
]);

/** {@link scopeRows} of these scopes against `stored`, with what was typed per scope. */
const rowsOf = (names: string[], typed: Record<string, string> = {}) => scopeRows(names, stored, new Map(Object.entries(typed)));

describe("scopeRows", () => {
  it("gives a known scope its stored description and a new scope none, in the order listed", () => {
    expect(rowsOf(["savings", "aisp"])).toEqual([
      { name: "savings", description: "", stored: "", isNew: true },
      { name: "aisp", description: "Read your account details, balances and transactions", stored: "Read your account details, balances and transactions", isNew: false },
    ]);
  });

  it("shows what was typed over the stored description, and ignores descriptions of scopes no longer listed", () => {
    const typed = { aisp: "See your accounts", gone: "Not listed" };
    expect(rowsOf(["aisp"], typed)).toEqual([
      { name: "aisp", description: "See your accounts", stored: "Read your account details, balances and transactions", isNew: false },
    ]);
  });

  it("keeps an emptied description empty (it is not replaced by the stored one)", () => {
    expect(rowsOf(["pisp"], { pisp: "" })[0]!.description).toBe("");
  });
});

describe("undescribedScopes", () => {
  it("names the new scopes without a description and the scopes whose description was emptied", () => {
    const typed = { savings: "   ", pisp: "", loans: "See your loans" };
    expect(undescribedScopes(rowsOf(["aisp", "savings", "pisp", "loans", "cards"], typed))).toEqual(["savings", "pisp", "cards"]);
  });

  it("is empty when every scope is described", () => {
    expect(undescribedScopes(rowsOf(["aisp", "loans"], { loans: "See your loans" }))).toEqual([]);
    expect(undescribedScopes([])).toEqual([]);
  });
});

describe("missingDescriptionsMessage", () => {
  it("names one scope", () => {
    expect(missingDescriptionsMessage(["savings"])).toBe(
      "Describe the scope “savings” for end users: they see the description on the consent and Account pages, never the scope's code.",
    );
  });

  it("lists several scopes", () => {
    expect(missingDescriptionsMessage(["a", "b", "c"])).toMatch(/^Describe the scopes “a”, “b” and “c” for end users:/);
    expect(missingDescriptionsMessage(["a", "b"])).toMatch(/^Describe the scopes “a” and “b” for end users:/);
  });
});

describe("scopeDescriptionsInput", () => {
  it("sends the new scopes' descriptions and the changed ones, trimmed, and leaves unchanged ones out", () => {
    const typed = { savings: "  See your savings accounts ", aisp: "See your accounts", pisp: " Initiate payments from your accounts " };
    expect(scopeDescriptionsInput(rowsOf(["savings", "aisp", "pisp"], typed))).toEqual([
      { name: "savings", description: "See your savings accounts" },
      { name: "aisp", description: "See your accounts" },
    ]);
  });

  it("sends nothing for a product whose scopes are all known and unchanged", () => {
    expect(scopeDescriptionsInput(rowsOf(["aisp", "pisp"]))).toEqual([]);
  });
});
