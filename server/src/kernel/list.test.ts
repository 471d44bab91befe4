/** The stored and answered form of scope and product lists: names joined by one space (RFC 6749 §3.3). */
import { describe, expect, it } from "vitest";
import { joinList, splitList } from "./list.js";

describe("splitList / joinList (RFC 6749 §3.3 space-delimited lists)", () => {
  it.each([
    ["", []],
    ["aisp", ["aisp"]],
    ["aisp pisp piisp", ["aisp", "pisp", "piisp"]],
  ])("%j is %j, and back", (stored, names) => {
    expect(splitList(stored)).toEqual(names);
    expect(joinList(names)).toBe(stored);
  });

  it("keeps order and duplicates as stored (scopes are case-sensitive, not re-sorted)", () => {
    expect(splitList("pisp AISP aisp")).toEqual(["pisp", "AISP", "aisp"]);
  });
});
