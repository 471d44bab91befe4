import { id_pe_qcStatements } from "@peculiar/asn1-x509-qualified";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { issueCertificate, mutatedCopies, qcStatementsExtension, refusal, TEST_TPP, testPki, type TestPki } from "../../test/support/pki.js";
import { eidasIdentity, organizationIdentifier, parsePsdOrganizationIdentifier, PSD2_QC_STATEMENT_OID, psd2IdentityProblem, psd2QcStatement } from "./eidas.js";
import { CertificateFormatError } from "./errors.js";
import { x509 } from "./library.js";
import { parseCertificate } from "./x509.js";

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

/** A certificate whose qcStatements extension holds `statements` as given. */
async function withStatements(statements: { id: string; info?: ArrayBuffer }[]) {
  const test = await issueCertificate({ subject: [{ CN: ["odd"] }], issuer: pki.intermediate, notBefore: pki.now, notAfter: pki.now, extensions: [qcStatementsExtension(statements)] });
  return parseCertificate(test.der);
}

describe("psd2QcStatement (ETSI TS 119 495 §5.1)", () => {
  it("reads the roles, the NCA's name and id", () => {
    expect(psd2QcStatement(parseCertificate(pki.aisp.pem))).toEqual({ roles: ["PSP_AI"], unknownRoles: [], ncaName: TEST_TPP.ncaName, ncaId: "DE-BAFIN" });
    expect(psd2QcStatement(parseCertificate(pki.cardIssuer.pem))).toMatchObject({ roles: ["PSP_IC"], ncaId: "FR-ACPR", ncaName: "Autorité de contrôle prudentiel et de résolution" });
  });

  it("reads several roles in the statement's order, and reports unknown role OIDs apart", () => {
    expect(psd2QcStatement(parseCertificate(pki.pispAisp.pem))).toEqual({
      roles: ["PSP_PI", "PSP_AI"],
      unknownRoles: [TEST_TPP.pispAisp.unknownRole],
      ncaName: TEST_TPP.ncaName,
      ncaId: "DE-BAFIN",
    });
  });

  it("is null for a certificate without the statement, or without qcStatements at all", async () => {
    expect(psd2QcStatement(parseCertificate(pki.plain.pem))).toBeNull();
    expect(psd2QcStatement(parseCertificate(pki.root.pem))).toBeNull();
    expect(psd2QcStatement(await withStatements([{ id: "0.4.0.1862.1.1" }]))).toBeNull();
  });

  it("refuses a PSD2 statement that does not decode, lacks its info, or appears twice", async () => {
    const garbage = await withStatements([{ id: PSD2_QC_STATEMENT_OID, info: new Uint8Array([0x0c, 0x01, 0x41]).buffer }]);
    expect(refusal(() => psd2QcStatement(garbage))).toBe("malformed");
    const empty = await withStatements([{ id: PSD2_QC_STATEMENT_OID }]);
    expect(refusal(() => psd2QcStatement(empty))).toBe("malformed");
    const info = new Uint8Array([0x30, 0x08, 0x30, 0x00, 0x0c, 0x01, 0x41, 0x0c, 0x01, 0x42]).buffer;
    expect(psd2QcStatement(await withStatements([{ id: PSD2_QC_STATEMENT_OID, info }]))).toEqual({ roles: [], unknownRoles: [], ncaName: "A", ncaId: "B" });
    const twice = await withStatements([
      { id: PSD2_QC_STATEMENT_OID, info },
      { id: PSD2_QC_STATEMENT_OID, info },
    ]);
    expect(refusal(() => psd2QcStatement(twice))).toBe("malformed");
  });

  it("refuses a qcStatements extension that does not decode", async () => {
    const extension = new x509.Extension(id_pe_qcStatements, false, new Uint8Array([0x04, 0x00]));
    const test = await issueCertificate({ subject: [{ CN: ["odd"] }], issuer: pki.intermediate, notBefore: pki.now, notAfter: pki.now, extensions: [extension] });
    expect(refusal(() => psd2QcStatement(parseCertificate(test.der)))).toBe("malformed");
  });
});

describe("organizationIdentifier (ETSI TS 119 495 §5.2.1)", () => {
  it("is the subject's 2.5.4.97 attribute, or null", () => {
    expect(organizationIdentifier(parseCertificate(pki.aisp.pem))).toBe("PSDDE-BAFIN-123456");
    expect(organizationIdentifier(parseCertificate(pki.cardIssuer.pem))).toBe("PSDFR-ACPR-777");
    expect(organizationIdentifier(parseCertificate(pki.plain.pem))).toBeNull();
  });

  it.each([
    ["PSDDE-BAFIN-123456", { countryCode: "DE", ncaId: "BAFIN", authorizationNumber: "123456" }],
    ["PSDFR-ACPR-777", { countryCode: "FR", ncaId: "ACPR", authorizationNumber: "777" }],
    ["PSDBE-NBB-0123.456.789", { countryCode: "BE", ncaId: "NBB", authorizationNumber: "0123.456.789" }],
  ])("parses %s", (value, parts) => {
    expect(parsePsdOrganizationIdentifier(value)).toEqual(parts);
  });

  it.each(["VATDE-123456789", "PSDDE-BAFIN-", "PSDD-BAFIN-1", "PSDDE-B-1", "psdde-bafin-1", "PSDDE-BAFINBAFIN-1"])("is not a PSD2 identifier: %s", (value) => {
    expect(parsePsdOrganizationIdentifier(value)).toBeNull();
  });
});

describe("psd2IdentityProblem (ETSI TS 119 495 §5.2.1, §5.2.3)", () => {
  it("is null when the organizationIdentifier names the statement's NCA, or there is no PSD2 statement", () => {
    expect(psd2IdentityProblem(parseCertificate(pki.aisp.pem))).toBeNull();
    expect(psd2IdentityProblem(parseCertificate(pki.cardIssuer.pem))).toBeNull();
    expect(psd2IdentityProblem(parseCertificate(pki.plain.pem))).toBeNull();
  });

  it("names the disagreement: another NCA, or no PSD2 organizationIdentifier", async () => {
    expect(psd2IdentityProblem(parseCertificate(pki.ncaMismatch.pem))).toBe(
      `the organizationIdentifier ${TEST_TPP.ncaMismatch.organizationIdentifier} is not of the NCA of the PSD2 statement, DE-BAFIN`,
    );
    const psd2 = { roles: ["PSP_AI" as const], ncaName: TEST_TPP.ncaName, ncaId: "DE-BAFIN" };
    const valid = { issuer: pki.intermediate, notBefore: pki.now, notAfter: pki.now };
    const none = await issueCertificate({ subject: [{ CN: ["none"] }], ...valid, psd2 });
    expect(psd2IdentityProblem(parseCertificate(none.der))).toBe("a PSD2 certificate needs an organizationIdentifier of the form PSD<country>-<NCA>-<authorization number>");
    const lowerCase = await issueCertificate({ subject: [{ "2.5.4.97": ["PSDDE-BAFIN-1"] }, { CN: ["x"] }], ...valid, psd2: { ...psd2, ncaId: "de-bafin" } });
    expect(psd2IdentityProblem(parseCertificate(lowerCase.der))).toMatch(/is not of the NCA of the PSD2 statement, de-bafin/);
  });
});

describe("eidasIdentity", () => {
  it("gathers the organizationIdentifier, the PSD2 statement and the eIDAS statements of a QWAC", () => {
    expect(eidasIdentity(parseCertificate(pki.aisp.pem))).toEqual({
      organizationIdentifier: "PSDDE-BAFIN-123456",
      psd2: { roles: ["PSP_AI"], unknownRoles: [], ncaName: TEST_TPP.ncaName, ncaId: "DE-BAFIN" },
      qualified: true,
      qcTypes: ["0.4.0.1862.1.6.3"],
    });
  });

  it("says nothing of a certificate without statements", () => {
    expect(eidasIdentity(parseCertificate(pki.plain.pem))).toEqual({ organizationIdentifier: null, psd2: null, qualified: false, qcTypes: [] });
  });
});

describe("eidasIdentity on damaged certificates (property)", () => {
  it("a certificate mutated in its extensions either does not parse or yields its statements, never another error", () => {
    const der = pki.pispAisp.der;
    fc.assert(
      fc.property(mutatedCopies(der, Math.floor(der.length / 2)), (mutated) => {
        try {
          eidasIdentity(parseCertificate(mutated));
        } catch (error) {
          expect(error).toBeInstanceOf(CertificateFormatError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
