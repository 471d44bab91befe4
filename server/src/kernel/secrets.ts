/**
 * Opaque secrets (access and refresh tokens, authorization codes, consumer secrets) and
 * their storage form. Only the SHA-256 of a secret is ever stored: these values carry 256
 * bits of entropy, so a fast hash is as strong as a slow one and keeps token checks cheap.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** Random bytes drawn from the CSPRNG a pool at a time (one call per 128 secrets, not one each). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** A new URL-safe random secret of 256 bits (43 base64url characters). */
export function newSecret(): string {
  if (offset + 32 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const secret = pool.toString("base64url", offset, offset + 32);
  // Each secret's bytes are handed out once, then wiped from the pool.
  pool.fill(0, offset, (offset += 32));
  return secret;
}

/**
 * SHA-256 of `value` (UTF-8) as 64 lowercase hex characters: the stored form of a secret.
 * node:crypto's one-shot `hash`, without a Hash object: it runs on every token lookup.
 */
export function hashSecret(value: string): string {
  return hash("sha256", value, "hex");
}

/** A SHA-256 digest as {@link hashSecret} writes it: 64 lowercase hex characters. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Compares the SHA-256 hex digest of a presented secret (from {@link hashSecret}) with a
 * stored one in constant time; the presented secret is hashed once by the caller, which may
 * compare it with several stored hashes.
 * @returns true when `presentedHash == storedHash` and both are SHA-256 hex digests.
 */
export function hashMatches(presentedHash: string, storedHash: string): boolean {
  // Buffer.from(…, "hex") stops at the first non-hex pair: check the whole text first.
  if (!SHA256_HEX.test(presentedHash) || !SHA256_HEX.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(presentedHash, "hex"), Buffer.from(storedHash, "hex"));
}
