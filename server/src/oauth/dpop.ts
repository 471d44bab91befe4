/**
 * DPoP proofs (RFC 9449): a client proves, with a JWT it signs per request, that it holds
 * the private key its tokens are bound to. This file checks a proof as RFC 9449 §4.3 lists;
 * node:crypto verifies the signature with the key embedded in the proof (jws-verify.ts).
 */
import { hash } from "node:crypto";
import { decodeProtectedHeader, type JWK, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import { InvalidDpopProof, UseDpopNonce } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import type { ReplayStore } from "../stores/replays.js";
import type { DpopNonces } from "./dpop-nonce.js";
import { jwkVerifier, JwsRefused, type JwkVerifier } from "./jws-verify.js";
import { isSigningAlgorithm, MAX_JWT_LENGTH, publicKeyProblem, SIGNING_ALGORITHMS, type SigningAlgorithm } from "./signing.js";

/** Oldest `iat` of a proof accepted, in seconds before now (RFC 9449 §4.3 item 11, §11.1: "a reasonable window"). */
export const DPOP_PROOF_MAX_AGE_SECONDS = 60;
/** Furthest `iat` of a proof accepted, in seconds after now: the clock skew allowed to a client. */
export const DPOP_PROOF_MAX_FUTURE_SECONDS = 10;

/** Longest `jti` accepted, in characters: it is stored (hashed) until the proof expires. */
const MAX_JTI_LENGTH = 256;

/** The description of a proof whose key cannot be imported, or that is otherwise unusable. */
const MALFORMED = "the DPoP proof is malformed or its jwk cannot be used";

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
  return hash("sha256", token, "base64url");
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

/**
 * Checks the JOSE header of a proof, `encodedHeader` its first part (RFC 9449 §4.3 items
 * 4-7), before its signature is verified. Refused too, as jose and WebCrypto refused them
 * when they verified proofs: a `crit` header, since no extension is understood here
 * (RFC 7515 §4.1.11), and a jwk whose `key_ops` lacks `verify` (RFC 7517 §4.3).
 * @returns its `jwk` and `alg`.
 */
function checkedJwk(encodedHeader: string): { jwk: JWK; alg: SigningAlgorithm } {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader({ protected: encodedHeader });
  } catch {
    throw new InvalidDpopProof("the DPoP proof's JOSE header is not a base64url-encoded JSON object");
  }
  if (header.typ !== "dpop+jwt") throw new InvalidDpopProof("the DPoP proof's typ must be dpop+jwt (RFC 9449 section 4.2)");
  const { alg, jwk, crit } = header;
  if (!isSigningAlgorithm(alg)) throw new InvalidDpopProof(`the DPoP proof's alg must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw new InvalidDpopProof("the DPoP proof's header has no jwk");
  const problem = publicKeyProblem(jwk as Record<string, unknown>, alg);
  if (problem) throw new InvalidDpopProof(`the DPoP proof's jwk ${problem}`);
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes("verify"))) {
    throw new InvalidDpopProof("the DPoP proof's jwk must have verify in its key_ops when key_ops is present");
  }
  if (crit !== undefined) throw new InvalidDpopProof(MALFORMED);
  return { jwk, alg };
}

/**
 * Most proof headers kept checked, with their keys imported, at once, and most characters
 * of them in all: 10,000 headers of EC keys (about 230 characters each), fewer of RSA
 * keys (about 600 for 2048 bits), and only a few hundred headers padded to the longest
 * proof. Past either, the least recently used are dropped.
 */
const MAX_CACHED_HEADERS = 10_000;
const MAX_CACHED_HEADER_CHARS = 2_500_000;

/** Verifiers of the proof headers checked, by the header's encoded text. Least recently used first. */
const proofHeaders = new Map<string, Promise<JwkVerifier>>();
/** The characters of the keys of {@link proofHeaders}. */
let cachedHeaderChars = 0;

/** Drops `encodedHeader` from {@link proofHeaders}, when there. */
function forgetHeader(encodedHeader: string): void {
  if (proofHeaders.delete(encodedHeader)) cachedHeaderChars -= encodedHeader.length;
}

/**
 * The verifier of the key in the JOSE header of `proof`, once {@link checkedJwk} accepted
 * the header: checked and imported once per header. A client signs every proof with the
 * same key, and so (encoding it the same way) sends the same header: keyed by its encoded
 * text, which fixes `typ`, `alg` and `jwk`, a proof costs neither a JSON decode of the
 * header nor a key lookup. A refused header or a failed import is not kept.
 * @throws InvalidDpopProof from {@link checkedJwk}, at once.
 * @returns a promise rejected with whatever jwkVerifier throws for a key it cannot import.
 */
function proofVerifier(proof: string): Promise<JwkVerifier> {
  const encodedHeader = proof.slice(0, proof.indexOf("."));
  let entry = proofHeaders.get(encodedHeader);
  if (entry) {
    proofHeaders.delete(encodedHeader);
  } else {
    const { jwk, alg } = checkedJwk(encodedHeader);
    entry = jwkVerifier(jwk, alg);
    entry.catch(() => forgetHeader(encodedHeader));
    while (proofHeaders.size >= MAX_CACHED_HEADERS || (proofHeaders.size > 0 && cachedHeaderChars + encodedHeader.length > MAX_CACHED_HEADER_CHARS)) {
      forgetHeader(proofHeaders.keys().next().value!);
    }
    cachedHeaderChars += encodedHeader.length;
  }
  proofHeaders.set(encodedHeader, entry);
  return entry;
}

/** Why a proof's key, signature or payload was refused, for its description: never the proof itself. */
function verifierRefusal(error: unknown): string {
  if (!(error instanceof JwsRefused)) return MALFORMED;
  return error.refusal === "signature" ? "the DPoP proof's signature does not verify with its jwk" : "the DPoP proof's payload is not a JSON object";
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

/**
 * True when `htu` names the URL `target` (RFC 9449 §4.3 item 9): both are URLs, equal
 * once {@link withoutQuery} normalised them. A client sends the very text of the URL most
 * of the time, and the same text is the same URL: then only whether it is one is checked.
 */
function sameUrl(htu: string, target: string): boolean {
  if (htu === target) return URL.canParse(htu);
  const expected = withoutQuery(target);
  return expected !== undefined && withoutQuery(htu) === expected;
}

/**
 * The registered time claims of a JWT (RFC 7519 §4.1.4-4.1.6), as any JWT's: `iat`, `nbf`
 * and `exp` are numbers when present, `nbf` is not after now and `exp` is after now, both
 * give or take {@link DPOP_PROOF_MAX_FUTURE_SECONDS}.
 */
function checkTimeClaims(payload: JWTPayload, nowSeconds: number): void {
  const { iat, nbf, exp } = payload;
  const invalid = (claim: string) => new InvalidDpopProof(`the DPoP proof's ${claim} claim is invalid`);
  if (iat !== undefined && typeof iat !== "number") throw invalid("iat");
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > nowSeconds + DPOP_PROOF_MAX_FUTURE_SECONDS)) throw invalid("nbf");
  if (exp !== undefined && typeof exp !== "number") throw invalid("exp");
  if (exp !== undefined && exp <= nowSeconds - DPOP_PROOF_MAX_FUTURE_SECONDS) throw new InvalidDpopProof("the DPoP proof has expired (exp)");
}

/** RFC 9449 §4.3 items 8-12: `jti`, `htm`, `htu`, `iat` and `ath` fit the request at `now`; first {@link checkTimeClaims}. */
function checkClaims(payload: JWTPayload, target: DpopTarget, now: Date): { jti: string; iat: number } {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  checkTimeClaims(payload, nowSeconds);
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== "string" || jti.length < 1 || jti.length > MAX_JTI_LENGTH) throw new InvalidDpopProof(`the DPoP proof needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  if (htm !== target.method) throw new InvalidDpopProof(`the DPoP proof's htm must be ${target.method}, the method of this request`);
  if (typeof htu !== "string" || !sameUrl(htu, target.url)) {
    throw new InvalidDpopProof(`the DPoP proof's htu must be ${withoutQuery(target.url) ?? target.url}, the URL of this request`);
  }
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
 * fits `alg` (EC P-256, Ed25519, RSA of 2048 bits or more), and no `crit`; the signature,
 * by node:crypto with that jwk (jws-verify.ts); `iat`, `nbf` and `exp` as any JWT's
 * ({@link checkTimeClaims}); `jti` of 1 to 256 characters; `htm` the request's method;
 * `htu` its URL without query and fragment; `iat` within
 * [now − {@link DPOP_PROOF_MAX_AGE_SECONDS}, now + {@link DPOP_PROOF_MAX_FUTURE_SECONDS}]
 * seconds; `ath` the hash of `target.accessToken` when given (§4.3 item 12, §7; ignored
 * otherwise); the `nonce` when `options.nonces` is given (§8, §9); and last, that the
 * proof was not used before (§11.1), remembered for the `iat` window.
 * @param header - the request's `DPoP` header value(s), as Node gives them.
 * @returns the proof's key thumbprint (RFC 7638, base64url), `jti`, and `iat` in seconds.
 * @throws UseDpopNonce with the current nonce when nonces are required and the proof has
 *   none or one no longer accepted.
 * @throws InvalidDpopProof for any other failure, the key import's included.
 */
export async function verifyDpopProof(header: string | string[] | undefined, target: DpopTarget, options: DpopOptions): Promise<DpopProof> {
  const proof = singleProof(header);
  let payload: JWTPayload;
  let jkt: string;
  const verifying = proofVerifier(proof);
  try {
    const verifier = await verifying;
    jkt = verifier.jkt;
    payload = await verifier.verify(proof);
  } catch (error) {
    throw new InvalidDpopProof(verifierRefusal(error));
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
