/**
 * The envelope backend of signing keys (backend.ts): node:crypto makes the key pair, and the
 * private key's PKCS#8 DER is kept sealed under the operator's key-encryption key
 * (kernel/key-encryption.ts), bound to its `kid`. A key is opened once per process and kept as a
 * KeyObject while the process signs with it.
 */
import { constants, createPrivateKey, generateKeyPair, sign, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import type { JWK } from "jose";
import { KeyBackendUnavailable, type GeneratedKey, type KeyBackend, type OwnSigningAlgorithm } from "./backend.js";
import { SealedValueRefused, type KeyEncryption } from "../kernel/key-encryption.js";

const generate = promisify(generateKeyPair);

/** The sealing context of a key's private half: binds the ciphertext to its `kid`. */
const sealingContext = (kid: string) => `signing-key:${kid}`;

/** The key pair node:crypto makes for `alg`: P-256 for ES256, RSA 2048 with exponent 65537 for PS256 (FAPI 2.0 §5.4.1). */
function keyPair(alg: OwnSigningAlgorithm) {
  return alg === "ES256" ? generate("ec", { namedCurve: "P-256" }) : generate("rsa", { modulusLength: 2048, publicExponent: 0x10001 });
}

/** How node:crypto signs `alg` (RFC 7518 §3.4: ECDSA R || S; §3.5: PSS with MGF1 SHA-256 and a 32-byte salt). */
function signingOptions(alg: OwnSigningAlgorithm, key: KeyObject) {
  return alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" as const } : { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
}

/**
 * The envelope backend over `encryption`.
 * @throws (from sign) KeyBackendUnavailable when a key's sealed private half does not open
 *   under the KEK file (another file, or an altered row).
 */
export function envelopeBackend(encryption: KeyEncryption): KeyBackend {
  /** Private keys opened by this process, by `kid`. */
  const opened = new Map<string, KeyObject>();
  const privateKey = (kid: string, privateRef: string): KeyObject => {
    let key = opened.get(kid);
    if (!key) {
      try {
        key = createPrivateKey({ key: encryption.open(privateRef, sealingContext(kid)), format: "der", type: "pkcs8" });
      } catch (error) {
        throw new KeyBackendUnavailable(error instanceof SealedValueRefused ? `the private key of ${kid} does not open: ${error.message}` : `the private key of ${kid} cannot be read`);
      }
      opened.set(kid, key);
    }
    return key;
  };
  return {
    name: "envelope",
    async generate(kid, alg): Promise<GeneratedKey> {
      const { publicKey, privateKey: created } = await keyPair(alg);
      const publicJwk: JWK = { ...publicKey.export({ format: "jwk" }), kid, alg, use: "sig" };
      const privateRef = encryption.seal(created.export({ format: "der", type: "pkcs8" }), sealingContext(kid));
      opened.set(kid, created);
      return { publicJwk, privateRef };
    },
    sign(kid, privateRef, alg, signingInput) {
      const key = privateKey(kid, privateRef);
      return new Promise((resolve, reject) => {
        // With a callback, node:crypto signs on the thread pool.
        sign("sha256", signingInput, signingOptions(alg, key), (error, signature) => (error ? reject(error) : resolve(signature)));
      });
    },
    reseal(kid, privateRef) {
      if (encryption.isCurrent(privateRef)) return undefined;
      return encryption.seal(privateKey(kid, privateRef).export({ format: "der", type: "pkcs8" }), sealingContext(kid));
    },
    async destroy(kid) {
      opened.delete(kid);
    },
    async check() {},
    async close() {
      opened.clear();
    },
  };
}
