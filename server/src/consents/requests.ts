/**
 * What an authorization request asks of a PSD2 consent, by either route to the one consent
 * model (stores/psd2-consents.ts):
 * - RFC 9396 `authorization_details` at PAR or `/authorize`: a consent is created for them
 *   (`received`) when the flow starts;
 * - the Berlin Group "OAuth2 SCA approach": the TPP created the consent or payment first
 *   (consents/berlin-group-api.ts) and names it in the scope, `AIS:<consentId>` or `PIS:<paymentId>`.
 * Which details types a client may ask for, and which of its API products they grant, come
 * from its approved products' `authorizationDetailsTypes`.
 */
import { InvalidRequest, InvalidScope } from "../kernel/errors.js";
import type { ClientRecord } from "../stores/clients.js";
import type { Psd2ConsentKind, Psd2ConsentStore } from "../stores/psd2-consents.js";
import { InvalidAuthorizationDetails, parseAuthorizationDetails, type AuthorizationDetail } from "./authorization-details.js";

type Products = readonly Pick<ClientRecord["products"][number], "name" | "authorizationDetailsTypes">[];

/** A Berlin Group consent scope: `AIS:` or `PIS:` and the resource id (a cuid). */
const BERLIN_GROUP_SCOPE = /^(AIS|PIS):([a-z0-9]{1,64})$/;

const KIND_OF_PREFIX: Record<string, Psd2ConsentKind> = { AIS: "account_information", PIS: "payment_initiation" };

/** The consent an authorization request asks for. */
export interface ConsentRequest {
  /** The authorization details to approve, as asked for. */
  details: AuthorizationDetail[];
  /** The Berlin Group consent named in the scope; null for `authorization_details` (the flow creates the consent). */
  consentId: string | null;
}

/** The RFC 9396 types the client's approved products offer. */
export function detailsTypesOf(products: Products): string[] {
  return [...new Set(products.flatMap((p) => p.authorizationDetailsTypes))];
}

/** The names of the client's products that offer one of the details' types: the API products a grant of them gets. */
export function productsForDetails(products: Products, details: readonly AuthorizationDetail[]): string[] {
  return products.filter((p) => details.some((d) => p.authorizationDetailsTypes.includes(d.type))).map((p) => p.name);
}

/** The consent kind of validated details (they never mix payments with account access). */
export function kindOf(details: readonly AuthorizationDetail[]): Psd2ConsentKind {
  return details[0]!.type;
}

/**
 * The end of an account information consent's access: the end of its `validUntil` day, UTC;
 * null for payments.
 */
export function accessEndOf(details: readonly AuthorizationDetail[]): Date | null {
  const access = details.find((d) => d.type === "account_information");
  return access ? new Date(`${access.validUntil}T23:59:59.999Z`) : null;
}

/**
 * Splits a Berlin Group consent scope off the requested scopes.
 * @returns the other scopes, and the consent's kind and id when one was named.
 * @throws InvalidScope when more than one consent scope is named.
 */
export function splitConsentScope(scopes: readonly string[]): { scopes: string[]; named: { kind: Psd2ConsentKind; id: string } | null } {
  const named = scopes.map((s) => BERLIN_GROUP_SCOPE.exec(s)).filter((m) => m !== null);
  if (named.length > 1) throw new InvalidScope("name one consent (AIS:<consentId> or PIS:<paymentId>) per authorization request");
  const match = named[0];
  return {
    scopes: match ? scopes.filter((s) => s !== match[0]) : [...scopes],
    named: match ? { kind: KIND_OF_PREFIX[match[1]!]!, id: match[2]! } : null,
  };
}

/**
 * The `authorization_details` parameter (RFC 9396 §2) parsed for `client`, or null when not sent.
 * @param text - the parameter's value, undefined when absent.
 * @throws InvalidAuthorizationDetails (400 `invalid_authorization_details`, §5) for anything malformed or a type the client may not use.
 */
export function requestedDetails(client: { products: Products }, text: string | undefined, now: Date): AuthorizationDetail[] | null {
  return text === undefined ? null : parseAuthorizationDetails(text, detailsTypesOf(client.products), now);
}

/**
 * The Berlin Group consent a scope names, for `client` to have authorized: it must be the
 * client's own, of the named kind, and still `received`.
 * @returns its authorization details as requested.
 * @throws InvalidScope when it is unknown, another client's, of the other kind, or no longer awaiting authorization.
 * @throws InvalidAuthorizationDetails when the client may no longer ask for its type.
 */
export async function berlinGroupConsent(
  consents: Psd2ConsentStore,
  client: { appId: string; products: Products },
  named: { kind: Psd2ConsentKind; id: string },
): Promise<ConsentRequest> {
  const consent = await consents.find(named.id);
  if (!consent || consent.appId !== client.appId || consent.kind !== named.kind || consent.status !== "received") {
    throw new InvalidScope("the consent named in the scope is unknown, not this client's, or no longer awaiting authorization");
  }
  if (!detailsTypesOf(client.products).includes(consent.kind)) {
    throw new InvalidAuthorizationDetails(`this client may not ask for ${consent.kind} any more`);
  }
  return { details: JSON.parse(consent.requestedDetails) as AuthorizationDetail[], consentId: consent.id };
}

/**
 * The consent part of an authorization request: `authorization_details`, or a Berlin Group
 * consent scope, never both.
 * @param scopes - the requested scopes, a consent scope among them or not.
 * @returns the remaining scopes and the consent request (null when neither was sent).
 * @throws InvalidRequest when both are sent; the errors of {@link requestedDetails},
 *   {@link splitConsentScope} and {@link berlinGroupConsent}.
 */
export async function consentRequestOf(
  consents: Psd2ConsentStore,
  client: { appId: string; products: Products },
  scopes: readonly string[],
  detailsText: string | undefined,
  now: Date,
): Promise<{ scopes: string[]; consent: ConsentRequest | null }> {
  const split = splitConsentScope(scopes);
  const details = requestedDetails(client, detailsText, now);
  if (details && split.named) throw new InvalidRequest("send authorization_details or a consent scope (AIS:/PIS:), not both");
  if (split.named) return { scopes: split.scopes, consent: await berlinGroupConsent(consents, client, split.named) };
  return { scopes: split.scopes, consent: details && { details, consentId: null } };
}
