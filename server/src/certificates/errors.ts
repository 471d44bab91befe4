/**
 * The one error the parsers of certificates/ throw on input they refuse: a certificate, a CRL,
 * a PEM text, a proxy header or an RFC 4514 distinguished name that is too large, not in the
 * expected encoding or not what it claims to be. Anything else thrown from these modules is a bug.
 */

/** Why an input was refused. */
export type CertificateFormatReason =
  /** Longer than the module's bound (characters for text, bytes for DER). */
  | "too_large"
  /** Empty where something was required. */
  | "empty"
  /** Not PEM: no `-----BEGIN …-----` block, an unterminated block, text around a single block, bad base64. */
  | "not_pem"
  /** A PEM block of another type than expected (e.g. a private key where a certificate was expected). */
  | "wrong_pem_type"
  /** More PEM blocks than allowed (one for a client certificate). */
  | "too_many"
  /** DER that does not decode as the expected ASN.1 structure, or with bytes after it. */
  | "malformed"
  /** A CRL this module does not evaluate (delta CRL, indirect CRL, unknown critical extension). */
  | "unsupported"
  /** A proxy header that is not valid percent-encoding, or was encoded twice. */
  | "bad_encoding"
  /** An RFC 4514 string that does not follow its grammar, or an unknown attribute type name. */
  | "bad_distinguished_name";

export class CertificateFormatError extends Error {
  override readonly name = "CertificateFormatError";

  constructor(
    readonly reason: CertificateFormatReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
