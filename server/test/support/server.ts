/**
 * Starts a real Tollgate server for an HTTP suite: a fresh SQLite file in a temp
 * directory, migrations, the demo seed and the demo upstream, all on 127.0.0.1 ports
 * chosen by the OS.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server.js";

export type TestServer = RunningServer & { dir: string };

/** @param env - extra environment settings (see server/src/config.ts). */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-test-"));
  const config = loadConfig({
    PORT: "0",
    DEMO_UPSTREAM_PORT: "0",
    DATABASE_URL: `file:${path.join(dir, "tollgate.db")}`,
    LOG_LEVEL: "silent",
    ...env,
  });
  const running = await startServer(config);
  return {
    ...running,
    dir,
    async close() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
