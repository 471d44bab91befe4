/**
 * The protocol versions and cipher suites of the mutual-TLS listener (FAPI 2.0 Security
 * Profile §5.2.1, BCP 195 / RFC 9325).
 */
import type { SecureContextOptions, TlsOptions } from "node:tls";

/**
 * The TLS 1.2 cipher suites allowed, in OpenSSL's names: the four RFC 9325 §4.2 recommends,
 * ECDHE key exchange with AES-GCM, for ECDSA and RSA server keys. Left out: every CBC, CCM
 * and ARIA suite Node's default list ("HIGH") would otherwise allow, and the DHE_RSA GCM
 * suites FAPI 2.0 §5.2.1 also lists, because RFC 9325 §4.5 says not to negotiate finite-field
 * DHE (and they would need a DH group configured). TLS 1.3's suites are not named here, so
 * Node keeps its TLS 1.3 defaults (all AEAD: AES-GCM and ChaCha20-Poly1305).
 */
export const TLS12_CIPHER_SUITES = [
  "ECDHE-ECDSA-AES128-GCM-SHA256", // TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
  "ECDHE-RSA-AES128-GCM-SHA256", // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
  "ECDHE-ECDSA-AES256-GCM-SHA384", // TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
  "ECDHE-RSA-AES256-GCM-SHA384", // TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
] as const;

/**
 * The listener's protocol options: TLS 1.2 at least (RFC 9325 §3.1.1: no TLS 1.0 or 1.1),
 * TLS 1.2 only with {@link TLS12_CIPHER_SUITES}, in the server's order of preference.
 */
export const TLS_LISTENER_PROTOCOL: Pick<SecureContextOptions, "minVersion" | "ciphers"> & Pick<TlsOptions, "honorCipherOrder"> = {
  minVersion: "TLSv1.2",
  ciphers: TLS12_CIPHER_SUITES.join(":"),
  honorCipherOrder: true,
};
