/**
 * The members of the spec's token response ("Token response" table), shared by the HTTP
 * suites and the Playwright journeys.
 */

/** Every member of a client credentials token response, sorted. */
export const CLIENT_CREDENTIALS_KEYS = [
  "access_token",
  "token_type",
  "expires_in",
  "issued_at",
  "refresh_token_expires_in",
  "refresh_count",
  "status",
  "scope",
  "api_product_list",
  "api_product_list_json",
  "client_id",
  "application_name",
  "organization_name",
  "developer.email",
].sort();

/** Every member of an authorization code (or refresh) token response, sorted: the above and the refresh token's. */
export const AUTH_CODE_KEYS = [...CLIENT_CREDENTIALS_KEYS, "refresh_token", "refresh_token_issued_at", "refresh_token_status"].sort();
