/**
 * Reading a bearer access token from an `Authorization` header (RFC 6750 §2.1), for the
 * gateway and the admin API.
 */
import { BearerError } from "../kernel/errors.js";

/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Extracts the access token from an `Authorization: Bearer` header. The scheme is
 * case-insensitive (RFC 9110 §11.1), and `BearerToken` is taken as an alias of `Bearer`:
 * it is the `token_type` of the apigee token response profile (oauth/token-response.ts),
 * which many client libraries send back as the scheme.
 * @throws BearerError 401: no header (challenge without error code, §3.1), another scheme
 *   such as Basic (never accepted here), or a malformed value (`invalid_token`).
 */
export function bearerToken(authorization: string | undefined, realm: string): string {
  if (!authorization) throw new BearerError(realm, 401, undefined, "a Bearer access token is required");
  const space = authorization.indexOf(" ");
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  const lower = scheme.toLowerCase();
  if (lower !== "bearer" && lower !== "bearertoken") {
    throw new BearerError(realm, 401, undefined, `the ${scheme.slice(0, 20)} scheme is not accepted; send Authorization: Bearer <access_token>`);
  }
  const token = space < 0 ? "" : authorization.slice(space + 1).trim();
  if (!B64TOKEN.test(token)) throw new BearerError(realm, 401, "invalid_token", "malformed bearer token");
  return token;
}
