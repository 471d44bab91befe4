/**
 * The one error the registration core throws on a request it refuses: an RFC 7591 §3.2.2 error
 * response (HTTP 400, `{"error": …, "error_description": …}`). It is a kernel `OAuthError`, so
 * http/error-handler.ts answers it like every other OAuth error, with the description made safe
 * for the response (kernel/errors.ts `sanitizeDescription`). Anything else thrown from this folder
 * is a bug.
 */
import { OAuthError } from "../kernel/errors.js";

/**
 * The error codes of RFC 7591 §3.2.2:
 * - `invalid_redirect_uri`: one or more redirect URIs are invalid (or not among those the
 *   software statement lists);
 * - `invalid_client_metadata`: a metadata member is invalid, contradicts the software statement,
 *   or the members do not hold together (e.g. FAPI 2.0's rules);
 * - `invalid_software_statement`: the statement is missing, malformed, not signed by the
 *   directory, expired, or its claims are invalid;
 * - `unapproved_software_statement`: a valid statement whose software this server does not
 *   accept (the bank's deny list).
 */
export type RegistrationErrorCode = "invalid_redirect_uri" | "invalid_client_metadata" | "invalid_software_statement" | "unapproved_software_statement";

/** An RFC 7591 §3.2.2 error: HTTP 400 with `error` = {@link RegistrationErrorCode}. */
export class RegistrationError extends OAuthError {
  declare readonly error: RegistrationErrorCode;

  /** @param description - may echo input: OAuthError makes it fit `error_description`. */
  constructor(code: RegistrationErrorCode, description: string) {
    super(code, description, 400);
  }
}

/** Shorthands for the four codes. */
export const invalidRedirectUri = (description: string) => new RegistrationError("invalid_redirect_uri", description);
export const invalidClientMetadata = (description: string) => new RegistrationError("invalid_client_metadata", description);
export const invalidSoftwareStatement = (description: string) => new RegistrationError("invalid_software_statement", description);
export const unapprovedSoftwareStatement = (description: string) => new RegistrationError("unapproved_software_statement", description);
