import { describe, expect, it } from "vitest";
import { statusText, untilText } from "./user-status";

const NOW = new Date("2026-11-29T10:00:00Z");

describe("a user's sign-in state in words", () => {
  it("a block ending today shows its time, another day its date too", () => {
    expect(untilText("2026-11-29T10:15:00Z", NOW, "en-GB", "UTC")).toBe("until 10:15");
    expect(untilText("2026-11-30T00:05:00Z", NOW, "en-GB", "UTC")).toBe("until 30 Nov, 00:05");
    // The day is the time zone's: 23:30 UTC is the next day in Berlin.
    expect(untilText("2026-11-29T23:30:00Z", NOW, "en-GB", "Europe/Berlin")).toBe("until 30 Nov, 00:30");
  });

  it("a blocked user is 'Blocked until …' instead of active; a past block is no block", () => {
    expect(statusText({ status: "active", blockedUntil: "2026-11-29T10:15:00Z" }, NOW, "en-GB", "UTC")).toBe("Blocked until 10:15");
    expect(statusText({ status: "active", blockedUntil: null }, NOW)).toBe("active");
    expect(statusText({ status: "active", blockedUntil: "2026-11-29T09:59:00Z" }, NOW)).toBe("active");
    expect(statusText({ status: "disabled", blockedUntil: null }, NOW)).toBe("disabled");
  });
});
