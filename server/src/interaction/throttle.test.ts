import { describe, expect, it } from "vitest";
import { limiterFactory } from "../kernel/limiter.js";
import { SignInThrottle, TooManyAttempts } from "./throttle.js";

/** A throttle over per-process counters: `user` attempts per username, `ip` per IP, in a 900-s window. */
const throttle = (user: number, ip: number) => new SignInThrottle(limiterFactory(undefined, ""), user, ip, 900);

describe("SignInThrottle", () => {
  it("counts attempts before they are evaluated: of 40 begun at once for one user, 5 pass and exactly one is the last", async () => {
    const t = throttle(5, 1000);
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => t.begin("Bob", "10.0.0.1")));
    const passed = results.filter((r) => r.status === "fulfilled").map((r) => r.value);
    expect(passed).toHaveLength(5);
    expect(passed.filter((a) => a.last)).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toBeInstanceOf(TooManyAttempts);
    // The username is case-folded: BOB is blocked too.
    await expect(t.begin("BOB", "10.0.0.2")).rejects.toMatchObject({ status: 429, headers: { "Retry-After": expect.stringMatching(/^\d+$/) } });
  });

  it("an attempt refused for its IP gives the user's attempt back", async () => {
    const t = throttle(2, 1);
    await t.begin("alice", "10.0.0.1");
    await expect(t.begin("carol", "10.0.0.1")).rejects.toBeInstanceOf(TooManyAttempts);
    await t.begin("carol", "10.0.0.2");
    expect((await t.begin("carol", "10.0.0.3")).last).toBe(true);
  });

  it("a success clears the user's failures and gives the IP its attempt back", async () => {
    const t = throttle(2, 2);
    await t.begin("dave", "10.0.0.1");
    await t.begin("dave", "10.0.0.1");
    await t.succeeded("dave", "10.0.0.1");
    expect((await t.begin("dave", "10.0.0.1")).last).toBe(false);
    await expect(t.begin("erin", "10.0.0.1")).rejects.toBeInstanceOf(TooManyAttempts);
  });

  it("tells when a blocked user's block ends, and an unblock clears it (the IP's count stays)", async () => {
    const t = throttle(2, 3);
    const now = new Date();
    await t.begin("Frank", "10.0.0.9");
    expect(await t.blockedUntil("frank", now)).toBeUndefined();
    await t.begin("frank", "10.0.0.9");
    const until = await t.blockedUntil("FRANK", now);
    expect(until!.getTime() - now.getTime()).toBeGreaterThan(898_000);
    await t.unblock("frank");
    expect(await t.blockedUntil("frank", now)).toBeUndefined();
    expect((await t.begin("frank", "10.0.0.9")).last).toBe(false);
    await expect(t.begin("gina", "10.0.0.9")).rejects.toBeInstanceOf(TooManyAttempts);
  });
});
