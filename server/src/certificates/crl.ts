/**
 * Certificate revocation lists (RFC 5280 §5) from the files a bank configures: PEM (`X509 CRL`
 * blocks) or DER, nothing fetched from the network. Parsing refuses the CRLs trust.ts would
 * misread: delta CRLs (§5.2.4), indirect CRLs (§5.2.5 indirectCRL, §5.3.3 certificateIssuer),
 * CRLs of some reasons only or of attribute certificates (§5.2.5), CRLs or entries with a critical
 * extension not known here, and CRLs without nextUpdate (§5.1.2.5 requires it: without it a CRL's
 * freshness cannot be judged; besides, @peculiar/asn1-x509 2.11 misreads such a CRL, dropping its
 * entries and extensions). A CRL whose issuingDistributionPoint restricts it to end-entity or CA
 * certificates is kept with that scope. A distribution point name in the issuingDistributionPoint
 * is not compared with the certificates' cRLDistributionPoints: each CRL configured for a CA is
 * taken as complete for its scope, so configure full CRLs, not partitions.
 */
import { CertificateList, id_ce_certificateIssuer, id_ce_deltaCRLIndicator, id_ce_issuingDistributionPoint, IssuingDistributionPoint, type Extension } from "@peculiar/asn1-x509";
import { decodeDer, type DerLimits } from "./der.js";
import { distinguishedName, type DistinguishedName } from "./distinguished-name.js";
import { CertificateFormatError } from "./errors.js";
import { x509 } from "./library.js";
import { decodePem } from "./pem.js";
import { pemTextOf } from "./x509.js";

/** Largest CRL accepted, in bytes (DER). A large QTSP's CRL can hold hundreds of thousands of entries. */
export const MAX_CRL_BYTES = 32 * 1024 * 1024;
/** Most CRLs in one file. */
export const MAX_CRLS_PER_FILE = 100;

/** Bounds for decoding a CRL: the node count allows about a million entries. */
const CRL_LIMITS: DerLimits = { maxBytes: MAX_CRL_BYTES, berOptions: { maxDepth: 32, maxNodes: 8_000_000, maxContentLength: MAX_CRL_BYTES } };

/** Which certificates a CRL covers (RFC 5280 §5.2.5 onlyContainsUserCerts / onlyContainsCACerts). */
export type CrlScope = "all" | "end_entity" | "ca";

/** CRL extensions understood here (RFC 5280 §5.2): a critical one among them does not make the CRL unsupported. */
const KNOWN_CRL_EXTENSIONS = new Set([
  "2.5.29.35", // authorityKeyIdentifier
  "2.5.29.18", // issuerAltName
  "2.5.29.20", // cRLNumber
  id_ce_issuingDistributionPoint,
  "2.5.29.46", // freshestCRL
  "1.3.6.1.5.5.7.1.1", // authorityInfoAccess
]);
/** CRL entry extensions understood here (RFC 5280 §5.3): reasonCode, invalidityDate. */
const KNOWN_ENTRY_EXTENSIONS = new Set(["2.5.29.21", "2.5.29.24"]);

/** A parsed CRL. */
export interface ParsedCrl {
  der: Uint8Array;
  issuer: DistinguishedName;
  /** When the CRL was issued (RFC 5280 §5.1.2.4). */
  thisUpdate: Date;
  /** When the next CRL is due (§5.1.2.5): after it, trust.ts no longer counts the CRL as current. */
  nextUpdate: Date;
  scope: CrlScope;
  /** The serial numbers listed (certificateHold included), as {@link normalizeSerial} writes them. */
  revokedSerials: ReadonlySet<string>;
  /** @peculiar/x509's object for the same DER: signature verification in trust.ts. */
  crl: x509.X509Crl;
}

/** A certificate serial number as hex for comparison: lower-case, without leading zero bytes. */
export function normalizeSerial(hex: string): string {
  return hex.toLowerCase().replace(/^(?:00)+(?=..)/, "");
}

/**
 * The CRLs of a file: PEM text with one or more `X509 CRL` blocks (text between them allowed), or
 * DER bytes of one CRL.
 *
 * @throws CertificateFormatError `empty`, `too_large` (over {@link MAX_CRL_BYTES} bytes), `not_pem`,
 *   `wrong_pem_type`, `too_many` (over {@link MAX_CRLS_PER_FILE}), `malformed` (not one DER CRL,
 *   bytes after it, a repeated extension), `unsupported` (no nextUpdate, and the others of this
 *   file's header).
 */
export function parseCrls(input: string | Uint8Array): ParsedCrl[] {
  if (input.length === 0) throw new CertificateFormatError("empty", "no CRL");
  const text = typeof input === "string" ? input : pemTextOf(input, 2 * MAX_CRL_BYTES);
  if (text === undefined) return [crlFromDer(input as Uint8Array)];
  const blocks = decodePem(text, { maxLength: 2 * MAX_CRL_BYTES, maxBlocks: MAX_CRLS_PER_FILE, textOutsideBlocks: true });
  return blocks.map((block) => {
    if (block.label !== "X509 CRL") throw new CertificateFormatError("wrong_pem_type", `expected X509 CRL PEM blocks, got ${block.label}`);
    return crlFromDer(block.der);
  });
}

function crlFromDer(input: Uint8Array): ParsedCrl {
  const der = Uint8Array.from(input);
  const asn = decodeDer(der, CertificateList, "CRL", CRL_LIMITS);
  try {
    return crlFromAsn(der, asn);
  } catch (error) {
    if (error instanceof CertificateFormatError) throw error;
    throw new CertificateFormatError("malformed", `not a usable CRL: ${(error as Error).message}`, { cause: error });
  }
}

function crlFromAsn(der: Uint8Array, asn: CertificateList): ParsedCrl {
  const tbs = asn.tbsCertList;
  if (!tbs.nextUpdate) throw new CertificateFormatError("unsupported", "CRLs without nextUpdate are not supported (RFC 5280 §5.1.2.5)");
  const extensions = new Map<string, Extension>();
  for (const extension of tbs.crlExtensions ?? []) {
    if (extensions.has(extension.extnID)) throw new CertificateFormatError("malformed", `CRL extension ${extension.extnID} appears more than once`);
    if (extension.critical && !KNOWN_CRL_EXTENSIONS.has(extension.extnID)) {
      throw new CertificateFormatError("unsupported", `CRL has a critical extension ${extension.extnID} that is not supported`);
    }
    extensions.set(extension.extnID, extension);
  }
  if (extensions.has(id_ce_deltaCRLIndicator)) throw new CertificateFormatError("unsupported", "delta CRLs are not supported");
  const revokedSerials = new Set<string>();
  for (const entry of tbs.revokedCertificates ?? []) {
    for (const extension of entry.crlEntryExtensions ?? []) {
      if (extension.extnID === id_ce_certificateIssuer) throw new CertificateFormatError("unsupported", "indirect CRLs are not supported");
      if (extension.critical && !KNOWN_ENTRY_EXTENSIONS.has(extension.extnID)) {
        throw new CertificateFormatError("unsupported", `CRL entry has a critical extension ${extension.extnID} that is not supported`);
      }
    }
    revokedSerials.add(normalizeSerial(Buffer.from(entry.userCertificate).toString("hex")));
  }
  return {
    der,
    issuer: distinguishedName(tbs.issuer),
    thisUpdate: tbs.thisUpdate.getTime(),
    nextUpdate: tbs.nextUpdate.getTime(),
    scope: scopeOf(extensions.get(id_ce_issuingDistributionPoint)),
    revokedSerials,
    crl: new x509.X509Crl(der, { berOptions: CRL_LIMITS.berOptions }),
  };
}

function scopeOf(extension: Extension | undefined): CrlScope {
  if (!extension) return "all";
  const point = decodeDer(new Uint8Array(extension.extnValue.buffer), IssuingDistributionPoint, "issuingDistributionPoint");
  if (point.indirectCRL) throw new CertificateFormatError("unsupported", "indirect CRLs are not supported");
  if (point.onlySomeReasons !== undefined) throw new CertificateFormatError("unsupported", "CRLs of some revocation reasons only are not supported");
  if (point.onlyContainsAttributeCerts) throw new CertificateFormatError("unsupported", "CRLs of attribute certificates are not supported");
  if (point.onlyContainsUserCerts && point.onlyContainsCACerts) throw new CertificateFormatError("malformed", "the CRL's issuingDistributionPoint covers neither end-entity nor CA certificates");
  return point.onlyContainsUserCerts ? "end_entity" : point.onlyContainsCACerts ? "ca" : "all";
}
