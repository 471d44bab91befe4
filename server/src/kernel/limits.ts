/**
 * The numeric limits on what users type: the server enforces them (admin/validation.ts,
 * interaction/router.ts) and the SPA's forms offer them (maxLength, min, max), so both read
 * them from here. Ranges are inclusive. Plain constants only, with no imports and no Node APIs:
 * the SPA imports this file too.
 */

/** Names and display names of organizations, developers (first, last) and apps. */
export const NAME_MAX_LENGTH = 100;
/** Optional free text, e.g. an API product's description. */
export const TEXT_MAX_LENGTH = 500;
export const EMAIL_MAX_LENGTH = 200;
/** An API product's name (letters, digits, . _ -). */
export const PRODUCT_NAME_MAX_LENGTH = 100;
/** An API's name, the first segment of its gateway path (lowercase letters, digits, . _ -). */
export const API_NAME_MAX_LENGTH = 63;
/** Callback URLs and upstream URLs. */
export const URL_MAX_LENGTH = 2000;
/** Most scopes on one API product or API. */
export const SCOPES_MAX_COUNT = 50;
/** A scope's description for end users (consent and Account pages). */
export const SCOPE_DESCRIPTION_MAX_LENGTH = 200;

/** An identity provider's name (letters, digits, space, . _ -), shown to PSUs. */
export const IDENTITY_PROVIDER_NAME_MAX_LENGTH = 64;
/** Tollgate's client id, and its client secret, at an identity provider (RFC 6749 VSCHAR). */
export const UPSTREAM_CLIENT_ID_MAX_LENGTH = 255;
export const UPSTREAM_CLIENT_SECRET_MAX_LENGTH = 255;
/** The ID token claim naming the bank's customer number. */
export const CLAIM_NAME_MAX_LENGTH = 64;
/** An identity provider's `acr` values that mean strong customer authentication: how many, and each one's length. */
export const ACR_VALUES_MAX_COUNT = 20;
export const ACR_VALUE_MAX_LENGTH = 255;

/** An app's access token lifetime, seconds (1 minute to 1 day). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = { min: 60, max: 86_400 } as const;
/** An app's refresh token lifetime, seconds (1 minute to 400 days). */
export const REFRESH_TOKEN_LIFETIME_SECONDS = { min: 60, max: 34_560_000 } as const;
/** How long a rotated credential's old secret keeps working, seconds (0 to 30 days). */
export const GRACE_SECONDS = { min: 0, max: 2_592_000 } as const;
/** An API's step-up maximum age of the user's authentication (RFC 9470 max_age), seconds (1 second to 365 days). */
export const MAX_AGE_SECONDS = { min: 1, max: 31_536_000 } as const;

/** A new user's username (letters, digits, . _ @ -). */
export const USERNAME_LENGTH = { min: 3, max: 100 } as const;
/** A new user's password. */
export const PASSWORD_LENGTH = { min: 12, max: 1000 } as const;
/** `first` of a paginated list. */
export const PAGE_SIZE = { min: 1, max: 200 } as const;

/** The username of a sign-in (`/interaction/:id/login`, `/session/login`). */
export const SIGN_IN_USERNAME_MAX_LENGTH = 200;
/** The password of a sign-in. */
export const SIGN_IN_PASSWORD_MAX_LENGTH = 1000;

/** A request id as Tollgate takes it from X-Request-Id (else it makes one): 1-64 letters, digits, . _ - (a UUID too). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The most request ids and interaction ids an aggregated refusal audit row keeps (http/refusal-audit.ts). */
export const REFUSAL_IDS_KEPT = 20;
