/**
 * What a PSD2 eIDAS certificate (a QWAC or QSealC) says about the TPP that holds it (RTS Art. 34;
 * ETSI TS 119 495): the PSD2 QCStatement (§5.1; roles §5.2.2, the name and id of the national
 * competent authority §5.2.3) and the organizationIdentifier of the subject (§5.2.1, X.520 2.5.4.97, e.g.
 * `PSDDE-BAFIN-123456`), plus the eIDAS statements of ETSI EN 319 412-5 (QcCompliance, QcType).
 *
 * The qcStatements extension (RFC 3739 §3.2.6) is decoded with @peculiar/asn1-x509-qualified, the
 * ETSI statements with @peculiar/asn1-x509-qualified-etsi. That package has no PSD2 statement,
 * so its ASN.1 (ETSI TS 119 495 Annex A) is declared below with @peculiar/asn1-schema's
 * decorators, applied as plain calls because this repository compiles without
 * `experimentalDecorators` (the effect is that of the decorator syntax: the schema is registered
 * on the class, and the library does all the decoding).
 */
import { AsnArray, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes } from "@peculiar/asn1-schema";
import { id_pe_qcStatements, QCStatements } from "@peculiar/asn1-x509-qualified";
import { id_etsi_qcs_qcCompliance, id_etsi_qcs_qcType, QcType } from "@peculiar/asn1-x509-qualified-etsi";
import { decodeDer } from "./der.js";
import { CertificateFormatError } from "./errors.js";
import { roleOfOid, type Psd2Role } from "./roles.js";
import { extensionValue, type ParsedCertificate } from "./x509.js";

/** id-etsi-psd2-qcStatement (ETSI TS 119 495 §5.1, Annex A): `{ itu-t(0) identified-organization(4) etsi(0) psd2(19495) qcstatement(2) }`. */
export const PSD2_QC_STATEMENT_OID = "0.4.0.19495.2";
/** organizationIdentifier (X.520 §6.4.4; ETSI TS 119 495 §5.2.1 puts the PSD2 authorization number in it). */
export const ORGANIZATION_IDENTIFIER_OID = "2.5.4.97";

/** `RoleOfPSP ::= SEQUENCE { roleOfPspOid RoleOfPspOid, roleOfPspName RoleOfPspName }` (ETSI TS 119 495 Annex A). */
export class RoleOfPsp {
  /** `RoleOfPspOid ::= OBJECT IDENTIFIER` */
  roleOfPspOid = "";
  /** `RoleOfPspName ::= UTF8String (SIZE(256))`, e.g. `PSP_AI`. */
  roleOfPspName = "";

  constructor(params: Partial<RoleOfPsp> = {}) {
    Object.assign(this, params);
  }
}
AsnProp({ type: AsnPropTypes.ObjectIdentifier })(RoleOfPsp.prototype, "roleOfPspOid");
AsnProp({ type: AsnPropTypes.Utf8String })(RoleOfPsp.prototype, "roleOfPspName");
AsnType({ type: AsnTypeTypes.Sequence })(RoleOfPsp);

/** `RolesOfPSP ::= SEQUENCE OF RoleOfPSP` */
export class RolesOfPsp extends AsnArray<RoleOfPsp> {
  constructor(items?: RoleOfPsp[]) {
    super(items);
    Object.setPrototypeOf(this, RolesOfPsp.prototype);
  }
}
AsnType({ type: AsnTypeTypes.Sequence, itemType: RoleOfPsp })(RolesOfPsp);

/** `PSD2QcType ::= SEQUENCE { rolesOfPSP RolesOfPSP, nCAName NCAName, nCAId NCAId }`, with `NCAName`, `NCAId ::= UTF8String (SIZE (1..256))`. */
export class Psd2QcType {
  rolesOfPsp = new RolesOfPsp();
  nCAName = "";
  nCAId = "";

  constructor(params: Partial<Psd2QcType> = {}) {
    Object.assign(this, params);
  }
}
AsnProp({ type: RolesOfPsp })(Psd2QcType.prototype, "rolesOfPsp");
AsnProp({ type: AsnPropTypes.Utf8String })(Psd2QcType.prototype, "nCAName");
AsnProp({ type: AsnPropTypes.Utf8String })(Psd2QcType.prototype, "nCAId");
AsnType({ type: AsnTypeTypes.Sequence })(Psd2QcType);

/** The PSD2 QCStatement of a certificate. */
export interface Psd2QcStatement {
  /** The known roles, each once, in the order of the statement. */
  roles: Psd2Role[];
  /** Roles whose OID is not one of the four of ETSI TS 119 495: not granted anything, reported for the log. */
  unknownRoles: { oid: string; name: string }[];
  /** The name of the national competent authority, e.g. `Bundesanstalt für Finanzdienstleistungsaufsicht`. */
  ncaName: string;
  /** Its identifier: ISO 3166 country code, `-`, the authority's abbreviation, e.g. `DE-BAFIN` (ETSI TS 119 495 §5.2.3). */
  ncaId: string;
}

/** An organizationIdentifier in the PSD2 form of ETSI TS 119 495 §5.2.1: `PSD` + country + `-` + NCA + `-` + authorization number. */
export interface PsdOrganizationIdentifier {
  /** ISO 3166-1 alpha-2 code of the NCA's country, e.g. `DE`. */
  countryCode: string;
  /** The NCA's identifier, 2–8 upper-case letters, e.g. `BAFIN`. */
  ncaId: string;
  /** The authorization number the NCA gave the PSP, e.g. `123456`. */
  authorizationNumber: string;
}

/** What a certificate says of its holder under eIDAS and PSD2. */
export interface EidasIdentity {
  /** The subject's organizationIdentifier (2.5.4.97), or null when it has none. */
  organizationIdentifier: string | null;
  /** The PSD2 QCStatement, or null when the certificate has none (not a PSD2 certificate). */
  psd2: Psd2QcStatement | null;
  /** Whether the certificate claims to be an EU qualified certificate (QcCompliance, ETSI EN 319 412-5 §4.2.1). */
  qualified: boolean;
  /** The QcType OIDs (ETSI EN 319 412-5 §4.2.3), e.g. `0.4.0.1862.1.6.3` for website authentication (a QWAC). */
  qcTypes: string[];
}

/** The statements of the qcStatements extension, or none when the certificate has no such extension. */
function qcStatements(certificate: ParsedCertificate): QCStatements | [] {
  return extensionValue(certificate.extensions, id_pe_qcStatements, QCStatements) ?? [];
}

/** The statementInfo of the statement `oid`, or null when there is no such statement. */
function statementInfo(statements: QCStatements | [], oid: string): Uint8Array | null {
  const matching = statements.filter((s) => s.statementId === oid);
  if (matching.length > 1) throw new CertificateFormatError("malformed", `QCStatement ${oid} appears more than once`);
  return matching.length === 0 ? null : new Uint8Array(matching[0]!.statementInfo ?? new ArrayBuffer(0));
}

/** The statementInfo of the statement `oid` decoded as `type`, or null when there is no such statement. */
function decodeStatement<T>(statements: QCStatements | [], oid: string, type: new () => T, what: string): T | null {
  const info = statementInfo(statements, oid);
  if (info === null) return null;
  if (info.length === 0) throw new CertificateFormatError("malformed", `the ${what} has no statementInfo`);
  return decodeDer(info, type, what);
}

/**
 * The PSD2 QCStatement of `certificate` (ETSI TS 119 495 §5.1): its roles (known ones as
 * {@link Psd2Role}, by OID; the role names in the statement are not trusted over the OIDs),
 * unknown role OIDs apart, and the NCA's name and id. Null when the certificate has no such
 * statement.
 *
 * @throws CertificateFormatError `malformed` when the qcStatements extension or the PSD2
 *   statement does not decode, or the statement appears twice.
 */
export function psd2QcStatement(certificate: ParsedCertificate): Psd2QcStatement | null {
  return psd2Of(qcStatements(certificate));
}

function psd2Of(statements: QCStatements | []): Psd2QcStatement | null {
  const statement = decodeStatement(statements, PSD2_QC_STATEMENT_OID, Psd2QcType, "PSD2 QCStatement");
  if (statement === null) return null;
  const roles: Psd2Role[] = [];
  const unknownRoles: { oid: string; name: string }[] = [];
  for (const { roleOfPspOid, roleOfPspName } of statement.rolesOfPsp) {
    const role = roleOfOid(roleOfPspOid);
    if (!role) unknownRoles.push({ oid: roleOfPspOid, name: roleOfPspName });
    else if (!roles.includes(role)) roles.push(role);
  }
  return { roles, unknownRoles, ncaName: statement.nCAName, ncaId: statement.nCAId };
}

/** The organizationIdentifier (2.5.4.97) of `certificate`'s subject, or null when it has none (the first, should there be several). */
export function organizationIdentifier(certificate: ParsedCertificate): string | null {
  for (const rdn of certificate.subject.rdns) {
    for (const attribute of rdn) {
      if (attribute.type === ORGANIZATION_IDENTIFIER_OID && !attribute.hex) return attribute.value;
    }
  }
  return null;
}

const PSD_ORGANIZATION_IDENTIFIER = /^PSD([A-Z]{2})-([A-Z]{2,8})-(.+)$/;

/**
 * The parts of a PSD2 organizationIdentifier (ETSI TS 119 495 §5.2.1), e.g. `PSDDE-BAFIN-123456`
 * → DE, BAFIN, 123456; null when `value` is not of that form (other legal-person identifiers,
 * e.g. `VATDE-…`, are valid eIDAS identifiers but not PSD2 authorization numbers).
 */
export function parsePsdOrganizationIdentifier(value: string): PsdOrganizationIdentifier | null {
  const match = PSD_ORGANIZATION_IDENTIFIER.exec(value);
  if (!match) return null;
  return { countryCode: match[1]!, ncaId: match[2]!, authorizationNumber: match[3]! };
}

/**
 * What makes `certificate`'s PSD2 identity inconsistent, or null when nothing does (no PSD2
 * statement, or one that agrees): ETSI TS 119 495 §5.2.1 puts the PSD2 authorization number in the
 * subject's organizationIdentifier as `PSD<country>-<NCA>-<number>`, and §5.2.3 the same NCA, as
 * `<country>-<NCA>`, in the PSD2 statement's NCAId. A PSD2 certificate without such an
 * organizationIdentifier, or whose two NCAs differ (compared exactly, both upper-case by the
 * specification), is not one whose roles a bank can rely on.
 * @returns one sentence for the log and the error description.
 * @throws CertificateFormatError as {@link psd2QcStatement}.
 */
export function psd2IdentityProblem(certificate: ParsedCertificate): string | null {
  const psd2 = psd2QcStatement(certificate);
  if (!psd2) return null;
  const identifier = organizationIdentifier(certificate);
  const parts = identifier === null ? null : parsePsdOrganizationIdentifier(identifier);
  if (!parts) return "a PSD2 certificate needs an organizationIdentifier of the form PSD<country>-<NCA>-<authorization number>";
  if (`${parts.countryCode}-${parts.ncaId}` !== psd2.ncaId) return `the organizationIdentifier ${identifier} is not of the NCA of the PSD2 statement, ${psd2.ncaId}`;
  return null;
}

/**
 * Everything this module reads from `certificate`: organizationIdentifier, PSD2 statement,
 * QcCompliance and QcType (ETSI EN 319 412-5 §4.2.1, §4.2.3).
 *
 * @throws CertificateFormatError `malformed` as {@link psd2QcStatement}, or a QcType statement
 *   that does not decode.
 */
export function eidasIdentity(certificate: ParsedCertificate): EidasIdentity {
  const statements = qcStatements(certificate);
  return {
    organizationIdentifier: organizationIdentifier(certificate),
    psd2: psd2Of(statements),
    qualified: statements.some((s) => s.statementId === id_etsi_qcs_qcCompliance),
    qcTypes: [...(decodeStatement(statements, id_etsi_qcs_qcType, QcType, "QcType statement") ?? [])],
  };
}
