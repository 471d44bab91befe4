/**
 * Throttling of failed sign-ins per username and per client IP. Only failures count; a
 * success clears the username's counter. Counters are shared across instances with Redis
 * (see kernel/limiter.ts).
 */
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { LimiterFactory } from "../kernel/limiter.js";
import { OAuthError } from "../kernel/errors.js";

export class TooManyAttempts extends OAuthError {
  constructor(retryAfterSeconds: number) {
    super("too_many_attempts", "too many failed sign-in attempts; try again later", 429, { "Retry-After": String(retryAfterSeconds) });
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

  /** @param windowSeconds - length of the counting window, seconds. */
  constructor(limiters: LimiterFactory, maxPerUser: number, maxPerIp: number, windowSeconds: number) {
    this.perUser = limiters("signin-user", maxPerUser, windowSeconds);
    this.perIp = limiters("signin-ip", maxPerIp, windowSeconds);
  }

  /** @throws TooManyAttempts (429 with Retry-After) when the user or the IP has no attempts left. */
  async check(username: string, ip: string): Promise<void> {
    for (const [limiter, key] of [[this.perUser, throttleKey(username)], [this.perIp, ip]] as const) {
      const state = await limiter.get(key);
      if (state && state.remainingPoints <= 0) throw new TooManyAttempts(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }

  /** Counts a failed attempt against the user and the IP (an exhausted counter is not an error here). */
  async recordFailure(username: string, ip: string): Promise<void> {
    await Promise.all([this.perUser.penalty(throttleKey(username), 1), this.perIp.penalty(ip, 1)]);
  }

  /** Clears the user's failures after a successful sign-in. */
  async recordSuccess(username: string): Promise<void> {
    await this.perUser.delete(throttleKey(username));
  }
}
