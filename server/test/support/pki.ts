/**
 * A test PKI for the certificates domain (server/src/certificates/) and, later, the mTLS tests:
 * a root CA, an intermediate QWAC CA, QWAC-like leaf certificates with PSD2 QCStatements (ETSI TS
 * 119 495: roles, NCA name and id) and an organizationIdentifier, SANs of every kind RFC 8705
 * §2.1.2 matches, expired and not-yet-valid certificates, a revoked certificate with the CRL that
 * lists it, an expired CRL, a CA the bank does not trust, impostors (a CA and a CRL with a trusted
 * CA's name but another key), a self-signed client certificate, leaves whose extendedKeyUsage is
 * serverAuth only or absent, and a QWAC whose organizationIdentifier names another NCA than its
 * PSD2 statement.
 *
 * Everything is made here with @peculiar/x509 and Node's WebCrypto, nothing fetched. Keys are
 * ECDSA P-256 (fast to make); the whole PKI is made once per test file (module) and cached:
 * `await testPki()`. Dates are relative to the time it is made (`pki.now`), so a TLS handshake
 * against the real clock sees the same validity as a check at `pki.now`.
 */
import { AsnConvert } from "@peculiar/asn1-schema";
import { id_pe_qcStatements, QCStatement, QCStatements } from "@peculiar/asn1-x509-qualified";
import { id_etsi_qcs_qcCompliance, id_etsi_qcs_qcType, id_etsi_qct_web, QcType } from "@peculiar/asn1-x509-qualified-etsi";
import { webcrypto } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { PSD2_QC_STATEMENT_OID, Psd2QcType, RoleOfPsp, RolesOfPsp } from "../../src/certificates/eidas.js";
import { CertificateFormatError } from "../../src/certificates/errors.js";
import { x509 } from "../../src/certificates/library.js";
import { encodePem } from "../../src/certificates/pem.js";
import { PSD2_ROLE_OIDS, type Psd2Role } from "../../src/certificates/roles.js";

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

const DAY = 86_400_000;
const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;
const KEY = { name: "ECDSA", namedCurve: "P-256" } as const;

/** Extended key usages of a QWAC: TLS server and client authentication. */
export const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
export const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

/** A certificate of the test PKI with its key pair. */
export interface TestCertificate {
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
  /** The DER bytes. */
  der: Uint8Array;
  /** The PEM text (one CERTIFICATE block). */
  pem: string;
}

/** A CRL of the test PKI. */
export interface TestCrl {
  crl: x509.X509Crl;
  der: Uint8Array;
  pem: string;
}

/** What the PSD2 QCStatement of a leaf says (ETSI TS 119 495 §5.1); `extraRoles` are put in as they are, e.g. unknown OIDs. */
export interface Psd2Statement {
  roles: Psd2Role[];
  extraRoles?: { oid: string; name: string }[];
  ncaName: string;
  ncaId: string;
}

/** What {@link issueCertificate} makes. */
export interface IssueParams {
  /** Subject attributes in ASN.1 order (most significant first), e.g. `[{ C: ["DE"] }, { CN: ["x"] }]`; OIDs may be keys. */
  subject: x509.JsonName;
  /** The issuing CA; absent: self-signed with `keys`. */
  issuer?: TestCertificate;
  notBefore: Date;
  notAfter: Date;
  /** Make a CA certificate (basicConstraints cA, keyCertSign and cRLSign). */
  ca?: { pathLength?: number };
  sans?: x509.JsonGeneralNames;
  psd2?: Psd2Statement;
  /** Extra extensions, e.g. an unknown critical one. */
  extensions?: x509.Extension[];
  /** The key pair to certify; a new P-256 pair by default. */
  keys?: CryptoKeyPair;
  /** A leaf's extended key usages: serverAuth and clientAuth by default; null for no extendedKeyUsage extension. */
  extendedKeyUsages?: string[] | null;
}

/** A new ECDSA P-256 key pair. */
export async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(KEY, true, ["sign", "verify"])) as CryptoKeyPair;
}

function testCertificate(certificate: x509.X509Certificate, keys: CryptoKeyPair): TestCertificate {
  const der = new Uint8Array(certificate.rawData);
  return { certificate, keys, der, pem: encodePem(der, "CERTIFICATE") };
}

/** A qcStatements extension (RFC 3739 §3.2.6) holding `statements` as given (no statementInfo where `info` is absent). */
export function qcStatementsExtension(statements: { id: string; info?: ArrayBuffer }[]): x509.Extension {
  const list = new QCStatements(
    statements.map(({ id, info }) => {
      const statement = new QCStatement();
      statement.statementId = id;
      if (info) statement.statementInfo = info;
      else delete (statement as Partial<QCStatement>).statementInfo;
      return statement;
    }),
  );
  return new x509.Extension(id_pe_qcStatements, false, AsnConvert.serialize(list));
}

/** The qcStatements of a QWAC: QcCompliance, QcType web (ETSI EN 319 412-5) and the PSD2 statement (ETSI TS 119 495). */
function qwacStatements(psd2: Psd2Statement): x509.Extension {
  const roles = [
    ...psd2.roles.map((role) => new RoleOfPsp({ roleOfPspOid: PSD2_ROLE_OIDS[role], roleOfPspName: role })),
    ...(psd2.extraRoles ?? []).map(({ oid, name }) => new RoleOfPsp({ roleOfPspOid: oid, roleOfPspName: name })),
  ];
  const psd2Type = new Psd2QcType({ rolesOfPsp: new RolesOfPsp(roles), nCAName: psd2.ncaName, nCAId: psd2.ncaId });
  return qcStatementsExtension([
    { id: id_etsi_qcs_qcCompliance },
    { id: id_etsi_qcs_qcType, info: AsnConvert.serialize(new QcType([id_etsi_qct_web])) },
    { id: PSD2_QC_STATEMENT_OID, info: AsnConvert.serialize(psd2Type) },
  ]);
}

/** The private key of a test certificate as PKCS #8 PEM (`PRIVATE KEY`), e.g. for a TLS client's `key` option. */
export async function privateKeyPem(test: TestCertificate): Promise<string> {
  return encodePem(new Uint8Array(await webcrypto.subtle.exportKey("pkcs8", test.keys.privateKey)), "PRIVATE KEY");
}

/** A certificate signed by `params.issuer` (or self-signed), with the extensions a QWAC or a CA has. */
export async function issueCertificate(params: IssueParams): Promise<TestCertificate> {
  const keys = params.keys ?? (await generateKeys());
  const signer = params.issuer ?? { certificate: undefined, keys };
  const extensions: x509.Extension[] = [
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ...(params.issuer ? [await x509.AuthorityKeyIdentifierExtension.create(params.issuer.keys.publicKey)] : []),
  ];
  if (params.ca) {
    extensions.push(new x509.BasicConstraintsExtension(true, params.ca.pathLength, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true));
  } else {
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true));
    const usages = params.extendedKeyUsages === undefined ? [SERVER_AUTH, CLIENT_AUTH] : params.extendedKeyUsages;
    if (usages) extensions.push(new x509.ExtendedKeyUsageExtension(usages));
  }
  if (params.sans) extensions.push(new x509.SubjectAlternativeNameExtension(params.sans));
  if (params.psd2) extensions.push(qwacStatements(params.psd2));
  extensions.push(...(params.extensions ?? []));
  const certificate = await x509.X509CertificateGenerator.create({
    subject: params.subject,
    issuer: signer.certificate ? signer.certificate.subjectName : params.subject,
    notBefore: params.notBefore,
    notAfter: params.notAfter,
    publicKey: keys.publicKey,
    signingKey: signer.keys.privateKey,
    signingAlgorithm: SIGNING,
    extensions,
  });
  return testCertificate(certificate, keys);
}

/** What {@link issueCrl} makes. */
export interface CrlParams {
  issuer: TestCertificate;
  thisUpdate: Date;
  /** Absent: a CRL without nextUpdate. */
  nextUpdate?: Date;
  revoked?: { certificate: TestCertificate; reason?: x509.X509CrlReason }[];
  /** Sign with this key instead of the issuer's (an impostor CRL). */
  signingKey?: CryptoKey;
  extensions?: x509.Extension[];
}

/** A CRL issued by `params.issuer`. */
export async function issueCrl(params: CrlParams): Promise<TestCrl> {
  const crl = await x509.X509CrlGenerator.create({
    issuer: params.issuer.certificate.subjectName,
    thisUpdate: params.thisUpdate,
    ...(params.nextUpdate ? { nextUpdate: params.nextUpdate } : {}),
    entries: (params.revoked ?? []).map(({ certificate, reason }) => ({
      serialNumber: certificate.certificate.serialNumber,
      revocationDate: params.thisUpdate,
      ...(reason !== undefined ? { reason } : {}),
    })),
    ...(params.extensions ? { extensions: params.extensions } : {}),
    signingKey: params.signingKey ?? params.issuer.keys.privateKey,
    signingAlgorithm: SIGNING,
  });
  const der = new Uint8Array(crl.rawData);
  return { crl, der, pem: encodePem(der, "X509 CRL") };
}

/** The test PKI. Subjects and values are exported in {@link TEST_TPP} for the assertions. */
export interface TestPki {
  /** When the PKI was made; every valid certificate and current CRL is valid at this time and for a year after. */
  now: Date;
  root: TestCertificate;
  /** Issued by `root`, pathLenConstraint 0: issues the leaves. */
  intermediate: TestCertificate;
  /** PSP_AI, with every kind of SAN: the main TPP of the tests. */
  aisp: TestCertificate;
  /** PSP_PI and PSP_AI, plus an unknown role OID. */
  pispAisp: TestCertificate;
  /** PSP_IC only. */
  cardIssuer: TestCertificate;
  /** No PSD2 statement, no organizationIdentifier. */
  plain: TestCertificate;
  /** notAfter a day before `now`. */
  expired: TestCertificate;
  /** notBefore a day after `now`. */
  notYetValid: TestCertificate;
  /** Listed in `crl`. */
  revoked: TestCertificate;
  /** The intermediate's current CRL, listing `revoked`. */
  crl: TestCrl;
  /** The intermediate's CRL past its nextUpdate (listing nothing). */
  expiredCrl: TestCrl;
  /** The root's current CRL (listing nothing), covering the intermediate. */
  rootCrl: TestCrl;
  /** A CRL with the intermediate's name, signed by another key. */
  impostorCrl: TestCrl;
  /** A root CA the bank does not trust, and a leaf it issued. */
  unknownRoot: TestCertificate;
  unknownLeaf: TestCertificate;
  /** A CA with the intermediate's subject DN but another key, and a leaf it issued (its signature does not verify with the real intermediate). */
  impostorCa: TestCertificate;
  impostorLeaf: TestCertificate;
  /** A self-signed client certificate (RFC 8705 §2.2), with the same SANs as a small TPP would have. */
  selfSigned: TestCertificate;
  /** PSP_AI, but its extendedKeyUsage is serverAuth only: not for TLS client authentication. */
  serverAuthOnly: TestCertificate;
  /** PSP_AI, no extendedKeyUsage extension at all (RFC 5280 §4.2.1.12: any purpose). */
  noExtendedKeyUsage: TestCertificate;
  /** PSP_AI under DE-BAFIN, but its organizationIdentifier names another NCA ({@link TEST_TPP}.ncaMismatch). */
  ncaMismatch: TestCertificate;
}

/** The names and values the test PKI puts in its certificates. */
export const TEST_TPP = {
  rootSubject: [{ C: ["DE"] }, { O: ["Tollgate Test QTSP"] }, { CN: ["Tollgate Test Root CA"] }] as x509.JsonName,
  intermediateSubject: [{ C: ["DE"] }, { O: ["Tollgate Test QTSP"] }, { CN: ["Tollgate Test QWAC CA"] }] as x509.JsonName,
  ncaName: "Bundesanstalt für Finanzdienstleistungsaufsicht",
  ncaId: "DE-BAFIN",
  aisp: {
    organizationIdentifier: "PSDDE-BAFIN-123456",
    /** The subject in RFC 4514 form, with the organizationIdentifier as its OID (x509.ts writes `organizationIdentifier=`). */
    subjectDn: "CN=tpp-aisp.example.com,2.5.4.97=PSDDE-BAFIN-123456,O=Example AISP GmbH,L=Frankfurt am Main,C=DE",
    dns: "tpp-aisp.example.com",
    uri: "https://tpp-aisp.example.com/oauth/client",
    ipv4: "192.0.2.10",
    ipv6: "2001:db8::10",
    email: "ops@Example.COM",
  },
  pispAisp: { organizationIdentifier: "PSDDE-BAFIN-654321", unknownRole: { oid: "0.4.0.19495.1.99", name: "PSP_XX" } },
  cardIssuer: { organizationIdentifier: "PSDFR-ACPR-777" },
  /** The organizationIdentifier of {@link TestPki}.ncaMismatch: French ACPR, while its PSD2 statement says DE-BAFIN. */
  ncaMismatch: { organizationIdentifier: "PSDFR-ACPR-123456" },
} as const;

/** A QWAC subject in ASN.1 order: country, locality, organization, organizationIdentifier, CN. */
function tppSubject(cn: string, organization: string, organizationIdentifier?: string): x509.JsonName {
  return [
    { C: ["DE"] },
    { L: ["Frankfurt am Main"] },
    { O: [organization] },
    ...(organizationIdentifier ? [{ "2.5.4.97": [organizationIdentifier] }] : []),
    { CN: [cn] },
  ];
}

let cached: Promise<TestPki> | undefined;

/** The test PKI, made on first use in this module and cached. */
export function testPki(): Promise<TestPki> {
  cached ??= makePki();
  return cached;
}

async function makePki(): Promise<TestPki> {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const at = (days: number) => new Date(now.getTime() + days * DAY);
  const valid = { notBefore: at(-1), notAfter: at(365) };
  const caValid = { notBefore: at(-30), notAfter: at(3650) };
  const psd2 = (roles: Psd2Role[], extraRoles?: Psd2Statement["extraRoles"]): Psd2Statement => ({
    roles,
    ...(extraRoles ? { extraRoles } : {}),
    ncaName: TEST_TPP.ncaName,
    ncaId: TEST_TPP.ncaId,
  });

  const root = await issueCertificate({ subject: TEST_TPP.rootSubject, ...caValid, ca: {} });
  const intermediate = await issueCertificate({ subject: TEST_TPP.intermediateSubject, issuer: root, ...caValid, ca: { pathLength: 0 } });
  const { aisp: a } = TEST_TPP;
  const aisp = await issueCertificate({
    subject: tppSubject(a.dns, "Example AISP GmbH", a.organizationIdentifier),
    issuer: intermediate,
    ...valid,
    sans: [
      { type: "dns", value: a.dns },
      { type: "url", value: a.uri },
      { type: "ip", value: a.ipv4 },
      { type: "ip", value: a.ipv6 },
      { type: "email", value: a.email },
    ],
    psd2: psd2(["PSP_AI"]),
  });
  const leaf = (cn: string, extra: Partial<IssueParams> = {}) =>
    issueCertificate({ subject: tppSubject(cn, "Example TPP SE"), issuer: intermediate, ...valid, sans: [{ type: "dns", value: cn }], ...extra });
  const pispAisp = await leaf("tpp-pisp.example.com", {
    subject: tppSubject("tpp-pisp.example.com", "Example PISP SE", TEST_TPP.pispAisp.organizationIdentifier),
    psd2: psd2(["PSP_PI", "PSP_AI"], [TEST_TPP.pispAisp.unknownRole]),
  });
  const cardIssuer = await leaf("tpp-card.example.fr", {
    subject: tppSubject("tpp-card.example.fr", "Exemple Carte SA", TEST_TPP.cardIssuer.organizationIdentifier),
    psd2: { roles: ["PSP_IC"], ncaName: "Autorité de contrôle prudentiel et de résolution", ncaId: "FR-ACPR" },
  });
  const plain = await leaf("plain.example.com");
  const expired = await leaf("expired.example.com", { notBefore: at(-60), notAfter: at(-1), psd2: psd2(["PSP_AI"]) });
  const notYetValid = await leaf("future.example.com", { notBefore: at(1), notAfter: at(365), psd2: psd2(["PSP_AI"]) });
  const revoked = await leaf("revoked.example.com", { psd2: psd2(["PSP_AI"]) });

  const crl = await issueCrl({ issuer: intermediate, thisUpdate: at(-1), nextUpdate: at(7), revoked: [{ certificate: revoked, reason: x509.X509CrlReason.keyCompromise }] });
  const expiredCrl = await issueCrl({ issuer: intermediate, thisUpdate: at(-14), nextUpdate: at(-7) });
  const rootCrl = await issueCrl({ issuer: root, thisUpdate: at(-1), nextUpdate: at(30) });

  const unknownRoot = await issueCertificate({ subject: [{ C: ["XX"] }, { O: ["Unknown QTSP"] }, { CN: ["Unknown Root CA"] }], ...caValid, ca: {} });
  const unknownLeaf = await issueCertificate({ subject: tppSubject("unknown.example.com", "Unknown TPP"), issuer: unknownRoot, ...valid, psd2: psd2(["PSP_AI"]) });
  const impostorCa = await issueCertificate({ subject: TEST_TPP.intermediateSubject, issuer: unknownRoot, ...caValid, ca: { pathLength: 0 } });
  const impostorLeaf = await issueCertificate({ subject: tppSubject("impostor.example.com", "Impostor Ltd"), issuer: impostorCa, ...valid, psd2: psd2(["PSP_PI"]) });
  const impostorCrl = await issueCrl({ issuer: intermediate, thisUpdate: at(-1), nextUpdate: at(7), signingKey: impostorCa.keys.privateKey });

  const selfSigned = await issueCertificate({
    subject: [{ C: ["DE"] }, { O: ["Small TPP UG"] }, { CN: ["small-tpp.example.org"] }],
    ...valid,
    sans: [{ type: "dns", value: "small-tpp.example.org" }],
  });

  const serverAuthOnly = await leaf("server-only.example.com", {
    subject: tppSubject("server-only.example.com", "Example AISP GmbH", "PSDDE-BAFIN-222222"),
    psd2: psd2(["PSP_AI"]),
    extendedKeyUsages: [SERVER_AUTH],
  });
  const noExtendedKeyUsage = await leaf("any-purpose.example.com", {
    subject: tppSubject("any-purpose.example.com", "Example AISP GmbH", "PSDDE-BAFIN-333333"),
    psd2: psd2(["PSP_AI"]),
    extendedKeyUsages: null,
  });
  const ncaMismatch = await leaf("mismatch.example.com", {
    subject: tppSubject("mismatch.example.com", "Example AISP GmbH", TEST_TPP.ncaMismatch.organizationIdentifier),
    psd2: psd2(["PSP_AI"]),
  });

  return {
    now,
    root,
    intermediate,
    aisp,
    pispAisp,
    cardIssuer,
    plain,
    expired,
    notYetValid,
    revoked,
    crl,
    expiredCrl,
    rootCrl,
    impostorCrl,
    unknownRoot,
    unknownLeaf,
    impostorCa,
    impostorLeaf,
    selfSigned,
    serverAuthOnly,
    noExtendedKeyUsage,
    ncaMismatch,
  };
}

/**
 * The reason of the CertificateFormatError `parse` throws; fails the test when it returns, or
 * throws anything else.
 */
export function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    if (error instanceof CertificateFormatError) return error.reason;
    throw error;
  }
  throw new Error("expected a CertificateFormatError, but nothing was thrown");
}

/**
 * fast-check: copies of `der` with one to three bytes overwritten, at offsets from `from` on (to
 * aim at the extensions, which sit in the second half of a certificate), for the parsers' properties.
 */
export function mutatedCopies(der: Uint8Array, from = 0): fc.Arbitrary<Uint8Array> {
  const edit = fc.record({ at: fc.integer({ min: from, max: der.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) });
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    const mutated = Uint8Array.from(der);
    for (const { at, byte } of edits) mutated[at] = byte;
    return mutated;
  });
}

/** A temporary folder for the PEM files the server's TLS settings name. */
export interface PemFolder {
  /** Writes `text` to the file `name` in the folder. @returns its path. */
  file(name: string, text: string): string;
  /** Deletes the folder and its files. */
  remove(): void;
}

/** A new {@link PemFolder} under the system's temporary folder, its name starting with `prefix`. */
export function pemFolder(prefix: string): PemFolder {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return {
    file(name, text) {
      const at = path.join(dir, name);
      writeFileSync(at, text);
      return at;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The settings of a mutual-TLS listener on 127.0.0.1 (TLS_CERT, TLS_KEY, TLS_CLIENT_CA), written
 * to `folder`: a server certificate for 127.0.0.1 and localhost issued by the test QTSP's
 * intermediate, valid a day either side of its `now`, with its chain; and the QTSP's root and
 * intermediate as the client CAs.
 */
export async function tlsListenerSettings(pki: TestPki, folder: PemFolder): Promise<{ TLS_CERT: string; TLS_KEY: string; TLS_CLIENT_CA: string }> {
  const listener = await issueCertificate({
    subject: [{ CN: ["localhost"] }],
    issuer: pki.intermediate,
    notBefore: new Date(pki.now.getTime() - 86_400_000),
    notAfter: new Date(pki.now.getTime() + 86_400_000),
    sans: [
      { type: "ip", value: "127.0.0.1" },
      { type: "dns", value: "localhost" },
    ],
  });
  return {
    TLS_CERT: folder.file("listener.pem", listener.pem + pki.intermediate.pem),
    TLS_KEY: folder.file("listener.key", await privateKeyPem(listener)),
    TLS_CLIENT_CA: folder.file("qtsp-ca.pem", pki.root.pem + pki.intermediate.pem),
  };
}
