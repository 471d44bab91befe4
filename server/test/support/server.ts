/**
 * Starts a real Tollgate server for an HTTP suite on a fresh database, with migrations, the
 * demo seed and the demo upstream, all on 127.0.0.1 ports chosen by the OS.
 *
 * The database is a new SQLite file in a temp directory, or, when TEST_DATABASE=postgresql,
 * a new PostgreSQL database on the server of TEST_POSTGRES_URL (default
 * postgresql://root@127.0.0.1:5432/postgres), dropped again on close. `npm test` runs the
 * suites once on each.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { hash } from "@node-rs/argon2";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { sqliteFilePath } from "../../src/db/migrate.js";
import { DEMO } from "../../src/demo/seed.js";
import { hashSecret } from "../../src/kernel/secrets.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { rememberPasskey, type DemoClient } from "./flow.js";
import { SoftwarePasskey } from "./passkey.js";

/** A running test server, its temp directory, its AUTH_URL (the OAuth issuer, and the WebAuthn origin) and its key-encryption key file. */
export type TestServer = RunningServer & { dir: string; authUrl: string; kekFile: string };

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

/** Runs one statement on the PostgreSQL server's maintenance database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database for one server. @returns its URL and how to remove it. */
export async function freshDatabase(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE !== "postgresql") return { url: `file:${path.join(dir, "tollgate.db")}`, drop: async () => {} };
  const name = `tollgate_test_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * Gives a user a software passkey on a running server, so the suites can sign them in with
 * two factors as often as they need (`answerFactor` in flow.ts); a TOTP key accepts one code
 * per 30-s step. The demo user gets one on every freshly seeded test server.
 * @returns the passkey, for the server's WebAuthn origin (its AUTH_URL).
 */
export async function enrolPasskey(server: TestServer, username: string): Promise<SoftwarePasskey> {
  const user = await server.db.users.byUsername(username);
  if (!user) throw new Error(`no user ${username}`);
  const passkey = new SoftwarePasskey({ origin: server.authUrl });
  await server.db.factors.insert(passkey.factor(user.id), new Date());
  rememberPasskey(server.url, username, passkey);
  return passkey;
}

/** A user made by {@link createUser}: the id and the credentials to sign in with. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
}

/**
 * Creates an active user (role `user` unless told) on a running server, with a software
 * passkey when `passkey` is set: such a user can sign in for a PSD2 scope (password and
 * second factor, `answerFactor` in flow.ts); one without a factor signs in with the password
 * alone where no SCA is required, and is refused a PSD2 scope (access_denied).
 * @param o - `username` defaults to a fresh `<prefix>-<random>` name (prefix "user"), `password` to one made from it.
 */
export async function createUser(
  server: TestServer,
  o: { prefix?: string; username?: string; password?: string; role?: "user" | "admin" | "support" | "auditor"; passkey?: boolean } = {},
): Promise<TestUser> {
  const username = o.username ?? `${o.prefix ?? "user"}-${randomBytes(5).toString("hex")}`;
  const password = o.password ?? `${username}-password`;
  const row = await server.prisma.user.create({ data: { username, passwordHash: await hash(password), role: o.role ?? "user" } });
  if (o.passkey) await enrolPasskey(server, username);
  return { id: row.id, username, password };
}

/**
 * Registers an app of the demo developer whose only API product does not require SCA
 * (`requiresSca` false) and offers `scopes`: its authorization requests need no second
 * factor in this authentication, so a user without a factor signs in with the password alone,
 * and a browser's sign-in is reused (for the consent page only within the inactivity limit).
 * For the suites whose point is a password-only sign-in or a reused session, which a request
 * for a PSD2 product (`requiresSca`) never gets. The app is like DEMO.app otherwise: apigee
 * token responses, PKCE optional, client_secret_basic, the demo callback.
 * @param o - `scopes`: the product's scopes, space-separated demo scopes (they have consent descriptions); default "aisp pisp piisp".
 * @returns the app's client credentials.
 */
export async function createPasswordOnlyApp(server: TestServer, o: { scopes?: string } = {}): Promise<DemoClient> {
  const suffix = randomBytes(5).toString("hex");
  const product = await server.prisma.apiProduct.create({
    data: { name: `No-SCA-${suffix}`, displayName: "Without strong customer authentication", scopes: o.scopes ?? "aisp pisp piisp", requiresSca: false },
  });
  const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
  const client = { consumerKey: `no-sca-key-${suffix}`, consumerSecret: `no-sca-secret-${randomBytes(12).toString("hex")}` };
  await server.prisma.app.create({
    data: {
      name: `No SCA app ${suffix}`,
      developerId: developer.id,
      tokenResponseProfile: "apigee",
      requirePkce: false,
      callbackUrls: { create: [{ url: DEMO.callbackUrl }] },
      credentials: {
        create: [{ consumerKey: client.consumerKey, consumerSecretHash: hashSecret(client.consumerSecret), products: { create: [{ apiProductId: product.id }] } }],
      },
    },
  });
  return client;
}

/** The key-encryption key file of the test servers on PostgreSQL. */
export const TEST_KEK_FILE = path.resolve(import.meta.dirname, "../fixtures/test.kek");

/** @param env - extra environment settings (see server/src/config.ts); a DATABASE_URL here is used as given. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-test-"));
  const database = env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => {} } : await freshDatabase(dir);
  const config = loadConfig({
    PORT: "0",
    DEMO_UPSTREAM_PORT: "0",
    DATABASE_URL: database.url,
    LOG_LEVEL: "silent",
    // SQLite: the key-encryption key file beside the database, made on start; PostgreSQL needs one, shared by every instance.
    ...(database.url.startsWith("file:") ? {} : { KEY_ENCRYPTION_KEY_FILE: TEST_KEK_FILE }),
    ...env,
  });
  const running = await startServer(config);
  const server: TestServer = {
    ...running,
    dir,
    authUrl: config.authUrl,
    kekFile: config.keys.kekFile ?? `${sqliteFilePath(config.databaseUrl)}.kek`,
    async close() {
      await running.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // The demo PSU and administrator sign in with a second factor: a passkey here (their TOTP keys' codes are good once per 30 s).
  if (running.seeded) for (const username of [DEMO.user.username, DEMO.admin.username]) await enrolPasskey(server, username);
  return server;
}
