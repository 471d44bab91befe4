/**
 * The server's own outbound HTTP (a client's `jwks_uri`, a registration's `sector_identifier_uri`;
 * every URL it fetches later), checked where it connects rather than by name, and read within a
 * bound:
 *
 * - the address is checked at connect time, in the undici `Agent`'s connector: a literal IP
 *   host (which `net.connect` never looks up) before connecting, and a name after DNS
 *   resolution (a `lookup` that refuses what kernel/addresses.ts `isForbiddenAddress`
 *   forbids), so a name that resolves to a metadata or internal address, or re-resolves to
 *   one later (DNS rebinding), is refused, and no bytes are sent to it;
 * - no redirect is followed: a 3xx is an answer like any other, not a second fetch;
 * - the body is refused past `maxBytes`, by its Content-Length before reading and while
 *   reading, so an answer of any size costs at most `maxBytes` of memory.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, buildConnector, fetch } from "undici";
import { isForbiddenAddress, type AddressPolicy } from "./addresses.js";

/** The most bytes of an answer the server reads by default: a JWK Set of dozens of keys fits. */
export const OUTBOUND_BODY_LIMIT_BYTES = 64 * 1024;

/** An outbound fetch refused: a forbidden address, or an answer too large. */
export class OutboundRefused extends Error {}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that resolves as Node does and refuses forbidden addresses. */
function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = addresses.filter((a) => !isForbiddenAddress(a.address, policy));
      if (allowed.length === 0) return callback(Object.assign(new OutboundRefused(`${hostname} resolves to no address this server may connect to`), { code: "EADDRNOTAVAIL" }), []);
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/**
 * undici's connector with `options`, connecting only where `policy` allows: a literal IP
 * host is checked before connecting, a name where it resolves ({@link guardedLookup}).
 */
function guardedConnector(policy: AddressPolicy, options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: guardedLookup(policy) });
  return (target, callback) => {
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host) !== 0 && isForbiddenAddress(host, policy)) return callback(new OutboundRefused(`${target.hostname} is an address this server may not connect to`), null);
    connect(target, callback);
  };
}

/**
 * An undici dispatcher connecting only to the addresses `policy` allows (this file's header).
 * @param options - undici's Agent options; `connect`, if given, as connector build options.
 */
export function guardedAgent(policy: AddressPolicy, options: Omit<Agent.Options, "connect"> & { connect?: buildConnector.BuildOptions } = {}): Agent {
  return new Agent({ ...options, connect: guardedConnector(policy, options.connect ?? {}) });
}

const agents = new Map<AddressPolicy, Agent>();

/** The shared agent of `policy` for {@link fetchBounded}, one per policy per process. */
function sharedAgent(policy: AddressPolicy): Agent {
  let agent = agents.get(policy);
  if (!agent) agents.set(policy, (agent = guardedAgent(policy)));
  return agent;
}

/**
 * Fetches `url` under `policy`, following no redirect, and reads at most `maxBytes` of its answer.
 * @param init - as fetch's (`redirect` is always "manual"; `signal` bounds the time).
 * @returns the answer, its body read whole (a standard Response).
 * @throws OutboundRefused for a forbidden address or an answer over `maxBytes`; fetch's errors otherwise.
 */
export async function fetchBounded(url: string | URL, init: RequestInit, policy: AddressPolicy, maxBytes = OUTBOUND_BODY_LIMIT_BYTES): Promise<Response> {
  const target = new URL(url);
  const res = await fetch(target, { ...(init as object), redirect: "manual", dispatcher: sharedAgent(policy) }).catch((error: unknown) => {
    // fetch wraps the connector's refusal in its "fetch failed".
    throw error instanceof Error && error.cause instanceof OutboundRefused ? error.cause : error;
  });
  const declared = Number(res.headers.get("content-length"));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new OutboundRefused(`the answer of ${target.origin} is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream, and with it the connection.
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) break;
    chunks.push(chunk);
  }
  if (size > maxBytes) throw new OutboundRefused(`the answer of ${target.origin} is larger than ${maxBytes} bytes`);
  const body = res.status === 204 || res.status === 304 ? null : Buffer.concat(chunks);
  return new Response(body, { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()) });
}
