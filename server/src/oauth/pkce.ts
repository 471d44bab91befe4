/**
 * Proof Key for Code Exchange (RFC 7636). Only S256 is accepted (RFC 9700 §2.1.1).
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** RFC 7636 §4.1/§4.2: 43-128 characters of [A-Z] [a-z] [0-9] - . _ ~ */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** True when `value` has the syntax of a code_verifier or an S256 code_challenge. */
export function isPkceValue(value: string): boolean {
  return PKCE_VALUE.test(value);
}

/** The S256 challenge of a verifier: BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** RFC 7636 §4.6: does `verifier` match the stored S256 `challenge`? Constant time. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  const a = Buffer.from(s256Challenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
