import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidClient } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import { memoryReplays } from "../../test/support/memory-stores.js";
import {
  MAX_ASSERTION_LIFETIME_SECONDS,
  MAX_CLOCK_SKEW_SECONDS,
  unverifiedAssertionIssuer,
  verifyClientAssertion,
  type AssertionContext,
  type AssertionKeys,
} from "./client-assertion.js";
import { MAX_JWT_LENGTH } from "./signing.js";

const NOW = new Date("2026-03-01T12:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const CLIENT_ID = "client-1";
const ISSUER = "https://as.example.com";
const TOKEN_ENDPOINT = "https://as.example.com/token";
const PAR_ENDPOINT = "https://as.example.com/oauth2/v1/par";
const REALM = "tollgate";

interface Signer {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: string, kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid } };
}

let es256: Signer;
let ps256: Signer;
let eddsa: Signer;
let rs256: Signer;
let stranger: Signer;
beforeAll(async () => {
  [es256, ps256, eddsa, rs256, stranger] = await Promise.all([
    signer("ES256", "es"),
    signer("PS256", "ps"),
    signer("EdDSA", "ed"),
    signer("RS256", "rs"),
    signer("ES256", "es"),
  ]);
});

/** The app's registered set: the ES256, PS256, EdDSA and RS256 keys. */
const registered = (): AssertionKeys => ({ jwks: { keys: [es256.jwk, ps256.jwk, eddsa.jwk, rs256.jwk] }, jwksUri: null, addresses: "internal" as const });

/** An assertion of CLIENT_ID for ISSUER, valid at NOW for 60 s; `claims` and `header` override (undefined removes a member). */
function assertion(key: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: CLIENT_ID, sub: CLIENT_ID, aud: ISSUER, iat: NOW_SECONDS, exp: NOW_SECONDS + 60, jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.jwk.kid, ...header })
    .sign(key.privateKey);
}

function context(overrides: Partial<AssertionContext> = {}): AssertionContext {
  return { clientId: CLIENT_ID, keys: registered(), issuer: ISSUER, replays: memoryReplays(), now: NOW, realm: REALM, ...overrides };
}

/** Expects `promise` to reject with InvalidClient (401, with the realm) whose description matches `pattern`. */
async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidClient);
  expect(error).toMatchObject({ status: 401, headers: { "WWW-Authenticate": `Basic realm="${REALM}", charset="UTF-8"` } });
  expect((error as InvalidClient).message).toMatch(pattern);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("verifyClientAssertion: accepted assertions (RFC 7523 §3)", () => {
  it.each(["ES256", "PS256", "EdDSA"])("accepts a %s assertion signed by a registered key", async (alg) => {
    const key = { ES256: es256, PS256: ps256, EdDSA: eddsa }[alg]!;
    await expect(verifyClientAssertion(await assertion(key), context())).resolves.toBeUndefined();
  });

  it("accepts an assertion without kid when a registered key fits its alg", async () => {
    await expect(verifyClientAssertion(await assertion(eddsa, {}, { kid: undefined }), context())).resolves.toBeUndefined();
  });
});

describe("verifyClientAssertion: the JWS (FAPI 2.0 §5.4.1)", () => {
  it(`refuses an assertion longer than ${MAX_JWT_LENGTH} characters`, async () => {
    await refused(verifyClientAssertion(await assertion(es256, { padding: "a".repeat(MAX_JWT_LENGTH) }), context()), /longer than 8192/);
  });

  it("refuses text that is not a JWT", async () => {
    await refused(verifyClientAssertion("not-a-jwt", context()), /not a JWT/);
  });

  it("refuses alg none", async () => {
    const unsigned = `${b64({ alg: "none" })}.${b64({ iss: CLIENT_ID, sub: CLIENT_ID, aud: ISSUER, exp: NOW_SECONDS + 60, jti: "x" })}.`;
    await refused(verifyClientAssertion(unsigned, context()), /alg must be one of PS256, ES256, EdDSA/);
  });

  it("refuses HS256 keyed with a registered public key's bytes (algorithm confusion)", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(es256.jwk));
    const confused = await new SignJWT({ iss: CLIENT_ID, sub: CLIENT_ID, aud: ISSUER, exp: NOW_SECONDS + 60, jti: "x" })
      .setProtectedHeader({ alg: "HS256" })
      .sign(secret);
    await refused(verifyClientAssertion(confused, context()), /alg must be one of/);
  });

  it("refuses RS256, even by a registered RSA key", async () => {
    await refused(verifyClientAssertion(await assertion(rs256), context()), /alg must be one of/);
  });

  it("refuses a signature by a key the app did not register (same kid)", async () => {
    await refused(verifyClientAssertion(await assertion(stranger), context()), /signature does not verify/);
  });

  it("refuses a kid the app did not register", async () => {
    await refused(verifyClientAssertion(await assertion(es256, {}, { kid: "unknown" }), context()), /none of the app's keys fits/);
  });

  it("refuses when the app has no keys", async () => {
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: null, addresses: "internal" as const } })), /has no registered keys \(jwks\)/);
  });

  it("refuses, as InvalidClient, a registered set jose cannot read", async () => {
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: { keys: [[]] }, jwksUri: null, addresses: "internal" as const } })), /cannot be read/);
  });

  it("refuses, as InvalidClient, a jwks_uri that is not a URL", async () => {
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: "not a url", addresses: "public" } })), /cannot be read/);
  });
});

describe("verifyClientAssertion: iss, sub and aud (RFC 7523 §3, FAPI 2.0 §5.3.2.1)", () => {
  it.each(["iss", "sub"])("refuses another %s", async (claim) => {
    await refused(verifyClientAssertion(await assertion(es256, { [claim]: "client-2" }), context()), new RegExp(`${claim} must be the client_id`));
  });

  it.each(["iss", "sub"])("refuses a missing %s", async (claim) => {
    await refused(verifyClientAssertion(await assertion(es256, { [claim]: undefined }), context()), new RegExp(`${claim} must be the client_id`));
  });

  it("accepts aud that is the issuer identifier, as a JSON string", async () => {
    await expect(verifyClientAssertion(await assertion(es256, { aud: ISSUER }), context())).resolves.toBeUndefined();
  });

  // FAPI 2.0 Security Profile §5.3.2.1 and draft-ietf-oauth-rfc7523bis: the issuer identifier
  // alone, as a string, so an assertion made for one endpoint or server is never good at another.
  it.each([
    ["the token endpoint's URL", TOKEN_ENDPOINT],
    ["the PAR endpoint's URL", PAR_ENDPOINT],
    ["an array of exactly the issuer", [ISSUER]],
    ["the issuer with a trailing slash", `${ISSUER}/`],
    ["another server", "https://other.example.com"],
    ["an array of another server", ["https://other.example.com"]],
    ["missing", undefined],
    ["an empty array", []],
    ["an array of several audiences, even holding the issuer", [ISSUER, "https://other.example.com"]],
    ["a number", 42],
  ])("refuses aud that is %s", async (_what, aud) => {
    await refused(verifyClientAssertion(await assertion(es256, { aud }), context()), /aud must be this server's issuer identifier as a string, https:\/\/as\.example\.com/);
  });
});

describe("verifyClientAssertion: exp, iat and nbf", () => {
  it("refuses an assertion without exp", async () => {
    await refused(verifyClientAssertion(await assertion(es256, { exp: undefined }), context()), /needs an exp/);
  });

  it.each([
    ["now", 0],
    ["5 s ago (within the clock skew jose allows)", -5],
    ["an hour ago", -3600],
  ])("refuses exp %s", async (_what, offset) => {
    await refused(verifyClientAssertion(await assertion(es256, { exp: NOW_SECONDS + offset }), context()), /has expired \(exp\)/);
  });

  it(`accepts exp ${MAX_ASSERTION_LIFETIME_SECONDS} s away and refuses one second more`, async () => {
    await expect(verifyClientAssertion(await assertion(es256, { exp: NOW_SECONDS + MAX_ASSERTION_LIFETIME_SECONDS }), context())).resolves.toBeUndefined();
    await refused(verifyClientAssertion(await assertion(es256, { exp: NOW_SECONDS + MAX_ASSERTION_LIFETIME_SECONDS + 1 }), context()), /exp is more than 300 seconds away/);
  });

  it("refuses a string exp", async () => {
    await refused(verifyClientAssertion(await assertion(es256, { exp: String(NOW_SECONDS + 60) }), context()), /exp claim is invalid/);
  });

  it("accepts iat 5 s ahead", async () => {
    await expect(verifyClientAssertion(await assertion(es256, { iat: NOW_SECONDS + 5 }), context())).resolves.toBeUndefined();
  });

  it(`accepts iat ${MAX_CLOCK_SKEW_SECONDS} s ahead and refuses iat 11 s and 61 s ahead`, async () => {
    await expect(verifyClientAssertion(await assertion(es256, { iat: NOW_SECONDS + MAX_CLOCK_SKEW_SECONDS }), context())).resolves.toBeUndefined();
    await refused(verifyClientAssertion(await assertion(es256, { iat: NOW_SECONDS + 11 }), context()), /iat is more than 10 seconds in the future/);
    await refused(verifyClientAssertion(await assertion(es256, { iat: NOW_SECONDS + 61 }), context()), /iat is more than 10 seconds in the future/);
  });

  it("accepts an assertion without iat", async () => {
    await expect(verifyClientAssertion(await assertion(es256, { iat: undefined }), context())).resolves.toBeUndefined();
  });

  it("accepts nbf 10 s ahead and refuses nbf 11 s ahead", async () => {
    await expect(verifyClientAssertion(await assertion(es256, { nbf: NOW_SECONDS + 10 }), context())).resolves.toBeUndefined();
    await refused(verifyClientAssertion(await assertion(es256, { nbf: NOW_SECONDS + 11 }), context()), /nbf is more than 10 seconds in the future/);
  });
});

describe("verifyClientAssertion: jti and replay (RFC 7523 §3 item 7)", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["257 characters", "j".repeat(257)],
  ])("refuses a jti that is %s", async (_what, jti) => {
    await refused(verifyClientAssertion(await assertion(es256, { jti }), context()), /jti of 1 to 256 characters/);
  });

  it("refuses an assertion used before", async () => {
    const ctx = context();
    const once = await assertion(es256);
    await verifyClientAssertion(once, ctx);
    await refused(verifyClientAssertion(once, ctx), /already used \(jti replay\)/);
  });

  it("remembers the jti of this client until exp", async () => {
    const replays = memoryReplays();
    await verifyClientAssertion(await assertion(es256, { jti: "one", exp: NOW_SECONDS + 120 }), context({ replays }));
    expect(replays.calls).toEqual([{ key: hashSecret(`assertion:${CLIENT_ID}:one`), expiresAt: new Date((NOW_SECONDS + 120) * 1000) }]);
  });

  it("records nothing for an assertion refused for another reason", async () => {
    const replays = memoryReplays();
    await refused(verifyClientAssertion(await assertion(es256, { aud: "https://other.example.com" }), context({ replays })), /aud/);
    expect(replays.calls).toEqual([]);
  });
});

describe("verifyClientAssertion: a jwks_uri", () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? "");
      response.setHeader("Content-Type", "application/json");
      if (request.url === "/huge/jwks.json") {
        // 300 MB, streamed: written only as fast as it is read, and stopped when the reader goes.
        let left = 300 * 1024 * 1024;
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (left > 0 && response.write(chunk)) left -= chunk.length;
          if (left <= 0) response.end();
        };
        response.write('{"keys":[');
        response.on("drain", pump);
        pump();
        return;
      }
      if (request.url === "/failing/jwks.json") {
        response.statusCode = 500;
        response.end("{}");
        return;
      }
      response.end(JSON.stringify({ keys: [es256.jwk, eddsa.jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  it("verifies with the set fetched from the jwks_uri, fetched once for several assertions", async () => {
    const keys = { jwks: null, jwksUri: `${base}/cached/jwks.json`, addresses: "internal" as const };
    await verifyClientAssertion(await assertion(es256), context({ keys }));
    await verifyClientAssertion(await assertion(eddsa), context({ keys }));
    await verifyClientAssertion(await assertion(es256), context({ keys }));
    expect(requests.filter((url) => url === "/cached/jwks.json")).toHaveLength(1);
  });

  it("refuses a signature by a key not in the fetched set", async () => {
    await refused(verifyClientAssertion(await assertion(stranger), context({ keys: { jwks: null, jwksUri: `${base}/stranger/jwks.json`, addresses: "internal" as const } })), /signature does not verify/);
  });

  it("uses the registered jwks when the app has both", async () => {
    const before = requests.length;
    await verifyClientAssertion(await assertion(ps256), context({ keys: { jwks: registered().jwks, jwksUri: `${base}/unused/jwks.json`, addresses: "internal" as const } }));
    expect(requests).toHaveLength(before);
  });

  it("reads at most 64 KiB of a jwks_uri's answer: a 300 MB one is refused at once, without holding it", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: `${base}/huge/jwks.json`, addresses: "internal" } })), /larger than 65536 bytes/);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });

  it("does not fetch a jwks_uri that failed again within the cooldown", async () => {
    const keys = { jwks: null, jwksUri: `${base}/failing/jwks.json`, addresses: "internal" as const };
    await refused(verifyClientAssertion(await assertion(es256), context({ keys })), /cannot be read/);
    await refused(verifyClientAssertion(await assertion(es256), context({ keys })), /not fetched again/);
    await refused(verifyClientAssertion(await assertion(es256), context({ keys })), /not fetched again/);
    expect(requests.filter((url) => url === "/failing/jwks.json")).toHaveLength(1);
  });

  it("connects a TPP's jwks_uri to no loopback, private, link-local or metadata address unless allowed", async () => {
    for (const jwksUri of [`${base}/cached/jwks.json`, "http://169.254.169.254/jwks.json", "http://10.1.2.3/jwks.json", "http://[::1]:8080/jwks.json", "http://[::ffff:127.0.0.1]:8080/jwks.json"]) {
      const before = requests.length;
      await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri, addresses: "public" } })), /may not connect to/);
      expect(requests).toHaveLength(before);
    }
    // A name is checked where it resolves: localhost is loopback.
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: `${base.replace("127.0.0.1", "localhost")}/other/jwks.json`, addresses: "public" } })), /cannot be used/);
    // Link-local and metadata addresses stay refused when internal ones are allowed.
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: "http://169.254.169.254/jwks.json", addresses: "internal" } })), /may not connect to/);
  });

  it("refuses, as InvalidClient, a jwks_uri that does not answer", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await refused(verifyClientAssertion(await assertion(es256), context({ keys: { jwks: null, jwksUri: url, addresses: "internal" as const } })), /cannot be read/);
  });
});

describe("unverifiedAssertionIssuer", () => {
  it("reads iss without verifying the signature", async () => {
    expect(unverifiedAssertionIssuer(await assertion(stranger))).toBe(CLIENT_ID);
  });

  it.each([
    ["not a JWT", () => "not-a-jwt"],
    ["a JWT without iss", () => assertion(es256, { iss: undefined })],
    ["a JWT with a numeric iss", () => assertion(es256, { iss: 42 })],
    ["a JWT longer than the limit", () => assertion(es256, { padding: "a".repeat(MAX_JWT_LENGTH) })],
  ])("gives undefined for %s", async (_what, make) => {
    expect(unverifiedAssertionIssuer(await make())).toBeUndefined();
  });
});
