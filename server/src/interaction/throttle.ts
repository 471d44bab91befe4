/**
 * Throttling of failed sign-in attempts per username and per client IP (PSD2 RTS
 * Art. 4(3)(b): at most 5 consecutive failed attempts, then a temporary block). Only
 * failures count, a password and a second factor alike; a success clears the username's
 * counter. Counters are shared across instances with Redis (see kernel/limiter.ts).
 */
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { LimiterFactory } from "../kernel/limiter.js";
import type { Metrics } from "../kernel/metrics.js";
import { OAuthError } from "../kernel/errors.js";

/** How long a block lasts, in words: seconds under 90 s, else whole minutes (rounded up). */
export function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

export class TooManyAttempts extends OAuthError {
  /** @param retryAfterSeconds - the rest of the block, seconds (also sent as Retry-After). */
  constructor(retryAfterSeconds: number) {
    super("too_many_attempts", `Too many failed sign-in attempts: sign-in is blocked for ${describeWait(retryAfterSeconds)}.`, 429, {
      "Retry-After": String(retryAfterSeconds),
    });
  }
}

/**
 * The per-user counter's key: the username case-folded after Unicode compatibility
 * normalization (NFKC), so `bob`, `BOB` and fullwidth `ＢＯＢ` are counted as one account.
 */
export function throttleKey(username: string): string {
  return username.normalize("NFKC").toLowerCase();
}

export class SignInThrottle {
  private readonly perUser: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;

  private readonly metrics: Metrics | undefined;

  /**
   * @param windowSeconds - length of the counting window, seconds; a block lasts the rest of it.
   * @param metrics - counts refused attempts per limiter (`signin-user`, `signin-ip`); undefined: not counted.
   */
  constructor(limiters: LimiterFactory, maxPerUser: number, maxPerIp: number, windowSeconds: number, metrics?: Metrics) {
    this.perUser = limiters("signin-user", maxPerUser, windowSeconds);
    this.perIp = limiters("signin-ip", maxPerIp, windowSeconds);
    this.metrics = metrics;
  }

  /** @throws TooManyAttempts (429 with Retry-After, the wait in its description) when the user or the IP has no attempts left. */
  async check(username: string, ip: string): Promise<void> {
    for (const [limiter, key, name] of [[this.perUser, throttleKey(username), "signin-user"], [this.perIp, ip, "signin-ip"]] as const) {
      const state = await limiter.get(key);
      if (state && state.remainingPoints <= 0) {
        this.metrics?.rateLimited(name);
        throw new TooManyAttempts(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
      }
    }
  }

  /**
   * Counts a failed attempt against the user and the IP (an exhausted counter is not an error here).
   * @returns true when this failure used up the user's attempts: the account is now blocked.
   */
  async recordFailure(username: string, ip: string): Promise<boolean> {
    const [user] = await Promise.all([this.perUser.penalty(throttleKey(username), 1), this.perIp.penalty(ip, 1)]);
    return user.remainingPoints === 0;
  }

  /**
   * After a successful sign-in: clears the user's failures, and gives the IP back the
   * attempt counted when a second factor was still to come (`provisional`).
   */
  async recordSuccess(username: string, ip: string, provisional: boolean): Promise<void> {
    await Promise.all([this.perUser.delete(throttleKey(username)), provisional ? this.perIp.reward(ip, 1) : undefined]);
  }
}
