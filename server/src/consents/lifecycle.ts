/**
 * The lifecycle of a PSD2 consent past its approval (stores/psd2-consents.ts): how a
 * consent's status reads at a given time, and how a consent ends with its tokens.
 */
import type { Stores } from "../stores/index.js";
import type { Psd2ConsentRecord, Psd2ConsentStatus } from "../stores/psd2-consents.js";
import type { Revocation } from "../stores/tokens.js";

/** A status as shown and answered: a stored one, or `expired` for a valid consent past its end of access. */
export type Psd2ConsentState = Psd2ConsentStatus | "expired";

/** The consent's status at `now`: `expired` once a valid account consent's `validUntil` day is over. */
export function statusAt(consent: Pick<Psd2ConsentRecord, "status" | "validUntil">, now: Date): Psd2ConsentState {
  return consent.status === "valid" && consent.validUntil !== null && consent.validUntil <= now ? "expired" : consent.status;
}

/**
 * Ends a valid (or, for a TPP's own deletion, a still received) consent and revokes every
 * token issued under it, in the caller's transaction.
 * @param to - `revokedByPsu` (the PSU, or the bank for them) or `terminatedByTpp`.
 * @returns false when the consent was in none of `from` (already ended, consumed, rejected).
 */
export async function endConsent(
  stores: Pick<Stores, "psd2Consents" | "tokens">,
  id: string,
  from: readonly Psd2ConsentStatus[],
  to: "revokedByPsu" | "terminatedByTpp",
  revocation: Revocation,
): Promise<boolean> {
  if (!(await stores.psd2Consents.transition(id, from, to, revocation.at))) return false;
  await stores.tokens.revokeConsent(id, revocation);
  return true;
}
