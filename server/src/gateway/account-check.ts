/**
 * The gateway's check of a call to an account API (`consentCheck` `accounts`), after
 * gateway/access.ts let the token in (a PSU's consent, or the PSU's SCA):
 * - the call must read a resource of the allow-list, by its canonical path
 *   (gateway/account-path.ts): the account list, an account, its balances or transactions;
 * - a token of an account_information consent reaches only the approved accounts and data
 *   (RTS Art. 36(1); consents/dynamic-linking.ts `accountAccess`), and the consent's use is
 *   recorded across instances (stores/consent-access.ts): without the PSU (no Berlin Group
 *   `PSU-IP-Address`) at most `frequencyPerDay` calls a UTC day (RTS Art. 36(5)(b)), and a
 *   one-off consent (`recurringIndicator: false`) only on the UTC day of its first call.
 * A PSU's own token without account details is the upstream's to filter by `X-User-Id`.
 */
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { BearerError, InvalidRequest, OAuthError, UnknownPath, type DpopChallenge } from "../kernel/errors.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { ConsentAccessStore } from "../stores/consent-access.js";
import type { AccountInformation } from "../consents/authorization-details.js";
import { accessLimits, accountAccess } from "../consents/dynamic-linking.js";
import { accountResource, type AccountResource } from "./account-path.js";

/** What the check needs besides the call. */
export interface AccountCheckContext {
  consentAccess: ConsentAccessStore;
  realm: string;
  now: Date;
  /** The challenge scheme of the call's errors (DPoP for a DPoP token, RFC 9449 §7.1). */
  dpop?: DpopChallenge;
}

const DAY_MS = 86_400_000;

/**
 * Holds a call to an account API to the allow-list and to the consent its token carries.
 * @param rest - the path forwarded to the upstream (from "/", with the query).
 * @throws UnknownPath 404 for a path off the allow-list; InvalidRequest 400 for a
 *   `PSU-IP-Address` that is not an IP address; BearerError 403
 *   `authorization_details_mismatch` for an account or data the PSU did not approve, 403
 *   `consent_invalid` for a one-off consent used on an earlier day; OAuthError 429
 *   `access_exceeded` (Berlin Group ACCESS_EXCEEDED) with `Retry-After` (seconds, until the
 *   next UTC day) for an unattended call over the consent's frequencyPerDay.
 */
export async function checkAccountCall(req: IncomingMessage, rest: string, token: PresentedToken, ctx: AccountCheckContext): Promise<void> {
  const resource = accountResource(rest);
  if (!resource) throw new UnknownPath("an account API serves the account list, an account, and its balances and transactions only");
  const consentId = token.consent?.consentId;
  const approved = (token.authorizationDetails ?? []).filter((d): d is AccountInformation => d.type === "account_information");
  // gateway/access.ts lets no other token with account details in: details without a consent are refused there.
  if (!consentId || approved.length === 0) return;
  const refuse = (code: "authorization_details_mismatch" | "consent_invalid", description: string) =>
    new BearerError(ctx.realm, 403, code, description, undefined, ctx.dpop);
  const mismatch = approvalMismatch(resource, approved);
  if (mismatch) throw refuse("authorization_details_mismatch", mismatch);
  const day = ctx.now.toISOString().slice(0, 10);
  const { frequencyPerDay, oneOff } = accessLimits(approved);
  const outcome = await ctx.consentAccess.record(consentId, { day, unattended: !psuPresent(req), limit: frequencyPerDay, oneOff });
  if (outcome === "usedUp") throw refuse("consent_invalid", "this one-off consent (recurringIndicator false) served the day of its first use only; ask the PSU for a new consent");
  if (outcome === "exceeded") {
    const retryAfter = Math.ceil((DAY_MS - (ctx.now.getTime() % DAY_MS)) / 1000);
    throw new OAuthError("access_exceeded", `the consent allows ${frequencyPerDay} access${frequencyPerDay === 1 ? "" : "es"} a day without the PSU (frequencyPerDay), all used today (UTC)`, 429, {
      "Retry-After": String(retryAfter),
    });
  }
}

/** Why the approved details do not cover `resource`, or undefined when they do. */
function approvalMismatch(resource: AccountResource, approved: readonly AccountInformation[]): string | undefined {
  if (resource.kind === "list") {
    return resource.withBalance && !approved.every((d) => d.access.balances === true) ? "the PSU did not authorize reading the balances of every account listed" : undefined;
  }
  const granted = accountAccess(resource.account, approved);
  if (!granted) return "this account is not among the accounts the PSU authorized";
  if ((resource.data === "balances" || resource.withBalance) && !granted.balances) return "the PSU did not authorize reading the balances of this account";
  if (resource.data === "transactions" && !granted.transactions) return "the PSU did not authorize reading the transactions of this account";
  return undefined;
}

/**
 * Whether the PSU takes part in the call: the TPP sent the PSU's IP address (Berlin Group
 * `PSU-IP-Address`, sent "if and only if this request was actively initiated by the PSU").
 * @throws InvalidRequest 400 for a value that is not one IPv4 or IPv6 address (also a repeated field, which Node joins with ", ").
 */
function psuPresent(req: IncomingMessage): boolean {
  const address = req.headers["psu-ip-address"];
  if (address === undefined) return false;
  if (typeof address !== "string" || isIP(address.trim()) === 0) throw new InvalidRequest("PSU-IP-Address must be the PSU's IPv4 or IPv6 address");
  return true;
}
