/**
 * Where the browser journeys find Tollgate. Shared by playwright.config.ts (which starts
 * the built server on these values) and the fixtures (which reach its database): a SQLite
 * file, or with E2E_DATABASE=postgresql a PostgreSQL database on E2E_POSTGRES_URL's server.
 *
 * The database path is deterministic so that the fixtures can open the very file the
 * server uses; the webServer command deletes its directory before every start, so each
 * `npx playwright test` begins with a freshly migrated and seeded database. The port is
 * part of the directory name, so runs on different ports never share a file.
 */
import { tmpdir } from "node:os";
import path from "node:path";

/** Tollgate's HTTP port; the demo upstream listens on the next one. */
export const TOLLGATE_PORT = Number(process.env.E2E_PORT ?? 3100);

/**
 * Tollgate's origin ({base_url} and {auth_url}, and the OAuth issuer). The host is
 * `localhost`, not 127.0.0.1: the WebAuthn RP ID is AUTH_URL's host name, and browsers refuse
 * an IP address as an RP ID (Chromium: "SecurityError: This is an invalid domain"), so passkeys
 * would not work. `localhost` is a secure context over http, as WebAuthn requires. The server
 * still listens on 127.0.0.1 (playwright.config.ts), which `localhost` reaches.
 */
export const TOLLGATE_URL = `http://localhost:${TOLLGATE_PORT}`;

/** Directory holding the e2e database (and its -wal/-shm files); removed before each server start. */
export const DB_DIR = path.join(tmpdir(), `tollgate-e2e-${TOLLGATE_PORT}`);

/** The e2e SQLite file. */
export const DB_FILE = path.join(DB_DIR, "tollgate.db");

/** The PostgreSQL server's maintenance database, when E2E_DATABASE=postgresql. */
export const POSTGRES_ADMIN_URL = process.env.E2E_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

/** The e2e PostgreSQL database, dropped and created again before each server start. */
export const POSTGRES_DB = `tollgate_e2e_${TOLLGATE_PORT}`;

/** The e2e server's key-encryption key file (KEY_ENCRYPTION_KEY_FILE), which the fixtures seal TOTP keys with too: the tests' own. */
export const KEK_FILE = path.resolve(import.meta.dirname, "../../server/test/fixtures/test.kek");

/** The e2e server's JWKS_MAX_AGE_SECONDS: a day, so that a next signing key made at its start cannot sign before the run ends. */
export const JWKS_MAX_AGE_SECONDS = 86_400;

/** DATABASE_URL given to the server and used by the fixtures. */
export const DATABASE_URL =
  process.env.E2E_DATABASE === "postgresql"
    ? Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${POSTGRES_DB}` }).toString()
    : `file:${DB_FILE}`;

/**
 * The e2e server's SCA_IDLE_SECONDS: the inactivity allowed between authenticating and
 * consenting (PSD2 RTS Art. 4(3)(d), 300 s in production), also how long a sign-in counts as
 * fresh for changing sign-in methods. Short enough for a journey to wait it out, long enough
 * for the other journeys to sign in, run their accessibility checks and consent.
 */
export const SCA_IDLE_SECONDS = 15;

/**
 * The e2e server's AUDIT_REFUSAL_FLUSH_SECONDS: refused requests (failed client
 * authentications among them) reach the audit log, and the console's dashboard, on the next
 * flush; e2e/console.spec.ts waits for it.
 */
export const AUDIT_REFUSAL_FLUSH_SECONDS = 1;
