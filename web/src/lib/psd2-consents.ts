/** A PSD2 consent in the console's words (the PSD2 consents list and a consent's page). */
import type { Psd2Consent } from "../api/admin";

/** A consent's kind in words. */
export const KIND_NAMES: Record<Psd2Consent["kind"], string> = { account_information: "Account access", payment_initiation: "Payment" };

/** Where a consent was asked for, in words: "through …". */
export const ORIGIN_NAMES: Record<Psd2Consent["origin"], string> = { rar: "OAuth (RFC 9396)", berlin_group: "the Berlin Group API" };

/** A consent in words: "PSD2 consent of alice for Acme Budgeting". */
export function describePsd2Consent(c: Pick<Psd2Consent, "username" | "appName">): string {
  return `PSD2 consent${c.username ? ` of ${c.username}` : ""} for ${c.appName}`;
}
