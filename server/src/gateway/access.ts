/**
 * The gateway's access decision for one call: bearer token present, valid, meant for the API
 * (its audience, RFC 8707) and covering it (RFC 6750 §2.1 and §3.1; decisions.md "Errors"), and the user's authentication
 * behind it strong and recent enough for the API (step-up, RFC 9470 §3). Pure functions, no HTTP.
 */
import { ACR_PASSWORD, ACR_SCA, satisfiesAcr } from "../kernel/acr.js";
import { BearerError, type DpopChallenge } from "../kernel/errors.js";
import type { PresentedToken } from "../oauth/tokens.js";
import { resourceUri } from "../oauth/resource.js";
import type { ApiRoute } from "../stores/catalog.js";

/** The acr levels in words, for error descriptions. */
const ACR_WORDS: Record<string, string> = {
  [ACR_PASSWORD]: "a password sign-in",
  [ACR_SCA]: "strong customer authentication",
};

/** The authorization details type that a consent-checked API holds calls to. */
const CONSENT_TYPE: Record<ApiRoute["consentCheck"], string | undefined> = { none: undefined, payments: "payment_initiation", accounts: "account_information" };

/**
 * Decides whether `token` may call `api`.
 * @param token - the stored token for the presented value, or undefined when unknown.
 * @param gateway - the realm of the challenges, and BASE_URL, under which `api`'s resource URI is (oauth/resource.ts).
 * @param now - the time of the call, for the API's `maxAgeSeconds`.
 * @param dpop - for a DPoP-bound or DPoP-presented token: the errors then carry a
 *   `WWW-Authenticate: DPoP` challenge (RFC 9449 §7.1) instead of `Bearer`.
 * @throws BearerError 401 `invalid_token` when the token is unknown, revoked, expired, or
 *   its app or credential is no longer approved, or it has an audience (RFC 8707) without
 *   this API's resource URI; 403 `insufficient_scope` when none of its
 *   API products grants this API or a scope the API requires is missing (on an API with a
 *   `consentCheck`, a token of a consent the PSU approved with details of its type needs
 *   none: gateway/consent-check.ts holds it to them; details a client asserted itself at the
 *   client credentials grant never stand in for a scope), or when account data would be read
 *   without the PSU ({@link checkPsuBehindAccountData}); 401
 *   `insufficient_user_authentication` when the user's authentication does not meet the
 *   API's step-up requirement ({@link checkUserAuthentication}), or the PSU's does not meet
 *   SCA on an account API.
 */
export function checkAccess(
  token: PresentedToken | undefined,
  api: ApiRoute,
  gateway: { realm: string; baseUrl: string },
  now: Date,
  dpop?: DpopChallenge,
): asserts token is PresentedToken {
  const { realm } = gateway;
  if (!token?.active) {
    throw new BearerError(realm, 401, "invalid_token", "the access token is invalid, expired or revoked", undefined, dpop);
  }
  if (token.audience !== null && !token.audience.includes(resourceUri(gateway.baseUrl, api.name))) {
    throw new BearerError(realm, 401, "invalid_token", `the access token is not meant for the API "${api.name}" (its audience, RFC 8707)`, undefined, dpop);
  }
  const requiredScope = api.requiredScopes.join(" ");
  if (!token.apiProducts.some((p) => api.productNames.includes(p))) {
    throw new BearerError(realm, 403, "insufficient_scope", `no API product of this token grants the API "${api.name}"`, requiredScope, dpop);
  }
  // On an API that checks consents, the PSU's consent's details stand for its scope: they grant less than it.
  const consented = approvesConsentType(token, api);
  const missing = consented ? [] : api.requiredScopes.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    throw new BearerError(realm, 403, "insufficient_scope", `the API "${api.name}" requires scope ${missing.join(" ")}`, requiredScope, dpop);
  }
  if (api.consentCheck === "accounts" && !consented) checkPsuBehindAccountData(token, requiredScope, realm, dpop);
  checkUserAuthentication(token, api, realm, now, dpop);
}

/**
 * True when the token carries a PSD2 consent the PSU approved (a consent id) whose details
 * include the type `api` checks. Details without a consent (client credentials, RFC 9396
 * §6.1: asserted by the client, approved by nobody) never count.
 */
function approvesConsentType(token: PresentedToken, api: ApiRoute): boolean {
  const type = CONSENT_TYPE[api.consentCheck];
  return type !== undefined && !!token.consent?.consentId && token.authorizationDetails?.some((d) => d.type === type) === true;
}

/**
 * Account data (the account list, anything under an account) is read only with the PSU
 * (PSD2 Art. 67(2)(a) and RTS Art. 10: the PSU's explicit consent, behind strong customer
 * authentication): by a token of an account_information consent the PSU approved (checked
 * by the caller), or by a PSU's own token whose authentication met SCA (`acr`
 * urn:tollgate:sca, kernel/acr.ts). A token with no PSU (client credentials, also with
 * details it asserted itself) has not the privilege the resource needs: RFC 6750 §3.1
 * `insufficient_scope`; `consent_invalid` would say that a consent the token names is over,
 * and this token names none.
 * @throws BearerError 403 `insufficient_scope` without a PSU; 401
 *   `insufficient_user_authentication` with `acr_values` urn:tollgate:sca (RFC 9470 §3) for a
 *   PSU's authentication below SCA, so that the client asks for a new authorization with SCA.
 */
function checkPsuBehindAccountData(token: PresentedToken, requiredScope: string, realm: string, dpop: DpopChallenge | undefined): void {
  if (token.userId === null) {
    const description = "account data needs the PSU: a token of a consent the PSU approved, or of the PSU's strong customer authentication";
    throw new BearerError(realm, 403, "insufficient_scope", description, requiredScope, dpop);
  }
  if (satisfiesAcr(token.authentication?.acr, ACR_SCA)) return;
  const description = "account data needs the PSU's strong customer authentication, which this token's authentication did not meet";
  throw new BearerError(realm, 401, "insufficient_user_authentication", description, undefined, dpop, { acrValues: ACR_SCA });
}

/**
 * Step-up (RFC 9470 §3): when the API requires an `acr`, a `max_age`, or both, the user's
 * authentication behind the token must meet the acr (the same level or a stronger one,
 * kernel/acr.ts `satisfiesAcr`) and be at most `maxAgeSeconds` old at `now`. A token without
 * a user's authentication (client credentials) meets neither.
 * @throws BearerError 401 `insufficient_user_authentication`, whose challenge carries
 *   `acr_values` when the API requires an acr and `max_age` when it requires a maximum age,
 *   so that the client can ask for a new authorization with those parameters.
 */
function checkUserAuthentication(token: PresentedToken, api: ApiRoute, realm: string, now: Date, dpop: DpopChallenge | undefined): void {
  const { requiredAcr, maxAgeSeconds } = api;
  if (requiredAcr === null && maxAgeSeconds === null) return;
  const authentication = token.authentication;
  const needs = [
    requiredAcr === null ? undefined : (ACR_WORDS[requiredAcr] ?? requiredAcr),
    maxAgeSeconds === null ? undefined : `a sign-in within the last ${maxAgeSeconds} second${maxAgeSeconds === 1 ? "" : "s"}`,
  ].filter((n) => n !== undefined);
  let fault: string | undefined;
  if (authentication === null) fault = "this access token carries no user authentication";
  else if (requiredAcr !== null && !satisfiesAcr(authentication.acr, requiredAcr)) fault = "the user's authentication is not strong enough";
  else if (maxAgeSeconds !== null && now.getTime() - authentication.authTime.getTime() > maxAgeSeconds * 1000) fault = "the user's authentication is too old";
  if (fault === undefined) return;
  throw new BearerError(
    realm,
    401,
    "insufficient_user_authentication",
    `${fault}; this API requires ${needs.join(" and ")}`,
    undefined,
    dpop,
    { acrValues: requiredAcr ?? undefined, maxAge: maxAgeSeconds ?? undefined },
  );
}
