/**
 * A client's public keys as registration metadata (RFC 7591 §2): a JWK Set (`jwks`) or the URL of
 * one (`jwks_uri`), never both. Read the same way from a software statement's claims and from a
 * request's members; each caller names its error.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { InvalidJwks, parsePublicJwks, type PublicJwks } from "../oauth/jwks.js";
import { jwksUriProblem } from "./uris.js";
import { absent, optionalText, type Refuse } from "./values.js";

/** The keys of a registration: at most one of the two. */
export interface ClientKeys {
  /** Public signing keys only, each with only its public members (oauth/jwks.ts). */
  jwks?: PublicJwks;
  jwksUri?: string;
}

/**
 * Reads `jwks` and `jwks_uri` (either may be absent or null): the JWK Set as oauth/jwks.ts
 * `parsePublicJwks` checks it (at most 32 KiB and 10 keys; public PS256/ES256/EdDSA keys), the URL
 * as uris.ts `jwksUriProblem` does.
 * @throws the error of `refuse`, with a description that starts with the member's name: both
 *   given, a URL that is not acceptable, a JWK Set that is not one or holds an unacceptable key.
 */
export async function clientKeysOf(jwks: unknown, jwksUri: unknown, refuse: Refuse): Promise<ClientKeys> {
  const uri = optionalText(jwksUri, "jwks_uri", Number.MAX_SAFE_INTEGER, refuse);
  if (!absent(jwks) && uri !== undefined) throw refuse("jwks and jwks_uri exclude each other: send one of them (RFC 7591 section 2)");
  if (uri !== undefined) {
    const problem = jwksUriProblem(uri);
    if (problem) throw refuse(`jwks_uri must be ${problem}`);
    return { jwksUri: uri };
  }
  if (absent(jwks)) return {};
  if (!isJsonObject(jwks)) throw refuse("jwks must be a JWK Set (RFC 7517 section 5)");
  try {
    return { jwks: await parsePublicJwks(JSON.stringify(jwks)) };
  } catch (error) {
    throw refuse(`jwks: ${error instanceof InvalidJwks ? error.message : "not a JWK Set"}`);
  }
}
