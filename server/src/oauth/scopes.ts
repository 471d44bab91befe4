/**
 * Scope strings (RFC 6749 §3.3): space-delimited, case-sensitive, each token made of
 * %x21 / %x23-5B / %x5D-7E characters.
 */
import { InvalidScope } from "../kernel/errors.js";

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The scope that makes a bearer token an admin API credential: granted by client
 * credentials to an app approved for it, and in the authorization code flow only by an
 * administrator (interaction/flow.ts); not advertised in the metadata.
 */
export const ADMIN_SCOPE = "admin";

/** The scope that makes an authorization request an OpenID Connect one (OpenID Connect Core §3.1.2.1). */
export const OPENID_SCOPE = "openid";

/** The OpenID Connect scopes: `openid`, and the claims UserInfo answers for `profile` and `email` (OpenID Connect Core §5.4). */
export const OPENID_SCOPES = [OPENID_SCOPE, "profile", "email"] as const;

/** The claims UserInfo answers for each OpenID Connect scope that grants claims (OpenID Connect Core §5.4), of those the bank holds. */
export const SCOPE_CLAIMS = {
  profile: ["name", "given_name", "family_name", "preferred_username"],
  email: ["email", "email_verified"],
} as const;

/**
 * The OpenID Connect scopes a request may have besides its API products' scopes: all of
 * {@link OPENID_SCOPES} when it asks for `openid`, none otherwise (`profile` and `email`
 * mean nothing without it, OpenID Connect Core §5.4).
 */
export function openIdScopes(requested: readonly string[]): readonly string[] {
  return requested.includes(OPENID_SCOPE) ? OPENID_SCOPES : [];
}

/**
 * Parses a `scope` parameter into distinct scope names, in request order.
 * @throws InvalidScope when a name has characters RFC 6749 §3.3 does not allow.
 */
export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  const names = scope.split(" ").filter((s) => s !== "");
  for (const name of names) {
    if (!SCOPE_TOKEN.test(name)) throw new InvalidScope("scope contains characters RFC 6749 section 3.3 does not allow");
  }
  return [...new Set(names)];
}

/**
 * Grants the requested scopes if every one is allowed (RFC 6749 §3.3); no request means all.
 * @param requested - names from {@link parseScope}; empty means "not requested".
 * @param allowed - the scopes the client (or the original grant) may have.
 * @returns the granted scope names.
 * @throws InvalidScope naming the first scope outside `allowed`.
 */
export function grantScopes(requested: readonly string[], allowed: readonly string[]): string[] {
  if (requested.length === 0) return [...allowed];
  const allowedSet = new Set(allowed);
  const outside = requested.find((s) => !allowedSet.has(s));
  if (outside !== undefined) throw new InvalidScope(`scope "${outside}" is not available to this client`);
  return [...requested];
}
