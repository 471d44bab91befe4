/**
 * Throttling of failed sign-ins per username and per client IP (rate-limiter-flexible).
 * Only failures count; a success clears the username's counter.
 */
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { OAuthError } from "../oauth/errors.js";

export class TooManyAttempts extends OAuthError {
  constructor(retryAfterSeconds: number) {
    super("too_many_attempts", "too many failed sign-in attempts; try again later", 429, { "Retry-After": String(retryAfterSeconds) });
  }
}

export class SignInThrottle {
  private readonly perUser: RateLimiterMemory;
  private readonly perIp: RateLimiterMemory;

  /** @param windowSeconds - length of the counting window, seconds. */
  constructor(maxPerUser: number, maxPerIp: number, windowSeconds: number) {
    this.perUser = new RateLimiterMemory({ keyPrefix: "signin-user", points: maxPerUser, duration: windowSeconds });
    this.perIp = new RateLimiterMemory({ keyPrefix: "signin-ip", points: maxPerIp, duration: windowSeconds });
  }

  /** @throws TooManyAttempts (429 with Retry-After) when the user or the IP has no attempts left. */
  async check(username: string, ip: string): Promise<void> {
    for (const [limiter, key] of [[this.perUser, username.toLowerCase()], [this.perIp, ip]] as const) {
      const state = await limiter.get(key);
      if (state && state.remainingPoints <= 0) throw new TooManyAttempts(Math.ceil(state.msBeforeNext / 1000));
    }
  }

  /** Counts a failed attempt against the user and the IP. */
  async recordFailure(username: string, ip: string): Promise<void> {
    await Promise.allSettled([this.perUser.consume(username.toLowerCase()), this.perIp.consume(ip)]).then((results) => {
      for (const r of results) if (r.status === "rejected" && !(r.reason instanceof RateLimiterRes)) throw r.reason;
    });
  }

  /** Clears the user's failures after a successful sign-in. */
  async recordSuccess(username: string): Promise<void> {
    await this.perUser.delete(username.toLowerCase());
  }
}
