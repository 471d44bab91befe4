/**
 * For bench/callgrind.ts: `signIdToken` (server/src/oauth/id-token.ts) alone, the ID token
 * signing of a code exchange with `openid`, so that callgrind counts one signature's
 * instructions apart from the exchange around it. The keyring is made as the server makes it
 * (server/src/keys/keyring.ts createKeyring; the envelope backend over the tests'
 * key-encryption key, server/test/fixtures/test.kek; the rotation settings of the default
 * configuration), its key rows kept in memory rather than in a database: its first rotation
 * makes a current and a next key of PS256 (RSA 2048) and of ES256 (P-256), as on a first
 * start. The claims are those of a code exchange of the demo strict app (an access token, a
 * nonce, alice's authentication with her password and passkey).
 * A node:http server on 127.0.0.1 (any free port): `POST /sign?alg=PS256&count=500` signs
 * `count` ID tokens with `alg` (PS256 or ES256) one after the other, each awaited (node:crypto
 * signs on the thread pool), and answers 200 once they are signed. Prints `listening on
 * <url>` once each algorithm has signed one (its key made and opened).
 * Env: none.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pino } from "pino";
import { loadConfig } from "../server/src/config.js";
import { DEMO } from "../server/src/demo/seed.js";
import { ACR_SCA } from "../server/src/kernel/acr.js";
import { loadKeyEncryption } from "../server/src/kernel/key-encryption.js";
import { envelopeBackend } from "../server/src/keys/envelope.js";
import { createKeyring } from "../server/src/keys/keyring.js";
import { rotationSettings } from "../server/src/keys/setup.js";
import { signIdToken, type IdTokenClaims } from "../server/src/oauth/id-token.js";
import { OWN_SIGNING_ALGORITHMS, type OwnSigningAlgorithm, type SigningKeyRecord, type SigningKeyStore } from "../server/src/stores/signing-keys.js";

/** The key rows of the keyring: what a first rotation and signing use of a SigningKeyStore (one next and one current key per algorithm). */
function memoryKeyStore(): SigningKeyStore {
  const keys: SigningKeyRecord[] = [];
  const unused = async (): Promise<never> => {
    throw new Error("not used by a first rotation");
  };
  return {
    list: async () => [...keys],
    async insertIfVacant(key, now) {
      if (keys.some((k) => k.alg === key.alg && k.state === key.state)) return false;
      keys.push({ ...key, activatedAt: key.state === "current" ? now : null, retiredAt: null, signedUntil: null });
      return true;
    },
    async extendSignedUntil(kid, until) {
      const key = keys.find((k) => k.kid === kid);
      if (key && (key.signedUntil === null || key.signedUntil < until)) key.signedUntil = until;
    },
    promote: unused,
    replacePrivateRef: unused,
    deleteRetired: unused,
  };
}

const backend = envelopeBackend(loadKeyEncryption(path.resolve(import.meta.dirname, "../server/test/fixtures/test.kek"), false).encryption);
const keyring = createKeyring(memoryKeyStore(), { current: backend, byName: new Map([[backend.name, backend]]) }, rotationSettings(loadConfig({})), pino({ level: "silent" }));
keyring.start();

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const alg = url.searchParams.get("alg") as OwnSigningAlgorithm;
  const count = Number(url.searchParams.get("count"));
  if (req.method !== "POST" || url.pathname !== "/sign" || !OWN_SIGNING_ALGORITHMS.includes(alg) || !Number.isInteger(count)) {
    res.writeHead(400).end();
    return;
  }
  await sign(alg, count);
  res.writeHead(200, { "content-type": "text/plain" }).end(`signed ${count}`);
});

/** A code exchange's claims at this server, with `alg`. */
const claims = (alg: OwnSigningAlgorithm): IdTokenClaims => ({
  issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  subject: randomUUID(),
  clientId: DEMO.strictApp.consumerKey,
  alg,
  accessToken: randomBytes(40).toString("base64url"),
  nonce: randomBytes(16).toString("base64url"),
  authentication: { acr: ACR_SCA, amr: ["pwd", "hwk"], authTime: new Date() },
  now: new Date(),
});

/** Signs `count` ID tokens of the same claims with `alg`, one after the other, each at its own time. */
async function sign(alg: OwnSigningAlgorithm, count: number): Promise<void> {
  const same = claims(alg);
  for (let i = 0; i < count; i++) await signIdToken(keyring, { ...same, now: new Date() });
}

server.keepAliveTimeout = 65_000;
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
await keyring.ready();
for (const alg of OWN_SIGNING_ALGORITHMS) await sign(alg, 1);
console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
