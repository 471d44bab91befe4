/**
 * JWT access tokens (RFC 9068), for API products whose resource servers validate tokens
 * offline with the JWK Set at /oauth2/v1/jwks. Opaque tokens stay the default (the spec's).
 *
 * A JWT access token is stored as an opaque one is: a row whose id is the JWT's `jti` and
 * which holds the SHA-256 of the whole JWT. So introspection, revocation, the refresh grant
 * and the admin API treat both formats alike, and our gateway, after checking the signature
 * offline, honours a revocation before `exp` through the same token cache, whose evictions
 * reach every instance (db/cache-events.ts).
 */
import type { JWK } from "jose";
import type { Keyring } from "../keys/keyring.js";
import type { AccessTokenFormat, ClientRecord } from "../stores/clients.js";
import type { Authentication } from "../stores/tokens.js";
import { jwkVerifier, type JwkVerifier } from "./jws-verify.js";
import { MAX_JWT_LENGTH } from "./signing.js";
import { isJsonObject } from "../kernel/strict-json.js";

/** The `typ` of a JWT access token (RFC 9068 §2.1). */
export const ACCESS_TOKEN_JWT_TYPE = "at+jwt";

/**
 * The algorithm JWT access tokens are signed with: PS256 (FAPI 2.0 §5.4.1). They are checked far
 * more often than signed, and a PS256 check costs less than an ES256 one (docs/performance.md).
 */
export const ACCESS_TOKEN_JWT_ALG = "PS256";

/**
 * The format of a token with `scopes` and the API products `productNames`: `jwt` when every
 * product of the client that grants one of its scopes issues JWT access tokens, else `opaque`.
 * A token whose scopes no product grants (authorization details alone, OpenID scopes alone)
 * follows its API products the same way; a token of no product is opaque. A client gets a JWT
 * for a JWT product by asking for that product's scopes (a client credentials token lists every
 * product of its credential, whatever its scopes).
 */
export function accessTokenFormat(scopes: readonly string[], productNames: readonly string[], products: ClientRecord["products"]): AccessTokenFormat {
  const byScope = products.filter((p) => p.scopes.some((s) => scopes.includes(s)));
  const deciding = byScope.length > 0 ? byScope : products.filter((p) => productNames.includes(p.name));
  return deciding.length > 0 && deciding.every((p) => p.accessTokenFormat === "jwt") ? "jwt" : "opaque";
}

/** What a JWT access token says (RFC 9068 §2.2). Times are Dates; the claims carry seconds. */
export interface AccessTokenClaims {
  /** The issuer identifier (AUTH_URL). */
  issuer: string;
  /** The token's row id. */
  jti: string;
  clientId: string;
  /** The resource owner's id; absent for client credentials, whose `sub` is the client (§2.2). */
  userId?: string;
  /** `aud`: the resource indicators asked for (RFC 8707), else BASE_URL, the gateway with every API of the token's products. */
  audience: readonly string[];
  scopes: readonly string[];
  issuedAt: Date;
  expiresAt: Date;
  /** `cnf` (RFC 9449 §6, RFC 8705 §3): the DPoP key's and the client certificate's thumbprints. */
  jkt?: string;
  x5t?: string;
  /** `acr`, `amr` and `auth_time` (§2.2.1). */
  authentication?: Authentication;
  /** RFC 9396 §9.1: the authorization details, JSON text of an array. */
  authorizationDetails?: string;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** The JWT claims of `c`: `iss`, `exp`, `aud` (a string when one), `sub`, `client_id`, `iat`, `jti`, and what applies of `scope`, `cnf`, `acr`, `amr`, `auth_time`, `authorization_details`. */
export function accessTokenPayload(c: AccessTokenClaims): Record<string, unknown> {
  const cnf = { ...(c.jkt ? { jkt: c.jkt } : {}), ...(c.x5t ? { "x5t#S256": c.x5t } : {}) };
  const a = c.authentication;
  return {
    iss: c.issuer,
    exp: seconds(c.expiresAt),
    aud: c.audience.length === 1 ? c.audience[0] : [...c.audience],
    sub: c.userId ?? c.clientId,
    client_id: c.clientId,
    iat: seconds(c.issuedAt),
    jti: c.jti,
    ...(c.scopes.length > 0 ? { scope: c.scopes.join(" ") } : {}),
    ...(Object.keys(cnf).length > 0 ? { cnf } : {}),
    ...(a ? { acr: a.acr, amr: [...a.amr], auth_time: seconds(a.authTime) } : {}),
    ...(c.authorizationDetails ? { authorization_details: JSON.parse(c.authorizationDetails) as unknown } : {}),
  };
}

/**
 * Signs the JWT access token of `claims` with the current PS256 key (`typ` at+jwt).
 * @throws KeyBackendUnavailable when no key can sign now (the token endpoint answers 503).
 */
export function signAccessToken(keyring: Keyring, claims: AccessTokenClaims): Promise<string> {
  return keyring.sign({ alg: ACCESS_TOKEN_JWT_ALG, typ: ACCESS_TOKEN_JWT_TYPE, payload: accessTokenPayload(claims), expiresAt: claims.expiresAt });
}

/** Whether a presented token value is a JWT (three dot-separated parts) rather than an opaque token, whose characters hold no dot. */
export function isJwt(value: string): boolean {
  return value.includes(".");
}

/** Decodes a base64url JSON object, or undefined for anything else. */
function decodedJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `jti` of a JWT access token, read without checking its signature: the row it names
 * then proves the value by its hash, as for an opaque token (oauth/tokens.ts).
 * @returns undefined for a value that is no JWT, is longer than a JWT may be, or has no string `jti`.
 */
export function jwtIdOf(value: string): string | undefined {
  if (value.length > MAX_JWT_LENGTH) return undefined;
  const parts = value.split(".");
  if (parts.length !== 3) return undefined;
  const jti = decodedJson(parts[1]!)?.jti;
  return typeof jti === "string" ? jti : undefined;
}

/**
 * Checks JWT access tokens offline, as a resource server does (RFC 9068 §4): `typ` at+jwt,
 * `alg` PS256, a `kid` of the JWK Set this server publishes, the signature, `iss` and `exp`.
 * The audience is checked by the caller against the API called.
 * @returns a function answering true when `value` passes at `now`; false for anything else,
 *   never an error.
 */
export function accessTokenVerifier(keyring: Keyring, issuer: string): (value: string, now: Date) => Promise<boolean> {
  /** Verifiers by key: a key import costs more than a verification. */
  const verifiers = new Map<JWK, Promise<JwkVerifier>>();
  return async (value, now) => {
    if (value.length > MAX_JWT_LENGTH) return false;
    const header = decodedJson(value.slice(0, value.indexOf(".")));
    if (header?.typ !== ACCESS_TOKEN_JWT_TYPE || header.alg !== ACCESS_TOKEN_JWT_ALG || header.crit !== undefined) return false;
    const jwk = keyring.jwks().keys.find((k) => k.kid === header.kid && k.alg === ACCESS_TOKEN_JWT_ALG);
    if (!jwk) return false;
    let verifier = verifiers.get(jwk);
    if (!verifier) {
      if (verifiers.size > 16) verifiers.clear();
      verifier = jwkVerifier(jwk, ACCESS_TOKEN_JWT_ALG);
      verifiers.set(jwk, verifier);
    }
    try {
      const payload = await (await verifier).verify(value);
      return payload.iss === issuer && typeof payload.exp === "number" && payload.exp * 1000 > now.getTime();
    } catch {
      return false;
    }
  };
}
