/**
 * Cache invalidations shared between instances over Redis pub/sub, on one subscribing
 * connection:
 * - `<prefix>catalog`: when this instance writes a catalog table, the others empty their
 *   catalog cache at once instead of waiting out its time to live (db/catalog-cache.ts).
 *   Best effort: if Redis is unreachable, the time to live still bounds how long another
 *   instance may use an old row.
 * - `<prefix>tokens`: every token row eviction made here (a revocation, a rotation, a
 *   Prisma write to token rows; each published after its commit) is applied by the others
 *   (db/token-cache.ts). This one is not best effort: the token cache stores rows only
 *   while the subscription is up, and forgets them all as soon as the connection drops,
 *   so an eviction published while this instance was not listening cannot be missed.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { CatalogCache } from "./catalog-cache.js";
import type { Eviction, TokenCache } from "./token-cache.js";

/** The caches of one instance whose invalidations are shared. */
export interface SharedCaches {
  catalog: CatalogCache;
  /** The token cache, where other instances write tokens too (PostgreSQL; db/database.ts). */
  tokens?: TokenCache<{ familyId: string | null }>;
}

/** A message on the tokens channel: the publishing instance and its eviction. */
type TokenMessage = Eviction & { from: string };

/** The eviction of a tokens message, or undefined for one that is not (another version, a stray publisher). */
function evictionOf(message: string): TokenMessage | undefined {
  try {
    const m = JSON.parse(message) as Partial<Record<"from" | "id" | "familyId", unknown>> & { all?: unknown };
    if (typeof m.from !== "string") return undefined;
    if (typeof m.id === "string") return { from: m.from, id: m.id };
    if (typeof m.familyId === "string") return { from: m.from, familyId: m.familyId };
    return { from: m.from, all: true };
  } catch {
    return undefined;
  }
}

/**
 * Publishes this instance's invalidations and applies the others'.
 * @param redis - the shared connection (publishing); a duplicate is opened for subscribing.
 * @returns a function closing the subscription.
 */
export function shareInvalidations({ catalog, tokens }: SharedCaches, redis: Redis, prefix: string, logger: Logger): () => void {
  const channels = { catalog: `${prefix}catalog`, tokens: `${prefix}tokens` };
  const self = randomUUID();
  // Subscribed here on every (re)connection rather than by ioredis's autoResubscribe, whose
  // SUBSCRIBE has no rejection handler (an unhandled rejection when the connection closes
  // again before it is answered); this also covers a Redis that was away at start.
  const subscriber = redis.duplicate({ autoResubscribe: false });
  subscriber.on("error", (err: Error) =>
    logger.warn({ err: err.message }, "redis unavailable; catalog changes reach other instances by TTL, and tokens are not cached"),
  );
  subscriber.on("message", (channel: string, message: string) => {
    if (channel === channels.catalog) {
      if (message !== self) catalog.clear();
      return;
    }
    const eviction = evictionOf(message);
    // Anything unreadable on the channel empties the cache: safe whatever it meant.
    if (eviction?.from !== self) tokens?.apply(eviction ?? { all: true });
  });
  // The connection is gone: evictions published from now on would be missed.
  subscriber.on("close", () => tokens?.suspend());
  subscriber.on("ready", () => {
    // Invalidations published while this connection was away were missed.
    catalog.clear();
    tokens?.suspend();
    subscriber.subscribe(...(tokens ? [channels.catalog, channels.tokens] : [channels.catalog])).then(
      () => tokens?.resume(),
      () => {},
    );
  });
  catalog.onInvalidate(() => void redis.publish(channels.catalog, self).catch(() => {}));
  tokens?.onEvict((eviction) => void redis.publish(channels.tokens, JSON.stringify({ from: self, ...eviction })).catch(() => {}));
  return () => {
    tokens?.suspend();
    subscriber.disconnect();
  };
}
