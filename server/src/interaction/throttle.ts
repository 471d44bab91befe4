/**
 * Throttling of sign-in attempts per username and per client IP (PSD2 RTS Art. 4(3)(b): at
 * most 5 consecutive failed attempts, then a temporary block). An attempt takes its place in
 * both counters before it is evaluated, atomically, so that parallel attempts cannot all
 * pass a check made before any of them was counted; it stays counted as a failure unless it
 * succeeds, and a success clears the username's counter. Counters are shared across
 * instances with Redis (see kernel/limiter.ts).
 */
import type { RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { consumePoint, type LimiterFactory } from "../kernel/limiter.js";
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

/** A sign-in attempt counted by {@link SignInThrottle.begin}. */
export interface Attempt {
  /** It took the user's last attempt: its failure starts the block. */
  last: boolean;
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

  /**
   * Counts an attempt against the user and the IP before it is evaluated (the password's
   * argon2 check, a second factor). It counts as failed until {@link succeeded} gives it back.
   * @returns the attempt; `last` when it took the user's last one (if it fails, the account is blocked).
   * @throws TooManyAttempts (429 with Retry-After, the wait in its description) when the user or
   *   the IP has no attempts left; an attempt refused for the IP gives the user's back.
   */
  async begin(username: string, ip: string): Promise<Attempt> {
    const key = throttleKey(username);
    const user = await this.take(this.perUser, key, "signin-user");
    await this.take(this.perIp, ip, "signin-ip").catch(async (err: unknown) => {
      await this.perUser.reward(key, 1);
      throw err;
    });
    return { last: user.remainingPoints === 0 };
  }

  /** After a successful attempt: clears the user's failures and gives the IP back the attempt {@link begin} counted. */
  async succeeded(username: string, ip: string): Promise<void> {
    await Promise.all([this.perUser.delete(throttleKey(username)), this.perIp.reward(ip, 1)]);
  }

  /**
   * When the user's block ends (RTS Art. 4(3)(b)): their failed attempts reached the limit in the
   * current window. Reads the counter only.
   * @param now - the current time; the end is `now` plus the rest of the window.
   * @returns the end of the block, or undefined when the user is not blocked.
   */
  async blockedUntil(username: string, now: Date): Promise<Date | undefined> {
    const counter = await this.perUser.get(throttleKey(username));
    if (counter === null || counter.consumedPoints < this.perUser.points) return undefined;
    return new Date(now.getTime() + counter.msBeforeNext);
  }

  /** Ends the user's block (an administrator's unblockUser): clears their failed attempts, not their IP's. */
  async unblock(username: string): Promise<void> {
    await this.perUser.delete(throttleKey(username));
  }

  /** One point of `limiter` for `key`. @throws TooManyAttempts when it has none left (counted by the metric `name`). */
  private take(limiter: RateLimiterAbstract, key: string, name: string): Promise<RateLimiterRes> {
    return consumePoint(limiter, key, (retryAfter) => {
      this.metrics?.rateLimited(name);
      return new TooManyAttempts(retryAfter);
    });
  }
}
