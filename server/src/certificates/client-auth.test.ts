import { createPublicKey } from "node:crypto";
import type { JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_TPP, testPki, type TestPki } from "../../test/support/pki.js";
import { matchesSelfSignedTlsClientAuth, matchesTlsClientAuth, tlsClientAuthExpectation, type TlsClientAuthParameter } from "./client-auth.js";
import { parseCertificate, type ParsedCertificate } from "./x509.js";

let pki: TestPki;
let aisp: ParsedCertificate;
let selfSigned: ParsedCertificate;
beforeAll(async () => {
  pki = await testPki();
  aisp = parseCertificate(pki.aisp.pem);
  selfSigned = parseCertificate(pki.selfSigned.pem);
});

const expect_ = (parameter: TlsClientAuthParameter, value: string) => ({ parameter, value });
const matches = (parameter: TlsClientAuthParameter, value: string) => matchesTlsClientAuth(aisp, expect_(parameter, value));

describe("tls_client_auth: subject DN (RFC 8705 §2.1.2, compared per RFC 4514/4517)", () => {
  it.each([
    ["as the certificate prints it", () => aisp.subject.text],
    ["with the organizationIdentifier as an OID", () => TEST_TPP.aisp.subjectDn],
    ["in other case", () => "cn=TPP-AISP.EXAMPLE.COM,organizationidentifier=psdde-bafin-123456,o=example aisp gmbh,l=frankfurt am main,c=de"],
    ["with spaces around separators and inside values", () => "CN = tpp-aisp.example.com , 2.5.4.97 = PSDDE-BAFIN-123456 , O = Example  AISP GmbH , L = Frankfurt am Main , C = DE"],
    ["with long type names", () => "commonName=tpp-aisp.example.com,organizationIdentifier=PSDDE-BAFIN-123456,organizationName=Example AISP GmbH,localityName=Frankfurt am Main,countryName=DE"],
  ])("matches the subject %s", (_what, dn) => {
    expect(matches("tls_client_auth_subject_dn", dn())).toBe(true);
  });

  it.each([
    ["another organization", "CN=tpp-aisp.example.com,organizationIdentifier=PSDDE-BAFIN-123456,O=Other GmbH,L=Frankfurt am Main,C=DE"],
    ["another organizationIdentifier", "CN=tpp-aisp.example.com,organizationIdentifier=PSDDE-BAFIN-999999,O=Example AISP GmbH,L=Frankfurt am Main,C=DE"],
    ["RDNs in ASN.1 order instead of RFC 4514's", "C=DE,L=Frankfurt am Main,O=Example AISP GmbH,organizationIdentifier=PSDDE-BAFIN-123456,CN=tpp-aisp.example.com"],
    ["an RDN missing", "CN=tpp-aisp.example.com,O=Example AISP GmbH,L=Frankfurt am Main,C=DE"],
    ["the issuer's DN", "CN=Tollgate Test QWAC CA,O=Tollgate Test QTSP,C=DE"],
    ["a DN that does not parse", "CN=tpp-aisp.example.com;O=x"],
    ["the empty DN", ""],
  ])("refuses %s", (_what, dn) => {
    expect(matches("tls_client_auth_subject_dn", dn)).toBe(false);
  });
});

describe("tls_client_auth: one SAN (RFC 8705 §2.1.2)", () => {
  const { aisp: tpp } = TEST_TPP;
  it.each([
    ["tls_client_auth_san_dns", tpp.dns],
    ["tls_client_auth_san_dns", "TPP-AISP.Example.com"],
    ["tls_client_auth_san_uri", tpp.uri],
    ["tls_client_auth_san_ip", tpp.ipv4],
    ["tls_client_auth_san_ip", tpp.ipv6],
    ["tls_client_auth_san_ip", "2001:0db8:0000:0000:0000:0000:0000:0010"],
    ["tls_client_auth_san_ip", "2001:DB8::10"],
    ["tls_client_auth_san_email", tpp.email],
    ["tls_client_auth_san_email", "ops@example.com"],
  ] as const)("%s matches %s", (parameter, value) => {
    expect(matches(parameter, value)).toBe(true);
  });

  it.each([
    ["tls_client_auth_san_dns", "aisp.example.com"],
    ["tls_client_auth_san_dns", "*.example.com"],
    ["tls_client_auth_san_uri", "https://TPP-AISP.example.com/oauth/client"],
    ["tls_client_auth_san_uri", "https://tpp-aisp.example.com/oauth/client/"],
    ["tls_client_auth_san_ip", "192.0.2.11"],
    ["tls_client_auth_san_ip", "::ffff:192.0.2.10"],
    ["tls_client_auth_san_ip", "2001:db8::1"],
    ["tls_client_auth_san_ip", "not an ip"],
    ["tls_client_auth_san_email", "OPS@example.com"],
    ["tls_client_auth_san_email", "ops@example.org"],
    ["tls_client_auth_san_dns", TEST_TPP.aisp.email],
  ] as const)("%s refuses %s", (parameter, value) => {
    expect(matches(parameter, value)).toBe(false);
  });

  it("finds nothing in a certificate without SANs", () => {
    expect(matchesTlsClientAuth(parseCertificate(pki.root.pem), expect_("tls_client_auth_san_dns", "tpp-aisp.example.com"))).toBe(false);
  });
});

describe("tlsClientAuthExpectation (client metadata)", () => {
  it("takes the one parameter present", () => {
    expect(tlsClientAuthExpectation({ client_name: "x", tls_client_auth_san_dns: "tpp.example.com" })).toEqual(expect_("tls_client_auth_san_dns", "tpp.example.com"));
    expect(tlsClientAuthExpectation({ tls_client_auth_subject_dn: TEST_TPP.aisp.subjectDn })).toEqual(expect_("tls_client_auth_subject_dn", TEST_TPP.aisp.subjectDn));
    expect(tlsClientAuthExpectation({ tls_client_auth_san_ip: "2001:db8::10" })).toEqual(expect_("tls_client_auth_san_ip", "2001:db8::10"));
  });

  it.each([
    ["none", {}],
    ["two", { tls_client_auth_san_dns: "a.example", tls_client_auth_san_uri: "https://a.example" }],
    ["a number", { tls_client_auth_san_dns: 5 }],
    ["an empty string", { tls_client_auth_san_uri: " " }],
    ["a DN that does not parse", { tls_client_auth_subject_dn: "CN=a;O=b" }],
    ["an empty DN", { tls_client_auth_subject_dn: "," }],
    ["an IP address that is not one", { tls_client_auth_san_ip: "192.0.2.300" }],
    ["an IPv4 address with leading zeros", { tls_client_auth_san_ip: "192.0.2.010" }],
  ])("refuses %s", (_what, metadata) => {
    expect(() => tlsClientAuthExpectation(metadata)).toThrow(TypeError);
  });
});

describe("self_signed_tls_client_auth (RFC 8705 §2.2)", () => {
  const x5c = () => Buffer.from(pki.selfSigned.der).toString("base64");
  const publicJwk = () => createPublicKey({ key: Buffer.from(selfSigned.spki), format: "der", type: "spki" }).export({ format: "jwk" }) as JWK;

  it("matches a registered x5t#S256", () => {
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { x5tS256: ["other", selfSigned.x5tS256] })).toBe(true);
    expect(matchesSelfSignedTlsClientAuth(aisp, { x5tS256: [selfSigned.x5tS256] })).toBe(false);
  });

  it("matches a JWK whose x5c holds the certificate", () => {
    const jwks = { keys: [{ ...publicJwk(), x5c: [x5c()] }] };
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { jwks })).toBe(true);
    expect(matchesSelfSignedTlsClientAuth(aisp, { jwks })).toBe(false);
  });

  it("does not match a JWK with the same key but another certificate in x5c", () => {
    const jwks = { keys: [{ ...publicJwk(), x5c: [Buffer.from(pki.aisp.der).toString("base64")] }] };
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { jwks })).toBe(false);
  });

  it("matches a JWK without x5c that is the certificate's public key", async () => {
    const otherKey = createPublicKey({ key: Buffer.from(aisp.spki), format: "der", type: "spki" }).export({ format: "jwk" }) as JWK;
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { jwks: { keys: [otherKey, publicJwk()] } })).toBe(true);
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { jwks: { keys: [otherKey] } })).toBe(false);
  });

  it("matches nothing with malformed JWKs or an empty registration", () => {
    const bad = [{ kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" }, { kty: "nope" }, { kty: "EC", x5c: [42] }, { kty: "EC", x5c: ["%%%"] }] as unknown as JWK[];
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { jwks: { keys: bad } })).toBe(false);
    expect(matchesSelfSignedTlsClientAuth(selfSigned, {})).toBe(false);
    expect(matchesSelfSignedTlsClientAuth(selfSigned, { x5tS256: [], jwks: { keys: [] } })).toBe(false);
  });
});
