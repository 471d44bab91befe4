/**
 * Addresses a URL the server fetches must not name (an API's upstream, a client's jwks_uri):
 * link-local addresses and cloud metadata services, where a fetch would hand out the
 * instance's cloud credentials. Also the characters a stored URI may hold.
 */
import { BlockList, isIP } from "node:net";

/** RFC 3986 §2: the characters a URI may hold, and percent-encodings. No space, control or non-ASCII character. */
export const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/**
 * Link-local addresses (169.254.0.0/16, fe80::/10), which hold the cloud metadata services
 * (169.254.169.254 on AWS, Azure, GCP, Oracle; fd00:ec2::254, AWS over IPv6;
 * 100.100.100.200, Alibaba Cloud). IPv4-mapped IPv6 forms (::ffff:169.254.169.254) match too.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet("169.254.0.0", 16, "ipv4");
LINK_LOCAL.addAddress("100.100.100.200", "ipv4");
LINK_LOCAL.addSubnet("fe80::", 10, "ipv6");
LINK_LOCAL.addAddress("fd00:ec2::254", "ipv6");
/** Names of metadata services (GCP), compared without a trailing dot. */
const METADATA_HOSTS = new Set(["metadata.google.internal"]);

/**
 * Whether a URL's host is a link-local or cloud metadata address. The WHATWG URL parser has
 * already normalised other spellings of an IPv4 address (0xA9FEA9FE, 2852039166, 0251.0376.0251.0376).
 * Only the literal host is checked: a DNS name that resolves to such an address is not caught here.
 */
export function isLinkLocalOrMetadata(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  const family = isIP(host);
  return family === 0 ? METADATA_HOSTS.has(host) : LINK_LOCAL.check(host, family === 4 ? "ipv4" : "ipv6");
}
