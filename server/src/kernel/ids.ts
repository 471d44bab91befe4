/**
 * Row ids for rows inserted by direct SQL (db/sql.ts), shaped like the cuid() ids Prisma
 * generates for the same tables: 25 characters, "c" then the creation time in base 36, so
 * ids still sort by creation time (db/paginate.ts relies on it).
 */
import { randomUUID } from "node:crypto";

/** Length of every id newId() returns. */
export const ID_LENGTH = 25;

let counter = 0;

/** @returns "c" + 8 base-36 digits of Date.now() + 4 of a counter + 12 random hex digits. */
export function newId(): string {
  counter = (counter + 1) % 36 ** 4;
  // randomUUID draws from a pooled entropy buffer: far cheaper per call than randomBytes.
  const random = randomUUID().slice(-12);
  return `c${Date.now().toString(36).padStart(8, "0")}${counter.toString(36).padStart(4, "0")}${random}`;
}
