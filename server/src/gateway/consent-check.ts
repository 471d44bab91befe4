/**
 * PSD2 dynamic linking at the gateway (RTS Art. 5): a call made with a PSD2 consent's token
 * does only what the PSU authorized, which no authorization server can enforce alone.
 * An API's `consentCheck` (stores/catalog.ts) says what is checked:
 * - `payments`: a payment (POST) needs a token whose consent authorized payments; its body
 *   must name the authorized amount, currency and creditor account (a batch: each payment, in
 *   order; consents/dynamic-linking.ts), and it uses the consent up (`consumed`): a second
 *   payment is refused. The consent is consumed when the payment is forwarded, so an upstream
 *   failure needs a new authorization rather than risking a payment made twice. A token with
 *   authorization details may not change a payment (PUT, PATCH: RTS Art. 5(1)(d)).
 * - `accounts`: a token whose consent grants account access reaches only the authorized
 *   accounts, addressed by IBAN as the first path segment, and of those only the authorized
 *   data (`/balances`, `/transactions`); the account list is the upstream's to filter, from
 *   the `X-Authorization-Details` field the gateway forwards. A token without account access
 *   details is held to its scopes alone, as before consents.
 * Refusals are 403 with `WWW-Authenticate: Bearer error="authorization_details_mismatch"`
 * (the call differs from the authorization) or `error="consent_invalid"` (no consent for
 * payments, or it is used up, revoked or over).
 */
import type { IncomingMessage } from "node:http";
import { BearerError, InvalidRequest, OAuthError, type DpopChallenge } from "../kernel/errors.js";
import { parseStrictJson, StrictJsonError } from "../kernel/strict-json.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { Psd2ConsentStore } from "../stores/psd2-consents.js";
import type { AuditStore } from "../stores/audit.js";
import { contextOf } from "../kernel/request-context.js";
import { readBody } from "../kernel/body.js";
import type { AccountInformation, PaymentInitiation } from "../consents/authorization-details.js";
import { accountAccess, paymentMismatch, withApprovedNames } from "../consents/dynamic-linking.js";

/** Largest payment body the gateway reads to check, bytes (a batch of 100 payments fits). */
export const PAYMENT_BODY_LIMIT_BYTES = 64 * 1024;

/** What the checks need besides the call. */
export interface ConsentCheckContext {
  consents: Psd2ConsentStore;
  /** Records the payment that used a consent up (`psd2_consent.consumed`). */
  audit: AuditStore;
  realm: string;
  now: Date;
  /** The challenge scheme of the call's errors (DPoP for a DPoP token, RFC 9449 §7.1). */
  dpop?: DpopChallenge;
}

/**
 * Holds a call to `api` to the consent its token carries.
 * @param rest - the path forwarded to the upstream (from "/", with the query).
 * @returns the body the gateway read (a payment, to forward as checked), or undefined when the body is left to stream.
 * @throws BearerError 403 `authorization_details_mismatch` or `consent_invalid`; InvalidRequest 400 for a payment body that is not JSON; kernel/body.ts BodyTooLarge (413) for one too large.
 */
export async function checkConsent(req: IncomingMessage, api: ApiRoute, rest: string, token: PresentedToken, ctx: ConsentCheckContext): Promise<Buffer | undefined> {
  const refuse = (code: "authorization_details_mismatch" | "consent_invalid", description: string) =>
    new BearerError(ctx.realm, 403, code, description, undefined, ctx.dpop);
  const details = token.authorizationDetails ?? [];
  if (api.consentCheck === "accounts") {
    const access = details.filter((d): d is AccountInformation => d.type === "account_information");
    if (access.length === 0) return undefined;
    const [account, data] = rest.split("?")[0]!.split("/").slice(1);
    if (!account) return undefined;
    const granted = accountAccess(decodeURIComponent(account), access);
    if (!granted) throw refuse("authorization_details_mismatch", "this account is not among the accounts the PSU authorized");
    if ((data === "balances" && !granted.balances) || (data === "transactions" && !granted.transactions)) {
      throw refuse("authorization_details_mismatch", `the PSU did not authorize reading the ${data} of this account`);
    }
    return undefined;
  }
  if (api.consentCheck !== "payments") return undefined;
  // An authorized payment is never changed afterwards (RTS Art. 5(1)(d)); reading it or cancelling it is the upstream's to allow.
  if ((req.method === "PUT" || req.method === "PATCH") && details.length > 0) {
    throw refuse("authorization_details_mismatch", "a payment cannot be changed after the PSU authorized it");
  }
  // A body on anything but POST would reach the upstream unchecked (a PUT or DELETE read as a payment).
  if (req.method !== "POST" && hasBody(req)) throw new InvalidRequest("a payments API takes a body only on POST");
  if (req.method !== "POST") return undefined;
  const payments = details.filter((d): d is PaymentInitiation => d.type === "payment_initiation");
  const consentId = token.consent?.consentId;
  if (payments.length === 0 || !consentId) throw refuse("consent_invalid", "a payment needs a token of a payment consent the PSU authorized");
  const forwarded = await checkedPayment(req, rest, payments, refuse);
  if (!(await ctx.consents.transition(consentId, ["valid"], "consumed", ctx.now))) {
    throw refuse("consent_invalid", "the payment consent was already used, or is revoked or over");
  }
  await ctx.audit.record({ type: "psd2_consent.consumed", actor: token.clientId, subject: consentId, request: contextOf(req) });
  return forwarded;
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
 * `paymentMismatch`): JSON (`Content-Type: application/json`, UTF-8) without duplicate member
 * names, of the shape the approval and the path name, matching.
 * @returns the document forwarded: the canonical serialisation of exactly what was compared,
 *   with the approved creditor name where the body had none (`withApprovedNames`).
 * @throws InvalidRequest 400 (not JSON, duplicate names), OAuthError 415 (not application/json),
 *   BodyTooLarge 413, and `refuse`'s 403 for a body that differs from the approval.
 */
async function checkedPayment(req: IncomingMessage, rest: string, approved: readonly PaymentInitiation[], refuse: (code: "authorization_details_mismatch", description: string) => Error): Promise<Buffer> {
  const type = req.headers["content-type"];
  if (type === undefined || !JSON_MEDIA_TYPE.test(type)) throw new OAuthError("invalid_request", "a payment body must be sent as application/json", 415);
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
  return Buffer.from(JSON.stringify(withApprovedNames(payment as Record<string, unknown>, approved)));
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The first segment of a forwarded path, as an upstream would route it: percent-decoded, without `;` parameters, in lower case; "" for none or an undecodable one. */
function firstSegment(rest: string): string {
  const segment = rest.split("?")[0]!.split("/")[1] ?? "";
  try {
    return decodeURIComponent(segment.split(";")[0]!).toLowerCase();
  } catch {
    return "";
  }
}
