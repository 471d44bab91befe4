/**
 * Counters for rate limits and sign-in throttling (rate-limiter-flexible). With REDIS_URL
 * they live in Redis, shared by every instance (an in-memory copy takes over while Redis
 * is unreachable, so an outage never blocks sign-ins or tokens); without it, in this process.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Redis } from "ioredis";
import { OAuthError } from "./errors.js";

/** Makes a limiter allowing `points` events per `durationSeconds` per key. */
export type LimiterFactory = (name: string, points: number, durationSeconds: number) => RateLimiterAbstract;

/**
 * @param redis - shared store, or undefined for per-process counters.
 * @param prefix - namespace of the keys in Redis (REDIS_KEY_PREFIX).
 */
export function limiterFactory(redis: Redis | undefined, prefix: string): LimiterFactory {
  return (name, points, duration) => {
    const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
    if (!redis) return memory;
    return new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}${name}`, points, duration, insuranceLimiter: memory });
  };
}

/**
 * Counts one event under `key`, atomically: one Redis script (or one step of this process)
 * adds it and reads the count, so of parallel events no more than the limit pass.
 * @param refusal - makes the error thrown when the limit refuses the event, from the rest of the window in seconds (at least 1).
 * @returns the counter with this event counted (`remainingPoints`: events left in the window).
 * @throws what `refusal` makes, when the limit is reached (the refused event is counted too).
 */
export async function consumePoint(limiter: RateLimiterAbstract, key: string, refusal: (retryAfterSeconds: number) => Error): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    throw refusal(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
  }
}

/**
 * Counts one event under `key` ({@link consumePoint}).
 * @param refused - told when the limit refuses the event (the rate-limit metric, kernel/metrics.ts).
 * @throws OAuthError 429 `too_many_requests` with `Retry-After` (seconds) when the limit is reached.
 */
export async function consumeRateLimit(limiter: RateLimiterAbstract, key: string, refused?: () => void): Promise<void> {
  await consumePoint(limiter, key, (retryAfter) => {
    refused?.();
    return new OAuthError("too_many_requests", "rate limit exceeded; retry later", 429, { "Retry-After": String(retryAfter) });
  });
}
