/**
 * DPoP proofs (RFC 9449): a client proves, with a JWT it signs per request, that it holds
 * the private key its tokens are bound to. This file checks a proof as RFC 9449 §4.3 lists;
 * jose verifies the signature with the key embedded in the proof.
 */
import { createHash } from "node:crypto";
import { calculateJwkThumbprint, decodeProtectedHeader, errors, importJWK, jwtVerify, type CryptoKey, type JWK, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import { InvalidDpopProof, UseDpopNonce } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import type { ReplayStore } from "../stores/replays.js";
import type { DpopNonces } from "./dpop-nonce.js";
import { isSigningAlgorithm, MAX_JWT_LENGTH, publicKeyProblem, SIGNING_ALGORITHMS } from "./signing.js";

/** Oldest `iat` of a proof accepted, in seconds before now (RFC 9449 §4.3 item 11, §11.1: "a reasonable window"). */
export const DPOP_PROOF_MAX_AGE_SECONDS = 60;
/** Furthest `iat` of a proof accepted, in seconds after now: the clock skew allowed to a client. */
export const DPOP_PROOF_MAX_FUTURE_SECONDS = 10;

/** Longest `jti` accepted, in characters: it is stored (hashed) until the proof expires. */
const MAX_JTI_LENGTH = 256;

/** A compact JWS: three base64url parts (RFC 7515 §7.1); the signature may be empty, so `alg: none` gets its own answer. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A verified DPoP proof. */
export interface DpopProof {
  /** The JWK SHA-256 Thumbprint (RFC 7638) of the proof's key, base64url: what a token is bound to (RFC 9449 §6). */
  jkt: string;
  /** The proof's unique id. */
  jti: string;
  /** When the proof was made, in seconds since the epoch. */
  iat: number;
}

/** The request a proof must be made for. */
export interface DpopTarget {
  /** The HTTP method of the request, e.g. `POST` (compared exactly with `htm`). */
  method: string;
  /** The request's absolute URL as clients reach the server: public base URL + path; a query or fragment in it is ignored. */
  url: string;
  /** When given, the proof must carry `ath` = base64url(SHA-256(accessToken)) (RFC 9449 §4.2, §7). */
  accessToken?: string;
}

export interface DpopOptions {
  /** Where used proofs are remembered until they are too old to be accepted anyway. */
  replays: ReplayStore;
  /** The time of the request: the `iat` window, the nonce window and the replay record are reckoned from it. */
  now: Date;
  /** When given, the proof must carry a `nonce` these accept (RFC 9449 §8, §9). */
  nonces?: DpopNonces;
}

/**
 * The `ath` of a proof sent with `token` (RFC 9449 §4.2): base64url(SHA-256(token)),
 * 43 characters.
 */
export function accessTokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("base64url");
}

/** The single proof of a request's `DPoP` header values (RFC 9449 §4.3 items 1-2). */
function singleProof(header: string | string[] | undefined): string {
  const values = typeof header === "string" ? [header] : (header ?? []);
  // Node joins repeated headers with ", ": a comma means a second value too.
  if (values.length > 1 || values[0]?.includes(",")) throw new InvalidDpopProof("send exactly one DPoP header with one proof (RFC 9449 section 4.3)");
  const proof = values[0] ?? "";
  if (proof === "") throw new InvalidDpopProof("the DPoP header is missing or empty");
  if (proof.length > MAX_JWT_LENGTH) throw new InvalidDpopProof(`the DPoP proof is longer than ${MAX_JWT_LENGTH} characters`);
  if (!COMPACT_JWS.test(proof)) throw new InvalidDpopProof("the DPoP proof is not a compact JWS of three base64url parts");
  return proof;
}

/** Checks the JOSE header of a proof (RFC 9449 §4.3 items 4-7) before jose verifies the signature. @returns its `jwk` and `alg`. */
function checkedJwk(proof: string): { jwk: JWK; alg: string } {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProof("the DPoP proof's JOSE header is not a base64url-encoded JSON object");
  }
  if (header.typ !== "dpop+jwt") throw new InvalidDpopProof("the DPoP proof's typ must be dpop+jwt (RFC 9449 section 4.2)");
  const { alg, jwk } = header;
  if (!isSigningAlgorithm(alg)) throw new InvalidDpopProof(`the DPoP proof's alg must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw new InvalidDpopProof("the DPoP proof's header has no jwk");
  const problem = publicKeyProblem(jwk as Record<string, unknown>, alg);
  if (problem) throw new InvalidDpopProof(`the DPoP proof's jwk ${problem}`);
  return { jwk, alg };
}

/** Most proof keys kept imported at once; past it the least recently used is dropped. */
const MAX_CACHED_KEYS = 10_000;

/** The members of a public key that make its RFC 7638 thumbprint, by key type. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = { EC: ["crv", "kty", "x", "y"], OKP: ["crv", "kty", "x"], RSA: ["e", "kty", "n"] };

/** Proof keys as jose imported them, with their thumbprints, by algorithm and public key. Least recently used first. */
const proofKeys = new Map<string, Promise<{ key: CryptoKey; jkt: string }>>();

/**
 * The proof key `jwk` imported for `alg`, and its thumbprint, both by jose, once per key:
 * a client signs every proof with the same key, and importing it cost a fifth of a DPoP
 * gateway call. Keyed by `alg` and the members the thumbprint is made of, which are the
 * whole public key; a failed import is not kept.
 * @throws whatever jose throws for a key it cannot import.
 */
function proofKey(jwk: JWK, alg: string): Promise<{ key: CryptoKey; jkt: string }> {
  const members = THUMBPRINT_MEMBERS[jwk.kty ?? ""] ?? [];
  const id = `${alg} ${JSON.stringify(members.map((m) => jwk[m as keyof JWK]))}`;
  let entry = proofKeys.get(id);
  if (entry) {
    proofKeys.delete(id);
  } else {
    entry = Promise.all([importJWK(jwk, alg) as Promise<CryptoKey>, calculateJwkThumbprint(jwk, "sha256")]).then(([key, jkt]) => ({ key, jkt }));
    entry.catch(() => proofKeys.delete(id));
    if (proofKeys.size >= MAX_CACHED_KEYS) proofKeys.delete(proofKeys.keys().next().value!);
  }
  proofKeys.set(id, entry);
  return entry;
}

/** Why jose refused a proof, for its description: never the proof itself. */
function joseRefusal(error: unknown): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the DPoP proof's signature does not verify with its jwk";
  if (error instanceof errors.JWTExpired) return "the DPoP proof has expired (exp)";
  if (error instanceof errors.JWTClaimValidationFailed) return `the DPoP proof's ${error.claim} claim is invalid`;
  if (error instanceof errors.JWTInvalid) return "the DPoP proof's payload is not a JSON object";
  return "the DPoP proof is malformed or its jwk cannot be used";
}

/** The URL without query and fragment, normalised by WHATWG URL parsing (case of scheme and host, default port, dot segments); undefined when not a URL. */
function withoutQuery(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    parsed.search = "";
    parsed.hash = "";
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** RFC 9449 §4.3 items 8-12: `jti`, `htm`, `htu`, `iat` and `ath` fit the request at `now`. */
function checkClaims(payload: JWTPayload, target: DpopTarget, now: Date): { jti: string; iat: number } {
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== "string" || jti.length < 1 || jti.length > MAX_JTI_LENGTH) throw new InvalidDpopProof(`the DPoP proof needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  if (htm !== target.method) throw new InvalidDpopProof(`the DPoP proof's htm must be ${target.method}, the method of this request`);
  const expected = withoutQuery(target.url);
  if (typeof htu !== "string" || expected === undefined || withoutQuery(htu) !== expected) {
    throw new InvalidDpopProof(`the DPoP proof's htu must be ${expected ?? target.url}, the URL of this request`);
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof iat !== "number") throw new InvalidDpopProof("the DPoP proof needs a numeric iat");
  if (iat < nowSeconds - DPOP_PROOF_MAX_AGE_SECONDS) throw new InvalidDpopProof(`the DPoP proof's iat is more than ${DPOP_PROOF_MAX_AGE_SECONDS} seconds old: sign a new proof`);
  if (iat > nowSeconds + DPOP_PROOF_MAX_FUTURE_SECONDS) throw new InvalidDpopProof(`the DPoP proof's iat is more than ${DPOP_PROOF_MAX_FUTURE_SECONDS} seconds in the future: check the client's clock`);
  if (target.accessToken !== undefined) {
    if (ath === undefined) throw new InvalidDpopProof("the DPoP proof needs ath, the hash of the access token it is sent with");
    if (ath !== accessTokenHash(target.accessToken)) throw new InvalidDpopProof("the DPoP proof's ath does not match the access token");
  }
  return { jti, iat };
}

/**
 * Verifies the DPoP proof of a request as RFC 9449 §4.3 lists, in this order: exactly one
 * `DPoP` header value of at most {@link MAX_JWT_LENGTH} characters, a compact JWS; `typ`
 * `dpop+jwt`; `alg` one of {@link SIGNING_ALGORITHMS}; a public `jwk` in the header that
 * fits `alg` (EC P-256, Ed25519, RSA of 2048 bits or more); the signature, by jose with
 * that jwk; `jti` of 1 to 256 characters; `htm` the request's method; `htu` its URL
 * without query and fragment; `iat` within [now − {@link DPOP_PROOF_MAX_AGE_SECONDS},
 * now + {@link DPOP_PROOF_MAX_FUTURE_SECONDS}] seconds; `ath` the hash of
 * `target.accessToken` when given (§4.3 item 12, §7; ignored otherwise); the `nonce` when
 * `options.nonces` is given (§8, §9); and last, that the proof was not used before (§11.1),
 * remembered for the `iat` window.
 * @param header - the request's `DPoP` header value(s), as Node gives them.
 * @returns the proof's key thumbprint (RFC 7638, base64url), `jti`, and `iat` in seconds.
 * @throws UseDpopNonce with the current nonce when nonces are required and the proof has
 *   none or one no longer accepted.
 * @throws InvalidDpopProof for any other failure, jose's included.
 */
export async function verifyDpopProof(header: string | string[] | undefined, target: DpopTarget, options: DpopOptions): Promise<DpopProof> {
  const proof = singleProof(header);
  const { jwk, alg } = checkedJwk(proof);
  let payload: JWTPayload;
  let jkt: string;
  try {
    const verifier = await proofKey(jwk, alg);
    jkt = verifier.jkt;
    ({ payload } = await jwtVerify(proof, verifier.key, {
      algorithms: [...SIGNING_ALGORITHMS],
      typ: "dpop+jwt",
      currentDate: options.now,
      clockTolerance: DPOP_PROOF_MAX_FUTURE_SECONDS,
    }));
  } catch (error) {
    throw new InvalidDpopProof(joseRefusal(error));
  }
  const { jti, iat } = checkClaims(payload, target, options.now);
  const { nonces, now } = options;
  if (nonces) {
    if (typeof payload.nonce !== "string") throw new UseDpopNonce(nonces.current(now), "this server requires a DPoP nonce: send this DPoP-Nonce in the proof's nonce claim");
    if (!nonces.accepts(payload.nonce, now)) throw new UseDpopNonce(nonces.current(now), "the DPoP proof's nonce is unknown or expired: send this DPoP-Nonce instead");
  }
  const expiresAt = new Date((iat + DPOP_PROOF_MAX_AGE_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS) * 1000);
  if (!(await options.replays.firstUse(hashSecret(`dpop:${jkt}:${jti}`), expiresAt, now))) {
    throw new InvalidDpopProof("the DPoP proof was already used (jti replay)");
  }
  return { jkt, jti, iat };
}
