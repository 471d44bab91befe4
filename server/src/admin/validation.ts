/**
 * Input rules of the admin API (zod). A violation is a BAD_USER_INPUT error naming the field.
 */
import type { GraphQLError } from "graphql";
import { z } from "zod";
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  ACR_VALUE_MAX_LENGTH,
  ACR_VALUES_MAX_COUNT,
  API_NAME_MAX_LENGTH,
  CLAIM_NAME_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  GRACE_SECONDS,
  IDENTITY_PROVIDER_NAME_MAX_LENGTH,
  MAX_AGE_SECONDS,
  NAME_MAX_LENGTH,
  PAGE_SIZE,
  PASSWORD_LENGTH,
  REQUEST_ID_PATTERN,
  PRODUCT_NAME_MAX_LENGTH,
  REFRESH_TOKEN_LIFETIME_SECONDS,
  SCOPE_DESCRIPTION_MAX_LENGTH,
  SCOPES_MAX_COUNT,
  TEXT_MAX_LENGTH,
  UPSTREAM_CLIENT_ID_MAX_LENGTH,
  UPSTREAM_CLIENT_SECRET_MAX_LENGTH,
  URL_MAX_LENGTH,
  USERNAME_LENGTH,
} from "../kernel/limits.js";
import { ACR_VALUES } from "../kernel/acr.js";
import { isLinkLocalOrMetadata, URI_CHARACTERS } from "../kernel/addresses.js";
import { TOLLGATE_SEGMENTS } from "../kernel/paths.js";
import { isCleanText } from "../kernel/text.js";
import { MAX_REDIRECT_URIS, sectorIdentifierUriProblem } from "../registration/uris.js";
import { gqlError } from "./context.js";

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const isLoopback = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "[::1]";
/** https, or http on a loopback host (RFC 9700 §4.1, for redirect URIs; the same for a jwks_uri). */
const isHttpsOrLoopback = (url: URL) => url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname));
/** Whether a URL the server will fetch avoids the addresses of kernel/addresses.ts `isLinkLocalOrMetadata`; an unparsable URL is left to the other checks. */
const notLinkLocal = (u: string) => !URL.canParse(u) || !isLinkLocalOrMetadata(new URL(u));
/** Why such a URL is refused. */
const LINK_LOCAL_REFUSED = "link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, 100.100.100.200, metadata.google.internal) are refused";

const httpUrl = z
  .string()
  .max(URL_MAX_LENGTH)
  .refine((u) => URL.canParse(u) && ["http:", "https:"].includes(new URL(u).protocol), "an absolute http(s) URL");

/**
 * An API's upstream URL: an absolute http(s) URL and, unless `allowLinkLocal`
 * (ALLOW_LINK_LOCAL_UPSTREAMS), not on a link-local or cloud metadata address, which would
 * let the gateway hand the instance's cloud credentials to callers.
 */
export function upstreamUrl(allowLinkLocal: boolean) {
  return allowLinkLocal
    ? httpUrl
    : httpUrl.refine(notLinkLocal, `${LINK_LOCAL_REFUSED}; set ALLOW_LINK_LOCAL_UPSTREAMS=true to allow them`);
}

/**
 * An absolute https URL, or http on a loopback host (RFC 9700 §4.1), without a fragment, of
 * RFC 3986 characters only: no space, control or non-ASCII character.
 */
const secureUrl = z
  .string()
  .max(URL_MAX_LENGTH)
  .refine((u) => URI_CHARACTERS.test(u), "RFC 3986 characters only: no spaces, control or non-ASCII characters (percent-encode them)")
  .refine((u) => URL.canParse(u) && !u.includes("#") && isHttpsOrLoopback(new URL(u)), "an absolute https URL (http only on localhost), without a fragment");

/**
 * An identity provider's issuer identifier (OpenID Connect Discovery §3: https, no query or
 * fragment), which Tollgate fetches its metadata from: https, or http on a loopback host
 * (tests, the demo); RFC 3986 characters only, no user information, never a link-local or
 * cloud metadata address.
 */
const issuer = z
  .string()
  .max(URL_MAX_LENGTH)
  .refine((u) => URI_CHARACTERS.test(u), "RFC 3986 characters only: no spaces, control or non-ASCII characters (percent-encode them)")
  .refine(
    (u) => URL.canParse(u) && !u.includes("?") && !u.includes("#") && isHttpsOrLoopback(new URL(u)),
    "an absolute https URL (http only on 127.0.0.1, localhost or [::1]), without a query or fragment",
  )
  .refine((u) => !URL.canParse(u) || (new URL(u).username === "" && new URL(u).password === ""), "no user name or password in the URL")
  .refine(notLinkLocal, LINK_LOCAL_REFUSED);

/** Visible ASCII and space (RFC 6749 Appendix A VSCHAR): client ids and secrets. */
const VSCHAR = /^[\x20-\x7e]+$/;
/** Visible ASCII without space: a claim name, an `acr` value. */
const NQCHAR = /^[\x21-\x7e]+$/;

/** Text a database stores as given (no lone surrogates, no NUL). */
const text = (max: number) => z.string().trim().max(max).refine(isCleanText, "must be well-formed text without NUL");

/** A scope's description, shown to end users instead of the scope's name. */
const scopeDescription = z.object({
  name: z.string().regex(SCOPE, "RFC 6749 §3.3 scope characters only"),
  description: text(SCOPE_DESCRIPTION_MAX_LENGTH).pipe(z.string().min(1, "a description for end users is required")),
});

export const v = {
  scopeDescription,
  name: text(NAME_MAX_LENGTH).pipe(z.string().min(1)),
  optionalText: text(TEXT_MAX_LENGTH).optional(),
  email: z.email().max(EMAIL_MAX_LENGTH),
  /** API product names are stored space-separated in tokens, so no spaces. */
  productName: z.string().regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${PRODUCT_NAME_MAX_LENGTH - 1}}$`), "letters, digits, . _ - (no spaces)"),
  apiName: z
    .string()
    .regex(new RegExp(`^[a-z0-9][a-z0-9._-]{0,${API_NAME_MAX_LENGTH - 1}}$`), "lowercase letters, digits, . _ -")
    .refine((n) => !TOLLGATE_SEGMENTS.has(n), "this path is reserved by Tollgate"),
  scopes: z
    .array(z.string().regex(SCOPE, "RFC 6749 §3.3 scope characters only"))
    .max(SCOPES_MAX_COUNT)
    .refine((s) => new Set(s).size === s.length, "duplicate scope"),
  /** Scope descriptions, each shown to end users instead of the scope's name. */
  scopeDescriptions: z
    .array(scopeDescription)
    .max(SCOPES_MAX_COUNT)
    .refine((s) => new Set(s.map((d) => d.name)).size === s.length, "duplicate scope"),
  /**
   * RFC 9700 §4.1: https, or http on a loopback host; absolute, no fragment. Only RFC 3986
   * characters (RFC 6749 §3.1.2: an absolute URI), so what is stored is what a client sends
   * (the URL parser would otherwise drop surrounding spaces and encode inner ones).
   */
  callbackUrl: secureUrl,
  /**
   * An app's jwks_uri (RFC 7591 §2), which the token endpoint fetches: a {@link secureUrl},
   * never on a link-local or cloud metadata address.
   */
  jwksUri: secureUrl.refine(notLinkLocal, LINK_LOCAL_REFUSED),
  /**
   * An app's post-logout redirect URIs (OpenID Connect RP-Initiated Logout 1.0 §3.1), which the
   * logout endpoint matches exactly as the authorization endpoint matches callback URLs: each a
   * {@link callbackUrl}, each once, at most as many as a registration may list (registration/uris.ts).
   */
  postLogoutRedirectUris: z
    .array(secureUrl)
    .max(MAX_REDIRECT_URIS)
    .refine((uris) => new Set(uris).size === uris.length, "duplicate URI"),
  /**
   * A pairwise app's sector identifier URI (OpenID Connect Registration §2: an https URL), by
   * dynamic registration's rules (registration/uris.ts `sectorIdentifierUriProblem`); not fetched.
   */
  sectorIdentifierUri: z.string().superRefine((uri, ctx) => {
    const problem = sectorIdentifierUriProblem(uri);
    if (problem) ctx.addIssue({ code: "custom", message: `must be ${problem}` });
  }),
  /** Seconds. */
  accessTokenLifetime: z.number().int().min(ACCESS_TOKEN_LIFETIME_SECONDS.min).max(ACCESS_TOKEN_LIFETIME_SECONDS.max),
  /** Seconds; at most 400 days. */
  refreshTokenLifetime: z.number().int().min(REFRESH_TOKEN_LIFETIME_SECONDS.min).max(REFRESH_TOKEN_LIFETIME_SECONDS.max),
  /** Seconds. */
  graceSeconds: z.number().int().min(GRACE_SECONDS.min).max(GRACE_SECONDS.max),
  /** An API's step-up acr (RFC 9470): one of the levels Tollgate assigns (kernel/acr.ts). */
  acr: z.enum(ACR_VALUES, { error: `one of ${ACR_VALUES.join(", ")}, or empty for none` }),
  /** An API's step-up max age (RFC 9470), seconds. */
  maxAgeSeconds: z.number().int().min(MAX_AGE_SECONDS.min).max(MAX_AGE_SECONDS.max),
  username: z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9._@-]{${USERNAME_LENGTH.min},${USERNAME_LENGTH.max}}$`),
      `${USERNAME_LENGTH.min}-${USERNAME_LENGTH.max} letters, digits, . _ @ -`,
    ),
  password: z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max).refine(isCleanText, "must be well-formed text without NUL"),
  first: z.number().int().min(PAGE_SIZE.min).max(PAGE_SIZE.max),
  /** The console's global search text: a name, a consumer key, a username or a token id prefix. */
  search: text(NAME_MAX_LENGTH).pipe(z.string().min(1)),
  /** A request's X-Request-Id or x-fapi-interaction-id, as Tollgate records them (http/logger.ts). */
  requestId: z.string().regex(REQUEST_ID_PATTERN, "a request id or interaction id: 1-64 letters, digits, . _ -"),
  /** An identity provider's name, shown to PSUs: letters, digits, spaces, . _ - (surrounding spaces dropped). */
  identityProviderName: z
    .string()
    .trim()
    .regex(new RegExp(`^[A-Za-z0-9 ._-]{1,${IDENTITY_PROVIDER_NAME_MAX_LENGTH}}$`), `1-${IDENTITY_PROVIDER_NAME_MAX_LENGTH} letters, digits, spaces, . _ -`),
  issuer,
  /** Tollgate's client id at an identity provider. */
  upstreamClientId: z
    .string()
    .min(1, "a client id is required")
    .max(UPSTREAM_CLIENT_ID_MAX_LENGTH)
    .regex(VSCHAR, "printable ASCII characters only"),
  /** Tollgate's client secret at an identity provider (client_secret_basic). */
  upstreamClientSecret: z
    .string()
    .min(1, "a client secret is required")
    .max(UPSTREAM_CLIENT_SECRET_MAX_LENGTH)
    .regex(VSCHAR, "printable ASCII characters only"),
  /** The ID token claim naming the customer number. */
  claimName: z.string().max(CLAIM_NAME_MAX_LENGTH).regex(NQCHAR, "printable ASCII characters without spaces"),
  /** The `acr` values (OpenID Connect Core §2) that mean strong customer authentication at an identity provider. */
  acrValues: z
    .array(z.string().max(ACR_VALUE_MAX_LENGTH).regex(NQCHAR, "printable ASCII characters without spaces"))
    .max(ACR_VALUES_MAX_COUNT)
    .refine((a) => new Set(a).size === a.length, "duplicate value"),
  /** Client authentication methods (the GraphQL enum admits only known names): one or more, each once. */
  authMethods: z
    .array(z.string())
    .min(1, "at least one method")
    .refine((m) => new Set(m).size === m.length, "duplicate method"),
};

/**
 * The BAD_USER_INPUT error of an invalid field: "field: message" (e.g. "callbackUrls.0: an
 * absolute https URL"), which the console shows by the form as "Callback urls: …".
 */
export function inputError(field: string, message: string): GraphQLError {
  return gqlError("BAD_USER_INPUT", `${field}: ${message}`);
}

/** Parses `value` with `schema`. @throws BAD_USER_INPUT naming the first invalid field. */
export function check<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw inputError([field, ...issue.path.map(String)].join("."), issue.message);
  }
  return parsed.data;
}

/** {@link check} for an optional field: undefined and null stay undefined. */
export function checkOptional<T>(schema: z.ZodType<T>, value: unknown, field: string): T | undefined {
  return value === undefined || value === null ? undefined : check(schema, value, field);
}

/**
 * {@link check} for an optional field that null clears: undefined (left out) stays
 * undefined, null stays null, and so does "" when `emptyIsNull`.
 */
export function checkNullable<T>(schema: z.ZodType<T>, value: unknown, field: string, emptyIsNull = false): T | null | undefined {
  if (value === undefined || value === null) return value;
  return emptyIsNull && value === "" ? null : check(schema, value, field);
}
