/**
 * The client certificate a request presented (RFC 8705): from its TLS connection, or from the
 * header of a trusted TLS-terminating proxy. The HTTP layer records it once per request
 * (http/client-certificates.ts); client authentication and the gateway read it here.
 */
import type { ParsedCertificate } from "./x509.js";

/** A presented client certificate and the CA certificates the client sent with it (TLS only), leaf excluded. */
export interface PresentedCertificate {
  certificate: ParsedCertificate;
  intermediates: readonly ParsedCertificate[];
}

const PRESENTED = new WeakMap<object, PresentedCertificate>();

/** Records the client certificate `request` presented. */
export function presentCertificate(request: object, presented: PresentedCertificate): void {
  PRESENTED.set(request, presented);
}

/** The client certificate `request` presented; undefined when none. */
export function presentedCertificate(request: object): PresentedCertificate | undefined {
  return PRESENTED.get(request);
}
