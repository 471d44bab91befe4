/**
 * OpenID Connect RP-Initiated Logout 1.0: an app sends the PSU's browser to the
 * `end_session_endpoint` to end their session at the bank, and gets it back at a
 * `post_logout_redirect_uri` it registered. The session ends at once when the request's
 * `id_token_hint` names the signed-in user (or nobody is signed in); otherwise the PSU is
 * asked first (§2: "the OP MUST ask the End-User" then), on the SPA's `/logout` page.
 */
import { decodeJwt } from "jose";
import { InvalidAuthorizationRequest } from "../kernel/errors.js";
import { isCleanText } from "../kernel/text.js";
import type { IdTokenHints } from "../oauth/id-token.js";
import { redirectWith } from "../oauth/redirect.js";
import type { Subjects } from "../oauth/subject.js";
import type { ClientRecord, ClientStore } from "../stores/clients.js";

/** The SPA page that asks the PSU, and says they are signed out (`?signed-out`). */
export const LOGOUT_PAGE = "/logout";

/** Longest `state` accepted, in characters: it is sent back in the redirect. */
const MAX_STATE_LENGTH = 512;

/**
 * The parameters of §2 this server reads, from a query or form object: each a single string.
 * @throws InvalidAuthorizationRequest for a parameter sent twice.
 */
export function logoutParameters(source: unknown): LogoutParameters {
  const given = (typeof source === "object" && source !== null ? source : {}) as Record<string, unknown>;
  const params: LogoutParameters = {};
  for (const name of ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"] as const) {
    const value = given[name];
    if (value === undefined || value === "") continue;
    if (typeof value !== "string") throw refuse(`${name} is repeated`);
    params[name] = value;
  }
  return params;
}

/** The parameters of §2, as sent (query or form). */
export interface LogoutParameters {
  id_token_hint?: string;
  client_id?: string;
  post_logout_redirect_uri?: string;
  state?: string;
}

/** A checked logout request. */
export interface LogoutRequest {
  /** The app that sent it: named by `client_id`, or by the hint's `aud`; undefined when neither. */
  client: ClientRecord | undefined;
  /** The subject the `id_token_hint` names; undefined without a hint. */
  hintedSubject: string | undefined;
  /** Where to send the browser afterwards: a URI the app registered, with `state`; undefined: the sign-out page. */
  redirectTo: string | undefined;
}

/** An error shown as a page, never redirected (§3: no redirection to a URI that is not registered). */
const refuse = (description: string) => new InvalidAuthorizationRequest("invalid_request", description);

/** The first `aud` of an unverified JWT, to find which app's hint to verify; undefined when it has none. */
function claimedAudience(hint: string): string | undefined {
  try {
    const { aud } = decodeJwt(hint);
    return Array.isArray(aud) ? aud[0] : aud;
  } catch {
    return undefined;
  }
}

/**
 * Checks a logout request (RP-Initiated Logout 1.0 §2, §3): the `id_token_hint` must be one of
 * our ID tokens (any age) issued to the app; `client_id`, when sent with it, must be that app;
 * `post_logout_redirect_uri` must be one the app registered, exactly, and needs the app named.
 * @throws InvalidAuthorizationRequest (a 400 page, no redirect) for any of these failing, an
 *   unknown `client_id`, or a value that is not clean text.
 */
export async function readLogoutRequest(clients: ClientStore, hints: IdTokenHints, params: LogoutParameters): Promise<LogoutRequest> {
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && (typeof value !== "string" || !isCleanText(value))) throw refuse(`${name} is not well-formed text`);
  }
  const { id_token_hint: hint, client_id: clientId, post_logout_redirect_uri: redirectUri, state } = params;
  if (state !== undefined && state.length > MAX_STATE_LENGTH) throw refuse(`state may have at most ${MAX_STATE_LENGTH} characters`);
  const named = clientId ?? (hint === undefined ? undefined : claimedAudience(hint));
  const client = named === undefined ? undefined : await clients.byConsumerKey(named);
  if (named !== undefined && !client) throw refuse("the id_token_hint or client_id names no registered client");
  let hintedSubject: string | undefined;
  if (hint !== undefined) {
    if (!client) throw refuse("id_token_hint is not an ID token this server issued to this client");
    try {
      hintedSubject = await hints(hint, client.clientId);
    } catch {
      throw refuse("id_token_hint is not an ID token this server issued to this client");
    }
  }
  if (redirectUri !== undefined) {
    if (!client) throw refuse("post_logout_redirect_uri needs the client: send id_token_hint or client_id");
    if (!client.postLogoutRedirectUris.includes(redirectUri)) throw refuse("post_logout_redirect_uri is not registered for this client");
  }
  return { client, hintedSubject, redirectTo: redirectUri === undefined ? undefined : redirectWith(redirectUri, { state: state ?? null }) };
}

/**
 * Whether the session may end without asking (§2): the hint names the signed-in user (the
 * subject the app knows them by, public or pairwise), or nobody is signed in.
 * @param sessionUserId - the browser's signed-in user; undefined when none.
 */
export function endsAtOnce(request: LogoutRequest, sessionUserId: string | undefined, subjects: Subjects): boolean {
  if (sessionUserId === undefined) return true;
  return request.client !== undefined && request.hintedSubject !== undefined && subjects(request.client, sessionUserId) === request.hintedSubject;
}

/** Where the browser goes once signed out: the app's registered URI with `state`, else the sign-out page. */
export function afterLogout(request: LogoutRequest): string {
  return request.redirectTo ?? `${LOGOUT_PAGE}?signed-out`;
}
