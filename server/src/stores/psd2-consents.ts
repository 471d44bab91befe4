/**
 * PSD2 consents (RTS Art. 10 and 36; Berlin Group NextGenPSD2 consents and payments): what a
 * TPP asked for, as RFC 9396 authorization details (JSON text, kept as written so that tokens,
 * token responses and introspection carry them byte for byte), and what the PSU approved.
 *
 * Lifecycle: `received` (asked for) → `valid` (the PSU approved) or `rejected` (denied); a
 * valid consent then ends as `revokedByPsu` (Account page, or the bank's console on the PSU's
 * behalf), `terminatedByTpp` (the TPP deleted it), `consumed` (its single payment was made) or
 * `expired` (account information past its `validUntil`: derived on read, never written).
 */

export type Psd2ConsentKind = "account_information" | "payment_initiation";
export type Psd2ConsentOrigin = "rar" | "berlin_group";
/** Stored statuses; `expired` is derived (consents/lifecycle.ts). */
export type Psd2ConsentStatus = "received" | "valid" | "rejected" | "revokedByPsu" | "terminatedByTpp" | "consumed";

export interface Psd2ConsentRecord {
  id: string;
  appId: string;
  /** The PSU who answered; null while received. */
  userId: string | null;
  kind: Psd2ConsentKind;
  origin: Psd2ConsentOrigin;
  status: Psd2ConsentStatus;
  /** The authorization details as asked for: JSON text of an array. */
  requestedDetails: string;
  /** As approved, with the accounts the PSU chose: JSON text of an array; null until valid. */
  approvedDetails: string | null;
  /** Account information: the end of the access (end of the `validUntil` day, UTC); null for payments. */
  validUntil: Date | null;
  statusChangedAt: Date;
  createdAt: Date;
}

/** A consent as the admin API and the Account page list it: with its app and PSU named. */
export interface Psd2ConsentSummary extends Psd2ConsentRecord {
  clientId: string;
  appName: string;
  organizationName: string;
  username: string | null;
}

export interface Psd2ConsentStore {
  create(consent: Pick<Psd2ConsentRecord, "appId" | "kind" | "origin" | "requestedDetails" | "validUntil">): Promise<Psd2ConsentRecord>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<Psd2ConsentRecord | undefined>;
  /**
   * The PSU's answer to a `received` consent: `valid` with the approved details, or `rejected`.
   * @returns false when the consent is no longer `received` (answered already, or ended).
   */
  answer(id: string, answer: { userId: string; approvedDetails: string } | { userId: string; rejected: true }, now: Date): Promise<boolean>;
  /**
   * Moves the consent from one of `from` to `to` (e.g. valid → consumed), atomically.
   * @returns false when its status was none of `from`.
   */
  transition(id: string, from: readonly Psd2ConsentStatus[], to: Psd2ConsentStatus, now: Date): Promise<boolean>;
  /** Consents, newest first, optionally of one PSU, one app (by client id) and/or with one stored status. */
  list(filter: { userId?: string | null; clientId?: string | null; status?: Psd2ConsentStatus | null }): Promise<Psd2ConsentSummary[]>;
  /** @returns the consent with its app and PSU named, or undefined. */
  summary(id: string): Promise<Psd2ConsentSummary | undefined>;
  /** Deletes up to `limit` consents still `received` that were created before `before`. @returns how many. */
  deleteUnanswered(before: Date, limit: number): Promise<number>;
}
