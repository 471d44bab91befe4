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
import { BearerError, InvalidRequest, type DpopChallenge } from "../kernel/errors.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { Psd2ConsentStore } from "../stores/psd2-consents.js";
import type { AuditStore } from "../stores/audit.js";
import { contextOf } from "../kernel/request-context.js";
import { readBody } from "../kernel/body.js";
import type { AccountInformation, PaymentInitiation } from "../consents/authorization-details.js";
import { accountAccess, paymentMismatch } from "../consents/dynamic-linking.js";

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
  if (req.method !== "POST") return undefined;
  const payments = details.filter((d): d is PaymentInitiation => d.type === "payment_initiation");
  const consentId = token.consent?.consentId;
  if (payments.length === 0 || !consentId) throw refuse("consent_invalid", "a payment needs a token of a payment consent the PSU authorized");
  const body = await readBody(req, "a payment body", PAYMENT_BODY_LIMIT_BYTES);
  let payment: unknown;
  try {
    payment = JSON.parse(body.toString("utf8"));
  } catch {
    throw new InvalidRequest("the payment body is not JSON");
  }
  const mismatch = paymentMismatch(payment, payments);
  if (mismatch !== undefined) throw refuse("authorization_details_mismatch", mismatch);
  if (!(await ctx.consents.transition(consentId, ["valid"], "consumed", ctx.now))) {
    throw refuse("consent_invalid", "the payment consent was already used, or is revoked or over");
  }
  await ctx.audit.record({ type: "psd2_consent.consumed", actor: token.clientId, subject: consentId, request: contextOf(req) });
  return body;
}
