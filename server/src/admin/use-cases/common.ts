/**
 * What the admin use cases share: the one transaction that carries a change together with
 * the revocations it takes and its audit event, and the lookups that must find their record.
 */
import { NotFound } from "../../kernel/domain-errors.js";
import type { AuditEventInput } from "../../stores/audit.js";
import type { Database, Stores } from "../../stores/index.js";
import type { Revocation, TokenOwner } from "../../stores/tokens.js";

/**
 * The option every admin change takes: its audit event, `admin.<mutation>` with the actor
 * (`admin:<username>` or `client:<client id>`), the subject and the arguments (passwords
 * redacted), recorded in the change's own transaction.
 */
export interface Audited {
  audit: AuditEventInput;
}

/**
 * Runs `change` and records `audit` in one transaction: both commit, or neither (a change
 * that throws records nothing).
 * @returns what `change` resolves to.
 */
export function auditedChange<T>(db: Database, audit: AuditEventInput, change: (stores: Stores) => Promise<T>): Promise<T> {
  return db.transaction(async (stores) => {
    const result = await change(stores);
    await stores.audit.record(audit);
    return result;
  });
}

/**
 * Awaits a store lookup that must find its record.
 * @throws NotFound with `message` when it found none.
 */
export async function found<T>(lookup: Promise<T | undefined>, message: string): Promise<T> {
  const record = await lookup;
  if (record === undefined) throw new NotFound(message);
  return record;
}

/**
 * Voids everything a user was granted (optionally only at one app), inside the caller's
 * transaction: unredeemed authorization codes are deleted first, then every live access and
 * refresh token is revoked. In this order a code exchange racing the revocation either finds
 * its code gone (its single-use guard then fails) or has committed its tokens, which the
 * revocation that follows reads and revokes.
 * @returns how many access tokens were revoked.
 */
export async function voidGrants(stores: Stores, owner: Required<Pick<TokenOwner, "userId">> & Pick<TokenOwner, "appId">, revocation: Revocation): Promise<number> {
  await stores.codes.deleteUnredeemed(owner);
  return stores.tokens.revokeTokensOf(owner, revocation);
}

/** The revocation made by the actor of `audit` (an admin, or a user for their own grants) at `at`. */
export function revocationBy(audit: AuditEventInput, at: Date = new Date()): Revocation {
  return { at, by: audit.actor ?? "" };
}
