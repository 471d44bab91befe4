/**
 * X.509 certificates (RFC 5280) as the rest of Tollgate sees them: parsed from PEM or DER with
 * bounded input, with the RFC 8705 §3.1 thumbprint, the subject and issuer as RDNs and RFC 4514
 * strings, the SANs RFC 8705 §2.1.2 matches on, and the validity period. The DER is decoded by
 * asn1js and @peculiar/asn1-x509's schema (never by hand). OpenSSL (Node's `X509Certificate`)
 * must read the same DER too, and checks the signatures for trust.ts: @peculiar/x509's check over
 * WebCrypto accepts other encodings of a signed certificate (a SEQUENCE tag turned into a SET, a
 * non-zero unused-bits octet in the signature BIT STRING), OpenSSL's does not, so a trusted
 * certificate has one encoding and one thumbprint (trust.test.ts flips each byte to show it).
 */
import { createHash, X509Certificate } from "node:crypto";
import {
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  GeneralNames,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  KeyUsage,
  KeyUsageFlags,
  type Extension,
} from "@peculiar/asn1-x509";
import { CERTIFICATE_LIMITS, decodeDer } from "./der.js";
import { distinguishedName, type DistinguishedName } from "./distinguished-name.js";
import { CertificateFormatError } from "./errors.js";
import { decodePem, looksLikePem } from "./pem.js";

/** Largest DER certificate accepted, in bytes. A QWAC is 2–4 KiB; 16 KiB leaves room for long SAN lists. */
export const MAX_CERTIFICATE_BYTES = CERTIFICATE_LIMITS.maxBytes;
/** Longest PEM text of one certificate accepted, in characters: base64 of the largest DER, line breaks, the armour. */
export const MAX_CERTIFICATE_PEM_LENGTH = 24 * 1024;
/** Longest PEM bundle accepted by {@link parseCertificates} (trust anchors, intermediates), in characters. */
export const MAX_BUNDLE_PEM_LENGTH = 4 * 1024 * 1024;
/** Most certificates in one bundle. */
export const MAX_BUNDLE_CERTIFICATES = 1000;

/** The subject alternative names RFC 8705 §2.1.2 can match, by GeneralName kind (RFC 5280 §4.2.1.6). Other kinds are left out. */
export interface SubjectAltNames {
  /** dNSName entries, as written in the certificate. */
  dns: string[];
  /** uniformResourceIdentifier entries. */
  uri: string[];
  /** iPAddress entries as text: IPv4 dotted decimal, IPv6 in RFC 5952 form. */
  ip: string[];
  /** rfc822Name entries (e-mail addresses). */
  email: string[];
}

/** A parsed certificate. Plain data, plus Node's object for signature checks. */
export interface ParsedCertificate {
  /** The DER bytes exactly as received: what the thumbprint and byte comparisons are over. */
  der: Uint8Array;
  /** `x5t#S256` (RFC 8705 §3.1): base64url(SHA-256(DER)), 43 characters, no padding. */
  x5tS256: string;
  /** The serial number: hex, lower-case, as encoded (a leading 00 byte kept when the encoding has one). */
  serialNumber: string;
  subject: DistinguishedName;
  issuer: DistinguishedName;
  subjectAltNames: SubjectAltNames;
  /** Start of the validity period (RFC 5280 §4.1.2.5), inclusive. */
  notBefore: Date;
  /** End of the validity period, inclusive. */
  notAfter: Date;
  /** basicConstraints cA (RFC 5280 §4.2.1.9); false when the extension is absent. */
  isCa: boolean;
  /** basicConstraints pathLenConstraint, when present. */
  pathLength?: number;
  /** keyUsage bits (RFC 5280 §4.2.1.3) as @peculiar's KeyUsageFlags; undefined when the extension is absent (no restriction). */
  keyUsage?: number;
  /** extendedKeyUsage purposes (RFC 5280 §4.2.1.12) as OIDs, e.g. `1.3.6.1.5.5.7.3.2` (id-kp-clientAuth); undefined when the extension is absent (any purpose). */
  extendedKeyUsage?: readonly string[];
  /** The DER of the SubjectPublicKeyInfo: to compare the key with a registered JWK (client-auth.ts). */
  spki: Uint8Array;
  /** The extensions by OID, each once (a certificate with a repeated extension is refused, RFC 5280 §4.2). */
  extensions: ReadonlyMap<string, CertificateExtension>;
  /** Node's (OpenSSL's) object for the same DER: signature verification in trust.ts, the public key. */
  certificate: X509Certificate;
}

/** One extension of a certificate (RFC 5280 §4.1.2.9). */
export interface CertificateExtension {
  critical: boolean;
  /** The DER inside extnValue. */
  value: Uint8Array;
}

/**
 * `x5t#S256` of a certificate (RFC 8705 §3.1): base64url without padding of the SHA-256 of its
 * DER encoding, 43 characters. What a certificate-bound access token carries in `cnf`.
 */
export function certificateThumbprint(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("base64url");
}

/**
 * One certificate, from PEM text (exactly one `CERTIFICATE` block, only whitespace around it) or
 * from DER bytes (e.g. Node's `TLSSocket.getPeerCertificate().raw`).
 *
 * @throws CertificateFormatError `too_large` (over {@link MAX_CERTIFICATE_PEM_LENGTH} characters or
 *   {@link MAX_CERTIFICATE_BYTES} bytes), `empty`, `not_pem`, `wrong_pem_type`, `too_many`,
 *   `malformed` (not one DER certificate, bytes after it, a repeated or undecodable extension).
 */
export function parseCertificate(input: string | Uint8Array): ParsedCertificate {
  if (typeof input !== "string") return certificateFromDer(input);
  if (input.length > MAX_CERTIFICATE_PEM_LENGTH) throw new CertificateFormatError("too_large", `certificate PEM longer than ${MAX_CERTIFICATE_PEM_LENGTH} characters`);
  if (input.trim() === "") throw new CertificateFormatError("empty", "no certificate");
  const [block] = decodePem(input, { maxLength: MAX_CERTIFICATE_PEM_LENGTH, maxBlocks: 1, textOutsideBlocks: false });
  if (block!.label !== "CERTIFICATE") throw new CertificateFormatError("wrong_pem_type", `expected a CERTIFICATE PEM block, got ${block!.label}`);
  return certificateFromDer(block!.der);
}

/**
 * The certificates of a bundle: PEM text with one or more `CERTIFICATE` blocks (text between
 * them, e.g. comments, is allowed: RFC 7468 §5.2), or DER bytes of one certificate. Bytes that
 * start with a PEM BEGIN line are read as PEM. For the configured trust anchors and intermediates.
 *
 * @throws CertificateFormatError as {@link parseCertificate}, with the bundle's bounds
 *   ({@link MAX_BUNDLE_PEM_LENGTH}, {@link MAX_BUNDLE_CERTIFICATES}); a block of another type →
 *   `wrong_pem_type`.
 */
export function parseCertificates(input: string | Uint8Array): ParsedCertificate[] {
  const text = typeof input === "string" ? input : pemTextOf(input, MAX_BUNDLE_PEM_LENGTH);
  if (text === undefined) return [certificateFromDer(input as Uint8Array)];
  const blocks = decodePem(text, { maxLength: MAX_BUNDLE_PEM_LENGTH, maxBlocks: MAX_BUNDLE_CERTIFICATES, textOutsideBlocks: true });
  return blocks.map((block) => {
    if (block.label !== "CERTIFICATE") throw new CertificateFormatError("wrong_pem_type", `expected CERTIFICATE PEM blocks, got ${block.label}`);
    return certificateFromDer(block.der);
  });
}

/**
 * The text of `bytes` when they are PEM (text that holds a BEGIN line), else undefined (DER: it
 * starts with a SEQUENCE tag, 0x30).
 *
 * @throws CertificateFormatError `too_large` for text over `maxLength` bytes.
 */
export function pemTextOf(bytes: Uint8Array, maxLength: number): string | undefined {
  if (bytes[0] === 0x30) return undefined;
  if (bytes.length > maxLength) throw new CertificateFormatError("too_large", `PEM text longer than ${maxLength} bytes`);
  const text = Buffer.from(bytes).toString("latin1");
  return looksLikePem(text) ? text : undefined;
}

/** A certificate from its DER bytes (see {@link parseCertificate} for the errors). */
function certificateFromDer(input: Uint8Array): ParsedCertificate {
  const der = Uint8Array.from(input);
  const asn = decodeDer(der, Certificate, "certificate");
  try {
    const certificate = new X509Certificate(der);
    const tbs = asn.tbsCertificate;
    const extensions = extensionMap(tbs.extensions ?? []);
    const basic = extensionValue(extensions, id_ce_basicConstraints, BasicConstraints);
    const keyUsage = extensionValue(extensions, id_ce_keyUsage, KeyUsage);
    const extendedKeyUsage = extensionValue(extensions, id_ce_extKeyUsage, ExtendedKeyUsage);
    return {
      der,
      x5tS256: certificateThumbprint(der),
      serialNumber: Buffer.from(tbs.serialNumber).toString("hex"),
      subject: distinguishedName(tbs.subject),
      issuer: distinguishedName(tbs.issuer),
      subjectAltNames: subjectAltNames(extensionValue(extensions, id_ce_subjectAltName, GeneralNames)),
      notBefore: tbs.validity.notBefore.getTime(),
      notAfter: tbs.validity.notAfter.getTime(),
      isCa: basic?.cA ?? false,
      ...(basic?.pathLenConstraint !== undefined ? { pathLength: basic.pathLenConstraint } : {}),
      ...(keyUsage ? { keyUsage: keyUsage.toNumber() } : {}),
      ...(extendedKeyUsage ? { extendedKeyUsage: [...extendedKeyUsage] } : {}),
      spki: new Uint8Array(certificate.publicKey.export({ type: "spki", format: "der" })),
      extensions,
      certificate,
    };
  } catch (error) {
    if (error instanceof CertificateFormatError) throw error;
    throw new CertificateFormatError("malformed", `not a usable certificate: ${(error as Error).message}`, { cause: error });
  }
}

/** The extensions by OID; a repeated OID is refused (RFC 5280 §4.2: "MUST NOT include more than one instance"). */
function extensionMap(extensions: readonly Extension[]): Map<string, CertificateExtension> {
  const map = new Map<string, CertificateExtension>();
  for (const extension of extensions) {
    if (map.has(extension.extnID)) throw new CertificateFormatError("malformed", `extension ${extension.extnID} appears more than once`);
    map.set(extension.extnID, { critical: extension.critical, value: new Uint8Array(extension.extnValue.buffer) });
  }
  return map;
}

/**
 * The value of extension `oid` of `extensions` decoded as `type` (an @peculiar/asn1-schema class),
 * or undefined when absent.
 *
 * @throws CertificateFormatError `malformed` when the value does not decode.
 */
export function extensionValue<T>(extensions: ReadonlyMap<string, CertificateExtension>, oid: string, type: new () => T): T | undefined {
  const extension = extensions.get(oid);
  if (!extension) return undefined;
  return decodeDer(extension.value, type, `extension ${oid}`);
}

function subjectAltNames(names: GeneralNames | undefined): SubjectAltNames {
  const result: SubjectAltNames = { dns: [], uri: [], ip: [], email: [] };
  for (const name of names ?? []) {
    if (name.dNSName !== undefined) result.dns.push(name.dNSName);
    else if (name.uniformResourceIdentifier !== undefined) result.uri.push(name.uniformResourceIdentifier);
    else if (name.iPAddress !== undefined) result.ip.push(name.iPAddress);
    else if (name.rfc822Name !== undefined) result.email.push(name.rfc822Name);
  }
  return result;
}

/** Whether `certificate`'s keyUsage allows `flag` (no keyUsage extension: every use allowed, RFC 5280 §4.2.1.3). */
export function keyUsageAllows(certificate: ParsedCertificate, flag: KeyUsageFlags): boolean {
  return certificate.keyUsage === undefined || (certificate.keyUsage & flag) !== 0;
}

export { KeyUsageFlags };

/** id-kp-clientAuth (RFC 5280 §4.2.1.12): TLS WWW client authentication. */
export const CLIENT_AUTH_PURPOSE = "1.3.6.1.5.5.7.3.2";

/**
 * Whether `certificate` may authenticate a TLS client: no extendedKeyUsage extension (any
 * purpose, RFC 5280 §4.2.1.12), or one that lists id-kp-clientAuth. anyExtendedKeyUsage alone
 * does not do, as with OpenSSL's TLS client purpose, which the TLS listener's handshake applies.
 */
export function allowsClientAuth(certificate: Pick<ParsedCertificate, "extendedKeyUsage">): boolean {
  return certificate.extendedKeyUsage === undefined || certificate.extendedKeyUsage.includes(CLIENT_AUTH_PURPOSE);
}

/** Where `now` falls in a certificate's validity period (RFC 5280 §4.1.2.5: both ends inclusive). */
export function validityAt(certificate: Pick<ParsedCertificate, "notBefore" | "notAfter">, now: Date): "valid" | "expired" | "not_yet_valid" {
  if (now.getTime() < certificate.notBefore.getTime()) return "not_yet_valid";
  if (now.getTime() > certificate.notAfter.getTime()) return "expired";
  return "valid";
}
