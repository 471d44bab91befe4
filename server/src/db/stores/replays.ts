/**
 * The replay store (stores/replays.ts): one direct SQL upsert per JWT, on the gateway's and
 * the token endpoint's hot paths. A key whose record has expired is taken over in place, so
 * the purge is not needed for correctness, only to bound the table.
 */
import type { ReplayStore } from "../../stores/replays.js";
import type { Executor } from "./executor.js";

/** The replay store over `x`. */
export function replayStore(x: Executor): ReplayStore {
  const { sql } = x;
  return {
    async firstUse(key, expiresAt, now) {
      const changed = await sql.run(
        `INSERT INTO "UsedJti" ("key", "expiresAt") VALUES (?, ?)
         ON CONFLICT ("key") DO UPDATE SET "expiresAt" = excluded."expiresAt" WHERE "UsedJti"."expiresAt" <= ?`,
        [key, expiresAt, now],
      );
      return changed === 1;
    },
    deleteExpired(before, limit) {
      return sql.run(`DELETE FROM "UsedJti" WHERE "key" IN (SELECT "key" FROM "UsedJti" WHERE "expiresAt" < ? LIMIT ?)`, [before, limit]);
    },
  };
}
