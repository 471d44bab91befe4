/**
 * The sender constraints of a gateway call. A DPoP-bound access token (RFC 9449 §7) is
 * accepted only as `Authorization: DPoP <token>` with a `DPoP` proof made with the token's
 * key, for this call's method and URL and this token (`ath`), and not replayed. A token
 * that is not bound is accepted only as a bearer token (RFC 6750). A token bound to a client
 * certificate (RFC 8705 §3) is accepted only with that certificate presented.
 */
import type { IncomingMessage } from "node:http";
import { BearerError, InvalidDpopProof, UseDpopNonce, type DpopChallenge } from "../kernel/errors.js";
import type { PresentedAccessToken } from "../oauth/bearer.js";
import { verifyDpopProof } from "../oauth/dpop.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { listenerUrl } from "../oauth/listener-url.js";
import { SIGNING_ALGORITHMS } from "../oauth/signing.js";
import type { PresentedToken } from "../oauth/tokens.js";
import { presentedCertificate } from "../certificates/presented.js";

/** The challenge of a DPoP error: the algorithms a proof may use (RFC 9449 §7.1). */
export const DPOP_CHALLENGE: DpopChallenge = { algs: SIGNING_ALGORITHMS };

/**
 * Checks how an active `token` was presented.
 * @param baseUrl - the public base URL under BASE_URL: with the call's path (the query is
 *   not part of `htu`), the URL a proof must name on the plain listener; on the mutual-TLS
 *   listener the same path under TLS_BASE_URL (oauth/listener-url.ts, RFC 9449 §4.3).
 * @returns the DPoP challenge for any later error about this token (scopes), or undefined
 *   for a bearer token.
 * @throws BearerError 401 `invalid_token` for a certificate-bound token presented over another
 *   client certificate or none (RFC 8705 §3).
 * @throws BearerError 401 with a `WWW-Authenticate: DPoP` challenge: `invalid_token` for a
 *   bound token sent as Bearer or an unbound one sent as DPoP; `invalid_dpop_proof` for a
 *   missing, invalid, replayed or other key's proof; `use_dpop_nonce`, with a `DPoP-Nonce`
 *   field, when nonces are on and the proof's is missing or stale.
 */
export async function checkSender(
  presented: PresentedAccessToken,
  token: PresentedToken,
  req: IncomingMessage,
  baseUrl: string,
  settings: DpopSettings,
  realm: string,
  now: Date,
): Promise<DpopChallenge | undefined> {
  if (token.x5t !== null && presentedCertificate(req)?.certificate.x5tS256 !== token.x5t) {
    throw new BearerError(realm, 401, "invalid_token", "this access token is bound to a client certificate: present that certificate over mutual TLS (RFC 8705 section 3)");
  }
  if (token.jkt === null) {
    if (presented.scheme === "DPoP") throw new BearerError(realm, 401, "invalid_token", "this access token is not DPoP-bound: send it as Authorization: Bearer", undefined, DPOP_CHALLENGE);
    return undefined;
  }
  if (presented.scheme !== "DPoP") {
    throw new BearerError(realm, 401, "invalid_token", "this access token is DPoP-bound: send Authorization: DPoP with a DPoP proof", undefined, DPOP_CHALLENGE);
  }
  const url = listenerUrl(req, baseUrl + (req.url ?? "/").split("?", 1)[0], settings.listeners);
  let jkt: string;
  try {
    ({ jkt } = await verifyDpopProof(req.headers.dpop, { method: req.method ?? "", url, accessToken: presented.token }, { replays: settings.replays, now, nonces: settings.nonces }));
  } catch (err) {
    if (err instanceof UseDpopNonce) throw new BearerError(realm, 401, "use_dpop_nonce", err.message, undefined, { ...DPOP_CHALLENGE, nonce: err.nonce });
    if (err instanceof InvalidDpopProof) throw new BearerError(realm, 401, "invalid_dpop_proof", err.message, undefined, DPOP_CHALLENGE);
    throw err;
  }
  if (jkt !== token.jkt) throw new BearerError(realm, 401, "invalid_dpop_proof", "the DPoP proof was not made with the key this access token is bound to", undefined, DPOP_CHALLENGE);
  return DPOP_CHALLENGE;
}
