/**
 * PSD2 consents (RTS Art. 10 and 36; Berlin Group NextGenPSD2 consents and payments): what a
 * TPP asked for, as RFC 9396 authorization details (JSON text, kept as written so that tokens,
 * token responses and introspection carry them byte for byte), and what the PSU approved.
 *
 * Lifecycle: `received` (asked for) → `valid` (the PSU approved) or `rejected` (denied); a
 * valid consent then ends as `revokedByPsu` (Account page, or the bank's console on the PSU's
 * behalf), `terminatedByTpp` (the TPP deleted it), `expired` (past its `validUntil`: derived on
 * read, never written) or, for a payment, by what became of the payment at the upstream:
 * `paymentPending`, `consumed`, `paymentRejected` or `outcomeUnknown` (consents/lifecycle.ts).
 */

export type Psd2ConsentKind = "account_information" | "payment_initiation";
export type Psd2ConsentOrigin = "rar" | "berlin_group";
/** Stored statuses; `expired` is derived (consents/lifecycle.ts). */
export type Psd2ConsentStatus = "received" | "valid" | "rejected" | "revokedByPsu" | "terminatedByTpp" | "consumed" | PaymentStatus;

/** The stored statuses of a payment consent while and after its payment is forwarded (consents/lifecycle.ts). */
export type PaymentStatus = "paymentPending" | "paymentRejected" | "outcomeUnknown";

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
  /**
   * Account information: the end of the access (end of the `validUntil` day, UTC); a payment:
   * the end of the time to make it (set at the approval); null for a payment not yet approved.
   */
  validUntil: Date | null;
  statusChangedAt: Date;
  createdAt: Date;
  /** The X-Request-ID the payment was forwarded with; null when none, or nothing was forwarded. */
  paymentRequestId: string | null;
  /** SHA-256 hex of the payment body as the TPP sent it; null when nothing was forwarded. */
  paymentBodyHash: string | null;
  /** How often the payment was forwarded (a retry of an unknown outcome counts). */
  paymentAttempts: number;
  /** The ISO 20022 transaction status the upstream answered (e.g. `ACCP`, `RJCT`); null when none was read. */
  transactionStatus: string | null;
  /** Why the upstream rejected the payment, in its words; null otherwise. */
  statusReason: string | null;
}

/** A payment about to be forwarded: what identifies its retry. */
export interface PaymentAttempt {
  /** The X-Request-ID it is sent with; null when none (then an unknown outcome cannot be retried). */
  requestId: string | null;
  /** SHA-256 hex of the body as the TPP sent it. */
  bodyHash: string;
}

/**
 * What became of a pending payment (consents/lifecycle.ts): `valid` again when nothing was
 * sent (the payment fields cleared); `outcomeUnknown` with the attempts that count; `consumed`
 * or `paymentRejected` with the upstream's transaction status and reason.
 */
export type PaymentSettlement =
  | { status: "valid" }
  | { status: "outcomeUnknown"; attempts: number }
  | { status: "consumed" | "paymentRejected"; transactionStatus: string | null; reason: string | null };

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
   * The PSU's answer to a `received` consent: `valid` with the approved details (and, when
   * given, a new `validUntil`: a payment's end), or `rejected`.
   * @returns false when the consent is no longer `received` (answered already, or ended).
   */
  answer(id: string, answer: { userId: string; approvedDetails: string; validUntil?: Date } | { userId: string; rejected: true }, now: Date): Promise<boolean>;
  /**
   * Moves the consent from one of `from` to `to` (e.g. valid → consumed), atomically.
   * @returns false when its status was none of `from`.
   */
  transition(id: string, from: readonly Psd2ConsentStatus[], to: Psd2ConsentStatus, now: Date): Promise<boolean>;
  /**
   * Reserves the consent's payment, atomically (one conditional update, so that of payments
   * raced on one consent one alone is forwarded): a `valid` consent whose `validUntil` is after
   * `now` becomes `paymentPending` with `attempt` and 1 attempt; or an `outcomeUnknown` one
   * with that same request id (not null) and body hash, fewer than `maxAttempts` attempts and
   * `validUntil` after `now` becomes `paymentPending` with one attempt more.
   * @returns the attempt's number (1 for the first), or undefined when the consent was in neither case.
   */
  reservePayment(id: string, attempt: PaymentAttempt, maxAttempts: number, now: Date): Promise<number | undefined>;
  /**
   * Settles the consent's pending payment attempt number `attempt` as `to`, atomically.
   * @returns false when the consent is no longer `paymentPending` at that attempt.
   */
  settlePayment(id: string, attempt: number, to: PaymentSettlement, now: Date): Promise<boolean>;
  /**
   * Consents, newest first (at most 500), optionally of one PSU, one app (by client id), with one stored status
   * and/or matching `search`: the consent id exactly, or a case-insensitive literal part of the PSU's username,
   * a consumer key of the app or the app's name.
   */
  list(filter: { userId?: string | null; clientId?: string | null; status?: Psd2ConsentStatus | null; search?: string | null }): Promise<Psd2ConsentSummary[]>;
  /** @returns the consent with its app and PSU named, or undefined. */
  summary(id: string): Promise<Psd2ConsentSummary | undefined>;
  /** Deletes up to `limit` consents still `received` that were created before `before`. @returns how many. */
  deleteUnanswered(before: Date, limit: number): Promise<number>;
}
