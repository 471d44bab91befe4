/**
 * Bounded readers of JSON values shared by the two parsers of this folder (the software statement's
 * claims and the registration request's members): each checks a type and a size before anything
 * else and throws the error its caller names, so every input costs time linear in its size.
 */
import { isCleanText, isDisplayText } from "../kernel/text.js";
import type { SubjectType } from "../oauth/subject.js";
import { OWN_SIGNING_ALGORITHMS, type OwnSigningAlgorithm } from "../stores/signing-keys.js";
import type { RegistrationError } from "./errors.js";
import { MAX_REDIRECT_URIS, postLogoutRedirectUriProblem, sectorIdentifierUriProblem } from "./uris.js";

/** Makes the error of a refused value; the description names the member and what is wrong. */
export type Refuse = (description: string) => RegistrationError;


/** The member `name` of `body`: own members only, never one of Object.prototype's (`constructor`, `__proto__`). */
export function ownMember(body: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined;
}

/** True for a member left out or given as null: RFC 7592 §2.2 lets a server treat null as absent. */
export function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/**
 * A text value: a string of 1 to `max` characters (UTF-16 code units), not only white space,
 * well-formed and without NUL (kernel/text.ts `isCleanText`); undefined when absent.
 * @throws the error of `refuse` naming `name`.
 */
export function optionalText(value: unknown, name: string, max: number, refuse: Refuse): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== "string") throw refuse(`${name} must be a string`);
  if (value.length > max) throw refuse(`${name} must be at most ${max} characters`);
  if (value.trim() === "" || !isCleanText(value)) throw refuse(`${name} must be non-empty, well-formed text without NUL`);
  return value;
}

/**
 * A text value the PSU is shown as the TPP wrote it (the app's name on the consent and sign-in
 * pages, the organization's name, and the identifiers standing in for them when they are left
 * out): an {@link optionalText} without control, format or line-breaking characters
 * (kernel/text.ts `isDisplayText`: no bidirectional override or isolate, no zero-width
 * character), so it cannot restyle the line it is shown in; undefined when absent.
 * @throws the error of `refuse` naming `name`.
 */
export function optionalDisplayText(value: unknown, name: string, max: number, refuse: Refuse): string | undefined {
  const text = optionalText(value, name, max, refuse);
  if (text !== undefined && !isDisplayText(text)) {
    throw refuse(`${name} must be text without control or invisible characters (such as bidirectional overrides): the PSU is shown it`);
  }
  return text;
}

/**
 * An array of at most `maxItems` strings of at most `maxLength` characters each, duplicates
 * dropped (first occurrence kept, order kept); undefined when absent.
 * @throws the error of `refuse` naming `name`: not an array, too many items, an item that is not
 *   a string or is too long.
 */
export function optionalStringList(value: unknown, name: string, maxItems: number, maxLength: number, refuse: Refuse): string[] | undefined {
  if (absent(value)) return undefined;
  if (!Array.isArray(value)) throw refuse(`${name} must be an array of strings`);
  if (value.length > maxItems) throw refuse(`${name} may hold at most ${maxItems} values`);
  const items = new Set<string>();
  for (const item of value) {
    if (typeof item !== "string") throw refuse(`${name} must be an array of strings`);
    if (item.length > maxLength) throw refuse(`each value of ${name} must be at most ${maxLength} characters`);
    items.add(item);
  }
  return [...items];
}

/** Longest `software_version`, in characters. */
export const MAX_VERSION_LENGTH = 64;

/**
 * `software_version` (RFC 7591 §2): text of at most {@link MAX_VERSION_LENGTH} characters, or a
 * number, taken as its decimal text (directories write `1.0` or `1`); undefined when absent.
 * @throws the error of `refuse`.
 */
export function optionalVersion(value: unknown, refuse: Refuse): string | undefined {
  return optionalText(typeof value === "number" ? String(value) : value, "software_version", MAX_VERSION_LENGTH, refuse);
}

/**
 * `id_token_signed_response_alg` (OpenID Connect Dynamic Client Registration 1.0 §2): one of the
 * algorithms this server signs ID tokens with (stores/signing-keys.ts `OWN_SIGNING_ALGORITHMS`,
 * FAPI 2.0 Security Profile §5.4.1), so never `none`, RS256 or an HMAC algorithm; undefined when
 * absent.
 * @throws the error of `refuse`.
 */
export function optionalIdTokenAlg(value: unknown, refuse: Refuse): OwnSigningAlgorithm | undefined {
  return optionalOwnAlg(value, "id_token_signed_response_alg", "ID tokens", refuse);
}

/**
 * `introspection_signed_response_alg` (RFC 9701 §6): one of the algorithms this server signs
 * introspection responses with, as {@link optionalIdTokenAlg}; undefined when absent.
 * @throws the error of `refuse`.
 */
export function optionalIntrospectionAlg(value: unknown, refuse: Refuse): OwnSigningAlgorithm | undefined {
  return optionalOwnAlg(value, "introspection_signed_response_alg", "introspection responses", refuse);
}

/**
 * `authorization_signed_response_alg` (JARM §3): one of the algorithms this server signs
 * authorization responses with, as {@link optionalIdTokenAlg}; undefined when absent.
 * @throws the error of `refuse`.
 */
export function optionalAuthorizationAlg(value: unknown, refuse: Refuse): OwnSigningAlgorithm | undefined {
  return optionalOwnAlg(value, "authorization_signed_response_alg", "authorization responses", refuse);
}

/** A member naming one of this server's own signing algorithms (`OWN_SIGNING_ALGORITHMS`) for `what` it signs; undefined when absent. */
function optionalOwnAlg(value: unknown, member: string, what: string, refuse: Refuse): OwnSigningAlgorithm | undefined {
  if (absent(value)) return undefined;
  const alg = OWN_SIGNING_ALGORITHMS.find((each) => each === value);
  if (!alg) throw refuse(`${member} must be ${OWN_SIGNING_ALGORITHMS.join(" or ")} (FAPI 2.0 Security Profile section 5.4.1): the algorithms this server signs ${what} with`);
  return alg;
}

/** The `subject_type` values (OpenID Connect Core §8, Discovery `subject_types_supported`). */
export const SUBJECT_TYPES = ["public", "pairwise"] as const satisfies readonly SubjectType[];

/**
 * `subject_type` (OpenID Connect Dynamic Client Registration 1.0 §2, Core §8): `public` or
 * `pairwise`; undefined when absent.
 * @throws the error of `refuse`, naming the allowed values.
 */
export function optionalSubjectType(value: unknown, refuse: Refuse): SubjectType | undefined {
  if (absent(value)) return undefined;
  const type = SUBJECT_TYPES.find((each) => each === value);
  if (!type) throw refuse(`subject_type must be ${SUBJECT_TYPES.join(" or ")} (OpenID Connect Core section 8)`);
  return type;
}

/**
 * `sector_identifier_uri` (OpenID Connect Dynamic Client Registration 1.0 §2): an https URL as
 * uris.ts `sectorIdentifierUriProblem` checks it; undefined when absent. What it serves is
 * checked by sector-identifier.ts.
 * @throws the error of `refuse`.
 */
export function optionalSectorIdentifierUri(value: unknown, refuse: Refuse): string | undefined {
  const uri = optionalText(value, "sector_identifier_uri", Number.MAX_SAFE_INTEGER, refuse);
  if (uri === undefined) return undefined;
  const problem = sectorIdentifierUriProblem(uri);
  if (problem) throw refuse(`sector_identifier_uri must be ${problem}`);
  return uri;
}

/**
 * `post_logout_redirect_uris` (OpenID Connect RP-Initiated Logout 1.0 §3.1): an array of at most
 * {@link MAX_REDIRECT_URIS} URLs, each as uris.ts `postLogoutRedirectUriProblem` checks it (a
 * redirect URI's rules: absolute, https, no fragment, RFC 3986 characters, at most 2000
 * characters), duplicates dropped, as sent; undefined when absent.
 * @throws the error of `refuse`, naming the member: not an array of strings, too many URLs, or a URL
 *   (by its position) that is not acceptable.
 */
export function optionalPostLogoutRedirectUris(value: unknown, refuse: Refuse): string[] | undefined {
  const uris = optionalStringList(value, "post_logout_redirect_uris", MAX_REDIRECT_URIS, Number.MAX_SAFE_INTEGER, refuse);
  for (const [index, uri] of (uris ?? []).entries()) {
    const problem = postLogoutRedirectUriProblem(uri);
    if (problem) throw refuse(`post_logout_redirect_uris: URI ${index + 1} must be ${problem}`);
  }
  return uris;
}
