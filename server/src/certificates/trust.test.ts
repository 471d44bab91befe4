import { beforeAll, describe, expect, it } from "vitest";
import { CLIENT_AUTH, issueCertificate, issueCrl, SERVER_AUTH, TEST_TPP, testPki, type TestCertificate, type TestCrl, type TestPki } from "../../test/support/pki.js";
import { parseCrls } from "./crl.js";
import { x509 } from "./library.js";
import { MAX_PATH_LENGTH, verifyCertificateChain, type TrustStore, type TrustVerdict } from "./trust.js";
import { parseCertificate, type ParsedCertificate } from "./x509.js";

const DAY = 86_400_000;
let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

const parse = (test: TestCertificate) => parseCertificate(test.der);
const crls = (...tests: TestCrl[]) => tests.flatMap((test) => parseCrls(test.der));

/** The bank's configuration: the root as anchor, the intermediate known, both CRLs, a CRL required for each issuer. */
function store(overrides: Partial<TrustStore> = {}): TrustStore {
  return { anchors: [parse(pki.root)], intermediates: [parse(pki.intermediate)], crls: crls(pki.crl, pki.rootCrl), revocation: "require_crl", ...overrides };
}

async function verdict(test: TestCertificate, trustStore = store(), options: { now?: Date; presented?: TestCertificate[] } = {}): Promise<TrustVerdict> {
  return verifyCertificateChain(parse(test), trustStore, { now: options.now ?? pki.now, presented: (options.presented ?? []).map(parse) });
}

/** The reason of a refusal, and the subject it names. */
async function refused(...args: Parameters<typeof verdict>): Promise<{ reason: string; subject: string }> {
  const result = await verdict(...args);
  if (result.trusted) throw new Error("expected the certificate to be refused");
  expect(result.message).toContain(result.subject);
  return { reason: result.reason, subject: result.subject };
}

const subjectOf = (test: TestCertificate) => parse(test).subject.text;

describe("verifyCertificateChain: trusted", () => {
  it("trusts a QWAC of the configured QTSP, and gives the path leaf to anchor", async () => {
    const result = await verdict(pki.aisp);
    expect(result.trusted).toBe(true);
    if (result.trusted) expect(result.chain.map((c) => c.x5tS256)).toEqual([pki.aisp, pki.intermediate, pki.root].map((t) => parse(t).x5tS256));
  });

  it("uses an intermediate the client presented when the bank has none configured", async () => {
    expect((await verdict(pki.aisp, store({ intermediates: [] }), { presented: [pki.intermediate] })).trusted).toBe(true);
  });

  it("skips revocation when no CRLs are configured and the store does not require them", async () => {
    expect((await verdict(pki.aisp, store({ crls: [], revocation: "crl_if_configured" }))).trusted).toBe(true);
    expect((await verdict(pki.aisp, store({ crls: crls(pki.crl), revocation: "crl_if_configured" }))).trusted).toBe(true);
  });

  it("trusts a trust anchor itself", async () => {
    expect((await verdict(pki.root)).trusted).toBe(true);
  });

  it("is judged at the given time: the leaf's validity bounds are inclusive", async () => {
    const leaf = parse(pki.aisp);
    expect((await verdict(pki.aisp, store(), { now: leaf.notBefore })).trusted).toBe(true);
    expect((await verdict(pki.aisp, store(), { now: new Date(leaf.notBefore.getTime() - 1000) })).trusted).toBe(false);
  });
});

describe("verifyCertificateChain: refused, each with its reason", () => {
  it("untrusted_issuer: a certificate of an unknown CA, a self-signed one, a missing intermediate", async () => {
    expect(await refused(pki.unknownLeaf)).toEqual({ reason: "untrusted_issuer", subject: subjectOf(pki.unknownLeaf) });
    expect((await refused(pki.selfSigned)).reason).toBe("untrusted_issuer");
    expect((await refused(pki.aisp, store({ intermediates: [] }))).reason).toBe("untrusted_issuer");
    expect((await refused(pki.unknownLeaf, store(), { presented: [pki.unknownRoot] })).reason).toBe("untrusted_issuer");
  });

  it("bad_signature: a certificate whose issuer's name is the trusted CA's but whose key is not", async () => {
    expect(await refused(pki.impostorLeaf)).toEqual({ reason: "bad_signature", subject: subjectOf(pki.impostorLeaf) });
    expect((await refused(pki.impostorLeaf, store(), { presented: [pki.impostorCa] })).reason).toBe("bad_signature");
  });

  it("not_a_ca: a certificate issued by an end-entity certificate", async () => {
    const child = await issueCertificate({ subject: [{ CN: ["child"] }], issuer: pki.plain, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY) });
    expect(await refused(child, store(), { presented: [pki.plain] })).toEqual({ reason: "not_a_ca", subject: subjectOf(pki.plain) });
  });

  it("path_too_long: beyond an issuer's pathLenConstraint, or beyond the longest path", async () => {
    const valid = { notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY) };
    const subCa = await issueCertificate({ subject: [{ CN: ["Sub CA"] }], issuer: pki.intermediate, ...valid, ca: {} });
    const leaf = await issueCertificate({ subject: [{ CN: ["deep"] }], issuer: subCa, ...valid });
    expect(await refused(leaf, store(), { presented: [subCa] })).toEqual({ reason: "path_too_long", subject: subjectOf(pki.intermediate) });

    const cas = [pki.root];
    for (let i = 1; i < MAX_PATH_LENGTH; i++) cas.push(await issueCertificate({ subject: [{ CN: [`CA ${i}`] }], issuer: cas[i - 1]!, ...valid, ca: {} }));
    const deepLeaf = await issueCertificate({ subject: [{ CN: ["deepest"] }], issuer: cas[cas.length - 1]!, ...valid });
    expect((await refused(deepLeaf, store({ revocation: "crl_if_configured" }), { presented: cas.slice(1) })).reason).toBe("path_too_long");
    const shorter = await issueCertificate({ subject: [{ CN: ["deep enough"] }], issuer: cas[cas.length - 2]!, ...valid });
    expect((await verdict(shorter, store({ revocation: "crl_if_configured" }), { presented: cas.slice(1) })).trusted).toBe(true);
  });

  it("unsupported_critical_extension: a critical extension that is not understood", async () => {
    const leaf = await issueCertificate({
      subject: [{ CN: ["critical"] }],
      issuer: pki.intermediate,
      notBefore: pki.now,
      notAfter: new Date(pki.now.getTime() + DAY),
      extensions: [new x509.Extension("1.2.3.4.5", true, new Uint8Array([0x05, 0x00]))],
    });
    expect((await refused(leaf)).reason).toBe("unsupported_critical_extension");
  });

  it("expired and not_yet_valid: the leaf's dates", async () => {
    expect(await refused(pki.expired)).toEqual({ reason: "expired", subject: subjectOf(pki.expired) });
    expect(await refused(pki.notYetValid)).toEqual({ reason: "not_yet_valid", subject: subjectOf(pki.notYetValid) });
    expect((await refused(pki.aisp, store(), { now: new Date(parse(pki.aisp).notAfter.getTime() + 1000) })).reason).toBe("expired");
  });

  it("expired: an intermediate's dates count too", async () => {
    const oldCa = await issueCertificate({ subject: [{ CN: ["Old CA"] }], issuer: pki.root, notBefore: new Date(pki.now.getTime() - 10 * DAY), notAfter: new Date(pki.now.getTime() - DAY), ca: {} });
    const leaf = await issueCertificate({ subject: [{ CN: ["orphan"] }], issuer: oldCa, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY) });
    expect(await refused(leaf, store({ revocation: "crl_if_configured" }), { presented: [oldCa] })).toEqual({ reason: "expired", subject: subjectOf(oldCa) });
  });

  it("revoked: listed in the issuer's CRL, even when another, expired CRL is configured too", async () => {
    expect(await refused(pki.revoked)).toEqual({ reason: "revoked", subject: subjectOf(pki.revoked) });
    expect((await refused(pki.revoked, store({ crls: crls(pki.expiredCrl, pki.crl, pki.rootCrl) }))).reason).toBe("revoked");
    expect((await refused(pki.revoked, store({ revocation: "crl_if_configured" }))).reason).toBe("revoked");
  });

  it("revoked: a revocation in a CRL that is no longer current still counts", async () => {
    const stale = await issueCrl({ issuer: pki.intermediate, thisUpdate: new Date(pki.now.getTime() - 9 * DAY), nextUpdate: new Date(pki.now.getTime() - 2 * DAY), revoked: [{ certificate: pki.revoked }] });
    expect((await refused(pki.revoked, store({ crls: crls(stale, pki.rootCrl) }))).reason).toBe("revoked");
  });

  it("crl_expired: the issuer's only CRL is past its nextUpdate (fail closed)", async () => {
    expect(await refused(pki.aisp, store({ crls: crls(pki.expiredCrl, pki.rootCrl) }))).toEqual({ reason: "crl_expired", subject: subjectOf(pki.aisp) });
    expect((await refused(pki.aisp, store({ crls: crls(pki.expiredCrl, pki.rootCrl), revocation: "crl_if_configured" }))).reason).toBe("crl_expired");
    expect((await refused(pki.aisp, store(), { now: new Date(pki.crl.crl.nextUpdate!.getTime() + 1000) })).reason).toBe("crl_expired");
    expect((await verdict(pki.aisp, store({ crls: crls(pki.expiredCrl, pki.crl, pki.rootCrl) }))).trusted).toBe(true);
  });

  it("crl_expired: a CRL issued after the time of the check is not current either", async () => {
    const future = await issueCrl({ issuer: pki.intermediate, thisUpdate: new Date(pki.now.getTime() + DAY), nextUpdate: new Date(pki.now.getTime() + 8 * DAY) });
    expect((await refused(pki.aisp, store({ crls: crls(future, pki.rootCrl) }))).reason).toBe("crl_expired");
  });

  it("crl_bad_signature: a CRL with the issuer's name but not its signature; ignored when a genuine one is there", async () => {
    expect(await refused(pki.aisp, store({ crls: crls(pki.impostorCrl, pki.rootCrl) }))).toEqual({ reason: "crl_bad_signature", subject: subjectOf(pki.aisp) });
    expect((await verdict(pki.aisp, store({ crls: crls(pki.impostorCrl, pki.crl, pki.rootCrl) }))).trusted).toBe(true);
  });

  it("crl_missing: an issuer without a CRL when CRLs are required (the intermediate's, from the root)", async () => {
    expect(await refused(pki.aisp, store({ crls: crls(pki.crl) }))).toEqual({ reason: "crl_missing", subject: subjectOf(pki.intermediate) });
    expect((await refused(pki.aisp, store({ crls: [] }))).reason).toBe("crl_missing");
  });

  it("crl_missing: a CRL whose scope leaves the certificate out does not count", async () => {
    const idp = new x509.Extension("2.5.29.28", true, new Uint8Array([0x30, 0x03, 0x81, 0x01, 0xff])); // onlyContainsUserCerts
    const userOnly = await issueCrl({ issuer: pki.root, thisUpdate: pki.now, nextUpdate: new Date(pki.now.getTime() + DAY), extensions: [idp] });
    expect(parseCrls(userOnly.der)[0]!.scope).toBe("end_entity");
    expect(await refused(pki.aisp, store({ crls: crls(pki.crl, userOnly) }))).toEqual({ reason: "crl_missing", subject: subjectOf(pki.intermediate) });
  });

  it("not_for_client_auth: an extendedKeyUsage without clientAuth (RFC 5280 §4.2.1.12), as OpenSSL's TLS client purpose", async () => {
    expect(await refused(pki.serverAuthOnly)).toEqual({ reason: "not_for_client_auth", subject: subjectOf(pki.serverAuthOnly) });
    const anyPurposeOnly = await issueCertificate({ subject: [{ CN: ["any-eku"] }], issuer: pki.intermediate, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY), extendedKeyUsages: ["2.5.29.37.0"] });
    expect((await refused(anyPurposeOnly)).reason).toBe("not_for_client_auth");
    // No extendedKeyUsage at all: any purpose; clientAuth alone: fine.
    expect((await verdict(pki.noExtendedKeyUsage)).trusted).toBe(true);
    const clientOnly = await issueCertificate({ subject: [{ CN: ["client-eku"] }], issuer: pki.intermediate, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY), extendedKeyUsages: [CLIENT_AUTH] });
    expect((await verdict(clientOnly)).trusted).toBe(true);
    const both = await issueCertificate({ subject: [{ CN: ["both-eku"] }], issuer: pki.intermediate, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY), extendedKeyUsages: [SERVER_AUTH, CLIENT_AUTH] });
    expect((await verdict(both)).trusted).toBe(true);
  });

  it("psd2_identity_mismatch: a PSD2 certificate whose organizationIdentifier does not name its statement's NCA (ETSI TS 119 495 §5.2.1)", async () => {
    expect(await refused(pki.ncaMismatch)).toEqual({ reason: "psd2_identity_mismatch", subject: subjectOf(pki.ncaMismatch) });
    const valid = { issuer: pki.intermediate, notBefore: pki.now, notAfter: new Date(pki.now.getTime() + DAY) };
    const psd2 = { roles: ["PSP_AI" as const], ncaName: TEST_TPP.ncaName, ncaId: TEST_TPP.ncaId };
    const without = await issueCertificate({ subject: [{ O: ["No Identifier GmbH"] }, { CN: ["none"] }], ...valid, psd2 });
    expect((await refused(without)).reason).toBe("psd2_identity_mismatch");
    const vat = await issueCertificate({ subject: [{ O: ["VAT GmbH"] }, { "2.5.4.97": ["VATDE-123456789"] }, { CN: ["vat"] }], ...valid, psd2 });
    expect((await refused(vat)).reason).toBe("psd2_identity_mismatch");
    // Consistent ones: DE-BAFIN with PSDDE-BAFIN-…, FR-ACPR with PSDFR-ACPR-…; no PSD2 statement, nothing to compare.
    expect((await verdict(pki.aisp)).trusted).toBe(true);
    expect((await verdict(pki.cardIssuer)).trusted).toBe(true);
    expect((await verdict(pki.plain)).trusted).toBe(true);
  });

  it("reports the failure of the path that got furthest", async () => {
    // Two candidates for the leaf's issuer, tried in this order: the impostor CA (its signature
    // fails) and the real intermediate (the path reaches the anchor, and the leaf is revoked).
    expect((await refused(pki.revoked, store({ intermediates: [] }), { presented: [pki.impostorCa, pki.intermediate] })).reason).toBe("revoked");
    expect((await verdict(pki.aisp, store({ intermediates: [] }), { presented: [pki.impostorCa, pki.intermediate] })).trusted).toBe(true);
  });
});

describe("verifyCertificateChain on damaged certificates", () => {
  it("no single-byte change of a trusted certificate that still parses is trusted (one certificate, one encoding)", async () => {
    const der = pki.aisp.der;
    const trusted: number[] = [];
    for (let at = 0; at < der.length; at++) {
      const mutated = Uint8Array.from(der);
      mutated[at] = mutated[at]! ^ 0x01; // e.g. SEQUENCE 0x30 → SET 0x31, a BIT STRING's unused bits 0 → 1
      let certificate: ParsedCertificate;
      try {
        certificate = parseCertificate(mutated);
      } catch {
        continue;
      }
      if ((await verifyCertificateChain(certificate, store(), { now: pki.now })).trusted) trusted.push(at);
    }
    expect(trusted).toEqual([]);
  });
});
