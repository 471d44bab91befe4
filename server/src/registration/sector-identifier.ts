/**
 * A registration's `sector_identifier_uri` (OpenID Connect Dynamic Client Registration 1.0 §2 and
 * §5, Core §8.1): an https URL the TPP serves a JSON array of URLs at, which must list every
 * redirect URI it registers. Its host is then a pairwise client's sector (oauth/subject.ts
 * `sectorOf`), so that apps of one TPP on several hosts share their users' `sub`, and only the
 * owner of that host can put an app into it.
 *
 * The server fetches it when a registration names it, and when an update (RFC 7592 §2.2) changes it
 * or the redirect URIs (registration.ts), through kernel/outbound.ts `fetchBounded`: where it
 * connects is checked under the address policy of URLs a TPP names (OUTBOUND_ALLOW_PRIVATE_ADDRESSES,
 * as for a `jwks_uri`), no redirect is followed, at most 64 KiB is read, within
 * {@link SECTOR_FETCH_TIMEOUT_MS}. Whatever goes wrong is the client's metadata at fault:
 * `invalid_client_metadata` (400), never a 5xx.
 */
import type { AddressPolicy } from "../kernel/addresses.js";
import { fetchBounded, OutboundRefused } from "../kernel/outbound.js";
import { invalidClientMetadata } from "./errors.js";

/** How long a fetch of a `sector_identifier_uri` may take, answer read, in milliseconds (as a `jwks_uri`'s, oauth/client-assertion.ts). */
export const SECTOR_FETCH_TIMEOUT_MS = 5000;

/** Fetches a `sector_identifier_uri`: its answer, body read whole and bounded. */
export type SectorFetch = (uri: string) => Promise<Response>;

/**
 * The fetch of `sector_identifier_uri`s: kernel/outbound.ts `fetchBounded`, connecting where
 * `policy` allows, following no redirect, reading at most 64 KiB, given up after `timeoutMs`.
 */
export function sectorFetch(policy: AddressPolicy, timeoutMs = SECTOR_FETCH_TIMEOUT_MS): SectorFetch {
  return (uri) => fetchBounded(uri, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) }, policy);
}

/** Why a fetch failed, for the error description: never more than the refusal's reason or a system error code. */
function fetchFailure(error: unknown): string {
  if (error instanceof OutboundRefused) return error.message;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return "it did not answer in time";
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? `the connection failed (${code})` : "the connection failed";
}

/** The answer's body as text, or why there is none. @throws RegistrationError `invalid_client_metadata` */
async function sectorDocument(uri: string, fetchSector: SectorFetch): Promise<string> {
  let answer: Response;
  let text: string;
  try {
    answer = await fetchSector(uri);
    text = await answer.text();
  } catch (error) {
    throw invalidClientMetadata(`sector_identifier_uri could not be fetched: ${fetchFailure(error)}`);
  }
  if (answer.status !== 200) throw invalidClientMetadata(`sector_identifier_uri could not be fetched: it answered HTTP ${answer.status}, not 200`);
  return text;
}

/** The URLs of a sector document, or undefined when it is not a JSON array of absolute URLs. */
function listedUrls(text: string): Set<string> | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(document) || !document.every((item) => typeof item === "string" && URL.canParse(item))) return undefined;
  return new Set(document as string[]);
}

/**
 * Checks a `sector_identifier_uri` (OpenID Connect Registration §5): fetches it with `fetchSector`
 * and requires an HTTP 200 answer holding a JSON array of absolute URLs that lists each of
 * `redirectUris` exactly (as registered, RFC 9700 §4.1.3: no normalization).
 * @param uri - an https URL, as values.ts `optionalSectorIdentifierUri` checked it.
 * @throws RegistrationError `invalid_client_metadata`: it could not be fetched (refused address,
 *   connection or TLS failure, timeout, an answer over 64 KiB, a status other than 200), is not a
 *   JSON array of URLs, or does not list a redirect URI.
 */
export async function checkSectorIdentifier(uri: string, redirectUris: readonly string[], fetchSector: SectorFetch): Promise<void> {
  const listed = listedUrls(await sectorDocument(uri, fetchSector));
  if (!listed) throw invalidClientMetadata("sector_identifier_uri is not a JSON array of URLs (OpenID Connect Registration section 5)");
  const missing = redirectUris.find((redirectUri) => !listed.has(redirectUri));
  if (missing !== undefined) throw invalidClientMetadata(`sector_identifier_uri does not list redirect_uri ${missing}: it must list every registered redirect URI (OpenID Connect Registration section 5)`);
}
