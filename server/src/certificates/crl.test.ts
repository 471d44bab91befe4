import { AsnConvert } from "@peculiar/asn1-schema";
import { IssuingDistributionPoint } from "@peculiar/asn1-x509";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { issueCrl, mutatedCopies, refusal, testPki, type TestPki } from "../../test/support/pki.js";
import { normalizeSerial, parseCrls } from "./crl.js";
import { CertificateFormatError } from "./errors.js";
import { x509 } from "./library.js";
import { encodePem } from "./pem.js";

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

const dates = () => ({ thisUpdate: pki.now, nextUpdate: new Date(pki.now.getTime() + 86_400_000) });
const idp = (params: Partial<IssuingDistributionPoint>) => new x509.Extension("2.5.29.28", true, AsnConvert.serialize(new IssuingDistributionPoint(params)));

describe("parseCrls", () => {
  it("reads a CRL from PEM or DER: issuer, dates, revoked serials", () => {
    const [fromPem] = parseCrls(pki.crl.pem);
    const [fromDer] = parseCrls(pki.crl.der);
    for (const crl of [fromPem!, fromDer!]) {
      expect(crl.issuer.text).toBe("CN=Tollgate Test QWAC CA,O=Tollgate Test QTSP,C=DE");
      expect(crl.thisUpdate).toEqual(pki.crl.crl.thisUpdate);
      expect(crl.nextUpdate).toEqual(pki.crl.crl.nextUpdate);
      expect(crl.scope).toBe("all");
      expect([...crl.revokedSerials]).toEqual([normalizeSerial(pki.revoked.certificate.serialNumber)]);
    }
    expect(parseCrls(Buffer.from(pki.crl.pem))[0]!.der).toEqual(pki.crl.der);
  });

  it("reads several CRLs of one file, with text between them", () => {
    expect(parseCrls(`# intermediate\n${pki.crl.pem}# root\n${pki.rootCrl.pem}`).map((c) => c.issuer.text)).toEqual([
      "CN=Tollgate Test QWAC CA,O=Tollgate Test QTSP,C=DE",
      "CN=Tollgate Test Root CA,O=Tollgate Test QTSP,C=DE",
    ]);
  });

  it("keeps the scope of an issuingDistributionPoint", async () => {
    const [users] = parseCrls((await issueCrl({ issuer: pki.intermediate, ...dates(), extensions: [idp({ onlyContainsUserCerts: true })] })).der);
    expect(users!.scope).toBe("end_entity");
    const [cas] = parseCrls((await issueCrl({ issuer: pki.root, ...dates(), extensions: [idp({ onlyContainsCACerts: true })] })).der);
    expect(cas!.scope).toBe("ca");
  });

  it("refuses a CRL without nextUpdate (RFC 5280 §5.1.2.5), even one that lists certificates", async () => {
    const crl = await issueCrl({ issuer: pki.intermediate, thisUpdate: pki.now, revoked: [{ certificate: pki.revoked }] });
    expect(refusal(() => parseCrls(crl.der))).toBe("unsupported");
  });

  it("normalizes serial numbers: lower case, no leading zero bytes", () => {
    expect(normalizeSerial("00AB01")).toBe("ab01");
    expect(normalizeSerial("0000")).toBe("00");
    expect(normalizeSerial("7f")).toBe("7f");
  });

  it.each([
    ["a delta CRL", () => [new x509.Extension("2.5.29.27", true, new Uint8Array([0x02, 0x01, 0x01]))]],
    ["an indirect CRL", () => [idp({ indirectCRL: true })]],
    ["a CRL of attribute certificates", () => [idp({ onlyContainsAttributeCerts: true })]],
    ["an unknown critical extension", () => [new x509.Extension("1.2.3.4", true, new Uint8Array([0x05, 0x00]))]],
  ])("refuses %s as unsupported", async (_what, extensions) => {
    const crl = await issueCrl({ issuer: pki.intermediate, ...dates(), extensions: extensions() });
    expect(refusal(() => parseCrls(crl.der))).toBe("unsupported");
  });

  it("refuses an entry naming another certificate issuer (indirect CRL)", async () => {
    const crl = await x509.X509CrlGenerator.create({
      issuer: pki.intermediate.certificate.subjectName,
      ...dates(),
      entries: [{ serialNumber: "01", issuer: "CN=Someone else" }],
      signingKey: pki.intermediate.keys.privateKey,
      signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    });
    expect(refusal(() => parseCrls(new Uint8Array(crl.rawData)))).toBe("unsupported");
  });

  it("accepts a non-critical unknown extension", async () => {
    const crl = await issueCrl({ issuer: pki.intermediate, ...dates(), extensions: [new x509.Extension("1.2.3.4", false, new Uint8Array([0x05, 0x00]))] });
    expect(parseCrls(crl.der)).toHaveLength(1);
  });

  it.each([
    ["nothing", () => "", "empty"],
    ["no bytes", () => new Uint8Array(0), "empty"],
    ["a certificate", () => pki.root.pem, "wrong_pem_type"],
    ["a certificate labelled X509 CRL", () => encodePem(pki.root.der, "X509 CRL"), "malformed"],
    ["DER with a byte after it", () => Uint8Array.from([...pki.crl.der, 0]), "malformed"],
    ["text without PEM", () => "not a crl", "not_pem"],
  ])("refuses %s", (_what, input, reason) => {
    expect(refusal(() => parseCrls(input()))).toBe(reason);
  });

  const onlyOwnErrors = (input: string | Uint8Array) => {
    try {
      parseCrls(input);
    } catch (error) {
      expect(error).toBeInstanceOf(CertificateFormatError);
    }
  };

  it("arbitrary bytes never throw anything but CertificateFormatError", () => {
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 300 })), onlyOwnErrors), { numRuns: 300 });
  });

  it("a mutated CRL never throws anything but CertificateFormatError", () => {
    fc.assert(fc.property(mutatedCopies(pki.crl.der), onlyOwnErrors), { numRuns: 500 });
  });
});
