/**
 * Software statements (RFC 7591 §2.3): a JWS the bank's trusted directory signs about a TPP's
 * software, carried in a registration request's `software_statement`. Its claims take precedence
 * over the request's members (RFC 7591 §3.1; resolve.ts applies that).
 *
 * The directory is configured, never discovered: its issuer and its public keys (a JWK Set given
 * to {@link createDirectory}, never fetched). A statement is accepted when it is at most
 * {@link MAX_SOFTWARE_STATEMENT_LENGTH} characters, signed with PS256, ES256 or EdDSA (FAPI 2.0
 * Security Profile §5.4.1: oauth/signing.ts) by a key of the directory, its `iss` is the
 * directory's, its `iat` is present and not in the future, its `exp` (when present) has not passed
 * and is at most the directory's maximum lifetime after `iat`, and, without `exp`, it is at most the
 * directory's maximum age old. It must carry a `jti` (the registration uses each statement once:
 * decisions.md "Dynamic client registration") and an `org_id` (the TPP's organization is found by
 * it). jose verifies the signature and `exp`/`nbf`; the rest is checked here.
 *
 * Claims are read under their RFC 7591 §2 names and under the UK Open Banking directory's
 * `software_*` names (Open Banking Dynamic Client Registration, software statement assertion):
 * `software_id`, `software_version`, `client_name` | `software_client_name`, `redirect_uris` |
 * `software_redirect_uris`, `jwks`, `jwks_uri` | `software_jwks_endpoint`, `software_roles`,
 * `org_id`, `org_name`; and `id_token_signed_response_alg`, `subject_type` and
 * `sector_identifier_uri` (OpenID Connect Dynamic Client Registration 1.0 §2) and
 * `post_logout_redirect_uris` (OpenID Connect RP-Initiated Logout 1.0 §3.1) under their own names
 * only. When a statement carries a claim under both names,
 * the two must agree.
 */
import { isDeepStrictEqual } from "node:util";
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { Psd2Role } from "../certificates/roles.js";
import { NAME_MAX_LENGTH } from "../kernel/limits.js";
import { isCleanText } from "../kernel/text.js";
import { InvalidJwks, parsePublicJwks, type PublicJwks } from "../oauth/jwks.js";
import { isSigningAlgorithm, SIGNING_ALGORITHMS } from "../oauth/signing.js";
import type { SubjectType } from "../oauth/subject.js";
import type { OwnSigningAlgorithm } from "../stores/signing-keys.js";
import { invalidSoftwareStatement, unapprovedSoftwareStatement } from "./errors.js";
import { clientKeysOf } from "./keys.js";
import { MAX_REDIRECT_URIS, redirectUriProblem } from "./uris.js";
import {
  absent,
  optionalDisplayText,
  optionalIdTokenAlg,
  optionalPostLogoutRedirectUris,
  optionalSectorIdentifierUri,
  optionalStringList,
  optionalSubjectType,
  optionalText,
  optionalVersion,
} from "./values.js";

/**
 * Longest software statement accepted, in characters: a longer one is refused before it is
 * decoded. A UK Open Banking statement is 2–5 KiB; an embedded JWK Set of a few RSA keys fits.
 */
export const MAX_SOFTWARE_STATEMENT_LENGTH = 16_384;
/** The clock difference allowed between the directory and this server, in seconds: for `iat`, `nbf` and `exp`. */
export const STATEMENT_CLOCK_SKEW_SECONDS = 30;
/** Longest `software_id`, `org_id` and `jti`, in characters. */
export const MAX_IDENTIFIER_LENGTH = 256;
/** Most roles a statement lists. */
const MAX_ROLES = 16;
/** Longest role name, in characters. */
const MAX_ROLE_LENGTH = 64;

/**
 * The role names a statement may use for each PSD2 role: ETSI TS 119 495's (as in a QWAC, roles.ts)
 * and the UK Open Banking directory's (`AISP`, `PISP`, `CBPII`, `ASPSP`). A Map, so that a claimed
 * name such as `__proto__` finds nothing.
 */
const ROLE_NAMES: ReadonlyMap<string, Psd2Role> = new Map([
  ["PSP_AS", "PSP_AS"],
  ["PSP_PI", "PSP_PI"],
  ["PSP_AI", "PSP_AI"],
  ["PSP_IC", "PSP_IC"],
  ["ASPSP", "PSP_AS"],
  ["PISP", "PSP_PI"],
  ["AISP", "PSP_AI"],
  ["CBPII", "PSP_IC"],
]);

/** The trusted directory, as configured: build it once with {@link createDirectory}. */
export interface Directory {
  /** The `iss` every statement must carry. */
  readonly issuer: string;
  /** Seconds: the oldest (by `iat`) a statement without `exp` may be. */
  readonly maxAgeSeconds: number;
  /** Seconds: the latest a statement's `exp` may be after its `iat`. */
  readonly maxLifetimeSeconds: number;
  /** Software ids refused with `unapproved_software_statement`. */
  readonly deniedSoftwareIds: ReadonlySet<string>;
  /** jose's key set over the directory's public keys. */
  readonly keys: JWTVerifyGetKey;
}

/** What {@link createDirectory} takes (from configuration). */
export interface DirectoryConfig {
  /** The directory's issuer identifier, compared exactly with a statement's `iss`. */
  issuer: string;
  /** The directory's public keys: a JWK Set (RFC 7517 §5) object. */
  jwks: unknown;
  /** Seconds (a positive integer): the oldest a statement without `exp` may be, by its `iat`. */
  maxAgeSeconds: number;
  /** Seconds (a positive integer): the latest a statement's `exp` may be after its `iat`. */
  maxLifetimeSeconds: number;
  /** Software ids the bank does not accept (e.g. withdrawn by the bank): `unapproved_software_statement`. */
  deniedSoftwareIds?: readonly string[];
}

/**
 * Checks the directory's configuration once, at start: a non-empty issuer, a positive integer
 * maximum age and maximum lifetime, and a JWK Set of 1 to 10 public signing keys for PS256, ES256 or EdDSA (oauth/jwks.ts
 * `parsePublicJwks`: no private member, RSA of 2048 bits or more).
 * @throws TypeError naming the setting at fault, fit for a configuration error at start.
 */
export async function createDirectory(config: DirectoryConfig): Promise<Directory> {
  if (typeof config.issuer !== "string" || config.issuer.trim() === "") throw new TypeError("the directory's issuer must be a non-empty string");
  if (!Number.isSafeInteger(config.maxAgeSeconds) || config.maxAgeSeconds <= 0) throw new TypeError("the directory's statement maximum age must be a positive number of seconds");
  if (!Number.isSafeInteger(config.maxLifetimeSeconds) || config.maxLifetimeSeconds <= 0) {
    throw new TypeError("the directory's statement maximum lifetime must be a positive number of seconds");
  }
  let jwks: PublicJwks;
  try {
    jwks = await parsePublicJwks(JSON.stringify(config.jwks) ?? "");
  } catch (error) {
    throw new TypeError(`the directory's JWK Set is invalid: ${error instanceof InvalidJwks ? error.message : "not JSON"}`, { cause: error });
  }
  return {
    issuer: config.issuer,
    maxAgeSeconds: config.maxAgeSeconds,
    maxLifetimeSeconds: config.maxLifetimeSeconds,
    deniedSoftwareIds: new Set(config.deniedSoftwareIds ?? []),
    keys: createLocalJWKSet(jwks),
  };
}

/** A verified software statement's claims, normalized. Times are seconds since the epoch. */
export interface SoftwareStatement {
  /** `iss`: the directory. */
  issuer: string;
  /** `software_id` (RFC 7591 §2): required; the same for every registration of this software. */
  softwareId: string;
  /** `software_version`, as text (a number claim becomes its decimal text). */
  softwareVersion?: string;
  /** `client_name` or `software_client_name`. */
  clientName?: string;
  /** `redirect_uris` or `software_redirect_uris`, each once: the URIs the software may register. */
  redirectUris?: string[];
  /** The PSD2 roles of `software_roles` (at least one), each once, in the statement's order. */
  roles: Psd2Role[];
  /** Role names of `software_roles` this server does not know (well-formed text only): granted nothing, kept for the audit. */
  unknownRoles: string[];
  /** `jwks`: the software's public keys, checked as oauth/jwks.ts `parsePublicJwks` does. */
  jwks?: PublicJwks;
  /** `jwks_uri` or `software_jwks_endpoint` (never both `jwks` and a URI). */
  jwksUri?: string;
  /** `id_token_signed_response_alg`: PS256 or ES256 (values.ts `optionalIdTokenAlg`). */
  idTokenSignedResponseAlg?: OwnSigningAlgorithm;
  /** `subject_type`: public or pairwise (values.ts `optionalSubjectType`). */
  subjectType?: SubjectType;
  /** `sector_identifier_uri`: an https URL (values.ts `optionalSectorIdentifierUri`); fetched at registration, not here. */
  sectorIdentifierUri?: string;
  /** `post_logout_redirect_uris`, each once: the post-logout redirect URIs the software may register (values.ts `optionalPostLogoutRedirectUris`). */
  postLogoutRedirectUris?: string[];
  /** `org_id`: the TPP's organization at the directory, required: the registration's organization is found by it. */
  organizationId: string;
  /** `org_name`. */
  organizationName?: string;
  /** `iat`, seconds. */
  issuedAt: number;
  /** `exp`, seconds; undefined when the statement has none. */
  expiresAt?: number;
  /** `jti`, required: a statement registers one client (decisions.md "Dynamic client registration"). */
  statementId: string;
}

/** The error of a statement at fault as a whole: `description` is a verb phrase ("has expired"). */
const refuse = (description: string) => invalidSoftwareStatement(`the software statement ${description}`);
/** The error of a claim at fault: `description` starts with the claim's name. */
const refuseClaim = (description: string) => invalidSoftwareStatement(`the software statement's ${description}`);

/** Why jose refused a statement, for its description: never the statement itself. */
function joseRefusal(error: unknown, directory: Directory): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return "is not signed by a key of the directory";
  if (error instanceof errors.JWKSNoMatchingKey) return "names a key (kid, alg) the directory does not have";
  if (error instanceof errors.JWKSMultipleMatchingKeys) return "must name its key (kid): several keys of the directory fit its alg";
  if (error instanceof errors.JWTExpired) return "has expired (exp)";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return `needs an ${error.claim} claim`;
    if (error.claim === "iss") return `is not from the trusted directory: its iss must be ${directory.issuer}`;
    if (error.claim === "nbf") return "is not valid yet (nbf)";
    return `has an invalid ${error.claim} claim`;
  }
  if (error instanceof errors.JWTInvalid) return "is not a JWT whose payload is a JSON object";
  if (error instanceof errors.JOSENotSupported) return "uses a JOSE feature this server does not support (e.g. an unknown crit header)";
  return "is not a well-formed compact JWS";
}

/** The value of a claim that has an RFC 7591 name and a UK Open Banking name; they must agree when both are present. */
function eitherClaim(payload: JWTPayload, rfcName: string, obName: string): unknown {
  const rfc = payload[rfcName];
  const ob = payload[obName];
  if (absent(rfc)) return ob;
  if (!absent(ob) && !isDeepStrictEqual(rfc, ob)) throw refuse(`carries ${rfcName} and ${obName} with different values`);
  return rfc;
}

/** `software_roles`: at least one known PSD2 role. */
function rolesOf(value: unknown): { roles: Psd2Role[]; unknownRoles: string[] } {
  const names = optionalStringList(value, "software_roles", MAX_ROLES, MAX_ROLE_LENGTH, refuseClaim) ?? [];
  const roles = new Set<Psd2Role>();
  const unknownRoles: string[] = [];
  for (const name of names) {
    const role = ROLE_NAMES.get(name);
    if (role) roles.add(role);
    else if (isCleanText(name)) unknownRoles.push(name);
  }
  if (roles.size === 0) throw refuse(`needs software_roles naming at least one PSD2 role (${[...ROLE_NAMES.keys()].join(", ")})`);
  return { roles: [...roles], unknownRoles };
}

/** The statement's redirect URIs, each a valid https URI (uris.ts). */
function redirectUrisOf(value: unknown): string[] | undefined {
  const uris = optionalStringList(value, "software_redirect_uris", MAX_REDIRECT_URIS, Number.MAX_SAFE_INTEGER, refuseClaim);
  for (const uri of uris ?? []) {
    const problem = redirectUriProblem(uri);
    if (problem) throw refuse(`lists a redirect URI that is not valid here: it must be ${problem}`);
  }
  return uris;
}

/** The claims of a verified payload, normalized; `iat` is known to be a number. Members without a value are undefined. */
async function claimsOf(payload: JWTPayload & { iat: number }): Promise<SoftwareStatement> {
  // The PSU is shown the names, and the identifiers where a name is left out (registration/clients.ts).
  const softwareId = optionalDisplayText(payload.software_id, "software_id", MAX_IDENTIFIER_LENGTH, refuseClaim);
  if (softwareId === undefined) throw refuse("needs a software_id claim");
  const organizationId = optionalDisplayText(payload.org_id, "org_id", MAX_IDENTIFIER_LENGTH, refuseClaim);
  if (organizationId === undefined) throw refuse("needs an org_id claim: the TPP's organization at the directory");
  const statementId = optionalText(payload.jti, "jti", MAX_IDENTIFIER_LENGTH, refuseClaim);
  if (statementId === undefined) throw refuse("needs a jti claim: each statement registers one client");
  return {
    issuer: payload.iss!,
    softwareId,
    softwareVersion: optionalVersion(payload.software_version, refuseClaim),
    clientName: optionalDisplayText(eitherClaim(payload, "client_name", "software_client_name"), "software_client_name", NAME_MAX_LENGTH, refuseClaim),
    redirectUris: redirectUrisOf(eitherClaim(payload, "redirect_uris", "software_redirect_uris")),
    ...rolesOf(payload.software_roles),
    ...(await clientKeysOf(payload.jwks, eitherClaim(payload, "jwks_uri", "software_jwks_endpoint"), refuseClaim)),
    idTokenSignedResponseAlg: optionalIdTokenAlg(payload.id_token_signed_response_alg, refuseClaim),
    subjectType: optionalSubjectType(payload.subject_type, refuseClaim),
    sectorIdentifierUri: optionalSectorIdentifierUri(payload.sector_identifier_uri, refuseClaim),
    postLogoutRedirectUris: optionalPostLogoutRedirectUris(payload.post_logout_redirect_uris, refuseClaim),
    organizationId,
    organizationName: optionalDisplayText(payload.org_name, "org_name", NAME_MAX_LENGTH, refuseClaim),
    issuedAt: payload.iat,
    expiresAt: payload.exp,
    statementId,
  };
}

/**
 * Verifies a software statement against the trusted directory (RFC 7591 §2.3, §3.1.1) and returns
 * its normalized claims.
 *
 * @param statement - the request's `software_statement` member, as sent (any JSON value).
 * @param now - the time of the request: `iat`, `exp` and `nbf` are compared with it, allowing
 *   {@link STATEMENT_CLOCK_SKEW_SECONDS} of skew.
 * @throws RegistrationError `invalid_software_statement`: not a string of 1 to
 *   {@link MAX_SOFTWARE_STATEMENT_LENGTH} characters, not a compact JWS, `alg` not one of
 *   PS256/ES256/EdDSA (so never `none`, HS256 or RS256), a signature no key of the directory
 *   verifies, `iss` not the directory's, no `iat` or an `iat` in the future, `exp` passed or more
 *   than `directory.maxLifetimeSeconds` after `iat`, older than `directory.maxAgeSeconds` without
 *   `exp`, no `software_id`, `org_id` or `jti`, no known role, or a claim of the wrong type, size or form (redirect URIs and `jwks_uri` as uris.ts; `jwks` as oauth/jwks.ts;
 *   `id_token_signed_response_alg` PS256 or ES256 only; `subject_type` public or pairwise;
 *   `sector_identifier_uri` an https URL; `post_logout_redirect_uris` as redirect URIs).
 * @throws RegistrationError `unapproved_software_statement` when the software id is on the
 *   directory's deny list.
 */
export async function verifySoftwareStatement(statement: unknown, directory: Directory, now: Date): Promise<SoftwareStatement> {
  if (absent(statement)) throw invalidSoftwareStatement("a software_statement signed by the trusted directory is required");
  if (typeof statement !== "string" || statement === "") throw refuse("must be a compact JWS string");
  if (statement.length > MAX_SOFTWARE_STATEMENT_LENGTH) throw refuse(`is longer than ${MAX_SOFTWARE_STATEMENT_LENGTH} characters`);
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(statement));
  } catch {
    throw refuse("is not a well-formed compact JWS");
  }
  if (!isSigningAlgorithm(alg)) throw refuse(`must be signed with ${SIGNING_ALGORITHMS.join(", ")} (FAPI 2.0 Security Profile section 5.4.1)`);
  let payload: JWTPayload;
  try {
    // jose: signature, alg allow-list, iss, iat present and a number, exp and nbf with the skew.
    ({ payload } = await jwtVerify(statement, directory.keys, {
      algorithms: [...SIGNING_ALGORITHMS],
      issuer: directory.issuer,
      requiredClaims: ["iat"],
      currentDate: now,
      clockTolerance: STATEMENT_CLOCK_SKEW_SECONDS,
    }));
  } catch (error) {
    throw refuse(joseRefusal(error, directory));
  }
  const iat = payload.iat!;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (iat > nowSeconds + STATEMENT_CLOCK_SKEW_SECONDS) throw refuse("was issued in the future (iat)");
  if (payload.exp === undefined && nowSeconds - iat > directory.maxAgeSeconds + STATEMENT_CLOCK_SKEW_SECONDS) {
    throw refuse(`has no exp and was issued more than ${directory.maxAgeSeconds} seconds ago (iat)`);
  }
  if (payload.exp !== undefined && payload.exp - iat > directory.maxLifetimeSeconds) {
    throw refuse(`is valid for too long: its exp may be at most ${directory.maxLifetimeSeconds} seconds after its iat`);
  }
  const claims = await claimsOf({ ...payload, iat });
  checkSoftwareApproved(claims, directory);
  return claims;
}

/**
 * Until when a verified statement could be accepted, in seconds since the epoch: its `exp`, or
 * without one its `iat` plus the directory's maximum age, plus the clock skew allowed. Its `jti`
 * is kept as used until then (clients.ts).
 */
export function statementAcceptedUntil(statement: Pick<SoftwareStatement, "issuedAt" | "expiresAt">, directory: Directory): number {
  return (statement.expiresAt ?? statement.issuedAt + directory.maxAgeSeconds) + STATEMENT_CLOCK_SKEW_SECONDS;
}

/**
 * Checks that the bank still accepts the statement's software: its id is not on the directory's
 * deny list. {@link verifySoftwareStatement} does it; call it again when a registration keeps a
 * statement verified earlier (an update without a new statement, management.ts).
 * @throws RegistrationError `unapproved_software_statement`.
 */
export function checkSoftwareApproved(statement: Pick<SoftwareStatement, "softwareId">, directory: Directory): void {
  if (directory.deniedSoftwareIds.has(statement.softwareId)) throw unapprovedSoftwareStatement("this software is not approved for registration at this bank");
}
