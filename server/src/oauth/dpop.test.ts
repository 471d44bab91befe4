import { constants, generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { InvalidDpopProof, UseDpopNonce } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import type { ReplayStore } from "../stores/replays.js";
import { memoryReplays } from "../../test/support/memory-stores.js";
import { accessTokenHash, DPOP_PROOF_MAX_AGE_SECONDS, DPOP_PROOF_MAX_FUTURE_SECONDS, verifyDpopProof, type DpopTarget } from "./dpop.js";
import { dpopNonces } from "./dpop-nonce.js";
import { MAX_JWT_LENGTH } from "./signing.js";

const NOW = new Date("2026-03-01T12:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const TOKEN_URL = "https://as.example.com/token";
const TARGET: DpopTarget = { method: "POST", url: TOKEN_URL };

interface Signer {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, jwk: await exportJWK(publicKey) };
}

let es256: Signer;
let ps256: Signer;
let eddsa: Signer;
let rs256: Signer;
beforeAll(async () => {
  [es256, ps256, eddsa, rs256] = await Promise.all(["ES256", "PS256", "EdDSA", "RS256"].map(signer));
});

/** A proof for TARGET at NOW; `claims` and `header` override (undefined removes a member). */
function proof(key: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: "POST", htu: TOKEN_URL, iat: NOW_SECONDS, ...claims })
    .setProtectedHeader({ alg: key.alg, typ: "dpop+jwt", jwk: key.jwk, ...header })
    .sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A compact JWS signed by node:crypto, for keys and algorithms jose will not sign with. */
function handSigned(header: object, claims: object, signWith: (input: Buffer) => Buffer): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signWith(Buffer.from(input)).toString("base64url")}`;
}

const claimsNow = () => ({ jti: randomUUID(), htm: "POST", htu: TOKEN_URL, iat: NOW_SECONDS });

function verify(header: string | string[] | undefined, target: DpopTarget = TARGET, replays: ReplayStore = memoryReplays()) {
  return verifyDpopProof(header, target, { replays, now: NOW });
}

/** Expects `promise` to reject with InvalidDpopProof whose description matches `pattern`. */
async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidDpopProof);
  expect((error as InvalidDpopProof).message).toMatch(pattern);
}

describe("verifyDpopProof: accepted proofs (RFC 9449 §4.3)", () => {
  it.each(["ES256", "PS256", "EdDSA"])("accepts a %s proof and returns its RFC 7638 thumbprint, jti and iat", async (alg) => {
    const key = { ES256: es256, PS256: ps256, EdDSA: eddsa }[alg]!;
    const jti = randomUUID();
    const result = await verify(await proof(key, { jti }));
    expect(result).toEqual({ jkt: await calculateJwkThumbprint(key.jwk, "sha256"), jti, iat: NOW_SECONDS });
    expect(result.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("accepts a header given as an array of one value (Node's shape for some headers)", async () => {
    await expect(verify([await proof(es256)])).resolves.toMatchObject({ iat: NOW_SECONDS });
  });
});

describe("verifyDpopProof: the DPoP header (RFC 9449 §4.3 items 1-2)", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["an empty array", []],
  ])("refuses a header that is %s", async (_what, header) => {
    await refused(verify(header), /missing or empty/);
  });

  it("refuses two header values", async () => {
    await refused(verify([await proof(es256), await proof(es256)]), /exactly one DPoP header/);
  });

  it("refuses two proofs in one value, as Node joins repeated headers", async () => {
    await refused(verify(`${await proof(es256)}, ${await proof(es256)}`), /exactly one DPoP header/);
  });

  it(`refuses a proof longer than ${MAX_JWT_LENGTH} characters before parsing it`, async () => {
    const long = await proof(es256, { padding: "a".repeat(MAX_JWT_LENGTH) });
    await refused(verify(long), new RegExp(`longer than ${MAX_JWT_LENGTH}`));
  });

  it.each([
    ["two parts", "eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0"],
    ["four parts", "a.b.c.d"],
    ["a space", "eyJhbGciOiJFUzI1NiJ9 .eyJqdGkiOiJ4In0.c2ln"],
    ["base64 characters (+)", "eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOi+4In0.c2ln"],
  ])("refuses a value with %s", async (_what, value) => {
    await refused(verify(value), /three base64url parts/);
  });

  it("refuses a JOSE header that is not JSON", async () => {
    await refused(verify(`${Buffer.from("not json").toString("base64url")}.${b64({})}.c2ln`), /JOSE header/);
  });

  it("keeps the proof itself out of the description", async () => {
    const wrong = await proof(es256, { htm: "GET" });
    const error = (await verify(wrong).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(InvalidDpopProof);
    expect(error.message).not.toContain(wrong.split(".")[1]!.slice(0, 20));
  });
});

describe("verifyDpopProof: the JOSE header (RFC 9449 §4.3 items 4-7, FAPI 2.0 §5.4.1)", () => {
  it.each([
    ["JWT", "JWT"],
    ["application/dpop+jwt (only the exact value is accepted)", "application/dpop+jwt"],
    ["missing", undefined],
  ])("refuses typ %s", async (_what, typ) => {
    await refused(verify(await proof(es256, {}, { typ })), /typ must be dpop\+jwt/);
  });

  it("refuses alg none (an unsigned proof)", async () => {
    const unsigned = `${b64({ alg: "none", typ: "dpop+jwt", jwk: es256.jwk })}.${b64(claimsNow())}.`;
    await refused(verify(unsigned), /alg must be one of PS256, ES256, EdDSA/);
  });

  it("refuses HS256 keyed with the public key's bytes (algorithm confusion)", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(es256.jwk));
    const confused = await new SignJWT(claimsNow()).setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: es256.jwk }).sign(secret);
    await refused(verify(confused), /alg must be one of/);
  });

  it("refuses RS256 (not in FAPI 2.0's list)", async () => {
    await refused(verify(await proof(rs256)), /alg must be one of/);
  });

  it("refuses a proof without jwk", async () => {
    await refused(verify(await proof(es256, {}, { jwk: undefined })), /has no jwk/);
  });

  it.each(["d", "p", "q", "dp", "dq", "qi", "oth", "k"])("refuses a jwk carrying the private member %s", async (member) => {
    await refused(verify(await proof(es256, {}, { jwk: { ...es256.jwk, [member]: "AQAB" } })), new RegExp(`private member \\(${member}\\)`));
  });

  it("refuses a jwk that is the whole private key", async () => {
    const privateJwk = await exportJWK(es256.privateKey);
    await refused(verify(await proof(es256, {}, { jwk: privateJwk })), /private member \(d\)/);
  });

  it("refuses a jwk of another type than alg signs with", async () => {
    await refused(verify(await proof(es256, {}, { jwk: eddsa.jwk })), /does not fit alg ES256/);
  });

  it("refuses an Ed448 key with EdDSA (FAPI 2.0: Ed25519 only)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed448");
    const header = { alg: "EdDSA", typ: "dpop+jwt", jwk: publicKey.export({ format: "jwk" }) };
    await refused(verify(handSigned(header, claimsNow(), (input) => sign(null, input, privateKey))), /crv Ed25519/);
  });

  it("refuses a 1024-bit RSA key with PS256", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const header = { alg: "PS256", typ: "dpop+jwt", jwk: publicKey.export({ format: "jwk" }) };
    const signed = handSigned(header, claimsNow(), (input) =>
      sign("sha256", input, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }),
    );
    await refused(verify(signed), /RSA modulus under 2048 bits/);
  });

  it("refuses a proof signed by another key than its jwk", async () => {
    await refused(verify(await proof({ ...es256, privateKey: (await signer("ES256")).privateKey })), /signature does not verify/);
  });

  it.each(["ES256", "PS256", "EdDSA"])("refuses a %s proof signed by another key, after a good proof with the same header", async (alg) => {
    const key = { ES256: es256, PS256: ps256, EdDSA: eddsa }[alg]!;
    await verify(await proof(key));
    await refused(verify(await proof({ ...key, privateKey: (await signer(alg)).privateKey })), /signature does not verify/);
  });

  it.each(["ES256", "PS256", "EdDSA"])("refuses a %s proof whose payload was changed after signing", async (alg) => {
    const key = { ES256: es256, PS256: ps256, EdDSA: eddsa }[alg]!;
    const [header, , signature] = (await proof(key, { htu: "https://elsewhere.example.com/token" })).split(".");
    await refused(verify(`${header}.${b64(claimsNow())}.${signature}`), /signature does not verify/);
  });

  it("refuses a proof whose signature is cut short", async () => {
    await refused(verify((await proof(es256)).slice(0, -2)), /signature does not verify/);
  });

  it("refuses a P-384 key with ES256, and a secp256k1 key presented as P-256", async () => {
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const header = { alg: "ES256", typ: "dpop+jwt", jwk: p384.publicKey.export({ format: "jwk" }) };
    const signWith = (key: KeyObject) => (input: Buffer) => sign("sha256", input, { key, dsaEncoding: "ieee-p1363" });
    await refused(verify(handSigned(header, claimsNow(), signWith(p384.privateKey))), /crv P-256/);
    const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" });
    const relabelled = { alg: "ES256", typ: "dpop+jwt", jwk: { ...k1.publicKey.export({ format: "jwk" }), crv: "P-256" } };
    await refused(verify(handSigned(relabelled, claimsNow(), signWith(k1.privateKey))), /malformed or its jwk cannot be used/);
  });

  it("refuses a header with crit (no extension is understood)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const header = { alg: "ES256", typ: "dpop+jwt", jwk: publicKey.export({ format: "jwk" }), crit: ["exp"], exp: NOW_SECONDS + 60 };
    const signed = handSigned(header, claimsNow(), (input) => sign("sha256", input, { key: privateKey, dsaEncoding: "ieee-p1363" }));
    await refused(verify(signed), /malformed or its jwk cannot be used/);
  });

  it("refuses a jwk whose key_ops lacks verify, and accepts one that has it", async () => {
    await refused(verify(await proof(es256, {}, { jwk: { ...es256.jwk, key_ops: ["sign"] } })), /key_ops/);
    await expect(verify(await proof(es256, {}, { jwk: { ...es256.jwk, key_ops: ["verify"] } }))).resolves.toBeDefined();
  });

  it("refuses a jwk whose point is not on the curve, as InvalidDpopProof and not a crash", async () => {
    const x = Buffer.from(es256.jwk.x!, "base64url");
    x[31]! ^= 1;
    await refused(verify(await proof(es256, {}, { jwk: { ...es256.jwk, x: x.toString("base64url") } })), /malformed or its jwk cannot be used/);
  });

  it("refuses a payload that is not a JSON object", async () => {
    const signed = await new CompactSign(new TextEncoder().encode("[1]"))
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: es256.jwk })
      .sign(es256.privateKey);
    await refused(verify(signed), /payload is not a JSON object/);
  });
});

describe("verifyDpopProof: the claims (RFC 9449 §4.3 items 8-12)", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["257 characters", "j".repeat(257)],
    ["a number", 42],
  ])("refuses a jti that is %s", async (_what, jti) => {
    await refused(verify(await proof(es256, { jti })), /jti of 1 to 256 characters/);
  });

  it("accepts a jti of 256 characters", async () => {
    await expect(verify(await proof(es256, { jti: "j".repeat(256) }))).resolves.toMatchObject({ jti: "j".repeat(256) });
  });

  it.each([
    ["another method", "GET"],
    ["another case", "post"],
    ["missing", undefined],
  ])("refuses htm that is %s", async (_what, htm) => {
    await refused(verify(await proof(es256, { htm })), /htm must be POST/);
  });

  it.each([
    ["another path", "https://as.example.com/par"],
    ["another host", "https://other.example.com/token"],
    ["another scheme", "http://as.example.com/token"],
    ["another port", "https://as.example.com:8443/token"],
    ["a trailing slash", "https://as.example.com/token/"],
    ["not a URL", "/token"],
    ["missing", undefined],
  ])("refuses htu with %s", async (_what, htu) => {
    await refused(verify(await proof(es256, { htu })), /htu must be https:\/\/as\.example\.com\/token, the URL/);
  });

  it.each([
    ["upper-case scheme and host", "HTTPS://AS.EXAMPLE.COM/token"],
    ["the default port", "https://as.example.com:443/token"],
    ["a query and a fragment", "https://as.example.com/token?a=1#f"],
  ])("accepts htu with %s (compared after URL normalisation, without query)", async (_what, htu) => {
    await expect(verify(await proof(es256, { htu }))).resolves.toBeDefined();
  });

  it("ignores a query in the target URL", async () => {
    await expect(verify(await proof(es256), { method: "POST", url: `${TOKEN_URL}?x=1` })).resolves.toBeDefined();
  });

  it(`accepts iat ${DPOP_PROOF_MAX_AGE_SECONDS} s old and ${DPOP_PROOF_MAX_FUTURE_SECONDS} s ahead`, async () => {
    await expect(verify(await proof(es256, { iat: NOW_SECONDS - DPOP_PROOF_MAX_AGE_SECONDS }))).resolves.toBeDefined();
    await expect(verify(await proof(es256, { iat: NOW_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS }))).resolves.toBeDefined();
  });

  it(`refuses iat more than ${DPOP_PROOF_MAX_AGE_SECONDS} s old`, async () => {
    await refused(verify(await proof(es256, { iat: NOW_SECONDS - DPOP_PROOF_MAX_AGE_SECONDS - 1 })), /more than 60 seconds old/);
  });

  it(`refuses iat more than ${DPOP_PROOF_MAX_FUTURE_SECONDS} s ahead`, async () => {
    await refused(verify(await proof(es256, { iat: NOW_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS + 1 })), /more than 10 seconds in the future/);
  });

  it("refuses a proof without iat", async () => {
    await refused(verify(await proof(es256, { iat: undefined })), /numeric iat/);
  });

  it("refuses a string iat (jose's refusal becomes InvalidDpopProof)", async () => {
    await refused(verify(await proof(es256, { iat: String(NOW_SECONDS) })), /iat claim is invalid/);
  });

  it(`refuses an exp more than ${DPOP_PROOF_MAX_FUTURE_SECONDS} s past, and accepts one within`, async () => {
    await refused(verify(await proof(es256, { exp: NOW_SECONDS - DPOP_PROOF_MAX_FUTURE_SECONDS })), /has expired \(exp\)/);
    await expect(verify(await proof(es256, { exp: NOW_SECONDS - DPOP_PROOF_MAX_FUTURE_SECONDS + 1 }))).resolves.toBeDefined();
  });

  it(`refuses an nbf more than ${DPOP_PROOF_MAX_FUTURE_SECONDS} s ahead, and accepts one within`, async () => {
    await refused(verify(await proof(es256, { nbf: NOW_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS + 1 })), /nbf claim is invalid/);
    await expect(verify(await proof(es256, { nbf: NOW_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS }))).resolves.toBeDefined();
  });

  it("refuses exp and nbf that are not numbers", async () => {
    await refused(verify(await proof(es256, { exp: String(NOW_SECONDS + 60) })), /exp claim is invalid/);
    await refused(verify(await proof(es256, { nbf: String(NOW_SECONDS) })), /nbf claim is invalid/);
  });

  describe("ath (RFC 9449 §4.2, §7)", () => {
    const token = "an-access-token";
    const withToken: DpopTarget = { ...TARGET, accessToken: token };

    it("is base64url(SHA-256(token)): RFC 9449 §7.1's example", () => {
      expect(accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")).toBe("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
    });

    it("accepts the hash of the token", async () => {
      await expect(verify(await proof(es256, { ath: accessTokenHash(token) }), withToken)).resolves.toBeDefined();
    });

    it("refuses a proof without ath when a token is given", async () => {
      await refused(verify(await proof(es256), withToken), /needs ath/);
    });

    it("refuses the hash of another token", async () => {
      await refused(verify(await proof(es256, { ath: accessTokenHash("another-token") }), withToken), /ath does not match/);
    });

    it("ignores an ath when no token is given", async () => {
      await expect(verify(await proof(es256, { ath: "whatever" }))).resolves.toBeDefined();
    });
  });
});

describe("verifyDpopProof: nonces (RFC 9449 §8)", () => {
  const nonces = dpopNonces("a-shared-nonce-secret", 300);
  const check = (header: string) => verifyDpopProof(header, TARGET, { replays: memoryReplays(), now: NOW, nonces });

  async function nonceRefusal(promise: Promise<unknown>): Promise<UseDpopNonce> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UseDpopNonce);
    return error as UseDpopNonce;
  }

  it("answers a proof without nonce with use_dpop_nonce and the current nonce in DPoP-Nonce", async () => {
    const error = await nonceRefusal(check(await proof(es256)));
    expect(error.error).toBe("use_dpop_nonce");
    expect(error.headers["DPoP-Nonce"]).toBe(nonces.current(NOW));
    expect(error.message).toMatch(/requires a DPoP nonce/);
  });

  it("accepts the current nonce", async () => {
    await expect(check(await proof(es256, { nonce: nonces.current(NOW) }))).resolves.toBeDefined();
  });

  it("accepts the previous window's nonce", async () => {
    await expect(check(await proof(es256, { nonce: nonces.current(new Date(NOW.getTime() - 300_000)) }))).resolves.toBeDefined();
  });

  it("refuses a nonce two windows old, with the current one", async () => {
    const error = await nonceRefusal(check(await proof(es256, { nonce: nonces.current(new Date(NOW.getTime() - 600_000)) })));
    expect(error.headers["DPoP-Nonce"]).toBe(nonces.current(NOW));
    expect(error.message).toMatch(/unknown or expired/);
  });

  it("refuses a nonce of another secret", async () => {
    await nonceRefusal(check(await proof(es256, { nonce: dpopNonces("another-secret").current(NOW) })));
  });

  it("does not ask for a nonce when none is configured", async () => {
    await expect(verify(await proof(es256))).resolves.toBeDefined();
  });
});

describe("verifyDpopProof: replay (RFC 9449 §11.1)", () => {
  it("refuses a proof used before", async () => {
    const replays = memoryReplays();
    const once = await proof(es256);
    await verify(once, TARGET, replays);
    await refused(verify(once, TARGET, replays), /already used \(jti replay\)/);
  });

  it("keys the replay on the key's thumbprint and the jti, until iat + 70 s", async () => {
    const replays = memoryReplays();
    const { jkt } = await verify(await proof(es256, { jti: "one" }), TARGET, replays);
    expect(replays.calls).toEqual([
      { key: hashSecret(`dpop:${jkt}:one`), expiresAt: new Date((NOW_SECONDS + DPOP_PROOF_MAX_AGE_SECONDS + DPOP_PROOF_MAX_FUTURE_SECONDS) * 1000) },
    ]);
  });

  it("accepts the same jti from another key", async () => {
    const replays = memoryReplays();
    await verify(await proof(es256, { jti: "same" }), TARGET, replays);
    await expect(verify(await proof(eddsa, { jti: "same" }), TARGET, replays)).resolves.toBeDefined();
  });

  it("records nothing for a proof refused for another reason (the replay check is last)", async () => {
    const replays = memoryReplays();
    await refused(verify(await proof(es256, { htm: "GET" }), TARGET, replays), /htm/);
    const nonces = dpopNonces("secret");
    await expect(verifyDpopProof(await proof(es256), TARGET, { replays, now: NOW, nonces })).rejects.toBeInstanceOf(UseDpopNonce);
    expect(replays.calls).toEqual([]);
  });
});
