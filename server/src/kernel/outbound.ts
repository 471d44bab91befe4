/**
 * The server's own outbound HTTP (a client's `jwks_uri` today; every URL it fetches later),
 * checked where it connects rather than by name, and read within a bound:
 *
 * - the address is checked at connect time, after DNS resolution (an undici `Agent` whose
 *   `lookup` refuses what kernel/addresses.ts `isForbiddenAddress` forbids, and a literal IP
 *   host checked before connecting, which needs no lookup), so a name that resolves to a
 *   metadata or internal address, or re-resolves to one later (DNS rebinding), is refused;
 * - no redirect is followed: a 3xx is an answer like any other, not a second fetch;
 * - the body is refused past `maxBytes`, by its Content-Length before reading and while
 *   reading, so an answer of any size costs at most `maxBytes` of memory.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { Agent, fetch } from "undici";
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

const agents = new Map<AddressPolicy, Agent>();

/**
 * The undici dispatcher of `policy`, one per policy per process: connections only to the
 * addresses the policy allows (this file's header).
 */
export function guardedAgent(policy: AddressPolicy, options: Agent.Options = {}): Agent {
  return new Agent({ ...options, connect: { ...(options.connect as object), lookup: guardedLookup(policy) } });
}

/** The shared agent of `policy` for {@link fetchBounded}. */
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
  const literal = target.hostname.replace(/^\[(.*)\]$/, "$1");
  if (/^[\d.]+$|:/.test(literal) && isForbiddenAddress(literal, policy)) throw new OutboundRefused(`${target.host} is an address this server may not connect to`);
  const res = await fetch(target, { ...(init as object), redirect: "manual", dispatcher: sharedAgent(policy) }).catch((error: unknown) => {
    // fetch wraps the lookup's refusal in its "fetch failed".
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
