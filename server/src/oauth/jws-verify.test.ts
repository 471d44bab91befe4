import { constants, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { jwkVerifier, JwsRefused } from "./jws-verify.js";
import type { SigningAlgorithm } from "./signing.js";

const ALGS: SigningAlgorithm[] = ["ES256", "PS256", "EdDSA"];

interface Signer {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey) };
}

/** Two keys per algorithm: the verifier's, and another. */
const keys = {} as Record<SigningAlgorithm, [Signer, Signer]>;
beforeAll(async () => {
  for (const alg of ALGS) keys[alg] = [await signer(alg), await signer(alg)];
});

/** A compact JWS of `payload` (JSON unless a string), signed by jose. */
function jws(alg: SigningAlgorithm, key: Signer, payload: unknown = { sub: "x" }): Promise<string> {
  const bytes = new TextEncoder().encode(typeof payload === "string" ? payload : JSON.stringify(payload));
  return new CompactSign(bytes).setProtectedHeader({ alg }).sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A compact JWS signed by node:crypto over `header.payload` with `signWith`, for signatures jose will not make. */
function handSigned(alg: string, signWith: (input: Buffer) => Buffer): string {
  const input = `${b64({ alg })}.${b64({ sub: "x" })}`;
  return `${input}.${signWith(Buffer.from(input)).toString("base64url")}`;
}

/** Expects `promise` to reject with JwsRefused for `refusal`. */
async function refused(promise: Promise<unknown>, refusal: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JwsRefused);
  expect((error as JwsRefused).refusal).toBe(refusal);
}

describe("jwkVerifier: accepted JWS", () => {
  it.each(ALGS)("verifies a %s JWS and returns its payload, with the key's RFC 7638 thumbprint", async (alg) => {
    const [own] = keys[alg];
    const verifier = await jwkVerifier(own.jwk, alg);
    expect(verifier.jkt).toBe(await calculateJwkThumbprint(own.jwk, "sha256"));
    await expect(verifier.verify(await jws(alg, own, { sub: "x", n: 1 }))).resolves.toEqual({ sub: "x", n: 1 });
  });

  it("verifies many JWS with one verifier", async () => {
    const [own] = keys.ES256;
    const verifier = await jwkVerifier(own.jwk, "ES256");
    const all = await Promise.all([1, 2, 3].map((n) => jws("ES256", own, { n })));
    await expect(Promise.all(all.map((each) => verifier.verify(each)))).resolves.toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});

describe("jwkVerifier: refused signatures", () => {
  it.each(ALGS)("refuses a %s JWS signed by another key", async (alg) => {
    const [own, other] = keys[alg];
    await refused((await jwkVerifier(own.jwk, alg)).verify(await jws(alg, other)), "signature");
  });

  it.each(ALGS)("refuses a %s JWS whose payload was changed after signing", async (alg) => {
    const [own] = keys[alg];
    const [header, , signature] = (await jws(alg, own, { sub: "x" })).split(".");
    await refused((await jwkVerifier(own.jwk, alg)).verify(`${header}.${b64({ sub: "y" })}.${signature}`), "signature");
  });

  it.each(ALGS)("refuses a %s JWS whose signature is cut short or empty", async (alg) => {
    const [own] = keys[alg];
    const verifier = await jwkVerifier(own.jwk, alg);
    const signed = await jws(alg, own);
    await refused(verifier.verify(signed.slice(0, -4)), "signature");
    await refused(verifier.verify(signed.slice(0, signed.lastIndexOf(".") + 1)), "signature");
  });

  it("refuses an ES256 signature in DER form: JWS carries R || S (RFC 7518 §3.4)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const verifier = await jwkVerifier(publicKey.export({ format: "jwk" }) as JWK, "ES256");
    await expect(verifier.verify(handSigned("ES256", (input) => sign("sha256", input, { key: privateKey, dsaEncoding: "ieee-p1363" })))).resolves.toBeDefined();
    await refused(verifier.verify(handSigned("ES256", (input) => sign("sha256", input, privateKey))), "signature");
  });

  describe("PS256 is RSASSA-PSS with SHA-256 and a 32-byte salt (RFC 7518 §3.5)", () => {
    let privateKey: KeyObject;
    let jwk: JWK;
    beforeAll(() => {
      const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
      privateKey = pair.privateKey;
      jwk = pair.publicKey.export({ format: "jwk" }) as JWK;
    });
    const pss = (saltLength: number) => (input: Buffer) => sign("sha256", input, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength });

    it("accepts a 32-byte salt", async () => {
      await expect((await jwkVerifier(jwk, "PS256")).verify(handSigned("PS256", pss(32)))).resolves.toEqual({ sub: "x" });
    });

    it.each([
      ["a salt of 20 bytes", pss(20)],
      ["the longest salt", pss(constants.RSA_PSS_SALTLEN_MAX_SIGN)],
      ["PKCS #1 v1.5 padding (RS256)", (input: Buffer) => sign("sha256", input, privateKey)],
      ["SHA-384", (input: Buffer) => sign("sha384", input, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 })],
    ])("refuses %s", async (_what, signWith) => {
      await refused((await jwkVerifier(jwk, "PS256")).verify(handSigned("PS256", signWith)), "signature");
    });
  });
});

describe("jwkVerifier: refused payloads", () => {
  it.each([
    ["an array", "[1]"],
    ["a string", '"x"'],
    ["null", "null"],
    ["not JSON", "not json"],
  ])("refuses a payload that is %s, signed", async (_what, payload) => {
    const [own] = keys.ES256;
    await refused((await jwkVerifier(own.jwk, "ES256")).verify(await jws("ES256", own, payload)), "payload");
  });

  it("refuses a payload that is not UTF-8, signed", async () => {
    const [own] = keys.ES256;
    const latin1 = Buffer.concat([Buffer.from('{"sub":"'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const signed = await new CompactSign(latin1).setProtectedHeader({ alg: "ES256" }).sign(own.privateKey);
    await refused((await jwkVerifier(own.jwk, "ES256")).verify(signed), "payload");
  });
});

describe("jwkVerifier: keys", () => {
  it.each([
    ["an Ed25519 key for ES256", "EdDSA", "ES256"],
    ["a P-256 key for EdDSA", "ES256", "EdDSA"],
    ["a P-256 key for PS256", "ES256", "PS256"],
    ["an RSA key for ES256", "PS256", "ES256"],
  ] as const)("refuses %s", async (_what, keyAlg, alg) => {
    await expect(jwkVerifier(keys[keyAlg][0].jwk, alg)).rejects.toThrow(TypeError);
  });

  it.each([
    ["P-384", () => generateKeyPairSync("ec", { namedCurve: "P-384" })],
    ["secp256k1", () => generateKeyPairSync("ec", { namedCurve: "secp256k1" })],
  ])("refuses a %s key for ES256", async (_curve, generate) => {
    const jwk = generate().publicKey.export({ format: "jwk" }) as JWK;
    await expect(jwkVerifier({ ...jwk, crv: "P-256" }, "ES256")).rejects.toThrow();
    await expect(jwkVerifier(jwk, "ES256")).rejects.toThrow();
  });

  it("refuses an Ed448 key for EdDSA", async () => {
    await expect(jwkVerifier(generateKeyPairSync("ed448").publicKey.export({ format: "jwk" }) as JWK, "EdDSA")).rejects.toThrow(TypeError);
  });

  it("refuses a P-256 point that is not on the curve", async () => {
    const jwk = keys.ES256[0].jwk;
    const x = Buffer.from(jwk.x!, "base64url");
    x[31]! ^= 1;
    await expect(jwkVerifier({ ...jwk, x: x.toString("base64url") }, "ES256")).rejects.toThrow();
  });
});
