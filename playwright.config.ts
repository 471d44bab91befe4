/**
 * Browser journeys in Debian's Chromium (`npx playwright install` cannot run here): the
 * built server (run `npm run build` first, started as npm start runs it) on a fresh database (SQLite, or PostgreSQL with
 * E2E_DATABASE=postgresql) with the demo seed,
 * driven over real HTTP, with a relying-party app (e2e/support/relying-party.ts) playing
 * the third-party client.
 */
import { defineConfig } from "@playwright/test";
import { AUDIT_REFUSAL_FLUSH_SECONDS, DATABASE_URL, DB_DIR, JWKS_MAX_AGE_SECONDS, KEK_FILE, POSTGRES_ADMIN_URL, POSTGRES_DB, SCA_IDLE_SECONDS, TOLLGATE_PORT, TOLLGATE_URL } from "./e2e/support/env.js";
import { assertSupportedRuntime } from "./server/test/support/runtime.js";
import { SERVER_ENTRY, serverNodeFlags } from "./server/test/support/start-command.js";

assertSupportedRuntime();

export const BASE_URL = TOLLGATE_URL;

/**
 * Starts from an empty database: removes the e2e SQLite directory (left by the previous
 * run) and creates it empty, or drops and creates the e2e PostgreSQL database.
 */
const resetDb = `node -e ${JSON.stringify(
  DATABASE_URL.startsWith("file:")
    ? `const fs = require("node:fs"); fs.rmSync(${JSON.stringify(DB_DIR)}, { recursive: true, force: true }); fs.mkdirSync(${JSON.stringify(DB_DIR)}, { recursive: true });`
    : `const pg = require("pg"); const c = new pg.Client({ connectionString: ${JSON.stringify(POSTGRES_ADMIN_URL)} }); c.connect().then(() => c.query("DROP DATABASE IF EXISTS ${POSTGRES_DB} WITH (FORCE)")).then(() => c.query("CREATE DATABASE ${POSTGRES_DB}")).then(() => c.end(), (e) => { console.error(e); process.exit(1); });`,
)}`;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  // One worker: the journeys share one server, one database and one end user (alice).
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.CI ? "list" : "line",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [
    { name: "desktop", use: { viewport: { width: 1280, height: 720 } } },
    // The console's staff journeys once more on a phone's width (tests tagged @phone).
    { name: "phone", use: { viewport: { width: 390, height: 844 } }, grep: /@phone/ },
  ],
  webServer: {
    // As npm start runs it.
    command: `${resetDb} && node ${[...serverNodeFlags(), SERVER_ENTRY].join(" ")}`,
    url: `${BASE_URL}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      PORT: String(TOLLGATE_PORT),
      HOST: "127.0.0.1",
      BASE_URL,
      DEMO_UPSTREAM_PORT: String(TOLLGATE_PORT + 1),
      DATABASE_URL,
      KEY_ENCRYPTION_KEY_FILE: KEK_FILE,
      // A day: the next keys made at start may not sign during the run, whatever its length (e2e/keys.spec.ts).
      JWKS_MAX_AGE_SECONDS: String(JWKS_MAX_AGE_SECONDS),
      SEED_DEMO: "true",
      LOG_LEVEL: "warn",
      // Short, so that e2e/sca.spec.ts can wait it out (see env.ts).
      SCA_IDLE_SECONDS: String(SCA_IDLE_SECONDS),
      AUDIT_REFUSAL_FLUSH_SECONDS: String(AUDIT_REFUSAL_FLUSH_SECONDS),
      // Dynamic registrations wait for an admin's approval (e2e/tpp.spec.ts).
      REGISTRATION_REQUIRES_APPROVAL: "true",
      // Metrics on: the dashboard's latency per API reads their histograms (e2e/registration-queue.spec.ts).
      METRICS_PORT: String(TOLLGATE_PORT + 2),
    },
  },
});
