/**
 * The lifecycle of a PSD2 consent past its approval (stores/psd2-consents.ts): how a
 * consent's status reads at a given time, how a consent ends with its tokens, and how a
 * payment consent follows its payment to the upstream and back.
 *
 * A payment consent, from the PSU's approval on (`validUntil` = approval +
 * PAYMENT_CONSENT_LIFETIME_SECONDS; past it a valid consent reads `expired` and pays nothing):
 *
 * ```
 *   valid ──(payment checked, reserved atomically)──► paymentPending (attempt 1)
 *   paymentPending ──(nothing was sent: connection refused, DNS, connect timeout, TLS)──► valid
 *                  ──(upstream 2xx)──► consumed, with the upstream's transactionStatus
 *                  ──(upstream 1xx/3xx/4xx/5xx, or a 2xx saying RJCT)──► paymentRejected, RJCT and the reason
 *                  ──(sent, no status line: timeout, connection cut)──► outcomeUnknown
 *   outcomeUnknown ──(same X-Request-ID, byte-identical body, attempts < 2, before validUntil)──► paymentPending (attempt 2)
 *   paymentPending (attempt 2) ──(nothing was sent)──► outcomeUnknown (attempt 1 still unknown)
 * ```
 *
 * At most once: the reservation is one conditional update, so of payments raced on one
 * consent one alone is forwarded, and nothing else is forwarded while one is pending or its
 * outcome unknown. The retry of an unknown outcome is forwarded once, with the TPP's own
 * X-Request-ID (Berlin Group NextGenPSD2: the request's id, unique per payment) and the same
 * body, so that the upstream's idempotency on that id decides; any other payment is refused.
 * Once the status line arrived the upstream's answer decides even if its body is cut: a 2xx
 * is a payment made. A consent left `paymentPending` (the gateway stopped before the answer)
 * stays so, as refusing as an unknown outcome (no retry is forwarded); the bank resolves it.
 */
import { createHash } from "node:crypto";
import { isDisplayText } from "../kernel/text.js";
import type { RequestIds } from "../kernel/request-context.js";
import type { AuditEventType } from "../stores/audit.js";
import type { Stores } from "../stores/index.js";
import type { PaymentSettlement, Psd2ConsentRecord, Psd2ConsentStatus } from "../stores/psd2-consents.js";
import type { Revocation } from "../stores/tokens.js";

/** A status as shown and answered: a stored one, or `expired` for a valid consent past its `validUntil`. */
export type Psd2ConsentState = Psd2ConsentStatus | "expired";

/** How often one payment is forwarded at most: once, and once more to resolve an unknown outcome. */
export const MAX_PAYMENT_ATTEMPTS = 2;

/** The longest reason of a rejection kept, code points. */
const REASON_LENGTH = 200;

/**
 * ISO 20022 ExternalPaymentTransactionStatus codes a Berlin Group ASPSP answers
 * (NextGenPSD2 Implementation Guidelines, transaction status).
 */
const TRANSACTION_STATUSES = new Set(["ACCC", "ACCP", "ACFC", "ACSC", "ACSP", "ACTC", "ACWC", "ACWP", "PART", "PATC", "PDNG", "RCVD", "RJCT", "CANC"]);

/** The consent's status at `now`: `expired` once a valid consent's `validUntil` is past (an account consent's day, a payment's lifetime). */
export function statusAt(consent: Pick<Psd2ConsentRecord, "status" | "validUntil">, now: Date): Psd2ConsentState {
  return consent.status === "valid" && consent.validUntil !== null && consent.validUntil <= now ? "expired" : consent.status;
}

/**
 * The end of an approved payment consent: `lifetimeSeconds` (PAYMENT_CONSENT_LIFETIME_SECONDS) after `approvedAt`.
 */
export function paymentConsentEnd(approvedAt: Date, lifetimeSeconds: number): Date {
  return new Date(approvedAt.getTime() + lifetimeSeconds * 1000);
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

/**
 * What became of a forwarded request (gateway/forward.ts): not sent at all; sent (as far as
 * anyone can tell) with no status line back; or answered with `status`, `body` holding what
 * of the answer's body arrived (complete or cut).
 */
export type UpstreamOutcome = { sent: false } | { sent: true; status?: undefined } | { sent: true; status: number; body: Buffer };

/** A payment reserved for forwarding: its consent, its attempt, and who sent it (for the audit). */
export interface PaymentReservation {
  consentId: string;
  attempt: number;
  clientId: string;
  request: RequestIds | undefined;
}

/**
 * Reserves the payment of `consentId` for forwarding (this file's state machine): the first
 * payment of a valid consent within its lifetime, or the retry of an unknown outcome.
 * @param payment - the TPP's X-Request-ID (null: none) and the body's bytes as the TPP sent them.
 * @returns the reservation, or undefined when the consent takes no payment now.
 */
export async function reservePayment(
  stores: Pick<Stores, "psd2Consents">,
  consentId: string,
  payment: { requestId: string | null; body: Buffer },
  caller: { clientId: string; request: RequestIds | undefined },
  now: Date,
): Promise<PaymentReservation | undefined> {
  const bodyHash = createHash("sha256").update(payment.body).digest("hex");
  const attempt = await stores.psd2Consents.reservePayment(consentId, { requestId: payment.requestId, bodyHash }, MAX_PAYMENT_ATTEMPTS, now);
  return attempt === undefined ? undefined : { consentId, attempt, ...caller };
}

/**
 * Why a payment consent takes no payment now, for the TPP's `consent_invalid` refusal.
 * @param consent - as read after a failed reservation; undefined when unknown.
 */
export function whyNoPayment(consent: Psd2ConsentRecord | undefined, now: Date): string {
  switch (consent && statusAt(consent, now)) {
    case "paymentPending":
      return "a payment under this consent is being forwarded";
    case "outcomeUnknown":
      if (consent!.paymentRequestId === null) return "the outcome of this consent's payment is unknown, and it was sent without an X-Request-ID to retry it with";
      return consent!.paymentAttempts < MAX_PAYMENT_ATTEMPTS
        ? "the outcome of this consent's payment is unknown: only its retry with the same X-Request-ID and the same body is forwarded"
        : "the outcome of this consent's payment is unknown, and it was retried already";
    case "consumed":
      return "the payment consent was used: its payment was made";
    case "paymentRejected":
      return "the bank rejected this consent's payment: a new payment needs a new authorization";
    case "expired":
      return "the payment consent is over: its time to make the payment has passed";
    default:
      return "the payment consent was already used, or is revoked or over";
  }
}

/**
 * The settlement of payment attempt `attempt` given what became of it (this file's state machine).
 */
export function settlementOf(outcome: UpstreamOutcome, attempt: number): PaymentSettlement {
  if (!outcome.sent) return attempt === 1 ? { status: "valid" } : { status: "outcomeUnknown", attempts: attempt - 1 };
  if (outcome.status === undefined) return { status: "outcomeUnknown", attempts: attempt };
  const answer = parsed(outcome.body);
  const named = answer?.transactionStatus;
  const transactionStatus = typeof named === "string" && TRANSACTION_STATUSES.has(named) ? named : null;
  if (outcome.status >= 200 && outcome.status < 300 && transactionStatus !== "RJCT") return { status: "consumed", transactionStatus, reason: null };
  return { status: "paymentRejected", transactionStatus: "RJCT", reason: reasonIn(answer) ?? `HTTP ${outcome.status}` };
}

/** The audit event of each settlement. */
const PAYMENT_EVENTS = {
  valid: "psd2_consent.payment_not_sent",
  outcomeUnknown: "psd2_consent.payment_outcome_unknown",
  consumed: "psd2_consent.consumed",
  paymentRejected: "psd2_consent.payment_rejected",
} as const satisfies Record<PaymentSettlement["status"], AuditEventType>;

/**
 * Records what became of a reserved payment (the consent's state and an audit event:
 * `psd2_consent.consumed`, `psd2_consent.payment_rejected`, `psd2_consent.payment_outcome_unknown`
 * or `psd2_consent.payment_not_sent`).
 * @returns false when the reservation was no longer pending (nothing recorded).
 */
export async function settlePayment(stores: Pick<Stores, "psd2Consents" | "audit">, reservation: PaymentReservation, outcome: UpstreamOutcome, now: Date): Promise<boolean> {
  const to = settlementOf(outcome, reservation.attempt);
  if (!(await stores.psd2Consents.settlePayment(reservation.consentId, reservation.attempt, to, now))) return false;
  const details = { attempt: reservation.attempt, ...("transactionStatus" in to ? { transaction_status: to.transactionStatus, reason: to.reason } : {}) };
  await stores.audit.record({ type: PAYMENT_EVENTS[to.status], actor: reservation.clientId, subject: reservation.consentId, details, request: reservation.request });
  return true;
}

/** The answer's body as a JSON object, or undefined. */
function parsed(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A rejection's reason in the upstream's words: its first Berlin Group `tppMessages` entry
 * (`code: text`), else an OAuth-style `error_description` or `error`; text a person may be
 * shown only (kernel/text.ts), cut to {@link REASON_LENGTH} code points.
 */
function reasonIn(answer: Record<string, unknown> | undefined): string | undefined {
  const message = Array.isArray(answer?.tppMessages) ? (answer.tppMessages[0] as Record<string, unknown> | undefined) : undefined;
  const candidates = [
    typeof message?.code === "string" && typeof message.text === "string" ? `${message.code}: ${message.text}` : message?.text ?? message?.code,
    answer?.error_description,
    answer?.error,
  ];
  const reason = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "" && isDisplayText(c));
  return reason === undefined ? undefined : [...reason.trim()].slice(0, REASON_LENGTH).join("");
}
