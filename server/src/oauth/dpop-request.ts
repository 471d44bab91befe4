/**
 * DPoP on the token and PAR endpoints (RFC 9449 §5, §10.1): the key a request proves
 * possession of, to which the tokens (or, at PAR, the authorization code) are bound.
 */
import type { IncomingMessage } from "node:http";
import { InvalidDpopProof } from "../kernel/errors.js";
import type { ReplayStore } from "../stores/replays.js";
import type { Client } from "./client-auth.js";
import { verifyDpopProof } from "./dpop.js";
import type { DpopNonces } from "./dpop-nonce.js";

/** How DPoP proofs are checked: used proof ids, and server nonces when the deployment requires them (RFC 9449 §8). */
export interface DpopSettings {
  replays: ReplayStore;
  /** Set when DPOP_NONCES is on: every proof must then carry a nonce the server issued. */
  nonces?: DpopNonces;
}

/** A `fapi2` app's tokens are always sender-constrained (FAPI 2.0 §5.3.2.2): with DPoP, unless bound to its TLS client certificate (RFC 8705 §3). */
function requiresDpop(client: Pick<Client, "securityProfile">, certificateBound: boolean): boolean {
  return client.securityProfile === "fapi2" && !certificateBound;
}

/**
 * The JWK thumbprint of the key of the request's DPoP proof, checked against the request's
 * method and `url` (this endpoint's public URL).
 * @param certificateBound - the request presented a TLS client certificate, which the tokens will be bound to.
 * @returns undefined when the request carries no proof and `client` needs none.
 * @throws InvalidDpopProof (400) when the proof is invalid or a `fapi2` app sent none and no certificate;
 *   UseDpopNonce (400) when a nonce is required and missing or stale.
 */
export async function dpopKeyOf(
  req: IncomingMessage,
  url: string,
  client: Pick<Client, "securityProfile">,
  settings: DpopSettings,
  now: Date,
  certificateBound = false,
): Promise<string | undefined> {
  const header = req.headers.dpop;
  if (header === undefined) {
    if (requiresDpop(client, certificateBound)) {
      throw new InvalidDpopProof("a DPoP proof or a TLS client certificate is required: this client's tokens are sender-constrained (FAPI 2.0)");
    }
    return undefined;
  }
  const proof = await verifyDpopProof(header, { method: req.method ?? "", url }, { replays: settings.replays, now, nonces: settings.nonces });
  return proof.jkt;
}

/** The `DPoP-Nonce` header for a successful answer when nonces are on (RFC 9449 §8.2): the current nonce. */
export function nonceHeader(settings: DpopSettings, now: Date): Record<string, string> {
  return settings.nonces ? { "DPoP-Nonce": settings.nonces.current(now) } : {};
}
