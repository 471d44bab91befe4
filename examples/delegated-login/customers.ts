/**
 * THE PART A BANK REPLACES: who its customers are and how they prove it.
 *
 * This demo keeps a list of customers, each with a password and a fixed one-time code, and
 * compares what the PSU typed with it. A bank calls its own customer directory and SCA
 * service here instead (its password or PIN check with its lockout rules, its app's push
 * approval or a one-time code from its token), and keeps the same answer: who the customer is,
 * and which authentication factors they used.
 *
 * DEMO ONLY: the default customer is Tollgate's demo PSU `alice` with Tollgate's public demo
 * password (DEMO.user in server/src/demo/seed.ts) and the one-time code `123456`. Never run
 * with demo customers, or with a customers file of clear-text passwords, outside a demo.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

/** A customer as this demo knows them. */
export interface Customer {
  /** The customer identifier the bank gives Tollgate as the PSU's `subject` (their username there). */
  username: string;
  password: string;
  /** The one-time code that proves possession here (a real bank checks a code its token or app made, once). */
  otp: string;
}

/** The demo customers used when no CUSTOMERS_FILE is given: Tollgate's demo PSU. */
export const DEMO_CUSTOMERS: readonly Customer[] = [{ username: "alice", password: "alice-demo-password", otp: "123456" }];

/** What the customer check found. */
export type CheckResult =
  | { ok: true; username: string; /** RFC 8176 methods used: `pwd`, and `otp` when the code was right. */ amr: string[] }
  | { ok: false; problem: "credentials" | "otp" | "otp-missing" };

/** Compares two secrets in constant time (whatever their lengths: their SHA-256 digests are compared). */
function same(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Loads the customers: a JSON file `[{ "username", "password", "otp" }, …]`, or the demo ones.
 * @throws when the file cannot be read or does not hold such a list.
 */
export function loadCustomers(file: string | undefined): readonly Customer[] {
  if (!file) return DEMO_CUSTOMERS;
  const list: unknown = JSON.parse(readFileSync(file, "utf8"));
  const isCustomer = (c: unknown): c is Customer =>
    typeof c === "object" && c !== null && ["username", "password", "otp"].every((k) => typeof (c as Record<string, unknown>)[k] === "string" && (c as Record<string, string>)[k] !== "");
  if (!Array.isArray(list) || !list.every(isCustomer)) throw new Error(`${file}: expected a JSON array of { "username", "password", "otp" } (non-empty strings)`);
  return list;
}

/**
 * Checks a sign-in: the password always, the one-time code when one was typed or `needCode`.
 * The answer never says whether the username exists (one problem for a wrong name or password).
 */
export function checkCustomer(customers: readonly Customer[], username: string, password: string, otp: string, needCode: boolean): CheckResult {
  const customer = customers.find((c) => c.username === username);
  // The password is compared even for an unknown name, so that the answer takes as long.
  const passwordRight = same(password, customer?.password ?? "\u0000no such customer");
  if (!customer || !passwordRight) return { ok: false, problem: "credentials" };
  if (otp === "") return needCode ? { ok: false, problem: "otp-missing" } : { ok: true, username: customer.username, amr: ["pwd"] };
  if (!same(otp, customer.otp)) return { ok: false, problem: "otp" };
  return { ok: true, username: customer.username, amr: ["pwd", "otp"] };
}
