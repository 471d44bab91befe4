import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { refusal, testPki, type TestPki } from "../../test/support/pki.js";
import { CertificateFormatError } from "./errors.js";
import { certificateFromProxyHeader, decodeProxyCertificateHeader, MAX_PROXY_HEADER_LENGTH } from "./proxy-header.js";
import { certificateThumbprint } from "./x509.js";

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

/** What nginx's $ssl_client_escaped_cert holds: every character but the unreserved ones percent-encoded. */
const nginx = (pem: string) => encodeURIComponent(pem).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe("decodeProxyCertificateHeader / certificateFromProxyHeader", () => {
  it("reads the certificate nginx forwards", () => {
    const header = nginx(pki.aisp.pem);
    expect(header).toMatch(/^-----BEGIN%20CERTIFICATE-----%0A/);
    expect(decodeProxyCertificateHeader(header)).toBe(pki.aisp.pem);
    expect(certificateFromProxyHeader(header)!.x5tS256).toBe(certificateThumbprint(pki.aisp.der));
    expect(certificateFromProxyHeader([header])!.x5tS256).toBe(certificateThumbprint(pki.aisp.der));
  });

  it("keeps + / = as base64 characters when a proxy leaves them unencoded", () => {
    const header = nginx(pki.aisp.pem).replace(/%2B/g, "+").replace(/%2F/g, "/").replace(/%3D/g, "=");
    expect(decodeProxyCertificateHeader(header)).toBe(pki.aisp.pem);
  });

  it("is null when there is no certificate: no header, or nginx's empty value", () => {
    expect(decodeProxyCertificateHeader(undefined)).toBeNull();
    expect(decodeProxyCertificateHeader("")).toBeNull();
    expect(decodeProxyCertificateHeader([])).toBeNull();
    expect(certificateFromProxyHeader("")).toBeNull();
  });

  it.each([
    ["raw PEM (not encoded)", () => pki.aisp.pem, "bad_encoding"],
    ["a bad percent escape", () => "-----BEGIN%2", "bad_encoding"],
    ["a percent escape that is not UTF-8", () => "%C3%28", "bad_encoding"],
    ["an encoding applied twice", () => encodeURIComponent(nginx(pki.aisp.pem)), "bad_encoding"],
    ["the header sent twice", () => [nginx(pki.aisp.pem), nginx(pki.aisp.pem)], "bad_encoding"],
    ["a header over the bound", () => "A".repeat(MAX_PROXY_HEADER_LENGTH + 1), "too_large"],
  ])("refuses %s", (_what, header, reason) => {
    expect(refusal(() => decodeProxyCertificateHeader(header()))).toBe(reason);
  });

  it.each([
    ["garbage", () => "hello", "not_pem"],
    ["a CRL", () => nginx(pki.crl.pem), "wrong_pem_type"],
    ["two certificates", () => nginx(pki.aisp.pem + pki.intermediate.pem), "too_many"],
    ["a truncated certificate", () => nginx(pki.aisp.pem.slice(0, 200)), "not_pem"],
  ])("refuses a header that decodes to %s", (_what, header, reason) => {
    expect(refusal(() => certificateFromProxyHeader(header()))).toBe(reason);
  });

  it("arbitrary header values never throw anything but CertificateFormatError", () => {
    const encodedish = fc.string({ unit: fc.constantFrom(..."%0123456789ABCDEFabcdef-+/=BEGIN CERTIFICATE"), maxLength: 200 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), encodedish, fc.string({ maxLength: 300 }).map(encodeURIComponent)), (header) => {
        try {
          certificateFromProxyHeader(header);
        } catch (error) {
          expect(error).toBeInstanceOf(CertificateFormatError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("a hostile header at the bound is refused quickly", () => {
    const inputs = ["%41".repeat(MAX_PROXY_HEADER_LENGTH / 3), `${nginx("-----BEGIN CERTIFICATE-----\n")}${"A".repeat(MAX_PROXY_HEADER_LENGTH - 60)}`, "%2D".repeat(MAX_PROXY_HEADER_LENGTH / 3)];
    for (const header of inputs) {
      expect(header.length).toBeLessThanOrEqual(MAX_PROXY_HEADER_LENGTH);
      const started = performance.now();
      expect(() => certificateFromProxyHeader(header)).toThrow(CertificateFormatError);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
