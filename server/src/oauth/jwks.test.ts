import { generateKeyPairSync } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { InvalidJwks, parsePublicJwks } from "./jwks.js";

async function publicJwk(alg: string): Promise<JWK> {
  const { publicKey } = await generateKeyPair(alg, { extractable: true });
  return exportJWK(publicKey);
}

let ec: JWK;
let okp: JWK;
let rsa: JWK;
let ecPrivate: JWK;
beforeAll(async () => {
  [ec, okp, rsa] = await Promise.all(["ES256", "EdDSA", "PS256"].map(publicJwk));
  ecPrivate = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
});

const set = (...keys: unknown[]) => JSON.stringify({ keys });

/** Expects parsing `text` to fail with InvalidJwks whose message matches `pattern`. */
async function refused(text: string, pattern: RegExp): Promise<void> {
  const error = await parsePublicJwks(text).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidJwks);
  expect((error as Error).message).toMatch(pattern);
}

describe("parsePublicJwks: accepted sets", () => {
  it("accepts an EC P-256, an Ed25519 and a 2048-bit RSA key, as given", async () => {
    await expect(parsePublicJwks(set(ec, okp, rsa))).resolves.toEqual({ keys: [ec, okp, rsa] });
  });

  it("accepts kid, alg and use sig, and keeps them", async () => {
    const keys = [
      { ...ec, kid: "a", alg: "ES256", use: "sig" },
      { ...okp, kid: "b", alg: "EdDSA" },
      { ...rsa, kid: "c", alg: "PS256" },
    ];
    await expect(parsePublicJwks(set(...keys))).resolves.toEqual({ keys });
  });

  it("drops every other member (x5c, key_ops, ext, unknown ones)", async () => {
    const parsed = await parsePublicJwks(set({ ...ec, kid: "a", key_ops: ["verify"], ext: true, x5c: ["AAAA"], note: "hello" }));
    expect(parsed.keys).toEqual([{ ...ec, kid: "a" }]);
  });

  it("accepts several keys without kid", async () => {
    await expect(parsePublicJwks(set(ec, { ...ec }))).resolves.toMatchObject({ keys: [ec, ec] });
  });

  it("accepts 10 keys", async () => {
    await expect(parsePublicJwks(set(...Array.from({ length: 10 }, () => ec)))).resolves.toMatchObject({ keys: { length: 10 } });
  });
});

describe("parsePublicJwks: the set (RFC 7517 §5)", () => {
  it("refuses more than 32 KiB of text", async () => {
    await refused(JSON.stringify({ keys: [ec], padding: "a".repeat(32 * 1024) }), /larger than 32 KiB/);
  });

  it("counts UTF-8 bytes, not characters", async () => {
    await refused(JSON.stringify({ keys: [ec], padding: "é".repeat(16 * 1024) }), /larger than 32 KiB/);
  });

  it("refuses text that is not JSON", async () => {
    await refused("{keys: []", /not valid JSON/);
  });

  it.each([
    ["an array", "[]"],
    ["null", "null"],
    ["an object without keys", "{}"],
    ["keys that is an object", '{"keys":{}}'],
  ])("refuses %s", async (_what, text) => {
    await refused(text, /JSON object with a "keys" array/);
  });

  it("refuses an empty keys array", async () => {
    await refused(set(), /1 to 10 keys/);
  });

  it("refuses 11 keys", async () => {
    await refused(set(...Array.from({ length: 11 }, () => ec)), /1 to 10 keys/);
  });

  it("refuses a key that is not an object, naming it", async () => {
    await refused(set(ec, "key"), /^key 2 is not a JSON object/);
  });
});

describe("parsePublicJwks: each key (FAPI 2.0 §5.4.1)", () => {
  it.each(["d", "p", "q", "dp", "dq", "qi", "oth", "k"])("refuses a key with the private member %s", async (member) => {
    await refused(set(ec, { ...okp, [member]: "AQAB" }), new RegExp(`^key 2 has a private member \\(${member}\\)`));
  });

  it("refuses a whole private key", async () => {
    await refused(set(ecPrivate), /private member \(d\)/);
  });

  it.each([
    ["a symmetric key", { kty: "oct", kid: "x" }],
    ["an unknown kty", { kty: "AKP", alg: "ML-DSA-44", pub: "AAAA" }],
    ["no kty", { x: "AAAA" }],
  ])("refuses %s", async (_what, key) => {
    await refused(set(key), /must have kty EC \(P-256\), OKP \(Ed25519\) or RSA/);
  });

  it("refuses an EC key on P-384", async () => {
    await refused(set(await publicJwk("ES384")), /kty EC must have crv P-256/);
  });

  it("refuses an Ed448 key", async () => {
    const ed448 = generateKeyPairSync("ed448").publicKey.export({ format: "jwk" });
    await refused(set(ed448), /kty OKP must have crv Ed25519/);
  });

  it("refuses an EC key without y", async () => {
    await refused(set({ ...ec, y: undefined }), /lacks its coordinates/);
  });

  it("refuses an RSA key without e", async () => {
    await refused(set({ ...rsa, e: undefined }), /lacks n or e/);
  });

  it("refuses a 1024-bit RSA key", async () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "jwk" });
    await refused(set(small), /RSA modulus under 2048 bits/);
  });

  it("refuses a 2040-bit RSA modulus padded with a leading zero byte to 2048 bits", async () => {
    const n = Buffer.from(rsa.n!, "base64url");
    n[0] = 0;
    n[1] = 0xff;
    await refused(set({ ...rsa, n: n.toString("base64url") }), /RSA modulus under 2048 bits/);
  });

  it.each([
    ["RS256", rsaKey, "RS256"],
    ["HS256", ecKey, "HS256"],
    ["none", ecKey, "none"],
  ])("refuses alg %s", async (_what, key, alg) => {
    await refused(set({ ...key(), alg }), /must have alg PS256, ES256, EdDSA when alg is present/);
  });

  it.each([
    ["ES256 on an RSA key", rsaKey, "ES256"],
    ["PS256 on an EC key", ecKey, "PS256"],
    ["EdDSA on an EC key", ecKey, "EdDSA"],
    ["ES256 on an Ed25519 key", okpKey, "ES256"],
  ])("refuses alg %s", async (_what, key, alg) => {
    await refused(set({ ...key(), alg }), new RegExp(`does not fit alg ${alg}`));
  });

  it("refuses use enc", async () => {
    await refused(set({ ...ec, use: "enc" }), /use sig/);
  });

  it("refuses two keys with the same kid", async () => {
    await refused(set({ ...ec, kid: "same" }, { ...okp, kid: "same" }), /more than one key has kid "same"/);
  });

  it("refuses a kid that is not a string", async () => {
    await refused(set({ ...ec, kid: 7 }), /string kid/);
  });

  it("refuses an EC point that is not on the curve (jose cannot import it)", async () => {
    const x = Buffer.from(ec.x!, "base64url");
    x[31]! ^= 1;
    await refused(set({ ...ec, x: x.toString("base64url") }), /^key 1 is not a valid EC public key/);
  });

  it("refuses an Ed25519 key of the wrong length", async () => {
    await refused(set({ ...okp, x: "AAAA" }), /is not a valid OKP public key/);
  });
});

function rsaKey(): JWK {
  return rsa;
}
function ecKey(): JWK {
  return ec;
}
function okpKey(): JWK {
  return okp;
}
