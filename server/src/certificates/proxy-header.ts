/**
 * The client certificate as a TLS-terminating reverse proxy forwards it: the PEM text,
 * percent-encoded into one header value, as nginx's `$ssl_client_escaped_cert` writes it
 * (e.g. `proxy_set_header X-SSL-Client-Cert $ssl_client_escaped_cert;`): `-----BEGIN%20CERTIFICATE-----%0AMIIB…`.
 * nginx sends the empty string when the client presented no certificate. Envoy's
 * x-forwarded-client-cert is another format and not read here.
 *
 * Which header, and whether to believe it (only from the proxy's address), is the caller's
 * concern: whoever can reach the server directly can send any header.
 */
import { CertificateFormatError } from "./errors.js";
import { MAX_CERTIFICATE_PEM_LENGTH, parseCertificate, type ParsedCertificate } from "./x509.js";

/** Longest header value accepted, in characters: the longest certificate PEM with every character percent-encoded. */
export const MAX_PROXY_HEADER_LENGTH = 3 * MAX_CERTIFICATE_PEM_LENGTH;

/**
 * What percent-encoded PEM may hold: RFC 3986 unreserved characters, `%` escapes, and the base64
 * characters `+ / =` that some proxies leave as they are (nginx escapes them). A raw space or line
 * break means the PEM was not encoded.
 */
const ENCODED_PEM = /^[A-Za-z0-9\-._~%+/=]*$/;

/**
 * The PEM text in a proxy's client-certificate header, or null when there is none (header absent,
 * or empty: no client certificate). `+` stays `+` (a base64 character, not a space).
 *
 * @throws CertificateFormatError `too_large` (over {@link MAX_PROXY_HEADER_LENGTH} characters),
 *   `bad_encoding` (the header repeated, characters that percent-encoding does not leave, a bad
 *   `%` escape, or text still percent-encoded after decoding: encoded twice).
 */
export function decodeProxyCertificateHeader(header: string | readonly string[] | undefined): string | null {
  if (Array.isArray(header) && header.length > 1) throw new CertificateFormatError("bad_encoding", "the client certificate header appears more than once");
  const value: string | undefined = typeof header === "string" ? header : header?.[0];
  if (value === undefined || value === "") return null;
  if (value.length > MAX_PROXY_HEADER_LENGTH) throw new CertificateFormatError("too_large", `client certificate header longer than ${MAX_PROXY_HEADER_LENGTH} characters`);
  if (!ENCODED_PEM.test(value)) throw new CertificateFormatError("bad_encoding", "the client certificate header is not percent-encoded PEM");
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch (error) {
    throw new CertificateFormatError("bad_encoding", "the client certificate header has a bad percent escape", { cause: error });
  }
  if (decoded.includes("%")) throw new CertificateFormatError("bad_encoding", "the client certificate header is percent-encoded twice");
  return decoded;
}

/**
 * The certificate in a proxy's client-certificate header ({@link decodeProxyCertificateHeader},
 * then x509.ts `parseCertificate`), or null when there is none.
 *
 * @throws CertificateFormatError as both.
 */
export function certificateFromProxyHeader(header: string | readonly string[] | undefined): ParsedCertificate | null {
  const pem = decodeProxyCertificateHeader(header);
  return pem === null ? null : parseCertificate(pem);
}
