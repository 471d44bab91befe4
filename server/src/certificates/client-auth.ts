/**
 * Which registered client a TLS client certificate authenticates (RFC 8705 §2): pure matching of
 * an already parsed certificate against what the client registered. Whether the certificate is
 * trusted at all (chain, dates, revocation) is trust.ts's job and is checked first for
 * `tls_client_auth`; `self_signed_tls_client_auth` has no chain (§2.2), only the match here.
 *
 * - `tls_client_auth` (§2.1): the client registered exactly one of a subject DN or one SAN (§2.1.2);
 *   the certificate matches when its subject is that DN (RFC 4514 string, compared as
 *   distinguished-name.ts says) or one of its SANs of that kind is that value.
 * - `self_signed_tls_client_auth` (§2.2): the client registered certificates (§2.2.2: a JWK Set
 *   whose keys carry `x5c`), or their `x5t#S256`; the certificate matches one of them. A JWK
 *   without `x5c` matches a certificate with the same public key.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import type { JWK } from "jose";
import { parseDistinguishedName, sameDistinguishedName } from "./distinguished-name.js";
import type { ParsedCertificate } from "./x509.js";

/** The client metadata of RFC 8705 §2.1.2, one of which a `tls_client_auth` client registers. */
export const TLS_CLIENT_AUTH_PARAMETERS = [
  "tls_client_auth_subject_dn",
  "tls_client_auth_san_dns",
  "tls_client_auth_san_uri",
  "tls_client_auth_san_ip",
  "tls_client_auth_san_email",
] as const;

export type TlsClientAuthParameter = (typeof TLS_CLIENT_AUTH_PARAMETERS)[number];

/** What a `tls_client_auth` client expects its certificate to carry: one parameter of RFC 8705 §2.1.2 and its value. */
export interface TlsClientAuthExpectation {
  parameter: TlsClientAuthParameter;
  value: string;
}

/**
 * The expectation of a `tls_client_auth` client from its metadata (dynamic registration, RFC 7591
 * §2 plus RFC 8705 §2.1.2): exactly one of the five parameters, a non-empty string, a subject DN
 * that parses as RFC 4514, an IP address that is one.
 *
 * @throws TypeError with a message fit for `invalid_client_metadata`: none or several of the
 *   parameters, a value that is not a non-empty string, a DN or IP address that does not parse.
 */
export function tlsClientAuthExpectation(metadata: Readonly<Record<string, unknown>>): TlsClientAuthExpectation {
  const present = TLS_CLIENT_AUTH_PARAMETERS.filter((parameter) => metadata[parameter] !== undefined);
  if (present.length !== 1) {
    throw new TypeError(`tls_client_auth requires exactly one of ${TLS_CLIENT_AUTH_PARAMETERS.join(", ")} (RFC 8705 §2.1.2); got ${present.length}`);
  }
  const parameter = present[0]!;
  const value = metadata[parameter];
  if (typeof value !== "string" || value.trim() === "") throw new TypeError(`${parameter} must be a non-empty string`);
  if (parameter === "tls_client_auth_subject_dn") {
    try {
      if (parseDistinguishedName(value).length === 0) throw new TypeError("empty");
    } catch (error) {
      throw new TypeError(`tls_client_auth_subject_dn is not an RFC 4514 distinguished name: ${(error as Error).message}`, { cause: error });
    }
  }
  if (parameter === "tls_client_auth_san_ip" && canonicalIp(value) === undefined) {
    throw new TypeError("tls_client_auth_san_ip must be an IPv4 address in dotted decimal or an IPv6 address (RFC 5952)");
  }
  return { parameter, value };
}

/**
 * Whether `certificate` matches a `tls_client_auth` client's expectation (RFC 8705 §2.1.2):
 * - subject DN: same DN (distinguished-name.ts: RDN order kept, attributes of an RDN in any
 *   order, types case-insensitive or as OIDs, values after RFC 4518 preparation);
 * - SAN dNSName: equal ignoring ASCII case (DNS names are case-insensitive; a wildcard entry
 *   matches only the same wildcard text);
 * - SAN uniformResourceIdentifier: equal as strings (RFC 3986 §6.2.1 simple string comparison);
 * - SAN iPAddress: the same address (§2.1.2: compared in binary form, so `2001:db8::1` and
 *   `2001:0db8:0:0:0:0:0:1` are one; IPv4 and IPv6 never match each other);
 * - SAN rfc822Name: local part equal, domain equal ignoring case (RFC 5280 §4.2.1.6).
 * A registered value that does not parse never matches.
 */
export function matchesTlsClientAuth(certificate: ParsedCertificate, expectation: TlsClientAuthExpectation): boolean {
  const { value } = expectation;
  const sans = certificate.subjectAltNames;
  switch (expectation.parameter) {
    case "tls_client_auth_subject_dn": {
      try {
        return sameDistinguishedName(certificate.subject.rdns, parseDistinguishedName(value));
      } catch {
        return false;
      }
    }
    case "tls_client_auth_san_dns":
      return sans.dns.some((dns) => dns.toLowerCase() === value.toLowerCase());
    case "tls_client_auth_san_uri":
      return sans.uri.includes(value);
    case "tls_client_auth_san_ip": {
      const expected = canonicalIp(value);
      return expected !== undefined && sans.ip.some((ip) => canonicalIp(ip) === expected);
    }
    case "tls_client_auth_san_email":
      return sans.email.some((email) => sameEmail(email, value));
  }
}

/** An IP address in one text form per address: IPv4 dotted decimal, IPv6 as RFC 5952 (what the WHATWG URL host serializer writes). */
function canonicalIp(text: string): string | undefined {
  switch (isIP(text)) {
    case 4:
      return text;
    case 6:
      try {
        return new URL(`http://[${text}]/`).hostname;
      } catch {
        return undefined; // e.g. a zone id, which no certificate carries
      }
    default:
      return undefined;
  }
}

function sameEmail(a: string, b: string): boolean {
  const at = a.lastIndexOf("@");
  const bt = b.lastIndexOf("@");
  if (at < 0 || bt < 0) return a === b;
  return a.slice(0, at) === b.slice(0, bt) && a.slice(at + 1).toLowerCase() === b.slice(bt + 1).toLowerCase();
}

/** What a `self_signed_tls_client_auth` client registered (RFC 8705 §2.2.2): certificates as a JWK Set, or their thumbprints. */
export interface SelfSignedRegistration {
  /** `x5t#S256` values (RFC 8705 §3.1) of the client's certificates. */
  x5tS256?: readonly string[];
  /** The client's JWK Set (`jwks` metadata, or what `jwks_uri` served): keys with `x5c`, or bare public keys. */
  jwks?: { keys: readonly JWK[] };
}

/**
 * Whether `certificate` is one the `self_signed_tls_client_auth` client registered (RFC 8705
 * §2.2): its `x5t#S256` is registered, or a JWK's `x5c[0]` (base64 DER, RFC 7517 §4.7) is the
 * same certificate, or a JWK without `x5c` is the certificate's public key (compared as the
 * SubjectPublicKeyInfo Node's crypto exports for both). The certificate's dates and signature are
 * not checked here (§2.2 has no chain); the caller decides whether an expired self-signed
 * certificate is refused (x509.ts `validityAt`). A malformed JWK matches nothing.
 */
export function matchesSelfSignedTlsClientAuth(certificate: ParsedCertificate, registration: SelfSignedRegistration): boolean {
  if (registration.x5tS256?.includes(certificate.x5tS256)) return true;
  const keys = registration.jwks?.keys ?? [];
  let certificateKey: Buffer | undefined;
  for (const jwk of keys) {
    if (Array.isArray(jwk.x5c) && jwk.x5c.length > 0) {
      const first = jwk.x5c[0];
      if (typeof first === "string" && Buffer.from(first, "base64").equals(certificate.der)) return true;
      continue;
    }
    certificateKey ??= spkiOf(() => createPublicKey({ key: Buffer.from(certificate.spki), format: "der", type: "spki" }));
    const key = spkiOf(() => createPublicKey({ key: jwk as JsonWebKey, format: "jwk" }));
    if (certificateKey && key?.equals(certificateKey)) return true;
  }
  return false;
}

/** The SPKI DER of the key `make` returns, or undefined when Node cannot read the key. */
function spkiOf(make: () => KeyObject): Buffer | undefined {
  try {
    return make().export({ type: "spki", format: "der" });
  } catch {
    return undefined;
  }
}
