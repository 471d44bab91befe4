import { X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { mutatedCopies, privateKeyPem, refusal, TEST_TPP, testPki, type TestPki } from "../../test/support/pki.js";
import { normalizeSerial } from "./crl.js";
import { CertificateFormatError } from "./errors.js";
import { encodePem } from "./pem.js";
import {
  certificateThumbprint,
  KeyUsageFlags,
  keyUsageAllows,
  MAX_CERTIFICATE_BYTES,
  MAX_CERTIFICATE_PEM_LENGTH,
  parseCertificate,
  parseCertificates,
  validityAt,
} from "./x509.js";

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

describe("parseCertificate", () => {
  it("reads a QWAC from PEM and from DER alike", () => {
    const fromPem = parseCertificate(pki.aisp.pem);
    const fromDer = parseCertificate(pki.aisp.der);
    expect(fromPem.der).toEqual(pki.aisp.der);
    expect(fromDer.x5tS256).toBe(fromPem.x5tS256);
    expect(fromPem.subject.text).toBe("CN=tpp-aisp.example.com,organizationIdentifier=PSDDE-BAFIN-123456,O=Example AISP GmbH,L=Frankfurt am Main,C=DE");
    expect(fromPem.issuer.text).toBe("CN=Tollgate Test QWAC CA,O=Tollgate Test QTSP,C=DE");
    expect(fromPem.subject.rdns.map((rdn) => rdn.map((a) => a.type))).toEqual([["2.5.4.6"], ["2.5.4.7"], ["2.5.4.10"], ["2.5.4.97"], ["2.5.4.3"]]);
    expect(normalizeSerial(fromPem.serialNumber)).toBe(normalizeSerial(new X509Certificate(pki.aisp.der).serialNumber));
    expect(fromPem.isCa).toBe(false);
  });

  it("reads the SANs RFC 8705 §2.1.2 matches on", () => {
    const { aisp } = TEST_TPP;
    expect(parseCertificate(pki.aisp.pem).subjectAltNames).toEqual({ dns: [aisp.dns], uri: [aisp.uri], ip: [aisp.ipv4, aisp.ipv6], email: [aisp.email] });
    expect(parseCertificate(pki.root.pem).subjectAltNames).toEqual({ dns: [], uri: [], ip: [], email: [] });
  });

  it("reads the validity period (whole seconds) and judges a time against it, both ends inclusive", () => {
    const certificate = parseCertificate(pki.aisp.pem);
    expect(certificate.notBefore).toEqual(pki.aisp.certificate.notBefore);
    expect(certificate.notAfter).toEqual(pki.aisp.certificate.notAfter);
    expect(validityAt(certificate, pki.now)).toBe("valid");
    expect(validityAt(certificate, certificate.notBefore)).toBe("valid");
    expect(validityAt(certificate, certificate.notAfter)).toBe("valid");
    expect(validityAt(certificate, new Date(certificate.notBefore.getTime() - 1))).toBe("not_yet_valid");
    expect(validityAt(certificate, new Date(certificate.notAfter.getTime() + 1))).toBe("expired");
    expect(validityAt(parseCertificate(pki.expired.pem), pki.now)).toBe("expired");
    expect(validityAt(parseCertificate(pki.notYetValid.pem), pki.now)).toBe("not_yet_valid");
  });

  it("reads basicConstraints and keyUsage of a CA", () => {
    const intermediate = parseCertificate(pki.intermediate.pem);
    expect(intermediate.isCa).toBe(true);
    expect(intermediate.pathLength).toBe(0);
    expect(keyUsageAllows(intermediate, KeyUsageFlags.keyCertSign)).toBe(true);
    expect(keyUsageAllows(intermediate, KeyUsageFlags.cRLSign)).toBe(true);
    expect(keyUsageAllows(parseCertificate(pki.aisp.pem), KeyUsageFlags.keyCertSign)).toBe(false);
    expect(parseCertificate(pki.root.pem).pathLength).toBeUndefined();
  });

  it("allows whitespace around the PEM block, and CRLF line ends", () => {
    expect(parseCertificate(`\n  ${pki.aisp.pem.replace(/\n/g, "\r\n")}\n\n`).x5tS256).toBe(parseCertificate(pki.aisp.pem).x5tS256);
  });

  it.each([
    ["an empty string", () => "", "empty"],
    ["whitespace", () => " \n\t", "empty"],
    ["text that is not PEM", () => "hello", "not_pem"],
    ["base64 without armour", () => Buffer.from(pki.aisp.der).toString("base64"), "not_pem"],
    ["a PEM block without END", () => pki.aisp.pem.replace(/-----END CERTIFICATE-----\n$/, ""), "not_pem"],
    ["a mismatched END label", () => pki.aisp.pem.replace("END CERTIFICATE", "END X509 CRL"), "not_pem"],
    ["bad base64 in the block", () => pki.aisp.pem.replace(/\n(.)/, "\n*$1"), "not_pem"],
    ["text before the block", () => `subject=CN=x\n${pki.aisp.pem}`, "not_pem"],
    ["two certificates", () => pki.aisp.pem + pki.intermediate.pem, "too_many"],
    ["a CRL", () => pki.crl.pem, "wrong_pem_type"],
    ["a PEM block of random bytes", () => encodePem(new Uint8Array([1, 2, 3, 4]), "CERTIFICATE"), "malformed"],
    ["a CRL labelled CERTIFICATE", () => encodePem(pki.crl.der, "CERTIFICATE"), "malformed"],
    ["PEM over the length bound", () => pki.aisp.pem + " ".repeat(MAX_CERTIFICATE_PEM_LENGTH), "too_large"],
  ])("refuses %s", (_what, input, reason) => {
    expect(refusal(() => parseCertificate(input()))).toBe(reason);
  });

  it.each([
    ["no bytes", () => new Uint8Array(0), "empty"],
    ["random bytes", () => new Uint8Array([0x30, 0x03, 0x02, 0x01]), "malformed"],
    ["a DER certificate with a byte after it", () => Uint8Array.from([...pki.aisp.der, 0]), "malformed"],
    ["a truncated DER certificate", () => pki.aisp.der.subarray(0, pki.aisp.der.length - 1), "malformed"],
    ["DER over the size bound", () => new Uint8Array(MAX_CERTIFICATE_BYTES + 1).fill(0x30), "too_large"],
  ])("refuses DER: %s", (_what, input, reason) => {
    expect(refusal(() => parseCertificate(input()))).toBe(reason);
  });
});

describe("the test PKI", () => {
  it("loads into a Node TLS context, key and chain, for the mTLS tests", async () => {
    const key = await privateKeyPem(pki.aisp);
    expect(() => createSecureContext({ cert: pki.aisp.pem + pki.intermediate.pem, key, ca: pki.root.pem })).not.toThrow();
    expect(() => createSecureContext({ cert: pki.selfSigned.pem, key })).toThrow();
  });
});

describe("certificateThumbprint (RFC 8705 §3.1 x5t#S256)", () => {
  it("is base64url of the SHA-256 of the DER, as Node's own X509Certificate computes it", () => {
    for (const test of [pki.aisp, pki.root, pki.selfSigned]) {
      const fingerprint = new X509Certificate(test.der).fingerprint256.replace(/:/g, "");
      const expected = Buffer.from(fingerprint, "hex").toString("base64url");
      expect(certificateThumbprint(test.der)).toBe(expected);
      expect(parseCertificate(test.pem).x5tS256).toBe(expected);
      expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });
});

describe("parseCertificates (trust anchor and intermediate bundles)", () => {
  it("reads every block of a PEM bundle, with comments between them", () => {
    const bundle = `# Tollgate Test Root CA\n${pki.root.pem}\nsubject=CN=Tollgate Test QWAC CA\n${pki.intermediate.pem}`;
    expect(parseCertificates(bundle).map((c) => c.subject.text)).toEqual(["CN=Tollgate Test Root CA,O=Tollgate Test QTSP,C=DE", "CN=Tollgate Test QWAC CA,O=Tollgate Test QTSP,C=DE"]);
    expect(parseCertificates(Buffer.from(bundle)).length).toBe(2);
  });

  it("reads one DER certificate", () => {
    expect(parseCertificates(pki.root.der).map((c) => c.x5tS256)).toEqual([certificateThumbprint(pki.root.der)]);
  });

  it("refuses a bundle with a block of another type, or with no certificate", () => {
    expect(refusal(() => parseCertificates(pki.root.pem + pki.crl.pem))).toBe("wrong_pem_type");
    expect(refusal(() => parseCertificates("# nothing here\n"))).toBe("not_pem");
  });
});

describe("parsers on arbitrary input (properties)", () => {
  const onlyOwnErrors = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      expect(error).toBeInstanceOf(CertificateFormatError);
    }
  };

  it("arbitrary text or bytes never throw anything but CertificateFormatError", () => {
    const pemish = fc.stringMatching(/^(-----(BEGIN|END) CERTIFICATE-----|[A-Za-z0-9+/=\n ]{0,80})*$/, { maxLength: 600 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), pemish), (text) => onlyOwnErrors(() => parseCertificate(text))),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        onlyOwnErrors(() => parseCertificate(bytes));
        onlyOwnErrors(() => parseCertificates(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it("mutated certificates never throw anything but CertificateFormatError", () => {
    fc.assert(
      fc.property(mutatedCopies(pki.aisp.der), (mutated) => onlyOwnErrors(() => parseCertificate(mutated))),
      { numRuns: 1000 },
    );
  });

  it("hostile input at the size bound is refused quickly (the scan is linear)", () => {
    const inputs = [
      "-----BEGIN ".repeat(Math.floor(MAX_CERTIFICATE_PEM_LENGTH / 11)),
      `-----BEGIN CERTIFICATE-----${"A".repeat(MAX_CERTIFICATE_PEM_LENGTH - 60)}`,
      `-----BEGIN CERTIFICATE-----\n${"AAAA\n".repeat((MAX_CERTIFICATE_PEM_LENGTH - 60) / 5)}-----END CERTIFICATE-----`,
    ];
    for (const input of inputs) {
      expect(input.length).toBeLessThanOrEqual(MAX_CERTIFICATE_PEM_LENGTH);
      const started = performance.now();
      onlyOwnErrors(() => parseCertificate(input));
      onlyOwnErrors(() => parseCertificates(input.repeat(100)));
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
