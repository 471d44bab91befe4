/**
 * Browser journeys in Debian's Chromium (`npx playwright install` cannot run here): the
 * built server on a fresh SQLite file with the demo seed, driven over real HTTP.
 */
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? "list" : "line",
  timeout: 30_000,
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: {
    command: "node dist/server/src/main.js",
    url: `${BASE_URL}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      PORT: String(PORT),
      BASE_URL,
      DEMO_UPSTREAM_PORT: String(PORT + 1),
      DATABASE_URL: `file:${path.join(tmpdir(), `tollgate-e2e-${process.pid}-${Date.now()}.db`)}`,
      LOG_LEVEL: "warn",
    },
  },
});
