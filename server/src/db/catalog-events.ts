/**
 * Catalog invalidations shared between instances over Redis pub/sub: when this instance
 * writes a catalog table, the others empty their catalog cache at once instead of waiting
 * out its time to live (db/catalog-cache.ts). Best effort: if Redis is unreachable, the
 * time to live still bounds how long another instance may use an old row.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { CatalogCache } from "./catalog-cache.js";

/**
 * Publishes this instance's invalidations on `<prefix>catalog` and applies the others'.
 * @param redis - the shared connection (publishing); a duplicate is opened for subscribing.
 * @returns a function closing the subscription.
 */
export function shareCatalogInvalidations(catalog: CatalogCache, redis: Redis, prefix: string, logger: Logger): () => void {
  const channel = `${prefix}catalog`;
  const self = randomUUID();
  // Subscribed here on every (re)connection rather than by ioredis's autoResubscribe, whose
  // SUBSCRIBE has no rejection handler (an unhandled rejection when the connection closes
  // again before it is answered); this also covers a Redis that was away at start.
  const subscriber = redis.duplicate({ autoResubscribe: false });
  subscriber.on("error", (err: Error) => logger.warn({ err: err.message }, "redis unavailable; catalog changes reach other instances by TTL"));
  subscriber.on("message", (_channel: string, from: string) => {
    if (from !== self) catalog.clear();
  });
  subscriber.on("ready", () => {
    // Invalidations published while this connection was away were missed.
    catalog.clear();
    void subscriber.subscribe(channel).catch(() => {});
  });
  catalog.onInvalidate(() => void redis.publish(channel, self).catch(() => {}));
  return () => subscriber.disconnect();
}
