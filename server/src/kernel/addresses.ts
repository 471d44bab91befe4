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

/**
 * Addresses a URL a TPP names (a `jwks_uri`) must not connect to, besides the link-local ones:
 * "this network", loopback, private networks (RFC 1918, RFC 6598 shared space, IPv6 unique
 * local), multicast and reserved space, the bank's own side of the network (RFC 6890).
 */
const INTERNAL = new BlockList();
for (const [subnet, prefix] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["224.0.0.0", 3]] as const) {
  INTERNAL.addSubnet(subnet, prefix, "ipv4");
}
for (const [subnet, prefix] of [["::", 127], ["fc00::", 7], ["ff00::", 8]] as const) INTERNAL.addSubnet(subnet, prefix, "ipv6");

/**
 * Where an outbound connection may go:
 * - `public`: the Internet only (a URL a TPP chose): neither link-local, metadata nor internal addresses;
 * - `internal`: also the bank's internal and loopback addresses (an upstream an admin configured, or
 *   TPP URLs when OUTBOUND_ALLOW_PRIVATE_ADDRESSES is set), never link-local or metadata ones.
 */
export type AddressPolicy = "public" | "internal";

/**
 * Whether `policy` forbids connecting to the IP address `address` (IPv4-mapped IPv6 forms
 * match their IPv4 address).
 * @param address - an IPv4 or IPv6 address, as DNS resolution or a URL's literal host gives it.
 */
export function isForbiddenAddress(address: string, policy: AddressPolicy): boolean {
  const host = address.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(host);
  if (family === 0) return true;
  const type = family === 4 ? "ipv4" : "ipv6";
  return LINK_LOCAL.check(host, type) || (policy === "public" && INTERNAL.check(host, type));
}
