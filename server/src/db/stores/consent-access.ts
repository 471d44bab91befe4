/**
 * The consent access store (stores/consent-access.ts): one direct SQL upsert per account data
 * call with a consent, on the gateway's hot path. One row per consent, so the table grows with
 * the consents, not with the days.
 */
import type { ConsentAccessStore } from "../../stores/consent-access.js";
import type { Executor } from "./executor.js";

/**
 * Inserts the consent's row on its first call; else moves it on to the call's day (the count
 * starting again on a later day; never back to an earlier one, should an instance's clock lag
 * at midnight) and adds the call, unless that would take the day's count over the limit, or
 * the consent is one-off and its first day is over: then nothing changes.
 * Parameters: consentId, day (twice), unattended (0/1), oneOff (0/1), limit.
 */
const RECORD = `INSERT INTO "ConsentAccess" ("consentId", "firstDay", "day", "unattended") VALUES (?, ?, ?, ?)
  ON CONFLICT ("consentId") DO UPDATE SET
    "unattended" = CASE WHEN "ConsentAccess"."day" < excluded."day" THEN excluded."unattended" ELSE "ConsentAccess"."unattended" + excluded."unattended" END,
    "day" = CASE WHEN "ConsentAccess"."day" < excluded."day" THEN excluded."day" ELSE "ConsentAccess"."day" END
  WHERE (? = 0 OR "ConsentAccess"."firstDay" = excluded."day")
    AND ("ConsentAccess"."day" < excluded."day" OR "ConsentAccess"."unattended" + excluded."unattended" <= ?)`;

/** The consent access store over `x`. */
export function consentAccessStore(x: Executor): ConsentAccessStore {
  const { sql } = x;
  return {
    async record(consentId, call) {
      const changed = await sql.run(RECORD, [consentId, call.day, call.day, call.unattended ? 1 : 0, call.oneOff ? 1 : 0, call.limit]);
      if (changed === 1) return "granted";
      // Refused: which rule refused it (the first day never changes once set).
      const row = await sql.get<{ firstDay: string }>(`SELECT "firstDay" FROM "ConsentAccess" WHERE "consentId" = ?`, [consentId]);
      return call.oneOff && row !== undefined && row.firstDay !== call.day ? "usedUp" : "exceeded";
    },
  };
}
