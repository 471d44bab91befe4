/**
 * The authorization response (RFC 6749 §4.1.2, §4.1.2.1) in its response mode: plain query
 * parameters with `iss` (RFC 9207), or one `response` parameter holding a JWT this server
 * signs (JWT Secured Authorization Response Mode for OAuth 2.0, "JARM"; FAPI 2.0 Message
 * Signing §5.4), in the query or posted by the browser (`form_post.jwt`, oauth/form-post.ts).
 * Both the authorization endpoint and the sign-in flow answer through
 * {@link authorizationResponse}; {@link keepEvidence} keeps a PSU's signed request and answer.
 */
import type { Keyring } from "../keys/keyring.js";
import { signedNow } from "../keys/backend.js";
import type { ClientStore } from "../stores/clients.js";
import type { EvidenceStore } from "../stores/evidence.js";
import { InvalidAuthorizationRequest, InvalidRequest } from "../kernel/errors.js";
import { redirectWith } from "./redirect.js";

/**
 * The `response_mode` values served (OAuth 2.0 Multiple Response Type Encoding Practices §2.1;
 * JARM §2.3.1, §2.3.3 and §2.3.4: for `response_type=code`, `jwt` means `query.jwt`).
 */
export const RESPONSE_MODES = ["query", "query.jwt", "jwt", "form_post.jwt"] as const;

/**
 * How the answer travels: query parameters, a signed `response` JWT in the query (JARM
 * §2.3.1), or that JWT posted to the redirect URI by a form the browser submits (§2.3.3).
 */
export type ResponseMode = "query" | "query.jwt" | "form_post.jwt";

/**
 * The page of this server that a browser answered by a JSON call (the sign-in and consent
 * pages) is sent to for a `form_post.jwt` answer: it posts the answer kept in the browser's
 * session (interaction/router.ts).
 */
export const FORM_POST_PATH = "/authorize/form-post";

/** A `form_post.jwt` answer (JARM §2.3.3): the signed `response` to post to the redirect URI. */
export interface FormPost {
  action: string;
  response: string;
}

/**
 * Where a browser goes with an authorization response: the redirect URI with the answer, or,
 * for `form_post.jwt`, {@link FORM_POST_PATH} (a call answered with a page posts `formPost` at once).
 */
export interface AuthorizationRedirect {
  redirectTo: string;
  formPost?: FormPost;
}

/**
 * Lifetime of a signed authorization response, seconds (JARM §2.1: a lifetime of
 * at most 10 minutes is recommended). Five minutes: far beyond the 60 s of the code it carries, and room
 * for clock skew between this server and the client.
 */
export const AUTHORIZATION_RESPONSE_LIFETIME_SECONDS = 300;

/**
 * The response mode a `response_mode` parameter asks for; `query` when left out.
 * @throws InvalidRequest for any other value (`fragment`, `form_post` …).
 */
export function parseResponseMode(value: string | undefined): ResponseMode {
  if (value === undefined || value === "query") return "query";
  if (value === "jwt" || value === "query.jwt") return "query.jwt";
  if (value === "form_post.jwt") return value;
  throw new InvalidRequest(`response_mode must be one of ${RESPONSE_MODES.join(", ")}, or left out`);
}

/**
 * The response mode an error of the request is answered in, once its redirect URI is known:
 * the one asked for when it is served, else `query` (a mode not served cannot carry the answer).
 */
export function errorResponseMode(value: string | undefined): ResponseMode {
  try {
    return parseResponseMode(value);
  } catch {
    return "query";
  }
}

/**
 * What answers an authorization response: the issuer, the keys that sign a JARM response, the
 * clients whose algorithm it uses, and where the evidence of signed requests and answers is kept.
 */
export interface AuthorizationResponder {
  issuer: string;
  keyring: Keyring;
  clients: Pick<ClientStore, "byConsumerKey">;
  evidence: Pick<EvidenceStore, "insert">;
}

/** Where and how one authorization request is answered. */
export interface ResponseTarget {
  /** The validated redirect URI. */
  redirectUri: string;
  state: string | null;
  /** The client the request named (`client_id`): the `aud` of a signed response; null only on a sign-in begun before interactions kept it. */
  clientId: string | null;
  responseMode: ResponseMode;
  appId: string;
  /** The PSU who answered; null while nobody signed in (then nothing is kept as evidence). */
  userId: string | null;
  /** The PSD2 consent the request authorizes; null when none. */
  psd2ConsentId: string | null;
  /** The verified signed request object the request came in (RFC 9101); null when unsigned. */
  requestObject: string | null;
}

/** The answer itself: a code (§4.1.2), or an error (§4.1.2.1). */
export type ResponseParameters = { code: string } | { error: string; error_description: string };

/** An authorization response: where it sends the browser, and the signed `response` JWT (null in `query` mode). */
export interface AuthorizationAnswer extends AuthorizationRedirect {
  response: string | null;
}

/**
 * The redirect that carries an authorization response to the client. In `query` mode:
 * the parameters, `state` and `iss` (RFC 9207 §2). In `query.jwt` mode: `response` only, a
 * JWT (`typ` JWT) with `iss`, `aud` (the client_id), `exp` ({@link AUTHORIZATION_RESPONSE_LIFETIME_SECONDS}),
 * the parameters and `state`, signed with the current key of the app's
 * `authorization_signed_response_alg` (JARM §2.1, §2.3.1; RFC 9207 §2.4: no separate `iss`).
 * In `form_post.jwt` mode: the same JWT, to be posted to the redirect URI (§2.3.3).
 * @throws ServiceUnavailable (503, the server's error page) when no key can sign now: a
 *   signed response is never replaced by an unsigned one.
 * @throws InvalidAuthorizationRequest `unauthorized_client` when the client is gone since the request.
 */
export async function authorizationResponse(responder: AuthorizationResponder, target: ResponseTarget, params: ResponseParameters, now: Date): Promise<AuthorizationAnswer> {
  const state = target.state ?? undefined;
  if (target.responseMode === "query") return { redirectTo: redirectWith(target.redirectUri, { ...params, state, iss: responder.issuer }), response: null };
  const client = target.clientId === null ? undefined : await responder.clients.byConsumerKey(target.clientId);
  if (!client) throw new InvalidAuthorizationRequest("unauthorized_client", "this client is revoked");
  const exp = Math.floor(now.getTime() / 1000) + AUTHORIZATION_RESPONSE_LIFETIME_SECONDS;
  const payload = { iss: responder.issuer, aud: client.clientId, exp, ...params, ...(state === undefined ? {} : { state }) };
  const response = await signedNow("the authorization response", responder.keyring.sign({ alg: client.authorizationSignedResponseAlg, typ: "JWT", payload, expiresAt: new Date(exp * 1000) }));
  if (target.responseMode === "form_post.jwt") return { redirectTo: FORM_POST_PATH, response, formPost: { action: target.redirectUri, response } };
  return { redirectTo: redirectWith(target.redirectUri, { response }), response };
}

/**
 * Keeps the evidence of an answered authorization request (FAPI 2.0 Message Signing:
 * non-repudiation; stores/evidence.ts) when the request or its answer was signed and a PSU
 * answered it: the request object as the client signed it, the response as this server signed
 * it, and the outcome (`code`, or the error). A request refused before anyone signed in is not
 * kept: anyone could send those, and they would fill the store for years.
 */
export async function keepEvidence(responder: AuthorizationResponder, target: ResponseTarget, answer: AuthorizationAnswer, params: ResponseParameters, now: Date): Promise<void> {
  if (target.userId === null || (target.requestObject === null && answer.response === null)) return;
  await responder.evidence.insert({
    appId: target.appId,
    clientId: target.clientId ?? "",
    userId: target.userId,
    psd2ConsentId: target.psd2ConsentId,
    requestObject: target.requestObject,
    authorizationResponse: answer.response,
    outcome: "code" in params ? "code" : params.error,
    createdAt: now,
  });
}
