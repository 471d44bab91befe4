/**
 * This server's signing keys on a real server and database: the JWK Set and its metadata,
 * no private key in clear in any row, signing verified against the published JWK Set, the
 * rotation's life cycle (next published before it signs, retired kept while what it signed
 * lives, one winner among racing instances), and TOTP keys sealed at rest.
 */
import { createPrivateKey, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyEncryption } from "../src/kernel/key-encryption.js";
import { KeyBackendUnavailable } from "../src/keys/backend.js";
import { envelopeBackend } from "../src/keys/envelope.js";
import { rotateKeys, type Backends, type RotationSettings } from "../src/keys/rotation.js";
import type { SigningKeyRecord } from "../src/stores/signing-keys.js";
import { DEMO } from "../src/demo/seed.js";
import { freshDatabase, startTestServer, type TestServer } from "./support/server.js";
import { softHsmToken } from "./support/softhsm.js";

const DAY_MS = 86_400_000;
/** The rotation of a default server: 90 days, a lead of JWKS_MAX_AGE_SECONDS (900) + 60, a grace of 120. */
const SETTINGS: RotationSettings = { rotationDays: 90, leadSeconds: 960, retiredGraceSeconds: 120 };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.keyring.ready();
});
afterAll(() => server?.close());

/** The envelope backend over the server's key-encryption key file. */
const backendsOf = (s: TestServer): Backends => {
  const backend = envelopeBackend(loadKeyEncryption(s.kekFile, false).encryption);
  return { current: backend, byName: new Map([[backend.name, backend]]) };
};

const byState = (keys: SigningKeyRecord[], alg: string, state: string) => keys.filter((k) => k.alg === alg && k.state === state);

describe("the JWK Set", () => {
  it("publishes a current and a next key of PS256 and ES256, public members only, at the metadata's jwks_uri", async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as { jwks_uri: string };
    expect(metadata.jwks_uri).toBe(`${server.authUrl}/oauth2/v1/jwks`);
    const res = await fetch(`${server.url}/oauth2/v1/jwks`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/jwk-set\+json/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=900");
    const { keys } = (await res.json()) as JSONWebKeySet;
    const stored = await server.db.signingKeys.list();
    expect(keys.map((k) => k.kid).sort()).toEqual(stored.map((k) => k.kid).sort());
    for (const alg of ["PS256", "ES256"]) {
      expect(byState(stored, alg, "current")).toHaveLength(1);
      expect(byState(stored, alg, "next")).toHaveLength(1);
    }
    for (const key of keys) {
      expect(key.use).toBe("sig");
      expect(key.kid).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Object.keys(key).filter((m) => ["d", "p", "q", "dp", "dq", "qi", "k"].includes(m))).toEqual([]);
      expect(key.alg === "ES256" ? { kty: key.kty, crv: key.crv } : { kty: key.kty, e: key.e }).toEqual(key.alg === "ES256" ? { kty: "EC", crv: "P-256" } : { kty: "RSA", e: "AQAB" });
    }
  });
});

describe("private keys at rest", () => {
  it("no key row holds private key material in clear: each holds only a sealed value, which opens to the key for its kid alone", async () => {
    const encryption = loadKeyEncryption(server.kekFile, false).encryption;
    const rows = (await server.prisma.signingKey.findMany()) as Record<string, unknown>[];
    expect(rows.length).toBe(4);
    for (const row of rows) {
      const privateRef = String(row.privateRef);
      expect(row.backend).toBe("envelope");
      expect(encryption.isSealed(privateRef)).toBe(true);
      const pkcs8 = encryption.open(privateRef, `signing-key:${String(row.kid)}`);
      const jwk = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({ format: "jwk" });
      const clearForms = [pkcs8.toString("base64"), pkcs8.toString("base64url"), pkcs8.toString("hex"), jwk.d!];
      const rowText = JSON.stringify(row);
      for (const form of clearForms) expect(rowText).not.toContain(form.slice(0, 40));
      expect(() => encryption.open(privateRef, "signing-key:another-kid")).toThrow();
    }
  });
});

describe("signing", () => {
  it("signs a JWT with the current key of each algorithm, verified against the published JWK Set", async () => {
    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/oauth2/v1/jwks`)).json()) as JSONWebKeySet);
    const keys = await server.db.signingKeys.list();
    for (const alg of ["PS256", "ES256"] as const) {
      const exp = Math.floor(Date.now() / 1000) + 300;
      const jws = await server.keyring.sign({ alg, typ: "JWT", payload: { iss: server.authUrl, sub: "alice", exp }, expiresAt: new Date(exp * 1000) });
      const { payload, protectedHeader } = await jwtVerify(jws, jwks, { issuer: server.authUrl, algorithms: [alg] });
      expect(payload.sub).toBe("alice");
      expect(protectedHeader).toEqual({ alg, kid: byState(keys, alg, "current")[0]!.kid, typ: "JWT" });
    }
    // What it signed keeps the key published: signedUntil covers the exp.
    const signed = byState(await server.db.signingKeys.list(), "ES256", "current")[0]!;
    expect(signed.signedUntil!.getTime()).toBeGreaterThanOrEqual(Date.now() + 300_000);
  });
});

describe("rotation", () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer({ SEED_DEMO: "false", PURGE_INTERVAL_SECONDS: "0" });
    await other.keyring.ready();
  });
  afterAll(() => other?.close());

  it("a next key becomes current only after its lead, when the current key is due or an admin asks; a retired key stays until what it signed expired", async () => {
    const store = other.db.signingKeys;
    const backends = backendsOf(other);
    const start = await store.list();
    const next = byState(start, "ES256", "next")[0]!;
    const current = byState(start, "ES256", "current")[0]!;
    const created = next.createdAt.getTime();

    // Asked for, but the next key has been published for less than the lead: nothing moves.
    const early = await rotateKeys(store, backends, SETTINGS, new Date(created + 959_000), new Set(["ES256"]));
    expect(early.promoted).toEqual([]);

    // Lead over, asked for: the next key is current, the old one retired, and a new next key is made.
    const at = new Date(created + 960_000);
    const asked = await rotateKeys(store, backends, SETTINGS, at, new Set(["ES256"]));
    expect(asked.promoted).toEqual([next.kid]);
    let keys = await store.list();
    expect(byState(keys, "ES256", "current").map((k) => k.kid)).toEqual([next.kid]);
    expect(byState(keys, "ES256", "retired").map((k) => k.kid)).toEqual([current.kid]);
    expect(byState(keys, "ES256", "next")).toHaveLength(1);
    expect(asked.created).toEqual([byState(keys, "ES256", "next")[0]!.kid]);
    // PS256 was neither due nor asked for.
    expect(byState(keys, "PS256", "current").map((k) => k.kid)).toEqual(byState(start, "PS256", "current").map((k) => k.kid));

    // The retired key signed something that lives a day: it stays published past its grace, and goes after.
    await store.extendSignedUntil(current.kid, new Date(at.getTime() + DAY_MS));
    expect((await rotateKeys(store, backends, SETTINGS, new Date(at.getTime() + DAY_MS - 1000))).removed).toEqual([]);
    expect((await rotateKeys(store, backends, SETTINGS, new Date(at.getTime() + DAY_MS))).removed).toEqual([current.kid]);
    keys = await store.list();
    expect(keys.map((k) => k.kid)).not.toContain(current.kid);

    // Scheduled: 90 days after it became current, PS256's key gives way without anyone asking.
    const ps = byState(keys, "PS256", "current")[0]!;
    const due = new Date(ps.activatedAt!.getTime() + 90 * DAY_MS);
    expect((await rotateKeys(store, backends, SETTINGS, new Date(due.getTime() - 1000))).promoted).toEqual([]);
    expect((await rotateKeys(store, backends, SETTINGS, due)).promoted).toEqual([byState(keys, "PS256", "next")[0]!.kid]);
  });

  it("instances racing through the same rotation leave one current and one next key per algorithm, promoted once", async () => {
    const store = other.db.signingKeys;
    const before = await store.list();
    const at = new Date(Math.max(...before.map((k) => k.createdAt.getTime())) + 200 * DAY_MS);
    const runs = await Promise.all([0, 1, 2, 3].map(() => rotateKeys(store, backendsOf(other), SETTINGS, at, new Set(["ES256", "PS256"]))));
    const promoted = runs.flatMap((r) => r.promoted);
    expect(promoted.sort()).toEqual([byState(before, "ES256", "next")[0]!.kid, byState(before, "PS256", "next")[0]!.kid].sort());
    const after = await store.list();
    for (const alg of ["PS256", "ES256"]) {
      expect(byState(after, alg, "current")).toHaveLength(1);
      expect(byState(after, alg, "next")).toHaveLength(1);
    }
    // Every key made by a run that lost its insert is gone: the rows are the winners' only.
    expect(runs.flatMap((r) => r.created).sort()).toEqual(after.filter((k) => k.createdAt.getTime() === at.getTime()).map((k) => k.kid).sort());
  });
});

describe("TOTP keys at rest", () => {
  it("are stored sealed for their user, handed out in clear, and do not open for another user", async () => {
    const user = (await server.db.users.byUsername(DEMO.user.username))!;
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const factor = await server.db.factors.insert({ type: "totp", userId: user.id, name: "Phone", secret, lastTimeStep: 0 }, new Date());
    try {
      const row = await server.prisma.userFactor.findUniqueOrThrow({ where: { id: factor.id } });
      expect(row.secret).toMatch(/^kek1\./);
      expect(row.secret).not.toContain(secret);
      expect((await server.db.factors.totpFactors(user.id)).find((f) => f.id === factor.id)?.secret).toBe(secret);
      const encryption = loadKeyEncryption(server.kekFile, false).encryption;
      expect(() => encryption.open(row.secret!, "totp:another-user")).toThrow();
    } finally {
      await server.db.factors.delete(user.id, factor.id);
    }
  });

  it("a TOTP key stored in clear before keys were sealed is sealed at the next start; KEK rotation seals TOTP and signing keys again under the new key", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tollgate-totp-"));
    const database = await freshDatabase(dir);
    const kekFile = path.join(dir, "kek");
    const [oldKek, newKek] = [randomBytes(32).toString("base64"), randomBytes(32).toString("base64")];
    /** Writes the KEK file and (re)starts a server on the one database. */
    const restart = async (lines: string[]) => {
      writeFileSync(kekFile, `${lines.join("\n")}\n`, { mode: 0o600 });
      const started = await startTestServer({ DATABASE_URL: database.url, KEY_ENCRYPTION_KEY_FILE: kekFile, PURGE_INTERVAL_SECONDS: "0" });
      await started.keyring.ready();
      return started;
    };
    const secretOf = async (s: TestServer, id: string) => (await s.prisma.userFactor.findUniqueOrThrow({ where: { id } })).secret!;
    let running = await restart([oldKek]);
    try {
      const user = (await running.db.users.byUsername(DEMO.user.username))!;
      const clear = await running.prisma.userFactor.create({ data: { userId: user.id, type: "totp", name: "Old phone", secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" } });
      await running.close();

      running = await restart([oldKek]);
      const sealedOld = await secretOf(running, clear.id);
      expect(sealedOld).toMatch(/^kek1\./);
      expect((await running.db.factors.totpFactors(user.id)).find((f) => f.id === clear.id)?.secret).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
      const keysOld = await running.prisma.signingKey.findMany({ orderBy: { kid: "asc" } });
      await running.close();

      // KEK rotation, step 2: the new key first, the old one still listed. Everything is sealed again under the new key.
      running = await restart([newKek, oldKek]);
      const sealedNew = await secretOf(running, clear.id);
      expect(sealedNew.split(".")[1]).not.toBe(sealedOld.split(".")[1]);
      const keysNew = await running.prisma.signingKey.findMany({ orderBy: { kid: "asc" } });
      expect(keysNew.map((k) => k.kid)).toEqual(keysOld.map((k) => k.kid));
      for (const [i, key] of keysNew.entries()) expect(key.privateRef.split(".")[1]).not.toBe(keysOld[i]!.privateRef.split(".")[1]);
      await running.close();

      // Step 3: the old line goes; the TOTP key and every signing key still open.
      running = await restart([newKek]);
      expect((await running.db.factors.totpFactors(user.id)).find((f) => f.id === clear.id)?.secret).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
      const jwks = createLocalJWKSet((await (await fetch(`${running.url}/oauth2/v1/jwks`)).json()) as JSONWebKeySet);
      for (const alg of ["ES256", "PS256"] as const) {
        const jws = await running.keyring.sign({ alg, typ: "JWT", payload: { sub: "after KEK rotation" }, expiresAt: new Date(Date.now() + 60_000) });
        expect((await jwtVerify(jws, jwks)).payload.sub).toBe("after KEK rotation");
      }
    } finally {
      await running.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("with a PKCS#11 token (SoftHSM2)", () => {
  it("makes every key in the token: the database holds no private key at all, signing works, and a token gone is 503 at /readyz until it is back", async () => {
    const token = softHsmToken("tollgate-server", "pin-7f3a9c");
    const hsm = await startTestServer({
      SEED_DEMO: "false",
      PURGE_INTERVAL_SECONDS: "0",
      PKCS11_MODULE: token.settings.module,
      PKCS11_TOKEN_LABEL: token.settings.tokenLabel,
      PKCS11_PIN: token.settings.pin,
    });
    try {
      await hsm.keyring.ready();
      const rows = await hsm.prisma.signingKey.findMany();
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        expect(row.backend).toBe("pkcs11");
        // The reference is the objects' CKA_ID, the kid's own bytes: nothing of the private key.
        expect(Buffer.from(row.privateRef, "hex").toString("utf8")).toBe(row.kid);
        expect(Object.keys(JSON.parse(row.publicJwk) as object).sort()).toEqual(row.alg === "ES256" ? ["alg", "crv", "kid", "kty", "use", "x", "y"] : ["alg", "e", "kid", "kty", "n", "use"]);
      }
      const jwks = createLocalJWKSet((await (await fetch(`${hsm.url}/oauth2/v1/jwks`)).json()) as JSONWebKeySet);
      for (const alg of ["ES256", "PS256"] as const) {
        const jws = await hsm.keyring.sign({ alg, typ: "JWT", payload: { sub: "signed in the HSM" }, expiresAt: new Date(Date.now() + 60_000) });
        expect((await jwtVerify(jws, jwks, { algorithms: [alg] })).payload.sub).toBe("signed in the HSM");
      }
      expect((await fetch(`${hsm.url}/readyz`)).status).toBe(200);

      // The device goes away: /readyz says why, and nothing is signed.
      const saved = path.join(path.dirname(token.tokenDir), "saved");
      cpSync(token.tokenDir, saved, { recursive: true });
      rmSync(token.tokenDir, { recursive: true, force: true });
      const down = await fetch(`${hsm.url}/readyz`);
      expect(down.status).toBe(503);
      const body = (await down.json()) as { failed: string[]; checks: { name: string; error?: string }[] };
      expect(body.failed).toEqual(["signing keys"]);
      const reason = body.checks.find((c) => c.name === "signing keys")?.error;
      expect(reason).toMatch(/PKCS#11/);
      expect(reason).not.toContain("pin-7f3a9c");
      await expect(hsm.keyring.sign({ alg: "ES256", typ: "JWT", payload: {}, expiresAt: new Date(Date.now() + 60_000) })).rejects.toBeInstanceOf(KeyBackendUnavailable);

      // Back: ready again, and signing resumes.
      cpSync(saved, token.tokenDir, { recursive: true });
      expect((await fetch(`${hsm.url}/readyz`)).status).toBe(200);
      const jws = await hsm.keyring.sign({ alg: "ES256", typ: "JWT", payload: { sub: "after" }, expiresAt: new Date(Date.now() + 60_000) });
      expect((await jwtVerify(jws, jwks)).payload.sub).toBe("after");
    } finally {
      await hsm.close();
      token.remove();
    }
  });
});
