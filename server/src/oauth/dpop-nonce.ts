/**
 * Server-provided DPoP nonces (RFC 9449 §8 at the authorization server, §9 at a resource
 * server): a nonce limits how long a proof can be used, since a client can only sign one
 * with a nonce the server handed out recently.
 *
 * The nonces are stateless: a nonce is an HMAC of the current time window under a secret,
 * so nothing is stored, and every instance configured with the same secret issues the same
 * nonce in a window and accepts the nonces of every other instance. A nonce handed out at
 * the end of a window stays valid through the next one: a nonce lives between one and two
 * windows.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Characters of a nonce: 22 base64url characters carry 132 bits of the HMAC. */
const NONCE_LENGTH = 22;

/** Issues and checks the DPoP nonces of one secret. */
export interface DpopNonces {
  /** The nonce to hand out at `now` (the `DPoP-Nonce` response header, RFC 9449 §8.1). */
  current(now: Date): string;
  /** True when `nonce` is the nonce of the window of `now` or of the window before it. */
  accepts(nonce: string, now: Date): boolean;
}

/**
 * Nonces for RFC 9449 §8 and §9: base64url(HMAC-SHA256(secret, window)) cut to 22
 * characters, where window = floor(unix seconds / windowSeconds) written in decimal.
 * `accepts` takes the current window's nonce and the previous one's, compared in constant
 * time, and refuses any other length.
 * @param secret - shared by every instance that must accept each other's nonces; kept
 *   for this use only, and at least as strong as a random 256-bit value.
 * @param windowSeconds - length of a window, in seconds: a nonce is accepted for between
 *   one and two windows.
 * @throws Error when `secret` is empty or `windowSeconds` is not a positive integer
 *   (a configuration mistake).
 */
export function dpopNonces(secret: string, windowSeconds = 300): DpopNonces {
  if (secret.length === 0) throw new Error("the DPoP nonce secret must not be empty");
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) throw new Error("the DPoP nonce window must be a positive whole number of seconds");
  const windowOf = (now: Date) => Math.floor(now.getTime() / 1000 / windowSeconds);
  const nonceOf = (window: number) => createHmac("sha256", secret).update(String(window)).digest("base64url").slice(0, NONCE_LENGTH);
  const same = (nonce: string, expected: string) => timingSafeEqual(Buffer.from(nonce), Buffer.from(expected));
  return {
    current: (now) => nonceOf(windowOf(now)),
    accepts(nonce, now) {
      // timingSafeEqual throws on buffers of different lengths: count UTF-8 bytes, not characters.
      if (Buffer.byteLength(nonce) !== NONCE_LENGTH) return false;
      const window = windowOf(now);
      // Both compared every time, so the answer takes as long for either window.
      const inCurrent = same(nonce, nonceOf(window));
      const inPrevious = same(nonce, nonceOf(window - 1));
      return inCurrent || inPrevious;
    },
  };
}
