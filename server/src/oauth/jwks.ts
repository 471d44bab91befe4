/**
 * The JWK Set (RFC 7517 §5) an admin registers for an app, whose keys verify the app's
 * `private_key_jwt` client assertions (client-assertion.ts). Checked once, when it is
 * registered, so that only public signing keys this server accepts are ever stored.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { importJWK, type JWK } from "jose";
import { publicKeyProblem, SIGNING_ALGORITHMS } from "./signing.js";

/** A checked JWK Set: public keys only, each with only the members of {@link PUBLIC_MEMBERS}. */
export type PublicJwks = { keys: JWK[] };

/** Why a JWK Set is refused; the message is meant for the admin who sent it. */
export class InvalidJwks extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidJwks";
  }
}

/** Largest JWK Set accepted, in UTF-8 bytes of its JSON text (32 KiB). */
const MAX_JWKS_BYTES = 32 * 1024;
/** Most keys in a set: enough for a rotation or two. */
const MAX_KEYS = 10;
/** The members kept of each key (RFC 7517 §4, RFC 7518 §6.2.1 and §6.3.1, RFC 8037 §2); the rest (`x5c`, `key_ops`, `ext` …) is dropped. */
const PUBLIC_MEMBERS = ["kty", "crv", "x", "y", "n", "e", "kid", "alg", "use"] as const;


/**
 * Parses and checks the JSON text of a JWK Set an admin registers for an app: a JSON
 * object of at most 32 KiB (UTF-8) whose `keys` holds 1 to 10 keys. Each key is a public
 * signing key for {@link SIGNING_ALGORITHMS} (FAPI 2.0 Security Profile §5.4.1): `kty` EC
 * with `crv` P-256, OKP with `crv` Ed25519, or RSA with a modulus of 2048 bits or more; no
 * private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`); `alg`, when present, one
 * of the list and fitting the key type; `use`, when present, `sig` (RFC 7517 §4.2); a
 * `kid`, when present, a string no other key of the set has (RFC 7517 §4.5); and the key
 * must import with jose.
 * @returns the keys, each with only `kty`, `crv`, `x`, `y`, `n`, `e`, `kid`, `alg`, `use`.
 * @throws InvalidJwks naming the first key at fault (counted from 1) and why.
 */
export async function parsePublicJwks(text: string): Promise<PublicJwks> {
  if (Buffer.byteLength(text, "utf8") > MAX_JWKS_BYTES) throw new InvalidJwks(`the JWK Set is larger than ${MAX_JWKS_BYTES / 1024} KiB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidJwks("the JWK Set is not valid JSON");
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed.keys)) throw new InvalidJwks('the JWK Set must be a JSON object with a "keys" array (RFC 7517 section 5)');
  const { keys } = parsed;
  if (keys.length < 1 || keys.length > MAX_KEYS) throw new InvalidJwks(`the JWK Set must hold 1 to ${MAX_KEYS} keys`);
  const kids = new Set<string>();
  const checked: JWK[] = [];
  for (const [index, key] of keys.entries()) {
    const name = `key ${index + 1}`;
    if (!isJsonObject(key)) throw new InvalidJwks(`${name} is not a JSON object`);
    const problem = publicKeyProblem(key);
    if (problem) throw new InvalidJwks(`${name} ${problem}`);
    if (key.kid !== undefined) {
      if (typeof key.kid !== "string") throw new InvalidJwks(`${name} must have a string kid`);
      if (kids.has(key.kid)) throw new InvalidJwks(`more than one key has kid ${JSON.stringify(key.kid)}`);
      kids.add(key.kid);
    }
    const publicKey = Object.fromEntries(PUBLIC_MEMBERS.filter((member) => key[member] !== undefined).map((member) => [member, key[member]])) as JWK;
    // The algorithm to import with: the key's own, else the one of the list its type signs with.
    const alg = publicKey.alg ?? SIGNING_ALGORITHMS.find((each) => publicKeyProblem(key, each) === undefined)!;
    try {
      await importJWK(publicKey, alg);
    } catch {
      throw new InvalidJwks(`${name} is not a valid ${String(key.kty)} public key`);
    }
    checked.push(publicKey);
  }
  return { keys: checked };
}
