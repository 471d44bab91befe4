/**
 * Whether a client certificate is trusted (RFC 5280 §6, reduced to what a bank's mTLS needs; RTS
 * Art. 34: the TPP is identified by a qualified certificate of a QTSP): a path from the certificate
 * to one of the configured trust anchors (the QTSP CA certificates the bank lists), through
 * configured or presented intermediates; every signature on it; every certificate of it within
 * its validity period at `now` (the anchor too); every issuer a CA (basicConstraints cA, keyUsage
 * keyCertSign when present, pathLenConstraint); no critical extension that is not understood;
 * no certificate of it revoked by a configured CRL (crl.ts); and the certificate itself fit for
 * its use: an extendedKeyUsage, when present, with id-kp-clientAuth (x509.ts `allowsClientAuth`,
 * as OpenSSL's TLS client purpose), and a PSD2 identity that holds together (eidas.ts
 * `psd2IdentityProblem`). These are checked the same whether the certificate came over the TLS
 * listener or in a TLS-terminating proxy's header.
 *
 * Revocation, per certificate below the anchor, with the CRLs whose issuer is that certificate's
 * issuer and whose scope covers it:
 * - a CRL counts only if its signature verifies with the issuer's key (and the issuer's keyUsage,
 *   when present, has cRLSign); if there are CRLs for the issuer but none verifies →
 *   `crl_bad_signature` (a forged or misconfigured CRL is not silently skipped);
 * - the certificate's serial in any verified CRL → `revoked` (certificateHold included), even in
 *   a CRL that is no longer current;
 * - otherwise at least one verified CRL must be current, thisUpdate ≤ now ≤ nextUpdate; if none is
 *   (all past their nextUpdate, or not yet valid) → `crl_expired`.
 *   Fail closed: an expired CRL says nothing about certificates revoked since, and the bank's
 *   rule is to refuse rather than trust a revocation status it does not know;
 * - no CRL for the issuer at all: `crl_missing` when the store says `revocation: "require_crl"`,
 *   else (`"crl_if_configured"`) the certificate is not checked for revocation.
 *
 * Several paths may exist (a renewed or cross-signed CA): each is tried, the first that passes
 * wins; when none does, the failure of the path that got furthest is reported. The work is
 * bounded: at most {@link MAX_PATH_LENGTH} certificates in a path, {@link MAX_PRESENTED_INTERMEDIATES}
 * presented intermediates, {@link MAX_SIGNATURE_CHECKS} signature checks per call.
 */
import { normalizeSerial, type ParsedCrl } from "./crl.js";
import { sameDistinguishedName } from "./distinguished-name.js";
import { psd2IdentityProblem } from "./eidas.js";
import { CertificateFormatError } from "./errors.js";
import { x509 } from "./library.js";
import { allowsClientAuth, keyUsageAllows, KeyUsageFlags, validityAt, type ParsedCertificate } from "./x509.js";

/** Most certificates in a path, leaf and anchor included. */
export const MAX_PATH_LENGTH = 6;
/** Most intermediates a client may present with its certificate. */
export const MAX_PRESENTED_INTERMEDIATES = 8;
/** Most certificate signature checks in one {@link verifyCertificateChain} call. */
export const MAX_SIGNATURE_CHECKS = 32;

/**
 * Certificate extensions understood here (RFC 5280 §4.2): a critical one among them is processed
 * (basicConstraints, keyUsage), matched by client-auth.ts (subjectAltName), or allows any value
 * for this use (extendedKeyUsage, certificatePolicies: any policy is accepted, as with no initial
 * policy set), or is never critical (key identifiers, qcStatements, issuerAltName). Any other
 * critical extension (e.g. nameConstraints, which is not enforced) makes the certificate refused.
 */
const UNDERSTOOD_EXTENSIONS = new Set([
  "2.5.29.19", // basicConstraints
  "2.5.29.15", // keyUsage
  "2.5.29.37", // extKeyUsage
  "2.5.29.17", // subjectAltName
  "2.5.29.18", // issuerAltName
  "2.5.29.32", // certificatePolicies
  "2.5.29.14", // subjectKeyIdentifier
  "2.5.29.35", // authorityKeyIdentifier
  "1.3.6.1.5.5.7.1.3", // qcStatements (RFC 3739)
]);

/** What a bank configures: whom it trusts, and the CRLs it has. */
export interface TrustStore {
  /** The trust anchors: the QTSP CA certificates (PEM files in the configuration, x509.ts `parseCertificates`). */
  anchors: readonly ParsedCertificate[];
  /** Intermediate CA certificates the bank has, for clients that present only their own certificate. Not trusted by themselves. */
  intermediates: readonly ParsedCertificate[];
  /** The CRLs (crl.ts `parseCrls`), of any CA on the paths. */
  crls: readonly ParsedCrl[];
  /** Whether every certificate below the anchor must have a CRL of its issuer (`require_crl`), or only those that have one are checked. */
  revocation: "require_crl" | "crl_if_configured";
}

/** Why a certificate is not trusted. */
export type TrustFailureReason =
  /** No path to a trust anchor: the issuer is not an anchor nor a known intermediate. */
  | "untrusted_issuer"
  /** A certificate's signature does not verify with the key of the certificate named as its issuer. */
  | "bad_signature"
  /** An issuer is not a CA: no basicConstraints cA, or a keyUsage without keyCertSign. */
  | "not_a_ca"
  /** The path is longer than an issuer's pathLenConstraint or than {@link MAX_PATH_LENGTH}, or the search ran out of its budget. */
  | "path_too_long"
  /** A certificate has a critical extension that is not understood (RFC 5280 §4.2). */
  | "unsupported_critical_extension"
  /** A certificate's notAfter is before `now`. */
  | "expired"
  /** A certificate's notBefore is after `now`. */
  | "not_yet_valid"
  /** A certificate is listed in a CRL of its issuer. */
  | "revoked"
  /** Its issuer has no CRL while `revocation` is `require_crl`. */
  | "crl_missing"
  /** Its issuer's CRLs are all past their nextUpdate (or not yet valid). */
  | "crl_expired"
  /** There are CRLs naming its issuer, but none is signed by the issuer's key. */
  | "crl_bad_signature"
  /** The certificate's extendedKeyUsage does not allow TLS client authentication (id-kp-clientAuth). */
  | "not_for_client_auth"
  /** The certificate's PSD2 statement and organizationIdentifier name different NCAs, or it has no PSD2 organizationIdentifier (ETSI TS 119 495 §5.2.1). */
  | "psd2_identity_mismatch";

export type TrustVerdict =
  | {
      trusted: true;
      /** The path: the certificate first, the trust anchor last. */
      chain: ParsedCertificate[];
    }
  | {
      trusted: false;
      reason: TrustFailureReason;
      /** One sentence for the log, naming the certificate concerned. */
      message: string;
      /** The RFC 4514 subject of the certificate the failure is about. */
      subject: string;
    };

export interface VerifyOptions {
  /** The time to judge validity periods and CRL freshness at. */
  now: Date;
  /** Intermediates the client presented with its certificate (TLS chain), not trusted by themselves; at most {@link MAX_PRESENTED_INTERMEDIATES}, the rest ignored. */
  presented?: readonly ParsedCertificate[];
}

type Failure = Extract<TrustVerdict, { trusted: false }>;

/** How far a failure got: a path that reached an anchor ranks above one that died on the way. */
const RANK: Record<TrustFailureReason, number> = {
  untrusted_issuer: 0,
  path_too_long: 1,
  bad_signature: 2,
  not_a_ca: 2,
  unsupported_critical_extension: 3,
  expired: 3,
  not_yet_valid: 3,
  revoked: 3,
  crl_missing: 3,
  crl_expired: 3,
  crl_bad_signature: 3,
  not_for_client_auth: 3,
  psd2_identity_mismatch: 3,
};

function failure(reason: TrustFailureReason, certificate: ParsedCertificate, message: string): Failure {
  return { trusted: false, reason, message: `${message}: ${certificate.subject.text}`, subject: certificate.subject.text };
}

/**
 * Whether `certificate` is trusted under `store` at `options.now`, as this file's header says.
 * Never throws for a certificate that parsed (x509.ts); async because CRL signatures are verified
 * with WebCrypto.
 */
export async function verifyCertificateChain(certificate: ParsedCertificate, store: TrustStore, options: VerifyOptions): Promise<TrustVerdict> {
  const search = new PathSearch(store, options);
  return search.from([certificate]);
}

class PathSearch {
  private readonly issuers: readonly ParsedCertificate[];
  private readonly anchors: ReadonlySet<string>;
  private signatureChecks = 0;

  constructor(
    private readonly store: TrustStore,
    private readonly options: VerifyOptions,
  ) {
    this.anchors = new Set(store.anchors.map((anchor) => anchor.x5tS256));
    this.issuers = [...store.anchors, ...store.intermediates, ...(options.presented ?? []).slice(0, MAX_PRESENTED_INTERMEDIATES)];
  }

  /** The best verdict over the paths that extend `path` (leaf first; its last certificate is the one to find an issuer for). */
  async from(path: readonly ParsedCertificate[]): Promise<TrustVerdict> {
    const current = path[path.length - 1]!;
    if (this.anchors.has(current.x5tS256)) return this.validate(path);
    if (path.length >= MAX_PATH_LENGTH) return failure("path_too_long", current, `no trust anchor within ${MAX_PATH_LENGTH} certificates`);
    const candidates = this.issuers.filter(
      (issuer) => sameDistinguishedName(issuer.subject.rdns, current.issuer.rdns) && !path.some((p) => p.x5tS256 === issuer.x5tS256),
    );
    let best: Failure = failure("untrusted_issuer", current, `issuer ${current.issuer.text} is not a trust anchor nor a known intermediate`);
    for (const issuer of candidates) {
      const verdict = await this.through(path, current, issuer);
      if (verdict.trusted) return verdict;
      if (RANK[verdict.reason] > RANK[best.reason] || best.reason === "untrusted_issuer") best = verdict;
    }
    return best;
  }

  /** The best verdict over the paths in which `issuer` issued `current`. */
  private async through(path: readonly ParsedCertificate[], current: ParsedCertificate, issuer: ParsedCertificate): Promise<TrustVerdict> {
    if (this.signatureChecks >= MAX_SIGNATURE_CHECKS) return failure("path_too_long", current, "too many candidate issuers");
    this.signatureChecks += 1;
    if (!signedBy(current, issuer)) return failure("bad_signature", current, `signature does not verify with the key of ${issuer.subject.text}`);
    if (!issuer.isCa || !keyUsageAllows(issuer, KeyUsageFlags.keyCertSign)) return failure("not_a_ca", issuer, "issuer is not a CA certificate");
    const intermediatesBelow = path.length - 1;
    if (issuer.pathLength !== undefined && intermediatesBelow > issuer.pathLength) {
      return failure("path_too_long", issuer, `path longer than the issuer's pathLenConstraint ${issuer.pathLength}`);
    }
    return this.from([...path, issuer]);
  }

  /** Checks a complete path (leaf … anchor): extensions, dates, revocation. */
  private async validate(path: readonly ParsedCertificate[]): Promise<TrustVerdict> {
    const { now } = this.options;
    for (const certificate of path) {
      const unknown = [...certificate.extensions].find(([oid, extension]) => extension.critical && !UNDERSTOOD_EXTENSIONS.has(oid));
      if (unknown) return failure("unsupported_critical_extension", certificate, `critical extension ${unknown[0]} is not supported`);
      const validity = validityAt(certificate, now);
      if (validity === "expired") return failure("expired", certificate, `certificate expired ${certificate.notAfter.toISOString()}`);
      if (validity === "not_yet_valid") return failure("not_yet_valid", certificate, `certificate not valid before ${certificate.notBefore.toISOString()}`);
    }
    for (let i = 0; i < path.length - 1; i++) {
      const problem = await this.revocation(path[i]!, path[i + 1]!);
      if (problem) return problem;
    }
    return purposeFailure(path[0]!) ?? { trusted: true, chain: [...path] };
  }

  /** The revocation failure of `certificate` issued by `issuer`, or null (this file's header). */
  private async revocation(certificate: ParsedCertificate, issuer: ParsedCertificate): Promise<Failure | null> {
    const { now } = this.options;
    const covering = this.store.crls.filter((crl) => sameDistinguishedName(crl.issuer.rdns, issuer.subject.rdns) && covers(crl, certificate));
    if (covering.length === 0) {
      return this.store.revocation === "require_crl" ? failure("crl_missing", certificate, `no CRL of ${issuer.subject.text}`) : null;
    }
    const verified: ParsedCrl[] = [];
    for (const crl of covering) if (await crlSignedBy(crl, issuer)) verified.push(crl);
    if (verified.length === 0) return failure("crl_bad_signature", certificate, `no CRL naming ${issuer.subject.text} is signed by its key`);
    const serial = normalizeSerial(certificate.serialNumber);
    if (verified.some((crl) => crl.revokedSerials.has(serial))) return failure("revoked", certificate, `certificate ${serial} is revoked`);
    if (!verified.some((crl) => isCurrent(crl, now))) {
      const latest = verified.reduce((a, b) => (b.thisUpdate > a.thisUpdate ? b : a));
      return failure("crl_expired", certificate, `the CRL of ${issuer.subject.text} is not current (nextUpdate ${latest.nextUpdate.toISOString()})`);
    }
    return null;
  }
}

/** Why the certificate a client presented is not fit to identify it, or null (this file's header). */
function purposeFailure(certificate: ParsedCertificate): Failure | null {
  if (!allowsClientAuth(certificate)) return failure("not_for_client_auth", certificate, "the certificate's extendedKeyUsage does not allow TLS client authentication");
  let problem: string | null;
  try {
    problem = psd2IdentityProblem(certificate);
  } catch (error) {
    if (!(error instanceof CertificateFormatError)) throw error;
    problem = `its qcStatements cannot be read (${error.message})`;
  }
  return problem === null ? null : failure("psd2_identity_mismatch", certificate, problem);
}

/** Whether `crl`'s scope covers `certificate` (crl.ts CrlScope). */
function covers(crl: ParsedCrl, certificate: ParsedCertificate): boolean {
  return crl.scope === "all" || (crl.scope === "ca") === certificate.isCa;
}

/** Whether `crl` is current at `now`: thisUpdate ≤ now ≤ nextUpdate. */
export function isCurrent(crl: Pick<ParsedCrl, "thisUpdate" | "nextUpdate">, now: Date): boolean {
  return crl.thisUpdate.getTime() <= now.getTime() && now.getTime() <= crl.nextUpdate.getTime();
}

/** Whether `issuer`'s key verifies `certificate`'s signature (OpenSSL, through Node's X509Certificate). */
function signedBy(certificate: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return certificate.certificate.verify(issuer.certificate.publicKey);
  } catch {
    return false;
  }
}

/**
 * The outcome of each CRL signature check, by CRL and issuer thumbprint: a CRL of many megabytes
 * costs its hashing once, not on every check. Both are immutable, so the outcome cannot change.
 */
const crlSignatures = new WeakMap<ParsedCrl, Map<string, Promise<boolean>>>();

/** Whether `issuer`'s key verifies `crl`'s signature (@peculiar/x509 over WebCrypto), and its keyUsage allows CRL signing. */
function crlSignedBy(crl: ParsedCrl, issuer: ParsedCertificate): Promise<boolean> {
  if (!keyUsageAllows(issuer, KeyUsageFlags.cRLSign)) return Promise.resolve(false);
  let byIssuer = crlSignatures.get(crl);
  if (!byIssuer) crlSignatures.set(crl, (byIssuer = new Map()));
  let outcome = byIssuer.get(issuer.x5tS256);
  if (!outcome) {
    outcome = verifyCrl(crl, issuer);
    byIssuer.set(issuer.x5tS256, outcome);
  }
  return outcome;
}

async function verifyCrl(crl: ParsedCrl, issuer: ParsedCertificate): Promise<boolean> {
  try {
    return await crl.crl.verify({ publicKey: new x509.PublicKey(issuer.spki) });
  } catch {
    return false;
  }
}
