/**
 * Reads the client certificate of each request (RFC 8705): the peer certificate of the TLS
 * listener's connection (requested, not required), or, behind a TLS-terminating proxy, the
 * URL-encoded PEM of TLS_CLIENT_CERT_HEADER, accepted only from the addresses of
 * TLS_CLIENT_CERT_PROXIES. The header from any other address is refused (400), so a client
 * cannot claim a certificate it does not hold. What is read is recorded for client
 * authentication and the gateway (certificates/presented.ts).
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { TLSSocket } from "node:tls";
import { certificateFromProxyHeader } from "../certificates/proxy-header.js";
import { presentCertificate, type PresentedCertificate } from "../certificates/presented.js";
import { parseCertificate, type ParsedCertificate } from "../certificates/x509.js";
import { CertificateFormatError } from "../certificates/errors.js";
import { InvalidRequest } from "../kernel/errors.js";
import type { Middleware } from "./node.js";

/** Where client certificates come from: the proxy header's name (lowercase) and the addresses it is accepted from. */
export interface ClientCertificateSources {
  header: string | undefined;
  proxies: readonly string[];
}

/** The most CA certificates read from a TLS peer's chain. */
const MAX_PRESENTED_INTERMEDIATES = 8;

/** The certificate of each TLS connection, read once per connection (undefined: none presented). */
const BY_SOCKET = new WeakMap<TLSSocket, PresentedCertificate | undefined>();

/**
 * The addresses of `proxies` (IP addresses or CIDR ranges) as a block list.
 * @throws TypeError naming an entry that is neither.
 */
export function proxyAddresses(proxies: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of proxies) {
    const [address, bits] = entry.split("/", 2) as [string, string | undefined];
    const type = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
    if (!type || (bits !== undefined && !/^\d{1,3}$/.test(bits))) throw new TypeError(`TLS_CLIENT_CERT_PROXIES: "${entry}" is not an IP address or CIDR range`);
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** The peer certificate of a TLS connection with the CA certificates it sent; undefined when it presented none. */
function fromTls(socket: TLSSocket): PresentedCertificate | undefined {
  if (BY_SOCKET.has(socket)) return BY_SOCKET.get(socket);
  const peer = socket.getPeerCertificate(true);
  let presented: PresentedCertificate | undefined;
  if (peer?.raw) {
    const intermediates: ParsedCertificate[] = [];
    for (let next = peer.issuerCertificate; next?.raw && next !== next.issuerCertificate && intermediates.length < MAX_PRESENTED_INTERMEDIATES; next = next.issuerCertificate) {
      try {
        intermediates.push(parseCertificate(next.raw));
      } catch (err) {
        if (!(err instanceof CertificateFormatError)) throw err;
      }
    }
    presented = { certificate: parseCertificate(peer.raw), intermediates };
  }
  BY_SOCKET.set(socket, presented);
  return presented;
}

/**
 * Middleware recording the client certificate of each request.
 * @throws InvalidRequest (400) for the proxy header from an address not in `sources.proxies`,
 *   or a certificate (from the header or the connection) that cannot be read.
 */
export function clientCertificates(sources: ClientCertificateSources): Middleware {
  const proxies = proxyAddresses(sources.proxies);
  return (req, _res, next) => {
    try {
      const socket = req.socket as TLSSocket;
      const header = sources.header === undefined ? undefined : req.headers[sources.header];
      if (header !== undefined) {
        // An IPv4 peer of a dual-stack socket reads ::ffff:a.b.c.d.
        const peer = (socket.remoteAddress ?? "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
        if (!proxies.check(peer, isIPv4(peer) ? "ipv4" : "ipv6")) {
          throw new InvalidRequest(`${sources.header} is accepted only from the configured TLS-terminating proxies`);
        }
        const certificate = certificateFromProxyHeader(header);
        if (certificate) presentCertificate(req, { certificate, intermediates: [] });
      } else if (socket.encrypted) {
        const presented = fromTls(socket);
        if (presented) presentCertificate(req, presented);
      }
      next();
    } catch (err) {
      next(err instanceof CertificateFormatError ? new InvalidRequest(`the client certificate cannot be read: ${err.message}`) : err);
    }
  };
}
