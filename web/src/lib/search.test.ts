import { describe, expect, it } from "vitest";
import type { SearchResults } from "../api/admin";
import { routes } from "./routes";
import { countOf, matchingKeys, readSearchText, resultsSummary, searchesTokens } from "./search";

const EMPTY: SearchResults = { apps: [], users: [], tokens: [], psd2Consents: [], auditEvents: [] };
const app = { id: "a1", name: "Acme Budgeting", status: "approved" as const, developer: { organization: { name: "Acme" } }, credentials: [] };

describe("the console's search", () => {
  it("reads its text from the results page's address, and links to it", () => {
    expect(readSearchText(new URLSearchParams("q=%20demo-budgeting-key%20"))).toBe("demo-budgeting-key");
    expect(readSearchText(new URLSearchParams(""))).toBe("");
    expect(routes.search("a b&c")).toBe("/admin/search?q=a+b%26c");
    expect(routes.search("")).toBe("/admin/search");
  });

  it("looks tokens up by 4 or more lowercase letters and digits only", () => {
    expect(searchesTokens("cm3x")).toBe(true);
    expect(searchesTokens("cm3x5k2ab0001")).toBe(true);
    expect(searchesTokens("cm3")).toBe(false);
    expect(searchesTokens("CM3X5")).toBe(false);
    expect(searchesTokens("demo-budgeting-key")).toBe(false);
  });

  it("says what it found in a sentence", () => {
    expect(resultsSummary(EMPTY, "zzz")).toBe("Nothing found for “zzz”.");
    expect(resultsSummary({ ...EMPTY, apps: [app] }, "acme")).toBe("Found 1 app, no users, no tokens, no PSD2 consents and no audit events for “acme”.");
    expect(resultsSummary({ ...EMPTY, apps: [app, { ...app, id: "a2" }], users: [{ id: "u", username: "acme", role: "user", status: "active" }] }, "acme")).toBe(
      "Found 2 apps, 1 user, no tokens, no PSD2 consents and no audit events for “acme”.",
    );
    expect(countOf(3, "token")).toBe("3 tokens");
  });

  it("tells which consumer keys of an app contain the text, in any case", () => {
    const credentials = [{ consumerKey: "Demo-Budgeting-Key" }, { consumerKey: "old-key-1" }];
    expect(matchingKeys(credentials, "budgeting")).toEqual(["Demo-Budgeting-Key"]);
    expect(matchingKeys(credentials, "KEY")).toEqual(["Demo-Budgeting-Key", "old-key-1"]);
    expect(matchingKeys(credentials, "Acme")).toEqual([]);
    expect(matchingKeys(credentials, "")).toEqual([]);
  });
});
