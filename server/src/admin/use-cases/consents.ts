/**
 * Revoking remembered consents, by an admin (any consent) or by the signed-in user (their
 * own). Each revocation voids, in the same transaction, the user's unredeemed codes and live
 * tokens at that app ({@link voidGrants}), and records its audit event there too.
 */
import type { RequestIds } from "../../kernel/request-context.js";
import { NotFound } from "../../kernel/domain-errors.js";
import type { ConsentRow } from "../../stores/consents.js";
import type { Database, Stores } from "../../stores/index.js";
import type { Revocation } from "../../stores/tokens.js";
import { auditedChange, revocationBy, voidGrants, type Audited } from "./common.js";

/** Revokes a live consent and voids what it granted. @returns the consent, or undefined when unknown or already revoked. */
async function revokeLive(stores: Stores, id: string, revocation: Revocation): Promise<ConsentRow | undefined> {
  const consent = await stores.consents.revoke(id, revocation.at);
  if (consent) await voidGrants(stores, { userId: consent.userId, appId: consent.appId }, revocation);
  return consent;
}

/** An admin revokes any live consent. @throws NotFound when unknown or already revoked. */
export function revokeConsent(db: Database, o: { id: string } & Audited): Promise<ConsentRow> {
  return auditedChange(db, o.audit, async (stores) => {
    const consent = await revokeLive(stores, o.id, revocationBy(o.audit));
    if (!consent) throw new NotFound("no live consent with this id");
    return consent;
  });
}

/**
 * The signed-in user revokes one of their own live consents, recorded as `consent.revoked`
 * by `user:<userId>` about the app, in the HTTP request `request` (its ids).
 * @throws NotFound when unknown, another user's, or already revoked.
 */
export function revokeMyConsent(db: Database, o: { id: string; userId: string; request?: RequestIds }): Promise<ConsentRow> {
  return db.transaction(async (stores) => {
    const own = (await stores.consents.find(o.id))?.userId === o.userId;
    const consent = own ? await revokeLive(stores, o.id, { at: new Date(), by: `user:${o.userId}` }) : undefined;
    if (!consent) throw new NotFound("no live consent of yours with this id");
    await stores.audit.record({ type: "consent.revoked", actor: `user:${o.userId}`, subject: consent.appId, request: o.request });
    return consent;
  });
}
