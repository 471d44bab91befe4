/**
 * What this server accepts of a JWS and its key, shared by client assertions
 * (`private_key_jwt`, client-assertion.ts), DPoP proofs (dpop.ts) and the JWK Sets admins
 * register for apps (jwks.ts): FAPI 2.0 Security Profile §5.4.1's algorithms and their keys.
 * Only descriptions of keys here; every cryptographic operation is jose's.
 */

/**
 * The only JWS algorithms accepted (FAPI 2.0 Security Profile §5.4.1: "PS256, ES256 or
 * EdDSA (using the Ed25519 variant)"). `none`, the HMAC algorithms and RS256
 * (RSASSA-PKCS1-v1_5, FAPI 2.0 §5.4.1 leaves it out) are refused.
 */
export const SIGNING_ALGORITHMS = ["PS256", "ES256", "EdDSA"] as const;

/** One of {@link SIGNING_ALGORITHMS}. */
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * Longest compact JWT accepted, in characters: a longer one is refused before any parsing,
 * so a caller cannot make the server decode and verify megabytes. A proof with an embedded
 * 4096-bit RSA key is about 1.5 KiB.
 */
export const MAX_JWT_LENGTH = 8192;

/** Shortest RSA modulus accepted, in bits (FAPI 2.0 Security Profile §5.4.1: "at least 2048 bits"). */
const MIN_RSA_MODULUS_BITS = 2048;

/**
 * JWK members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4.1;
 * RFC 8037 §2): a key carrying any of them is not a public key.
 */
const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** The key each algorithm signs with (RFC 7518 §3.3-§3.5, RFC 8037 §3.1). */
const KEY_OF_ALGORITHM: Record<SigningAlgorithm, { kty: string; crv?: string }> = {
  PS256: { kty: "RSA" },
  ES256: { kty: "EC", crv: "P-256" },
  EdDSA: { kty: "OKP", crv: "Ed25519" },
};

/** True when `alg` is one of {@link SIGNING_ALGORITHMS}. */
export function isSigningAlgorithm(alg: unknown): alg is SigningAlgorithm {
  return (SIGNING_ALGORITHMS as readonly unknown[]).includes(alg);
}

/** Bits of a big-endian unsigned integer given as base64url (an RSA modulus `n`, RFC 7518 §6.3.1.1), leading zeros not counted. */
function bitLength(base64url: string): number {
  const bytes = Buffer.from(base64url, "base64url");
  const first = bytes.findIndex((byte) => byte !== 0);
  return first < 0 ? 0 : (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first]!));
}

/**
 * What keeps `jwk` from being a public signing key for {@link SIGNING_ALGORITHMS}: a
 * private member ({@link PRIVATE_JWK_MEMBERS}), a key type other than EC P-256, OKP Ed25519
 * or RSA of at least {@link MIN_RSA_MODULUS_BITS} bits (FAPI 2.0 §5.4.1), an `alg` member
 * outside the list or not fitting the key, a `use` other than `sig` (RFC 7517 §4.2), or,
 * when `alg` is given (the JWS header's), a key of another type than `alg` signs with.
 * Only the shape is checked; jose still has to import the key.
 * @returns a phrase to follow "the key " (e.g. "has a private member (d)"), or undefined
 *   when the key is acceptable.
 */
export function publicKeyProblem(jwk: Record<string, unknown>, alg?: SigningAlgorithm): string | undefined {
  const privateMember = PRIVATE_JWK_MEMBERS.find((member) => Object.hasOwn(jwk, member));
  if (privateMember) return `has a private member (${privateMember}): send the public key only`;
  const { kty, crv } = jwk;
  if (kty === "EC" || kty === "OKP") {
    const expected = kty === "EC" ? "P-256" : "Ed25519";
    if (crv !== expected) return `of kty ${kty} must have crv ${expected}`;
    if (typeof jwk.x !== "string" || (kty === "EC" && typeof jwk.y !== "string")) return `of kty ${kty} lacks its coordinates`;
  } else if (kty === "RSA") {
    if (typeof jwk.n !== "string" || typeof jwk.e !== "string") return "of kty RSA lacks n or e";
    if (bitLength(jwk.n) < MIN_RSA_MODULUS_BITS) return `has an RSA modulus under ${MIN_RSA_MODULUS_BITS} bits`;
  } else {
    return "must have kty EC (P-256), OKP (Ed25519) or RSA";
  }
  if (jwk.use !== undefined && jwk.use !== "sig") return "must have use sig when use is present";
  if (jwk.alg !== undefined && !isSigningAlgorithm(jwk.alg)) return `must have alg ${SIGNING_ALGORITHMS.join(", ")} when alg is present`;
  for (const each of [jwk.alg as SigningAlgorithm | undefined, alg]) {
    const key = each && KEY_OF_ALGORITHM[each];
    if (key && (kty !== key.kty || (key.crv !== undefined && crv !== key.crv))) return `does not fit alg ${each}`;
  }
  return undefined;
}
