import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusal } from "../../test/support/pki.js";
import { formatDistinguishedName, MAX_DN_STRING_LENGTH, parseDistinguishedName, sameDistinguishedName, type DnAttribute, type Rdn } from "./distinguished-name.js";
import { CertificateFormatError } from "./errors.js";

const text = (type: string, value: string): DnAttribute => ({ type, value, hex: false });
const CN = "2.5.4.3";
const O = "2.5.4.10";
const C = "2.5.4.6";
const OU = "2.5.4.11";
const ORG_ID = "2.5.4.97";

/** CN=TPP,O=Example,C=DE in ASN.1 order. */
const TPP: Rdn[] = [[text(C, "DE")], [text(O, "Example")], [text(CN, "TPP")]];

const same = (a: string, b: string) => sameDistinguishedName(parseDistinguishedName(a), parseDistinguishedName(b));

describe("parseDistinguishedName (RFC 4514 §3)", () => {
  it("reads RDNs last to first, into ASN.1 order", () => {
    expect(parseDistinguishedName("CN=TPP,O=Example,C=DE")).toEqual(TPP);
  });

  it("reads types by short name, long name or OID, in any case", () => {
    for (const dn of ["cn=TPP,o=Example,c=DE", "commonName=TPP,organizationName=Example,countryName=DE", "2.5.4.3=TPP,2.5.4.10=Example,2.5.4.6=DE"]) {
      expect(parseDistinguishedName(dn)).toEqual(TPP);
    }
    expect(parseDistinguishedName("organizationIdentifier=PSDDE-BAFIN-123456")).toEqual([[text(ORG_ID, "PSDDE-BAFIN-123456")]]);
    expect(parseDistinguishedName("OrganizationIdentifier=PSDDE-BAFIN-123456")).toEqual(parseDistinguishedName("2.5.4.97=PSDDE-BAFIN-123456"));
  });

  it("reads multi-valued RDNs", () => {
    expect(parseDistinguishedName("CN=TPP+OU=Payments,C=DE")).toEqual([[text(C, "DE")], [text(CN, "TPP"), text(OU, "Payments")]]);
  });

  it("reads escapes: special characters, hex pairs as UTF-8 bytes", () => {
    expect(parseDistinguishedName(String.raw`CN=Smith\, John,O=A\+B\;C\<D\>\"E\\F`)).toEqual([[text(O, 'A+B;C<D>"E\\F')], [text(CN, "Smith, John")]]);
    expect(parseDistinguishedName(String.raw`CN=\#hash \20`)).toEqual([[text(CN, "#hash  ")]]);
    expect(parseDistinguishedName(String.raw`CN=Lu\C4\8Di\C4\87`)).toEqual([[text(CN, "Lučić")]]);
    expect(parseDistinguishedName("CN=Müller 😀")).toEqual([[text(CN, "Müller 😀")]]);
  });

  it("reads #hex BER values: a string type as its text, another type as hex", () => {
    // UTF8String "TPP"
    expect(parseDistinguishedName("CN=#0c03545050")).toEqual([[text(CN, "TPP")]]);
    // INTEGER 5
    expect(parseDistinguishedName("2.5.4.99=#020105")).toEqual([[{ type: "2.5.4.99", value: "020105", hex: true }]]);
  });

  it("ignores spaces around separators and at the ends of values (RFC 4514 §4 leniency)", () => {
    expect(parseDistinguishedName("  CN = TPP ,  O=Example , C=DE  ")).toEqual(TPP);
  });

  it("reads the empty string as the empty name", () => {
    expect(parseDistinguishedName("")).toEqual([]);
  });

  it.each([
    ["a missing '='", "CN"],
    ["an unknown type name", "XYZ=1"],
    ["a bad OID", "2.5..4=x"],
    ["an empty type", "=x"],
    ["a trailing comma", "CN=a,"],
    ["a ';' separator", "CN=a;O=b"],
    ["an unescaped quote", 'CN=a"b'],
    ["an unescaped '<'", "CN=a<b"],
    ["a bad escape", String.raw`CN=a\x`],
    ["a dangling backslash", "CN=a\\"],
    ["escaped bytes that are not UTF-8", String.raw`CN=\FF`],
    ["odd hex", "CN=#0c0"],
    ["hex that is not one BER element", "CN=#0c035450"],
    ["hex with bytes after the element", "CN=#0c0354505000"],
  ])("refuses %s", (_what, dn) => {
    expect(refusal(() => parseDistinguishedName(dn))).toBe("bad_distinguished_name");
  });

  it("refuses a string over the length bound", () => {
    expect(refusal(() => parseDistinguishedName(`CN=${"a".repeat(MAX_DN_STRING_LENGTH)}`))).toBe("too_large");
  });
});

describe("formatDistinguishedName (RFC 4514 §2)", () => {
  it("writes RDNs first to last from ASN.1 order, with short names", () => {
    expect(formatDistinguishedName(TPP)).toBe("CN=TPP,O=Example,C=DE");
    expect(formatDistinguishedName([[text(ORG_ID, "PSDDE-BAFIN-1")], [text(CN, "a"), text(OU, "b")]])).toBe("CN=a+OU=b,organizationIdentifier=PSDDE-BAFIN-1");
  });

  it("escapes what §2.4 requires", () => {
    expect(formatDistinguishedName([[text(CN, ' #a,b+c"d\\e<f>g;h ')]])).toBe(String.raw`CN=\ #a\,b\+c\"d\\e\<f\>g\;h\ `);
    expect(formatDistinguishedName([[text(CN, "#x\u0000\n")]])).toBe(String.raw`CN=\#x\00\0A`);
  });

  it("writes non-string values as #hex, and types without a name as OIDs", () => {
    expect(formatDistinguishedName([[{ type: "2.5.4.99", value: "020105", hex: true }], [text("1.2.3.4", "x")]])).toBe("1.2.3.4=x,2.5.4.99=#020105");
  });
});

describe("sameDistinguishedName (RFC 4517 distinguishedNameMatch, RFC 4518 preparation)", () => {
  it.each([
    ["case of types and values", "CN=TPP,O=Example,C=DE", "cn=tpp,o=EXAMPLE,c=de"],
    ["type names and OIDs", "CN=TPP,O=Example,C=DE", "2.5.4.3=TPP,organizationName=Example,countryName=DE"],
    ["spacing around separators", "CN=TPP,O=Example,C=DE", "CN = TPP , O = Example , C = DE"],
    ["inner runs of spaces", "CN=Example  AISP   GmbH", "CN=Example AISP GmbH"],
    ["leading and trailing escaped spaces", String.raw`CN=\ TPP\ `, "CN=TPP"],
    ["the order of attributes within an RDN", "CN=TPP+OU=Payments,C=DE", "OU=Payments+CN=TPP,C=DE"],
    ["escape forms", String.raw`CN=Smith\, John`, String.raw`CN=Smith\2C John`],
    ["#hex of a string and the text", "CN=#0c03545050", "CN=TPP"],
    ["Unicode compatibility forms (NFKC)", "CN=ﬁnance", "CN=finance"],
    ["German sharp s and SS (case folding)", "O=Straße", "O=STRASSE"],
  ])("ignores %s", (_what, a, b) => {
    expect(same(a, b)).toBe(true);
  });

  it.each([
    ["another value", "CN=TPP,O=Example,C=DE", "CN=TPP,O=Other,C=DE"],
    ["RDNs in another order", "CN=TPP,O=Example,C=DE", "O=Example,CN=TPP,C=DE"],
    ["an RDN fewer", "CN=TPP,O=Example,C=DE", "CN=TPP,O=Example"],
    ["an RDN more", "CN=TPP,O=Example", "CN=TPP,O=Example,C=DE"],
    ["a multi-valued RDN split in two", "CN=TPP+OU=Payments,C=DE", "CN=TPP,OU=Payments,C=DE"],
    ["another attribute type", "CN=TPP", "OU=TPP"],
    ["an inner space", "CN=Example AISP", "CN=ExampleAISP"],
    ["a value that is a prefix", "CN=TPP", "CN=TPP2"],
    ["hex of a non-string against text", "2.5.4.99=#020105", "2.5.4.99=020105"],
  ])("tells apart %s", (_what, a, b) => {
    expect(same(a, b)).toBe(false);
  });
});

describe("distinguished names on arbitrary input (properties)", () => {
  const attribute = fc.record({
    type: fc.constantFrom(CN, O, C, OU, ORG_ID, "2.5.4.5", "1.2.3.4"),
    value: fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }),
    hex: fc.constant(false),
  });
  const rdns = fc.array(fc.array(attribute, { minLength: 1, maxLength: 3 }), { maxLength: 5 });

  it("the string form reads back as the same name", () => {
    fc.assert(
      fc.property(rdns, (name) => {
        expect(sameDistinguishedName(parseDistinguishedName(formatDistinguishedName(name)), name)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("arbitrary strings never throw anything but CertificateFormatError", () => {
    const dnish = fc.string({ unit: fc.constantFrom(..."CNO=,+\\#\"; 0123456789abcdefABCDEF."), maxLength: 60 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), dnish), (value) => {
        try {
          parseDistinguishedName(value);
        } catch (error) {
          expect(error).toBeInstanceOf(CertificateFormatError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
