/**
 * PSD2 dynamic linking at the gateway (RTS Art. 5): a call made with a PSD2 consent's token
 * does only what the PSU authorized, which no authorization server can enforce alone.
 * An API's `consentCheck` (stores/catalog.ts) says what is checked:
 * - `payments`: a payment (POST) needs a token whose consent authorized payments; its body,
 *   in a closed shape, must name the authorized amount, currency, creditor account and name
 *   (a batch: each payment, in order; consents/dynamic-linking.ts); what is forwarded is the
 *   document compared ({@link checkConsent}); and it is forwarded at most once: the consent's
 *   payment is reserved before it is forwarded, and what became of it at the upstream decides
 *   the consent's state (consents/lifecycle.ts: valid again when nothing was sent, `consumed`,
 *   `paymentRejected`, or `outcomeUnknown`, whose retry with the same X-Request-ID and body
 *   alone is forwarded once more); any other payment is refused. A token with
 *   authorization details may not change a payment (PUT, PATCH: RTS Art. 5(1)(d)).
 * - `accounts`: gateway/account-check.ts: only the resources of the allow-list, by their
 *   canonical path; a token whose consent grants account access reaches only the authorized
 *   accounts, addressed by IBAN as the first path segment, and of those only the authorized
 *   data (`/balances`, `/transactions`), as often as the consent allows; the account list is
 *   the upstream's to filter, from the `X-Authorization-Details` field the gateway forwards.
 *   Who may call at all (the PSU's consent or SCA) is gateway/access.ts's.
 * Refusals are 403 with `WWW-Authenticate: Bearer error="authorization_details_mismatch"`
 * (the call differs from the authorization) or `error="consent_invalid"` (no consent for
 * payments, or it is used up, revoked or over).
 */
import type { IncomingMessage } from "node:http";
import { BearerError, InvalidRequest, OAuthError } from "../kernel/errors.js";
import { parseStrictJson, StrictJsonError } from "../kernel/strict-json.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { Psd2ConsentStore } from "../stores/psd2-consents.js";
import type { AuditStore } from "../stores/audit.js";
import { contextOf } from "../kernel/request-context.js";
import { readBody } from "../kernel/body.js";
import type { PaymentInitiation } from "../consents/authorization-details.js";
import { completedPayment, paymentMismatch } from "../consents/dynamic-linking.js";
import { checkAccountCall, type AccountCheckContext } from "./account-check.js";
import { reservePayment, settlePayment, whyNoPayment, type UpstreamOutcome } from "../consents/lifecycle.js";

/** Largest payment body the gateway reads to check, bytes (a batch of 100 payments fits). */
export const PAYMENT_BODY_LIMIT_BYTES = 64 * 1024;

/** What the checks need besides the call: those of an account API's check (the realm, the time, the DPoP challenge, the consent access store), and for payments: */
export interface ConsentCheckContext extends AccountCheckContext {
  consents: Psd2ConsentStore;
  /** Records what became of a payment (consents/lifecycle.ts `settlePayment`). */
  audit: AuditStore;
}

/** A checked call, as the gateway forwards it. */
export interface CheckedCall {
  /** The body to forward (a payment, as checked); undefined when the caller's body is streamed. */
  body?: Buffer;
  /** A reserved payment's settlement: records what became of it (consents/lifecycle.ts `settlePayment`). */
  settle?: (outcome: UpstreamOutcome) => Promise<void>;
}

/**
 * Holds a call to `api` to the consent its token carries.
 * @param rest - the path forwarded to the upstream (from "/", with the query).
 * @returns what to forward (gateway/router.ts): the body the gateway read (a payment, as
 *   checked; none when the body is left to stream) and, for a payment, the reserved payment's
 *   settlement, to call with what became of it at the upstream (consents/lifecycle.ts).
 * @throws BearerError 403 `authorization_details_mismatch` or `consent_invalid`; InvalidRequest 400 for a payment body that is not JSON; OAuthError 415 for one not sent as application/json, or content-coded; kernel/body.ts BodyTooLarge (413) for one too large;
 *   on an account API those of gateway/account-check.ts `checkAccountCall` (404 off the allow-list, 429 `access_exceeded`).
 */
export async function checkConsent(req: IncomingMessage, api: ApiRoute, rest: string, token: PresentedToken, ctx: ConsentCheckContext): Promise<CheckedCall> {
  const refuse = (code: "authorization_details_mismatch" | "consent_invalid", description: string) =>
    new BearerError(ctx.realm, 403, code, description, undefined, ctx.dpop);
  const details = token.authorizationDetails ?? [];
  if (api.consentCheck === "accounts") {
    await checkAccountCall(req, rest, token, ctx);
    return {};
  }
  if (api.consentCheck !== "payments") return {};
  // An authorized payment is never changed afterwards (RTS Art. 5(1)(d)); reading it or cancelling it is the upstream's to allow.
  if ((req.method === "PUT" || req.method === "PATCH") && details.length > 0) {
    throw refuse("authorization_details_mismatch", "a payment cannot be changed after the PSU authorized it");
  }
  // A body on anything but POST would reach the upstream unchecked (a PUT or DELETE read as a payment).
  if (req.method !== "POST" && hasBody(req)) throw new InvalidRequest("a payments API takes a body only on POST");
  if (req.method !== "POST") return {};
  const payments = details.filter((d): d is PaymentInitiation => d.type === "payment_initiation");
  const consentId = token.consent?.consentId;
  if (payments.length === 0 || !consentId) throw refuse("consent_invalid", "a payment needs a token of a payment consent the PSU authorized");
  const { sent, forwarded } = await checkedPayment(req, rest, payments, refuse);
  // The TPP's X-Request-ID when the request log took it as the request's id (well-formed), so that a retry can name it.
  const request = contextOf(req);
  const requestId = request !== undefined && req.headers["x-request-id"] === request.requestId ? request.requestId : null;
  const stores = { psd2Consents: ctx.consents, audit: ctx.audit };
  const reservation = await reservePayment(stores, consentId, { requestId, body: sent }, { clientId: token.clientId, request }, ctx.now);
  if (!reservation) throw refuse("consent_invalid", whyNoPayment(await ctx.consents.find(consentId), ctx.now));
  return { body: forwarded, settle: async (outcome) => void (await settlePayment(stores, reservation, outcome, new Date())) };
}

/** True when the request has a body (RFC 9112 §6.3: a Transfer-Encoding, or a Content-Length above 0). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/** `application/json`, with at most a UTF-8 charset (RFC 8259 §8.1). */
const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * The Berlin Group payment services a path may name (its first segment, decoded, in lower
 * case, without `;` parameters), and the body shape each takes: a single payment, or a bulk.
 * A periodic payment would be executed again and again on one authorization of one payment.
 */
const PAYMENT_SERVICES: Record<string, "single" | "bulk" | "refused"> = { payments: "single", "bulk-payments": "bulk", "periodic-payments": "refused" };

/**
 * Reads and checks a payment call's body against the approved payments (consents/dynamic-linking.ts
 * `paymentMismatch`): JSON (`Content-Type: application/json`, UTF-8 without a byte order mark,
 * RFC 8259 §8.1; no `Content-Encoding`, which the upstream would decode and the gateway did
 * not) without duplicate member names (RFC 8259 §4), of the shape the approval and the path
 * name, matching.
 * @returns `sent`: the body's bytes as the TPP sent them; `forwarded`: the document forwarded. The body's own bytes when it names everything the PSU
 *   approved: with duplicate names, a byte order mark, content codings and every member
 *   outside the closed shape refused, any JSON parser reads in them what was compared, and a
 *   body the TPP signed (Berlin Group `Digest` and `Signature`) stays verifiable. Else the
 *   serialisation of the compared document with the approved creditor name, remittance
 *   information and debtor account it left out (`completedPayment`); a digest of the TPP's
 *   bytes then no longer matches, so a TPP that signs its payments sends all three.
 * @throws InvalidRequest 400 (not JSON, duplicate names), OAuthError 415 (not application/json,
 *   content-coded), BodyTooLarge 413, and `refuse`'s 403 for a body that differs from the approval.
 */
async function checkedPayment(req: IncomingMessage, rest: string, approved: readonly PaymentInitiation[], refuse: (code: "authorization_details_mismatch", description: string) => Error): Promise<{ sent: Buffer; forwarded: Buffer }> {
  const type = req.headers["content-type"];
  if (type === undefined || !JSON_MEDIA_TYPE.test(type)) throw new OAuthError("invalid_request", "a payment body must be sent as application/json", 415);
  // RFC 9110 §15.5.16: 415 for a content coding the resource does not take.
  if (req.headers["content-encoding"] !== undefined) throw new OAuthError("invalid_request", "a payment body is checked as sent: send it without a Content-Encoding", 415);
  const service = PAYMENT_SERVICES[firstSegment(rest)];
  if (service === "refused") throw refuse("authorization_details_mismatch", "the PSU authorized one payment, not a periodic payment");
  const shape = approved.length === 1 ? "single" : "bulk";
  if (service !== undefined && service !== shape) throw refuse("authorization_details_mismatch", `the PSU authorized ${shape === "single" ? "one payment" : "a bulk of payments"}, which this path does not take`);
  const bytes = await readBody(req, "a payment body", PAYMENT_BODY_LIMIT_BYTES);
  let payment: unknown;
  try {
    payment = parseStrictJson(UTF8.decode(bytes));
  } catch (error) {
    throw new InvalidRequest(error instanceof StrictJsonError ? error.message : "the payment body is not UTF-8");
  }
  const mismatch = paymentMismatch(payment, approved);
  if (mismatch !== undefined) throw refuse("authorization_details_mismatch", mismatch);
  const completed = completedPayment(payment as Record<string, unknown>, approved);
  return { sent: bytes, forwarded: completed === undefined ? bytes : Buffer.from(JSON.stringify(completed)) };
}

/** Strict UTF-8 that keeps a byte order mark, which JSON.parse then refuses (RFC 8259 §8.1: none in JSON sent over a network). */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The first segment of a forwarded path, as an upstream would route it: percent-decoded, without `;` parameters, in lower case; "" for none or an undecodable one. */
function firstSegment(rest: string): string {
  const segment = rest.split("?")[0]!.split("/")[1] ?? "";
  try {
    return decodeURIComponent(segment.split(";")[0]!).toLowerCase();
  } catch {
    return "";
  }
}
