/**
 * Reading an access token from an `Authorization` header: `Bearer` (RFC 6750 §2.1) for the
 * gateway and the admin API, and `DPoP` (RFC 9449 §7.1) for the gateway.
 */
import { BearerError } from "../kernel/errors.js";

/** RFC 6750 §2.1 b64token (also RFC 9449 §7.1's token68 for DPoP). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** An access token as presented, and how: as a bearer token or as a DPoP-bound one. */
export interface PresentedAccessToken {
  token: string;
  scheme: "Bearer" | "DPoP";
}

/**
 * Extracts the access token from an `Authorization: Bearer` or, when `dpop` allows it,
 * `Authorization: DPoP` header. The scheme is case-insensitive (RFC 9110 §11.1), and
 * `BearerToken` is taken as an alias of `Bearer`: it is the `token_type` of the apigee token
 * response profile (oauth/token-response.ts), which many client libraries send back as the scheme.
 * @throws BearerError 401: no header (challenge without error code, RFC 6750 §3.1), another
 *   scheme such as Basic (never accepted here), or a malformed value (`invalid_token`).
 */
export function presentedAccessToken(authorization: string | undefined, realm: string, dpop = true): PresentedAccessToken {
  const schemes = dpop ? "Bearer or DPoP" : "Bearer";
  if (!authorization) throw new BearerError(realm, 401, undefined, `an access token is required: send Authorization: ${schemes} <access_token>`);
  const space = authorization.indexOf(" ");
  const name = space < 0 ? authorization : authorization.slice(0, space);
  const lower = name.toLowerCase();
  const scheme = lower === "bearer" || lower === "bearertoken" ? "Bearer" : dpop && lower === "dpop" ? "DPoP" : undefined;
  if (!scheme) throw new BearerError(realm, 401, undefined, `the ${name.slice(0, 20)} scheme is not accepted; send Authorization: ${schemes} <access_token>`);
  const token = space < 0 ? "" : authorization.slice(space + 1).trim();
  if (!B64TOKEN.test(token)) throw new BearerError(realm, 401, "invalid_token", scheme === "DPoP" ? "malformed DPoP token" : "malformed bearer token");
  return { token, scheme };
}

/**
 * Extracts the access token from an `Authorization: Bearer` header (the admin API).
 * @throws BearerError 401 as {@link presentedAccessToken}, also for the DPoP scheme.
 */
export function bearerToken(authorization: string | undefined, realm: string): string {
  return presentedAccessToken(authorization, realm, false).token;
}
