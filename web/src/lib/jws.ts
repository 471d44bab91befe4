/**
 * Reading a compact JWS (RFC 7515 §7.1: BASE64URL(header) "." BASE64URL(payload) "."
 * BASE64URL(signature)) for a person: its JOSE header and payload decoded as JSON. Nothing is
 * verified here: the console shows what was signed, the signature is checked elsewhere.
 */

/** A compact JWS read: its header and payload, or why it cannot be decoded (never a throw). */
export type DecodedJws = { ok: true; header: Record<string, unknown>; payload: unknown } | { ok: false; reason: string };

/** Whether `part` is base64url without padding (RFC 7515 §2): its alphabet, and a length that can hold whole bytes. */
const isBase64Url = (part: string) => /^[A-Za-z0-9_-]*$/.test(part) && part.length % 4 !== 1;

/** The text a base64url part holds as UTF-8, or undefined when it is not base64url or not UTF-8. */
export function base64UrlText(part: string): string | undefined {
  if (!isBase64Url(part)) return undefined;
  const base64 = part.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((part.length + 3) % 4);
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    return undefined;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** The JSON value a base64url part holds, or why not. */
function jsonPart(part: string, name: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const text = base64UrlText(part);
  if (text === undefined) return { ok: false, reason: `its ${name} is not base64url-encoded UTF-8` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: `its ${name} is not JSON` };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Splits a compact JWS on "." and decodes its header (a JSON object) and payload (JSON). An
 * encrypted message (JWE, five parts), anything else than three parts, or a part that is not
 * base64url JSON gives `{ ok: false, reason }`.
 */
export function decodeJws(compact: string): DecodedJws {
  const parts = compact.split(".");
  if (parts.length === 5) return { ok: false, reason: "it is encrypted (JWE), not a signed JWS" };
  if (parts.length !== 3) return { ok: false, reason: "it is not a compact JWS (three base64url parts separated by dots)" };
  const [headerPart, payloadPart, signature] = parts as [string, string, string];
  const header = jsonPart(headerPart, "header");
  if (!header.ok) return header;
  if (!isObject(header.value)) return { ok: false, reason: "its header is not a JSON object" };
  const payload = jsonPart(payloadPart, "payload");
  if (!payload.ok) return payload;
  if (signature === "" || !isBase64Url(signature)) return { ok: false, reason: "its signature is missing or not base64url" };
  return { ok: true, header: header.value, payload: payload.value };
}

/** A JSON value pretty-printed, two spaces a level. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
