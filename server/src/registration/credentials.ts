/**
 * The credentials a registration issues (RFC 7591 §3.2.1, RFC 7592 §3): the `client_id`, a
 * `client_secret` for a `client_secret_basic` client only, and the registration access token that
 * authorizes the client's reads, updates and deletion of its registration at its client
 * configuration endpoint. The secrets are 256-bit random values (kernel/secrets.ts); only their
 * SHA-256 is stored, and a presented one is compared with it in constant time.
 */
import { randomBytes } from "node:crypto";
import { hashMatches, hashSecret, newSecret } from "../kernel/secrets.js";

/** A new secret (given to the client once) and the SHA-256 hex to store instead of it. */
export interface IssuedSecret {
  /** 43 base64url characters (256 bits). */
  value: string;
  /** 64 lowercase hex characters: kernel/secrets.ts `hashSecret(value)`. */
  hash: string;
}

/** Longest secret compared, in characters: a longer one is refused without hashing. */
const MAX_PRESENTED_LENGTH = 512;
/** Compared with when there is no stored hash, so that an unknown client costs what a wrong token does. */
const NO_HASH = "0".repeat(64);

/**
 * A new `client_id`: 32 base64url characters (192 random bits), the form of the admin API's
 * consumer keys, so it cannot be told apart from them or guessed.
 */
export function newClientId(): string {
  return randomBytes(24).toString("base64url");
}

function issue(): IssuedSecret {
  const value = newSecret();
  return { value, hash: hashSecret(value) };
}

/** A new `client_secret` (RFC 7591 §3.2.1) and its hash; issued only to `client_secret_basic` clients, never expiring (`client_secret_expires_at` 0). */
export function newClientSecret(): IssuedSecret {
  return issue();
}

/** A new registration access token (RFC 7592 §3, a bearer token, RFC 6750) and its hash. */
export function newRegistrationAccessToken(): IssuedSecret {
  return issue();
}

/**
 * Whether a presented secret (a registration access token from `Authorization: Bearer`, or the
 * `client_secret` of an update) is the one whose hash is stored: SHA-256 of the presented value
 * compared in constant time (kernel/secrets.ts `hashMatches`). An absent stored hash (no such
 * client) costs the same and answers false.
 * @param presented - as sent; undefined, empty or longer than 512 characters answers false.
 * @param storedHash - the stored SHA-256 hex, or undefined when there is none.
 */
export function issuedSecretMatches(presented: string | undefined, storedHash: string | undefined): boolean {
  if (!presented || presented.length > MAX_PRESENTED_LENGTH) return false;
  const matches = hashMatches(hashSecret(presented), storedHash ?? NO_HASH);
  return matches && storedHash !== undefined;
}
