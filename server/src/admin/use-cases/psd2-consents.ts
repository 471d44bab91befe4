/**
 * Revoking PSD2 consents from the admin API: by the bank's console on the PSU's behalf (any
 * consent), or by the signed-in PSU on the Account page (their own). Either way the status
 * becomes `revokedByPsu` and every token of the consent is revoked, in one transaction with
 * its audit event (`admin.revokePsd2Consent`, or `psd2_consent.revoked` by the PSU).
 */
import { NotFound } from "../../kernel/domain-errors.js";
import type { RequestIds } from "../../kernel/request-context.js";
import type { Database } from "../../stores/index.js";
import type { Psd2ConsentSummary } from "../../stores/psd2-consents.js";
import { endConsent } from "../../consents/lifecycle.js";
import { revocationBy, type Audited } from "./common.js";

/**
 * Revokes a valid PSD2 consent.
 * @param o - the consent id; `userId` for a PSU revoking their own; the audit event (actor, request) to record.
 * @returns the consent as it is now.
 * @throws NotFound when it is unknown, another PSU's, or not valid (received, already ended, consumed).
 */
export function revokePsd2Consent(db: Database, o: { id: string; userId?: string; audit: Audited["audit"] }): Promise<Psd2ConsentSummary> {
  return db.transaction(async (stores) => {
    const consent = await stores.psd2Consents.find(o.id);
    const mine = consent !== undefined && (o.userId === undefined || consent.userId === o.userId);
    if (!mine || !(await endConsent(stores, o.id, ["valid"], "revokedByPsu", revocationBy(o.audit)))) {
      throw new NotFound(o.userId === undefined ? "no valid PSD2 consent with this id" : "no valid PSD2 consent of yours with this id");
    }
    await stores.audit.record({ ...o.audit, subject: o.id });
    return (await stores.psd2Consents.summary(o.id))!;
  });
}

/** The audit event of a PSU revoking their own consent. */
export function psuRevocation(userId: string, request: RequestIds | undefined): Audited["audit"] {
  return { type: "psd2_consent.revoked", actor: `user:${userId}`, request };
}
