/**
 * DPoP on the token and PAR endpoints (RFC 9449 §5, §10.1): the key a request proves
 * possession of, to which the tokens (or, at PAR, the authorization code) are bound.
 */
import type { IncomingMessage } from "node:http";
import { InvalidRequest } from "../kernel/errors.js";
import type { ReplayStore } from "../stores/replays.js";
import type { Client } from "./client-auth.js";
import { verifyDpopProof } from "./dpop.js";
import type { DpopNonces } from "./dpop-nonce.js";
import { listenerUrl, type ListenerUrls } from "./listener-url.js";

/** How DPoP proofs are checked: used proof ids, server nonces when the deployment requires them (RFC 9449 §8), and the listeners' URLs. */
export interface DpopSettings {
  replays: ReplayStore;
  /** Set when DPOP_NONCES is on: every proof must then carry a nonce the server issued. */
  nonces?: DpopNonces;
  /** The public base URLs of the listeners: a proof's `htu` names the one the request arrived on (oauth/listener-url.ts). */
  listeners: ListenerUrls;
}

/** A `fapi2` app's tokens are always sender-constrained (FAPI 2.0 §5.3.2.2): with DPoP, unless bound to its TLS client certificate (RFC 8705 §3). */
function requiresDpop(client: Pick<Client, "securityProfile">, certificateBound: boolean): boolean {
  return client.securityProfile === "fapi2" && !certificateBound;
}

/**
 * The JWK thumbprint of the key of the request's DPoP proof, checked against the request's
 * method and URL: `url` (this endpoint's URL under BASE_URL) on the plain listener, the
 * same path under TLS_BASE_URL on the mutual-TLS one (its `mtls_endpoint_aliases`).
 * A token may be bound to both: a request with a proof and a certificate gets tokens
 * carrying `cnf.jkt` and `cnf.x5t#S256`, each checked on every use.
 * @param certificateBound - the request presented a TLS client certificate, which the tokens will be bound to.
 * @returns undefined when the request carries no proof and `client` needs none.
 * @throws InvalidRequest (400) when a `fapi2` app sent neither a proof nor a certificate
 *   (a missing sender constraint, not a bad proof); InvalidDpopProof (400) when the proof
 *   is invalid; UseDpopNonce (400) when a nonce is required and missing or stale.
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
      throw new InvalidRequest(
        "this client's tokens are sender-constrained (FAPI 2.0 section 5.3.2.2): send a DPoP proof, or present a TLS client certificate at the mtls_endpoint_aliases",
      );
    }
    return undefined;
  }
  const proof = await verifyDpopProof(header, { method: req.method ?? "", url: listenerUrl(req, url, settings.listeners) }, { replays: settings.replays, now, nonces: settings.nonces });
  return proof.jkt;
}

/** The `DPoP-Nonce` header for a successful answer when nonces are on (RFC 9449 §8.2): the current nonce. */
export function nonceHeader(settings: DpopSettings, now: Date): Record<string, string> {
  return settings.nonces ? { "DPoP-Nonce": settings.nonces.current(now) } : {};
}
