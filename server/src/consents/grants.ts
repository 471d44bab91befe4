/**
 * RFC 9396 authorization details at the token endpoint: what the grants (oauth/grants) do
 * with them. A code carries the details the PSU approved to its tokens; a refresh may ask for
 * a subset (§6.2); client credentials may ask for details of the client's types (§6.1),
 * carried as asked, no PSU being there to approve them.
 */
import type { ClientRecord } from "../stores/clients.js";
import type { GrantConsent } from "../stores/tokens.js";
import { approvedDetails, InvalidAuthorizationDetails, narrows, type AuthorizationDetail } from "./authorization-details.js";
import { productsForDetails, requestedDetails } from "./requests.js";

/** The details a grant carries, parsed (they were validated when approved). */
export function consentDetails(consent: GrantConsent): AuthorizationDetail[] {
  return JSON.parse(consent.authorizationDetails) as AuthorizationDetail[];
}

/** `products` (a token's API products by scope) and those the client's products grant for `details`, each once. */
export function withDetailsProducts(products: readonly string[], approved: ClientRecord["products"], details: readonly AuthorizationDetail[] | null | undefined): string[] {
  return details ? [...new Set([...products, ...productsForDetails(approved, details)])] : [...products];
}

/**
 * The consent of a refreshed token: the previous one, or, when the request sends
 * `authorization_details`, those details, which must only narrow the previous ones (RFC 9396
 * §6.2), with the approved accounts filled in where they leave them out.
 * @param text - the request's `authorization_details`, undefined when absent.
 * @throws InvalidAuthorizationDetails when they are malformed, or ask for more than was approved or for details the grant does not have.
 */
export function refreshedConsent(
  client: { products: ClientRecord["products"] },
  previous: GrantConsent | null,
  text: string | undefined,
  now: Date,
): GrantConsent | null {
  const requested = requestedDetails(client, text, now);
  if (!requested) return previous;
  const approved = previous ? consentDetails(previous) : [];
  if (!narrows(requested, approved)) throw new InvalidAuthorizationDetails("a refresh may only narrow the authorization details of the grant");
  const accounts = approved.flatMap((d) => (d.type === "account_information" ? (d.access.accounts ?? []) : []));
  const debtorAccount = approved.find((d) => d.type === "payment_initiation")?.debtorAccount;
  return { consentId: previous!.consentId, authorizationDetails: JSON.stringify(approvedDetails(requested, { accounts, debtorAccount })) };
}

/**
 * The consent of a client credentials token asking for `authorization_details`: the details as
 * asked (no PSU approves them, so no consent object); null when none are asked for.
 * @throws InvalidAuthorizationDetails as consents/authorization-details.ts parseAuthorizationDetails.
 */
export function clientCredentialsConsent(client: { products: ClientRecord["products"] }, text: string | undefined, now: Date): GrantConsent | null {
  const requested = requestedDetails(client, text, now);
  return requested && { consentId: null, authorizationDetails: JSON.stringify(requested) };
}
