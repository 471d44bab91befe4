/**
 * Signatures of compact JWS (RFC 7515 §7.1) checked with a public JWK by node:crypto, with
 * a KeyObject imported once per key. jose 6 verifies through WebCrypto, whose JavaScript
 * layers cost more per DPoP proof than all of the proof's other checks; fast-jwt verifies
 * with node:crypto but on the event loop, where a P-256 verification holds every other
 * request up. Here node:crypto's one-shot `verify` runs on the libuv thread pool
 * (measured per DPoP gateway call: about as many instructions as fast-jwt, 8 % fewer than
 * jose, and more requests/s than either). Only the JWS framing is here, and what
 * node:crypto is asked for per algorithm (digest, padding, signature encoding): every
 * cryptographic operation is node:crypto's, the thumbprint jose's.
 */
import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject, type VerifyKeyObjectInput } from "node:crypto";
import { calculateJwkThumbprint, type JWK, type JWTPayload } from "jose";
import type { SigningAlgorithm } from "./signing.js";
import { isJsonObject } from "../kernel/strict-json.js";

/**
 * Why a JWS was refused: `signature` when its signature does not verify with the key;
 * `payload` when its payload is not the base64url encoding of a JSON object (RFC 7519 §7.2
 * item 10).
 */
export type JwsRefusal = "signature" | "payload";

/** A JWS refused by {@link JwkVerifier.verify}; {@link JwsRefused.refusal} says why, never the JWS itself. */
export class JwsRefused extends Error {
  constructor(readonly refusal: JwsRefusal) {
    super(`the JWS was refused (${refusal})`);
  }
}

/** Verifies JWS made with one key and one algorithm. */
export interface JwkVerifier {
  /** The JWK SHA-256 Thumbprint (RFC 7638) of the key, base64url (43 characters). */
  readonly jkt: string;
  /**
   * Checks the signature of `jws` with the key and algorithm of this verifier, then
   * decodes its payload; nothing of the payload is looked at but that it is a JSON object.
   * @param jws - a compact JWS of three base64url parts whose JOSE header the caller has
   *   checked already: its `alg` is this verifier's, and it has no `crit`.
   * @returns the payload.
   * @throws JwsRefused (the promise rejects with it) for a signature or payload refused.
   */
  verify(jws: string): Promise<JWTPayload>;
}

/** The key node:crypto imports for each algorithm (`asymmetricKeyType`, and the curve of EC keys). */
const KEY_TYPES: Record<SigningAlgorithm, { type: string; namedCurve?: string }> = {
  ES256: { type: "ec", namedCurve: "prime256v1" },
  PS256: { type: "rsa" },
  EdDSA: { type: "ed25519" },
};

/** How node:crypto verifies `alg` with `key`: its digest, and the key with its options. */
function verification(alg: SigningAlgorithm, key: KeyObject): { digest: string | null; key: KeyObject | VerifyKeyObjectInput } {
  switch (alg) {
    case "ES256": // ECDSA P-256 with SHA-256; the signature is R || S, 64 bytes (RFC 7518 §3.4).
      return { digest: "sha256", key: { key, dsaEncoding: "ieee-p1363" } };
    case "PS256": // RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt (RFC 7518 §3.5).
      return { digest: "sha256", key: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } };
    case "EdDSA": // Ed25519 signs the message itself (RFC 8037 §3.1).
      return { digest: null, key };
  }
}

/** Decodes UTF-8, refusing malformed sequences (RFC 7519 §7.2 item 10: "completely valid JSON"), as jose did. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The payload of a compact JWS, `encoded` its second part. @throws JwsRefused when it is not a JSON object in UTF-8. */
function decodedPayload(encoded: string): JWTPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(utf8.decode(Buffer.from(encoded, "base64url")));
  } catch {
    throw new JwsRefused("payload");
  }
  if (!isJsonObject(payload)) throw new JwsRefused("payload");
  return payload as JWTPayload;
}

/**
 * A verifier for JWS signed by the private half of `jwk` with `alg`. Costly (a key import
 * and a thumbprint): create one per key and keep it.
 * @param jwk - a public key that fits `alg`, checked by signing.ts `publicKeyProblem`.
 * @throws (the promise rejects) whatever node:crypto throws for a key it cannot import (a
 *   point off the curve, say), and TypeError for a key of another type than `alg` signs with.
 */
export async function jwkVerifier(jwk: JWK, alg: SigningAlgorithm): Promise<JwkVerifier> {
  const key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
  const expected = KEY_TYPES[alg];
  if (key.asymmetricKeyType !== expected.type || key.asymmetricKeyDetails?.namedCurve !== expected.namedCurve) {
    throw new TypeError(`the key does not fit alg ${alg}`);
  }
  const { digest, key: verifyKey } = verification(alg, key);
  const jkt = await calculateJwkThumbprint(jwk, "sha256");
  return {
    jkt,
    async verify(jws) {
      const payloadStart = jws.indexOf(".") + 1;
      const signatureStart = jws.lastIndexOf(".") + 1;
      const input = Buffer.from(jws.slice(0, signatureStart - 1), "ascii");
      const signature = Buffer.from(jws.slice(signatureStart), "base64url");
      const verified = await new Promise<boolean>((resolve) => {
        // With a callback, node:crypto verifies on the thread pool; an error (a signature it cannot decode) refuses it.
        verify(digest, input, verifyKey, signature, (error, valid) => resolve(error === null && valid));
      });
      if (!verified) throw new JwsRefused("signature");
      return decodedPayload(jws.slice(payloadStart, signatureStart - 1));
    },
  };
}
