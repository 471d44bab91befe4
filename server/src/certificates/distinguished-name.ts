/**
 * Distinguished names: a certificate's subject or issuer as RDNs, their RFC 4514 string form, the
 * parsing of such a string (e.g. a client's registered `tls_client_auth_subject_dn`, RFC 8705
 * §2.1.2) and the comparison of two names.
 *
 * The string form is written and read here rather than with @peculiar/x509's `Name`, whose string
 * form is not RFC 4514's (it keeps the ASN.1 order of the RDNs instead of reversing it, and its
 * parser is a loose regular expression). The DER side is @peculiar/asn1-x509's `Name`.
 *
 * Comparison (RFC 4517 §4.2.15 distinguishedNameMatch, the values with RFC 4518 string
 * preparation): the same number of RDNs in the same order; each RDN the same set of
 * type-and-value pairs, in any order (a multi-valued RDN is a SET); types compared as OIDs, so
 * `CN`, `cn`, `commonName` and `2.5.4.3` are one type; string values compared after Unicode NFKC,
 * case folding, and insignificant space handling (leading and trailing spaces dropped, inner
 * runs of spaces as one). Values that are not strings (RFC 4514 `#hex`) compare by their bytes.
 * Every attribute type of a certificate's subject in practice (CN, O, OU, C, L, ST, serialNumber,
 * organizationIdentifier, …) has case-ignoring equality in X.520, so one rule serves them all.
 */
import { AsnParser } from "@peculiar/asn1-schema";
import { AttributeValue, type Name } from "@peculiar/asn1-x509";
import * as asn1js from "asn1js";
import { CertificateFormatError } from "./errors.js";

/** One attribute of an RDN. */
export interface DnAttribute {
  /** The attribute type as a dotted OID, e.g. `2.5.4.3` for CN. */
  type: string;
  /**
   * The value: its text when it is a string type (UTF8String, PrintableString, …); when `hex`,
   * the lower-case hex of its BER encoding (RFC 4514 §2.4 `#` form, without the `#`).
   */
  value: string;
  hex: boolean;
}

/** A relative distinguished name: one or more attributes (a SET: their order carries no meaning). */
export type Rdn = readonly DnAttribute[];

/** A distinguished name as RDNs in ASN.1 order (most significant first, e.g. C, O, CN) and as an RFC 4514 string. */
export interface DistinguishedName {
  rdns: readonly Rdn[];
  /** RFC 4514 §2: RDNs in reverse ASN.1 order, separated by `,`, e.g. `CN=TPP,O=Example,C=DE`. */
  text: string;
}

/** Longest RFC 4514 string accepted by {@link parseDistinguishedName}, in characters. */
export const MAX_DN_STRING_LENGTH = 4096;

/** Attribute types with a name in the string form: the RFC 4514 §3 table, then other registered descriptors a QWAC subject uses. */
const NAME_OF_TYPE: Readonly<Record<string, string>> = {
  "2.5.4.3": "CN",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.6": "C",
  "2.5.4.9": "STREET",
  "0.9.2342.19200300.100.1.25": "DC",
  "0.9.2342.19200300.100.1.1": "UID",
  "2.5.4.4": "SN",
  "2.5.4.5": "serialNumber",
  "2.5.4.12": "title",
  "2.5.4.15": "businessCategory",
  "2.5.4.17": "postalCode",
  "2.5.4.42": "givenName",
  "2.5.4.43": "initials",
  "2.5.4.44": "generationQualifier",
  "2.5.4.46": "dnQualifier",
  "2.5.4.65": "pseudonym",
  "2.5.4.97": "organizationIdentifier",
  "1.2.840.113549.1.9.1": "emailAddress",
  "1.3.6.1.4.1.311.60.2.1.1": "jurisdictionLocalityName",
  "1.3.6.1.4.1.311.60.2.1.2": "jurisdictionStateOrProvinceName",
  "1.3.6.1.4.1.311.60.2.1.3": "jurisdictionCountryName",
};

/** Names accepted when parsing, lower-case: the ones above and their usual long forms. */
const TYPE_OF_NAME: ReadonlyMap<string, string> = new Map([
  ...Object.entries(NAME_OF_TYPE).map(([oid, name]) => [name.toLowerCase(), oid] as const),
  ["commonname", "2.5.4.3"],
  ["localityname", "2.5.4.7"],
  ["stateorprovincename", "2.5.4.8"],
  ["organizationname", "2.5.4.10"],
  ["organizationalunitname", "2.5.4.11"],
  ["countryname", "2.5.4.6"],
  ["streetaddress", "2.5.4.9"],
  ["domaincomponent", "0.9.2342.19200300.100.1.25"],
  ["userid", "0.9.2342.19200300.100.1.1"],
  ["surname", "2.5.4.4"],
  ["gn", "2.5.4.42"],
  ["email", "1.2.840.113549.1.9.1"],
]);

const NUMERIC_OID = /^(?:0|[1-9][0-9]*)(?:\.(?:0|[1-9][0-9]*))+$/;
const DESCRIPTOR = /^[A-Za-z][A-Za-z0-9-]*$/;
const HEX_PAIRS = /^(?:[0-9A-Fa-f]{2})+$/;

/** The RDNs of an ASN.1 Name (as @peculiar/asn1-x509 parsed it). */
function rdnsOfName(name: Name): Rdn[] {
  return name.map((rdn) =>
    rdn.map((attribute): DnAttribute => {
      const value = attribute.value;
      if (value.anyValue !== undefined) return { type: attribute.type, value: Buffer.from(value.anyValue).toString("hex"), hex: true };
      return { type: attribute.type, value: value.toString(), hex: false };
    }),
  );
}

/** A distinguished name from the RDNs of an ASN.1 Name. */
export function distinguishedName(name: Name): DistinguishedName {
  const rdns = rdnsOfName(name);
  return { rdns, text: formatDistinguishedName(rdns) };
}

/**
 * The RFC 4514 §2 string form of `rdns` (given in ASN.1 order): reversed, `,` between RDNs, `+`
 * between the attributes of one RDN, types by their short name where known (§2.3) and as dotted
 * OIDs otherwise, values escaped (§2.4), non-string values as `#hex`. One departure: a string value
 * of a type without a name is written as text after its OID (`2.5.4.99=text`), not as the `#hex`
 * of §2.4, so that people can read and copy it; parseDistinguishedName reads both forms.
 */
export function formatDistinguishedName(rdns: readonly Rdn[]): string {
  return [...rdns]
    .reverse()
    .map((rdn) => rdn.map(formatAttribute).join("+"))
    .join(",");
}

function formatAttribute({ type, value, hex }: DnAttribute): string {
  const name = NAME_OF_TYPE[type] ?? type;
  return hex ? `${name}=#${value}` : `${name}=${escapeValue(value)}`;
}

/** RFC 4514 §2.4 escaping; control characters as `\XX` too, so the string stays printable. */
function escapeValue(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) out += `\\${code.toString(16).padStart(2, "0").toUpperCase()}`;
    else if ('"+,;<>\\'.includes(char)) out += `\\${char}`;
    else if ((char === " " || char === "#") && i === 0) out += `\\${char}`;
    else if (char === " " && i === value.length - 1) out += "\\ ";
    else out += char;
  }
  return out;
}

/**
 * The RDNs (in ASN.1 order) of an RFC 4514 string, e.g. a registered
 * `tls_client_auth_subject_dn` (RFC 8705 §2.1.2). Follows the RFC 4514 §3 grammar, with one
 * leniency of RFC 4514 §4 ("implementations MAY recognize other DN string representations"):
 * spaces around `,`, `+` and `=` are ignored, as older forms (RFC 1779) allowed. Types are short
 * names (case-insensitive, e.g. `cn`, `CN`, `commonName`, `organizationIdentifier`) or dotted
 * OIDs; values are strings with `\` escapes (`\,` or `\2C`; hex pairs are UTF-8 bytes) or `#hex`
 * BER (a string type in it is read as its text). The empty string is the empty name.
 *
 * @throws CertificateFormatError `too_large` (over {@link MAX_DN_STRING_LENGTH} characters),
 *   `bad_distinguished_name` (grammar, unknown type name, bad escape, invalid UTF-8, bad BER).
 */
export function parseDistinguishedName(text: string): Rdn[] {
  if (text.length > MAX_DN_STRING_LENGTH) throw new CertificateFormatError("too_large", `distinguished name longer than ${MAX_DN_STRING_LENGTH} characters`);
  const reader = new DnReader(text);
  const rdns: Rdn[] = [];
  reader.skipSpaces();
  if (reader.atEnd()) return rdns;
  for (;;) {
    const rdn: DnAttribute[] = [];
    for (;;) {
      rdn.push(reader.attribute());
      reader.skipSpaces();
      if (!reader.take("+")) break;
      reader.skipSpaces();
    }
    rdns.push(rdn);
    if (reader.atEnd()) break;
    if (!reader.take(",")) reader.fail("expected ',' or '+' between attributes");
    reader.skipSpaces();
  }
  return rdns.reverse();
}

/** A cursor over an RFC 4514 string. */
class DnReader {
  private position = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  take(char: string): boolean {
    if (this.text[this.position] !== char) return false;
    this.position += 1;
    return true;
  }

  skipSpaces(): void {
    while (this.text[this.position] === " ") this.position += 1;
  }

  fail(message: string): never {
    throw new CertificateFormatError("bad_distinguished_name", `${message} at character ${this.position + 1} of the distinguished name`);
  }

  /** attributeTypeAndValue = attributeType EQUALS attributeValue */
  attribute(): DnAttribute {
    const type = this.attributeType();
    this.skipSpaces();
    if (!this.take("=")) this.fail("expected '='");
    this.skipSpaces();
    if (this.text[this.position] === "#") return this.hexValue(type);
    return { type, value: this.stringValue(), hex: false };
  }

  private attributeType(): string {
    const start = this.position;
    while (!this.atEnd() && !"= ,+".includes(this.text[this.position]!)) this.position += 1;
    const word = this.text.slice(start, this.position);
    if (NUMERIC_OID.test(word)) return word;
    if (!DESCRIPTOR.test(word)) this.fail("expected an attribute type");
    const oid = TYPE_OF_NAME.get(word.toLowerCase());
    if (!oid) this.fail(`unknown attribute type '${word}'`);
    return oid;
  }

  /** hexstring = SHARP 1*hexpair: the BER of the value; a string type in it gives its text. */
  private hexValue(type: string): DnAttribute {
    this.position += 1;
    const start = this.position;
    while (!this.atEnd() && !" ,+".includes(this.text[this.position]!)) this.position += 1;
    const hex = this.text.slice(start, this.position);
    if (!HEX_PAIRS.test(hex)) this.fail("expected hex pairs after '#'");
    const ber = Buffer.from(hex, "hex");
    const decoded = asn1js.fromBER(ber, { maxDepth: 8, maxNodes: 64 });
    if (decoded.offset !== ber.length || decoded.result.error) this.fail("the '#' value is not one BER element");
    let value: AttributeValue;
    try {
      value = AsnParser.fromASN(decoded.result, AttributeValue);
    } catch {
      return this.fail("the '#' value is not an attribute value");
    }
    if (value.anyValue !== undefined) return { type, value: hex.toLowerCase(), hex: true };
    return { type, value: value.toString(), hex: false };
  }

  /** string with escapes; unescaped spaces at either end are not part of the value (see parseDistinguishedName). */
  private stringValue(): string {
    const bytes: number[] = [];
    /** Bytes up to the last escaped or non-space character: trailing unescaped spaces are dropped. */
    let significant = 0;
    while (!this.atEnd()) {
      const char = this.text[this.position]!;
      if (char === "," || char === "+") break;
      if (char === "\\") {
        const next = this.text[this.position + 1];
        const pair = this.text.slice(this.position + 1, this.position + 3);
        if (next !== undefined && '\\"+,;<> #='.includes(next)) {
          bytes.push(next.charCodeAt(0));
          this.position += 2;
        } else if (/^[0-9A-Fa-f]{2}$/.test(pair)) {
          bytes.push(Number.parseInt(pair, 16));
          this.position += 3;
        } else {
          this.fail("bad escape");
        }
        significant = bytes.length;
        continue;
      }
      if ('";<>'.includes(char) || char === "\u0000") this.fail(`'${char}' must be escaped`);
      const codePoint = this.text.codePointAt(this.position)!;
      const encoded = Buffer.from(String.fromCodePoint(codePoint), "utf8");
      for (const byte of encoded) bytes.push(byte);
      this.position += codePoint > 0xffff ? 2 : 1;
      if (char !== " ") significant = bytes.length;
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes.slice(0, significant)));
    } catch {
      return this.fail("escaped bytes are not UTF-8");
    }
  }
}

/** RFC 4518 preparation of a string value for a case-ignoring match: NFKC, case folded, insignificant spaces removed. */
function prepare(value: string): string {
  return value.normalize("NFKC").toUpperCase().toLowerCase().replace(/\s+/gu, " ").trim();
}

function attributeKey({ type, value, hex }: DnAttribute): string {
  return hex ? `${type}#${value.toLowerCase()}` : `${type}=${prepare(value)}`;
}

/**
 * Whether two distinguished names are the same under the rules of this file's header
 * (RFC 4517 §4.2.15 distinguishedNameMatch): same RDN count and order, each RDN the same set of
 * types and prepared values.
 */
export function sameDistinguishedName(a: readonly Rdn[], b: readonly Rdn[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((rdn, i) => {
    const other = b[i]!;
    if (rdn.length !== other.length) return false;
    const keys = rdn.map(attributeKey).sort();
    const otherKeys = other.map(attributeKey).sort();
    return keys.every((key, j) => key === otherKeys[j]);
  });
}
