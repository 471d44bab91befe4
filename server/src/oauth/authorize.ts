/**
 * The authorization endpoint's rules (RFC 6749 §4.1.1, §4.1.2; RFC 7636; RFC 9207;
 * decisions.md "Authorization code flow"): validating the request and issuing the code.
 */
import type { AuthorizationCodeStore } from "../stores/codes.js";
import type { ClientStore } from "../stores/clients.js";
import type { Client } from "./client-auth.js";
import { AuthorizationErrorRedirect, InvalidAuthorizationRequest, OAuthError } from "../kernel/errors.js";
import { isCleanText } from "../kernel/text.js";
import { isPkceValue } from "./pkce.js";
import { productScopes } from "./products.js";
import { redirectWith } from "./redirect.js";
import { grantScopes, parseScope } from "./scopes.js";
import { hashSecret, newSecret } from "../kernel/secrets.js";

/** Authorization code lifetime, seconds (decisions.md: 60 s). */
export const CODE_LIFETIME_SECONDS = 60;

export type Prompt = "none" | "login" | "consent";

/** A validated authorization request. */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scopes: string[];
  /** Null only when allowed to be left out (rfc6749 profile with PKCE). */
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: "S256" | null;
  prompt: Prompt | null;
}

/** Parameters that may not repeat (RFC 6749 §3.1). */
const SINGLE = ["client_id", "response_type", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "prompt"];

/**
 * Validates an authorization request's query string.
 * @param query - the raw query string (without `?`).
 * @param issuer - `iss` value for error redirects (RFC 9207).
 * @throws InvalidAuthorizationRequest (shown as a page, never redirected) when `client_id`
 *   is missing, unknown or revoked, or `redirect_uri` is missing or not exactly registered.
 * @throws AuthorizationErrorRedirect for every other error: unsupported `response_type`,
 *   missing `state`, invalid or missing scope, PKCE problems, unknown `prompt`, repeats.
 *   `state` is required (the spec's flow), except for apps of the `rfc6749` profile when
 *   the request carries a PKCE `code_challenge`: RFC 9700 §2.1 lets PKCE protect such a
 *   client against CSRF, and standard clients (openid-client) then send no `state`.
 */
export async function validateAuthorizationRequest(clients: ClientStore, query: string, issuer: string): Promise<AuthorizationRequest> {
  const params = new URLSearchParams(query);
  const one = (name: string): string | undefined => {
    const values = params.getAll(name);
    return values.length === 1 && values[0] !== "" && isCleanText(values[0]!) ? values[0] : undefined;
  };
  const repeated = SINGLE.find((n) => params.getAll(n).length > 1);

  const clientId = one("client_id");
  if (params.getAll("client_id").length > 1) throw new InvalidAuthorizationRequest("invalid_request", "client_id is repeated");
  if (!clientId) throw new InvalidAuthorizationRequest("invalid_request", "client_id is required");
  const record = await clients.byConsumerKey(clientId);
  if (!record) throw new InvalidAuthorizationRequest("invalid_request", "unknown client_id");
  const redirectUri = one("redirect_uri");
  if (params.getAll("redirect_uri").length > 1) throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri is repeated");
  if (!redirectUri) throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri is required");
  if (!record.callbackUrls.includes(redirectUri)) {
    throw new InvalidAuthorizationRequest("invalid_request", "redirect_uri does not match a callback URL registered for this client");
  }
  if (record.appStatus !== "approved" || record.credentialStatus !== "approved") {
    throw new InvalidAuthorizationRequest("unauthorized_client", "this client is revoked");
  }
  const { consumerSecretHash: _, ...client } = record;

  const state = one("state");
  const fail = (error: string, description: string): never => {
    throw new AuthorizationErrorRedirect(errorRedirect({ redirectUri, state: state ?? null }, error, description, issuer));
  };
  if (repeated) fail("invalid_request", `parameter "${repeated}" is repeated`);
  const responseType = one("response_type");
  if (!responseType) fail("invalid_request", "response_type is required");
  if (responseType !== "code") fail("unsupported_response_type", "only response_type=code is supported");
  const codeChallenge = one("code_challenge") ?? null;
  const pkceMayReplaceState = client.tokenResponseProfile === "rfc6749";
  if (!state && !(pkceMayReplaceState && codeChallenge !== null)) {
    fail("invalid_request", pkceMayReplaceState ? "state is required unless PKCE (code_challenge) is used" : "state is required");
  }

  let scopes: string[] = [];
  try {
    const requested = parseScope(one("scope"));
    if (requested.length === 0) fail("invalid_scope", "scope is required");
    scopes = grantScopes(requested, productScopes(client.products));
  } catch (err) {
    if (err instanceof OAuthError) fail(err.error, err.message);
    throw err;
  }

  const method = one("code_challenge_method") ?? null;
  if (codeChallenge === null) {
    if (method !== null) fail("invalid_request", "code_challenge_method without code_challenge");
    if (client.requirePkce) fail("invalid_request", "PKCE is required for this client: send code_challenge with code_challenge_method=S256");
  } else {
    if (method !== "S256") fail("invalid_request", "code_challenge_method must be S256 (plain is not supported)");
    if (!isPkceValue(codeChallenge)) fail("invalid_request", "code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~");
  }

  const prompt = one("prompt") ?? null;
  if (prompt !== null && prompt !== "none" && prompt !== "login" && prompt !== "consent") {
    fail("invalid_request", "prompt must be none, login or consent");
  }

  return {
    client,
    redirectUri,
    scopes,
    state: state ?? null,
    codeChallenge,
    codeChallengeMethod: codeChallenge === null ? null : "S256",
    prompt: prompt as Prompt | null,
  };
}

/** What an authorization code is bound to. */
export interface CodeGrant {
  appId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/**
 * Issues a single-use authorization code (lifetime {@link CODE_LIFETIME_SECONDS}) and
 * returns the redirect to the client: `code`, `state`, `iss` (RFC 6749 §4.1.2, RFC 9207).
 */
export async function issueAuthorizationCode(codes: AuthorizationCodeStore, grant: CodeGrant, issuer: string, now: Date): Promise<string> {
  const code = newSecret();
  await codes.insert({
    codeHash: hashSecret(code),
    appId: grant.appId,
    userId: grant.userId,
    redirectUri: grant.redirectUri,
    scopes: grant.scopes,
    codeChallenge: grant.codeChallenge,
    codeChallengeMethod: grant.codeChallengeMethod,
    expiresAt: new Date(now.getTime() + CODE_LIFETIME_SECONDS * 1000),
  });
  return redirectWith(grant.redirectUri, { code, state: grant.state, iss: issuer });
}

/** The redirect for an error answered to the client after the request was validated. */
export function errorRedirect(grant: Pick<CodeGrant, "redirectUri" | "state">, error: string, description: string, issuer: string): string {
  return redirectWith(grant.redirectUri, { error, error_description: description, state: grant.state, iss: issuer });
}
