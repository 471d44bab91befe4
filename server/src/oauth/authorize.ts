/**
 * The authorization endpoint's rules (RFC 6749 §4.1.1, §4.1.2; RFC 7636; RFC 9207;
 * decisions.md "Authorization code flow"): validating the request, pushed first (RFC 9126)
 * or not, and issuing the code.
 */
import type { AuthorizationCodeStore } from "../stores/codes.js";
import type { ClientRecord, ClientStore } from "../stores/clients.js";
import type { PushedRequestStore } from "../stores/pushed-requests.js";
import type { CatalogStore } from "../stores/catalog.js";
import type { ReplayStore } from "../stores/replays.js";
import type { Authentication, GrantConsent } from "../stores/tokens.js";
import type { Psd2ConsentStore } from "../stores/psd2-consents.js";
import { consentRequestOf, productsForDetails, type ConsentRequest } from "../consents/requests.js";
import { ACR_SCA, ACR_VALUES, satisfiesAcr } from "../kernel/acr.js";
import { parseClaimsRequest } from "./claims-request.js";
import type { IdTokenHints } from "./id-token.js";
import type { Client } from "./client-auth.js";
import type { FormParams } from "./form.js";
import {
  AuthorizationErrorRedirect,
  InvalidAuthorizationRequest,
  InvalidDpopProof,
  InvalidRequest,
  InvalidScope,
  OAuthError,
} from "../kernel/errors.js";
import { isCleanText } from "../kernel/text.js";
import { isPkceValue } from "./pkce.js";
import { productScopes } from "./products.js";
import {
  authorizationResponse,
  errorResponseMode,
  keepEvidence,
  parseResponseMode,
  type AuthorizationAnswer,
  type AuthorizationRedirect,
  type AuthorizationResponder,
  type ResponseMode,
  type ResponseTarget,
} from "./authorization-response.js";
import { requestedResources, type ResourceServers } from "./resource.js";
import { InvalidRequestObject, type RequestObjects } from "./request-object.js";
import { grantScopes, OPENID_SCOPE, openIdScopes, parseScope } from "./scopes.js";
import { hashSecret, newSecret } from "../kernel/secrets.js";

/** Authorization code lifetime, seconds (decisions.md: 60 s). */
export const CODE_LIFETIME_SECONDS = 60;

/** The `prompt` values (OpenID Connect Core §3.1.2.1); `select_account` asks for a sign-in, as `login` does: one account per sign-in here. */
export const PROMPTS = ["none", "login", "consent", "select_account"] as const;

/** One of {@link PROMPTS}. */
export type Prompt = (typeof PROMPTS)[number];

/**
 * The values of a `prompt` parameter (§3.1.2.1): a space-separated list of {@link PROMPTS},
 * `none` alone.
 * @throws InvalidRequest for an unknown value, or `none` with another.
 */
export function parsePrompt(value: string | undefined): Prompt[] {
  const values = [...new Set((value ?? "").split(" ").filter((v) => v !== ""))];
  const unknown = values.find((v) => !(PROMPTS as readonly string[]).includes(v));
  if (unknown !== undefined) throw new InvalidRequest(`prompt values are ${PROMPTS.join(", ")}`);
  if (values.includes("none") && values.length > 1) throw new InvalidRequest("prompt=none may not be combined with other values (OpenID Connect Core section 3.1.2.1)");
  return values as Prompt[];
}

/** A validated authorization request. */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scopes: string[];
  /** Null only when allowed to be left out (rfc6749 profile with PKCE). */
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: "S256" | null;
  /** The `prompt` values; empty when not sent. */
  prompt: Prompt[];
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to (`dpop_jkt`). */
  dpopJkt: string | null;
  /** OpenID Connect Core §3.1.2.1: the `nonce` the ID token carries; null when not sent. */
  nonce: string | null;
  /** OpenID Connect Core §3.1.2.1 `login_hint`: the username to offer at sign-in; null when not sent. */
  loginHint: string | null;
  /** OpenID Connect Core §3.1.2.1 `ui_locales`: the languages the pages should speak, space-separated BCP 47 tags; null when not sent. */
  uiLocales: string | null;
  /** RFC 8707 resource indicators: the APIs the tokens are to be meant for (oauth/resource.ts); null when none. */
  resource: readonly string[] | null;
  /** The subject of the request's `id_token_hint` (§3.1.2.1): only that user's session may be reused; null when not sent. */
  hintedSubject: string | null;
  /** `max_age` (OpenID Connect Core §3.1.2.1, RFC 9470 §4): the most seconds since the user's last authentication; null when not sent. */
  maxAge: number | null;
  /**
   * Two factors are needed in this authentication (PSD2 RTS Art. 4): a requested scope
   * belongs to a `requiresSca` product of the client, or `acr_values` asks for `urn:tollgate:sca`.
   */
  scaRequired: boolean;
  /** The PSD2 consent asked for (RFC 9396 `authorization_details`, or a Berlin Group consent scope); null when none. */
  consent: ConsentRequest | null;
  /** The SHA-256 hex of the `request_uri` the request was pushed under (RFC 9126), used up when its code is issued; null when not pushed. */
  requestUriHash: string | null;
  /** How the authorization response is sent (`response_mode`; JARM §2.3: `query.jwt` for `jwt`). */
  responseMode: ResponseMode;
  /** The verified signed request object the parameters came in (RFC 9101), by value or pushed; null when unsigned. */
  requestObject: string | null;
  /** The bank's identity provider the PSU signs in at ({@link identityProviderOf}); null: Tollgate's own sign-in. */
  identityProviderId: string | null;
}

/** Lifetime of a pushed authorization request's `request_uri`, seconds (RFC 9126 §2.2; FAPI 2.0: at most 600, the issue: at most 60). */
export const REQUEST_URI_LIFETIME_SECONDS = 60;

/** The `request_uri` scheme of RFC 9126 §2.2. */
const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";

/** Every value of a parameter as sent (more than one is a repeat). */
type Values = (name: string) => string[];

/** Parameters that may not repeat (RFC 6749 §3.1). */
const SINGLE = [
  "client_id",
  "response_type",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "prompt",
  "dpop_jkt",
  "max_age",
  "acr_values",
  "request_uri",
  "authorization_details",
  "response_mode",
  "nonce",
  "login_hint",
  "id_token_hint",
  "claims",
  "ui_locales",
];

/** `max_age`: a non-negative integer of at most 9 digits (seconds). */
const MAX_AGE = /^\d{1,9}$/;

/**
 * The authorization parameters a client may push (RFC 9126 §2.1), kept with the pushed request;
 * `resource` may repeat (RFC 8707 §2), its values kept space-separated (oauth/form.ts).
 */
const PUSHABLE = [...SINGLE.filter((name) => name !== "request_uri"), "resource"];

/** Longest `ui_locales` accepted, in characters: a few language tags. */
export const MAX_UI_LOCALES_LENGTH = 128;

/** `ui_locales`: BCP 47 language tags (RFC 5646's characters), space-separated. */
const UI_LOCALES = /^[A-Za-z0-9-]+( [A-Za-z0-9-]+)*$/;

/** Longest `nonce` accepted, in characters (OpenID Connect sets none; it is stored with the code and signed into the ID token). */
export const MAX_NONCE_LENGTH = 512;

/** Longest `login_hint` accepted, in characters: a username or an e-mail address. */
export const MAX_LOGIN_HINT_LENGTH = 256;

/** A JWK SHA-256 thumbprint (RFC 7638): 43 base64url characters. */
const JKT = /^[A-Za-z0-9_-]{43}$/;

/** The one non-empty, clean value of `name`, or undefined. */
function one(values: Values, name: string): string | undefined {
  const all = values(name);
  return all.length === 1 && all[0] !== "" && isCleanText(all[0]!) ? all[0] : undefined;
}

/**
 * {@link one} for a parameter read once the redirect URI is known: a value that is not
 * well-formed text is an error, never ignored as if absent.
 * @throws InvalidRequest for a value with NUL or a lone surrogate.
 */
function given(values: Values, name: string): string | undefined {
  const all = values(name);
  if (all.length === 1 && all[0] !== "" && !isCleanText(all[0]!)) throw new InvalidRequest(`${name} is not well-formed text`);
  return one(values, name);
}

/** PKCE, for a `fapi2` app always (FAPI 2.0 §5.3.2.2), else as the app is set. */
function pkceRequired(client: Client): boolean {
  return client.requirePkce || client.securityProfile === "fapi2";
}

/**
 * Whether an OpenID Connect request (scope `openid`) of `client` must carry a `nonce`: OpenID
 * Connect Core §3.1.2.1 leaves it OPTIONAL in the code flow, so it is the app's choice
 * (`requireNonce`), and always for a `fapi2` app: Tollgate's choice, stricter than the FAPI 2.0
 * Security Profile, which relies on PKCE (§5.3.2.2) and does not require a nonce.
 * @param client - an app's setting and security profile (a client record or an app record).
 */
export function nonceRequired(client: Pick<ClientRecord, "requireNonce" | "securityProfile">): boolean {
  return client.requireNonce || client.securityProfile === "fapi2";
}

/**
 * The registered client named by `client_id`.
 * @throws InvalidAuthorizationRequest when `client_id` is missing, repeated or unknown.
 */
async function namedClient(clients: ClientStore, values: Values): Promise<ClientRecord> {
  if (values("client_id").length > 1) throw new InvalidAuthorizationRequest("invalid_request", "client_id is repeated");
  const clientId = one(values, "client_id");
  if (!clientId) throw new InvalidAuthorizationRequest("invalid_request", "client_id is required");
  const record = await clients.byConsumerKey(clientId);
  if (!record) throw new InvalidAuthorizationRequest("invalid_request", "unknown client_id");
  return record;
}

/**
 * The `redirect_uri`, when exactly registered for the client (RFC 6749 §3.1.2.3, RFC 9700 §2.1).
 * @throws InvalidAuthorizationRequest when it is missing, repeated or not registered.
 */
function registeredRedirectUri(client: Pick<ClientRecord, "callbackUrls">, values: Values): string {
  if (values("redirect_uri").length > 1) throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri is repeated");
  const redirectUri = one(values, "redirect_uri");
  if (!redirectUri) throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri is required");
  if (!client.callbackUrls.includes(redirectUri)) {
    throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri does not match a callback URL registered for this client");
  }
  return redirectUri;
}

/**
 * Checks everything after the client and its redirect URI.
 * @param resources - the APIs a `resource` may name (RFC 8707).
 * @param pushed - the parameters came through PAR (RFC 9126), which a `fapi2` app must use.
 * @param now - for the validity dates of authorization details.
 * @throws OAuthError with the RFC's code: unsupported `response_type`, missing `state`,
 *   invalid or missing scope, PKCE problems, unknown `prompt`, a malformed `dpop_jkt`,
 *   repeats, a malformed `claims`, an oversized `nonce` or `login_hint`, no `nonce` in an
 *   `openid` request of a client that requires one ({@link nonceRequired}), an `id_token_hint`
 *   that is not one of our ID tokens for this client, `unmet_authentication_requirements`
 *   for an essential `acr` no authentication here meets (OpenID Connect Core §5.5.1.1),
 *   for a `fapi2` app a request that was not pushed, `invalid_authorization_details`
 *   (RFC 9396 §5) or `invalid_scope` for the consent asked for (consents/requests.ts),
 *   `invalid_target` for a `resource` that is no API of the client's products (RFC 8707 §2),
 *   and `invalid_request` for a malformed or oversized `ui_locales`.
 */
async function checkParameters(
  consents: Psd2ConsentStore,
  resources: ResourceServers,
  hints: IdTokenHints,
  client: Client,
  values: Values,
  pushed: boolean,
  now: Date,
): Promise<Omit<AuthorizationRequest, "client" | "redirectUri" | "requestUriHash">> {
  const repeated = SINGLE.find((n) => values(n).length > 1);
  if (repeated) throw new InvalidRequest(`parameter "${repeated}" is repeated`);
  if (client.securityProfile === "fapi2" && !pushed) {
    throw new InvalidRequest("this client must push its authorization request first (PAR, RFC 9126) and send only client_id and request_uri");
  }
  if (client.requireSignedRequestObject && values("request").length === 0) {
    throw new InvalidRequest("this client must send its authorization parameters in a signed request object (the request parameter, RFC 9101)");
  }
  const responseType = given(values, "response_type");
  if (!responseType) throw new InvalidRequest("response_type is required");
  if (responseType !== "code") throw new OAuthError("unsupported_response_type", "only response_type=code is supported");
  // OAuth 2.0 Multiple Response Type Encoding Practices §2.1 and JARM §2.3: the answer comes in the query, plain or signed.
  const responseMode = parseResponseMode(given(values, "response_mode"));
  const state = given(values, "state");
  const codeChallenge = given(values, "code_challenge") ?? null;
  const pkceMayReplaceState = client.tokenResponseProfile === "rfc6749" || client.securityProfile === "fapi2";
  if (!state && !(pkceMayReplaceState && codeChallenge !== null)) {
    throw new InvalidRequest(pkceMayReplaceState ? "state is required unless PKCE (code_challenge) is used" : "state is required");
  }

  // JSON may span lines: only one value (empty: not sent, RFC 6749 §3.1), and text a database can hold (the details are parsed strictly).
  const detailsText = values("authorization_details")[0] || undefined;
  if (detailsText !== undefined && !isCleanText(detailsText)) throw new InvalidRequest("authorization_details is not valid text");
  const requested = await consentRequestOf(consents, client, parseScope(given(values, "scope")), detailsText, now);
  if (requested.scopes.length === 0 && !requested.consent) throw new InvalidScope("scope is required");
  const scopes = requested.scopes.length === 0 ? [] : grantScopes(requested.scopes, [...productScopes(client.products), ...openIdScopes(requested.scopes)]);
  const consent = requested.consent;

  const method = given(values, "code_challenge_method") ?? null;
  if (codeChallenge === null) {
    if (method !== null) throw new InvalidRequest("code_challenge_method without code_challenge");
    if (pkceRequired(client)) throw new InvalidRequest("PKCE is required for this client: send code_challenge with code_challenge_method=S256");
  } else {
    if (method !== "S256") throw new InvalidRequest("code_challenge_method must be S256 (plain is not supported)");
    if (!isPkceValue(codeChallenge)) throw new InvalidRequest("code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~");
  }

  const prompt = parsePrompt(given(values, "prompt"));
  const dpopJkt = given(values, "dpop_jkt") ?? null;
  if (dpopJkt !== null && !JKT.test(dpopJkt)) throw new InvalidRequest("dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters, RFC 9449 section 10)");
  const nonce = given(values, "nonce") ?? null;
  if (nonce !== null && nonce.length > MAX_NONCE_LENGTH) throw new InvalidRequest(`nonce may have at most ${MAX_NONCE_LENGTH} characters`);
  if (nonce === null && scopes.includes(OPENID_SCOPE) && nonceRequired(client)) throw new InvalidRequest("nonce is required for this client");
  const loginHint = given(values, "login_hint") ?? null;
  if (loginHint !== null && loginHint.length > MAX_LOGIN_HINT_LENGTH) throw new InvalidRequest(`login_hint may have at most ${MAX_LOGIN_HINT_LENGTH} characters`);
  const uiLocales = given(values, "ui_locales") ?? null;
  if (uiLocales !== null && (uiLocales.length > MAX_UI_LOCALES_LENGTH || !UI_LOCALES.test(uiLocales))) {
    throw new InvalidRequest(`ui_locales must be space-separated language tags, at most ${MAX_UI_LOCALES_LENGTH} characters`);
  }
  const resourceValues = values("resource");
  if (resourceValues.some((v) => !isCleanText(v))) throw new InvalidRequest("resource is not well-formed text");
  const resource = (await requestedResources(resourceValues.length === 0 ? undefined : resourceValues.join(" "), client, resources)) ?? null;
  const idTokenHint = given(values, "id_token_hint");
  const hintedSubject = idTokenHint === undefined ? null : await hints(idTokenHint, client.clientId);
  const maxAge = given(values, "max_age") ?? null;
  if (maxAge !== null && !MAX_AGE.test(maxAge)) throw new InvalidRequest("max_age must be a non-negative number of seconds");
  // acr_values is a voluntary request (OpenID Connect Core §5.5.1.1): unknown values are ignored. The claims
  // parameter's acr is too, unless essential: then a value this server assigns must be among those asked for.
  const claimsText = given(values, "claims");
  const acrClaim = claimsText === undefined ? null : parseClaimsRequest(claimsText).acr;
  if (acrClaim?.essential && acrClaim.values.length > 0 && !acrClaim.values.some((acr) => (ACR_VALUES as readonly string[]).includes(acr))) {
    throw new OAuthError("unmet_authentication_requirements", `no authentication here meets the essential acr asked for; this server assigns ${ACR_VALUES.join(", ")}`);
  }
  const scaRequested = [...parseScope(given(values, "acr_values")), ...(acrClaim?.values ?? [])].some((acr) => satisfiesAcr(acr, ACR_SCA));
  const consentProducts = consent ? productsForDetails(client.products, consent.details) : [];
  const requestedProducts = client.products.filter((p) => p.scopes.some((s) => scopes.includes(s)) || consentProducts.includes(p.name));
  const scaRequired = scaRequested || requestedProducts.some((p) => p.requiresSca);

  return {
    scopes,
    state: state ?? null,
    codeChallenge,
    codeChallengeMethod: codeChallenge === null ? null : "S256",
    prompt,
    dpopJkt,
    nonce,
    loginHint,
    uiLocales,
    resource,
    hintedSubject,
    maxAge: maxAge === null ? null : Number(maxAge),
    scaRequired,
    consent,
    responseMode,
    requestObject: given(values, "request") ?? null,
    identityProviderId: identityProviderOf(client, requestedProducts),
  };
}

/**
 * The bank's identity provider a PSU signs in at for a request (federation/): the app's, or
 * else the one the requested API products name (those granting a requested scope or
 * authorization details type); null: Tollgate's own sign-in.
 * @throws InvalidRequest when the requested products name different identity providers.
 */
function identityProviderOf(client: Client, requested: Client["products"]): string | null {
  if (client.identityProviderId !== null) return client.identityProviderId;
  const named = [...new Set(requested.map((p) => p.identityProviderId).filter((id) => id !== null))];
  if (named.length > 1) throw new InvalidRequest("the requested scopes belong to API products whose users sign in at different identity providers: ask for them separately");
  return named[0] ?? null;
}

/**
 * The parameters of a request object sent by value to the authorization endpoint (RFC 9101
 * §5.1), beside which only `client_id` may be sent: only the object's parameters count.
 * @returns them, and `request` (the mark of a signed request).
 * @throws InvalidAuthorizationRequest (an error page: the object's redirect URI is not trusted
 *   before it verifies) `invalid_request` for another parameter beside it or a repeated one,
 *   `invalid_request_object` for an object that does not verify.
 */
async function requestObjectValues(requestObjects: RequestObjects, client: ClientRecord, params: URLSearchParams, now: Date): Promise<Values> {
  const beside = [...new Set(params.keys())].filter((name) => name !== "client_id" && name !== "request" && sent(params, name).length > 0);
  if (beside.length > 0) throw new InvalidAuthorizationRequest("invalid_request", `with a request object every parameter goes inside it (RFC 9101 section 5): ${beside.slice(0, 5).join(", ").slice(0, 200)} was sent beside it`);
  const jwt = one((n) => params.getAll(n), "request");
  if (jwt === undefined) throw new InvalidAuthorizationRequest("invalid_request", "request must be sent once, not empty");
  let parameters: Record<string, string>;
  try {
    parameters = await requestObjects(jwt, client, now);
  } catch (error) {
    throw error instanceof InvalidRequestObject ? new InvalidAuthorizationRequest("invalid_request_object", error.message) : error;
  }
  return (name) => (name === "request" ? [jwt] : name in parameters ? [parameters[name]!] : []);
}

/** Every non-empty value of a front-channel parameter (RFC 6749 §3.1: one sent without a value is omitted). */
function sent(params: URLSearchParams, name: string): string[] {
  return params.getAll(name).filter((v) => v !== "");
}

/**
 * The pushed parameters a `request_uri` refers to, read without using them up: the page may
 * be loaded again until a code is issued for them (FAPI 2.0 §5.3.2.2 note 3; {@link claimPushedRequest}).
 * Parameters sent beside `client_id` and `request_uri` are ignored when they repeat the pushed
 * values (RFC 9101 §5: the pushed request is what is used; openid-client 5 repeats `scope`,
 * `response_type` and `redirect_uri`), and refused when they differ or were not pushed.
 * @returns the pushed values and the `request_uri`'s hash.
 * @throws InvalidAuthorizationRequest when the `request_uri` is unknown, expired, used or
 *   another client's (one answer for all four, so another client learns nothing and uses
 *   nothing up), or a parameter beside it differs from the pushed request.
 */
async function pushedParameters(pushedRequests: PushedRequestStore, client: ClientRecord, params: URLSearchParams, now: Date): Promise<{ values: Values; requestUriHash: string }> {
  const requestUri = one((n) => params.getAll(n), "request_uri");
  const requestUriHash = requestUri?.startsWith(REQUEST_URI_PREFIX) ? hashSecret(requestUri) : undefined;
  const pushed = requestUriHash === undefined ? undefined : await pushedRequests.find(requestUriHash, now);
  if (!pushed || pushed.appId !== client.appId) throw new InvalidAuthorizationRequest("invalid_request", "request_uri is unknown, expired or already used");
  const values: Values = (name) => (name in pushed.parameters ? [pushed.parameters[name]!] : []);
  const differs = (name: string) => {
    const front = sent(params, name);
    return front.length > 0 && (front.length > 1 || front[0] !== values(name)[0]);
  };
  const differing = [...new Set(params.keys())].filter((name) => name !== "client_id" && name !== "request_uri" && differs(name));
  if (differing.length > 0) {
    const named = differing.filter((name) => PUSHABLE.includes(name));
    throw new InvalidAuthorizationRequest(
      "invalid_request",
      `parameters beside request_uri must equal the pushed ones, which are used (RFC 9126 section 4): ${named.length > 0 ? `${named.join(", ")} ${named.length > 1 ? "differ" : "differs"}` : "one was not pushed"}`,
    );
  }
  return { values, requestUriHash: requestUriHash! };
}

/**
 * Validates an authorization request's query string, or the request a `request_uri` refers
 * to (RFC 9126 §4).
 * @param hints - reads an `id_token_hint` (oauth/id-token.ts).
 * @param requestObjects - reads a request object sent by value (RFC 9101 §5.1, oauth/request-object.ts).
 * @param baseUrl - BASE_URL: the APIs behind it are the resources a `resource` may name (RFC 8707).
 * @param query - the raw query string (without `?`).
 * @param responder - answers the errors after the redirect URI is known, in the request's response mode (oauth/authorization-response.ts).
 * @param now - for a pushed request's expiry and a signed error response's `exp`.
 * @throws InvalidAuthorizationRequest (shown as a page, never redirected) when `client_id`
 *   is missing, unknown or revoked, `redirect_uri` is missing or not exactly registered, or
 *   the `request_uri` cannot be used.
 * @throws AuthorizationErrorRedirect for every other error ({@link checkParameters}).
 *   `state` is required (the spec's flow), except for apps of the `rfc6749` or `fapi2`
 *   profile when the request carries a PKCE `code_challenge`: RFC 9700 §2.1 lets PKCE
 *   protect such a client against CSRF, and standard clients (openid-client) then send no `state`.
 */
export async function validateAuthorizationRequest(
  stores: { clients: ClientStore; pushedRequests: PushedRequestStore; psd2Consents: Psd2ConsentStore; catalog: CatalogStore },
  hints: IdTokenHints,
  requestObjects: RequestObjects,
  baseUrl: string,
  query: string,
  responder: AuthorizationResponder,
  now: Date,
): Promise<AuthorizationRequest> {
  const params = new URLSearchParams(query);
  const record = await namedClient(stores.clients, (n) => params.getAll(n));
  // A parameter sent without a value is omitted (RFC 6749 §3.1).
  const byValue = sent(params, "request").length > 0;
  if (byValue && params.has("request_uri")) throw new InvalidAuthorizationRequest("invalid_request", "request and request_uri may not be sent together (RFC 9101 section 5)");
  const pushed = params.has("request_uri") ? await pushedParameters(stores.pushedRequests, record, params, now) : undefined;
  const signed = byValue ? await requestObjectValues(requestObjects, record, params, now) : undefined;
  const values = pushed?.values ?? signed ?? ((n: string) => params.getAll(n));
  const redirectUri = registeredRedirectUri(record, values);
  if (record.appStatus !== "approved" || record.credentialStatus !== "approved") {
    throw new InvalidAuthorizationRequest("unauthorized_client", "this client is revoked");
  }
  const { consumerSecretHash: _, ...client } = record;
  try {
    const checked = await checkParameters(stores.psd2Consents, { baseUrl, catalog: stores.catalog }, hints, client, values, pushed !== undefined, now);
    return { client, redirectUri, ...checked, requestUriHash: pushed?.requestUriHash ?? null };
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const target = {
      redirectUri,
      state: one(values, "state") ?? null,
      clientId: client.clientId,
      responseMode: errorResponseMode(one(values, "response_mode")),
      appId: client.appId,
      userId: null,
      psd2ConsentId: null,
      requestObject: null,
    };
    throw new AuthorizationErrorRedirect(await errorRedirect(responder, target, err.error, err.message, now));
  }
}

/**
 * Validates a pushed authorization request (RFC 9126 §2.1) of an authenticated client, as
 * the authorization endpoint would, and keeps it for one use.
 * @param baseUrl - BASE_URL: the APIs behind it are the resources a `resource` may name (RFC 8707).
 * @param requestObjects - reads a request object pushed as `request` (RFC 9101 §5; FAPI 2.0 Message Signing §5.3.1).
 * @param params - the PAR body, client authentication included (left out of what is kept).
 * @param dpopJkt - the key of the request's DPoP proof, if any (RFC 9449 §10.1): it must
 *   equal a `dpop_jkt` sent too, and binds the code when none is.
 * @returns the `request_uri` and its lifetime in seconds, for the 201 answer (§2.2).
 * @throws OAuthError 400 with the RFC's code for an invalid request, `invalid_request_object`
 *   for a request object that does not verify (oauth/request-object.ts), and `invalid_request`
 *   for a `request_uri` in the body (§2.1) or an authorization parameter beside a request object.
 */
export async function pushAuthorizationRequest(
  stores: { pushedRequests: PushedRequestStore; psd2Consents: Psd2ConsentStore; catalog: CatalogStore },
  hints: IdTokenHints,
  requestObjects: RequestObjects,
  baseUrl: string,
  client: Client,
  params: FormParams,
  dpopJkt: string | undefined,
  now: Date,
): Promise<{ requestUri: string; expiresIn: number }> {
  if (params.request_uri !== undefined) throw new InvalidRequest("request_uri may not be pushed (RFC 9126 section 2.1)");
  const beside = params.request === undefined ? [] : PUSHABLE.filter((name) => name !== "client_id" && params[name] !== undefined);
  if (beside.length > 0) throw new InvalidRequest(`with a request object every authorization parameter goes inside it (RFC 9101 section 5): ${beside.join(", ")} was sent beside it`);
  // Only the request object's parameters count; it is kept with them (the mark of a signed request, and its evidence).
  const authorization = params.request === undefined ? params : { ...(await requestObjects(params.request, client, now)), request: params.request };
  if (dpopJkt !== undefined && authorization.dpop_jkt !== undefined && authorization.dpop_jkt !== dpopJkt) {
    throw new InvalidDpopProof("dpop_jkt does not match the key of the DPoP proof (RFC 9449 section 10.1)");
  }
  const kept: Record<string, string> = { client_id: client.clientId };
  for (const name of [...PUSHABLE, "request"]) if (authorization[name] !== undefined) kept[name] = authorization[name];
  if (dpopJkt !== undefined) kept.dpop_jkt = dpopJkt;
  const values: Values = (name) => (name in kept ? [kept[name]!] : []);
  try {
    registeredRedirectUri(client, values);
  } catch (err) {
    // The PAR endpoint answers JSON (RFC 9126 §2.3), not the error page of /authorize.
    if (err instanceof InvalidAuthorizationRequest) throw new InvalidRequest(err.message);
    throw err;
  }
  await checkParameters(stores.psd2Consents, { baseUrl, catalog: stores.catalog }, hints, client, values, true, now);
  const requestUri = REQUEST_URI_PREFIX + newSecret();
  await stores.pushedRequests.insert({
    requestUriHash: hashSecret(requestUri),
    appId: client.appId,
    parameters: kept,
    expiresAt: new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000),
  });
  return { requestUri, expiresIn: REQUEST_URI_LIFETIME_SECONDS };
}

/**
 * Uses up the pushed request a code is about to be issued for: once a code is issued, no
 * other sign-in started from the same `request_uri` (a reload, another tab) gets one, and
 * the `request_uri` cannot be loaded again (RFC 9126 §4, FAPI 2.0 §5.3.2.2 note 3). The claim
 * is a used-once record (stores/replays.ts), kept `keepSeconds` from `now`, so it holds even
 * after the pushed request itself expired and was purged while the user signed in.
 * @param requestUriHash - the SHA-256 hex of the `request_uri` ({@link AuthorizationRequest.requestUriHash}).
 * @param keepSeconds - how long any sign-in started from it may still be answered: the interaction lifetime, seconds.
 * @returns false when a code was already issued for it.
 */
export async function claimPushedRequest(
  stores: { pushedRequests: PushedRequestStore; replays: ReplayStore },
  requestUriHash: string,
  keepSeconds: number,
  now: Date,
): Promise<boolean> {
  if (!(await stores.replays.firstUse(hashSecret(`pushed-request:${requestUriHash}`), new Date(now.getTime() + keepSeconds * 1000), now))) return false;
  // No further load at /authorize; one past its lifetime could not be loaded anyway.
  await stores.pushedRequests.use(requestUriHash, now);
  return true;
}

/** What an authorization code is bound to, and where and how it is sent ({@link ResponseTarget}). */
export interface CodeGrant extends ResponseTarget {
  userId: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  dpopJkt: string | null;
  nonce: string | null;
  /** RFC 8707: the resource indicators of the request, carried to the tokens' audience; null when none. */
  resource: readonly string[] | null;
  /** How the user authenticated (`acr`, `amr`, `auth_time`), carried to the tokens. */
  authentication: Authentication;
  /** The PSD2 consent approved and its authorization details, carried to the tokens; absent when none. */
  consent?: GrantConsent;
}

/**
 * Issues a single-use authorization code (lifetime {@link CODE_LIFETIME_SECONDS}) and
 * returns the redirect to the client in the grant's response mode: `code`, `state`, `iss`
 * (RFC 6749 §4.1.2, RFC 9207), or them signed in `response` (JARM §2.3.1). A signed request
 * or response is kept as evidence (authorization-response.ts keepEvidence).
 * @throws ServiceUnavailable when a signed response cannot be signed now (then no code is stored).
 */
export async function issueAuthorizationCode(codes: AuthorizationCodeStore, grant: CodeGrant, responder: AuthorizationResponder, now: Date): Promise<AuthorizationRedirect> {
  const code = newSecret();
  const answer = await authorizationResponse(responder, grant, { code }, now);
  await codes.insert({
    codeHash: hashSecret(code),
    appId: grant.appId,
    userId: grant.userId,
    redirectUri: grant.redirectUri,
    scopes: grant.scopes,
    codeChallenge: grant.codeChallenge,
    codeChallengeMethod: grant.codeChallengeMethod,
    dpopJkt: grant.dpopJkt,
    nonce: grant.nonce,
    resource: grant.resource,
    authentication: grant.authentication,
    consent: grant.consent,
    expiresAt: new Date(now.getTime() + CODE_LIFETIME_SECONDS * 1000),
  });
  await keepEvidence(responder, grant, answer, { code }, now);
  return redirectOf(answer);
}

/**
 * The redirect for an error answered to the client once its redirect URI is known (RFC 6749
 * §4.1.2.1), in the request's response mode (JARM §2.3.1); a signed request or response of a
 * PSU's is kept as evidence (authorization-response.ts keepEvidence).
 * @throws ServiceUnavailable when a signed response cannot be signed now.
 */
export async function errorRedirect(responder: AuthorizationResponder, target: ResponseTarget, error: string, description: string, now: Date): Promise<AuthorizationRedirect> {
  const params = { error, error_description: description };
  const answer = await authorizationResponse(responder, target, params, now);
  await keepEvidence(responder, target, answer, params, now);
  return redirectOf(answer);
}

/** Where an answer sends the browser, without the evidence. */
function redirectOf({ redirectTo, formPost }: AuthorizationAnswer): AuthorizationRedirect {
  return formPost ? { redirectTo, formPost } : { redirectTo };
}
