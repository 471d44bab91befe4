/**
 * The platform: Tollgate runs on the Node of package.json's engines (Node 24, from
 * node_modules/.bin where the machine's own Node is older), `npm start` on a built tree only
 * starts the server, and a stale build is noticed and rebuilt (scripts/build-state.mjs).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/free-port.js";
import { requiredNodeMajor } from "./support/runtime.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUILD_STATE = path.join(ROOT, "scripts/build-state.mjs");
const temp = mkdtempSync(path.join(tmpdir(), "tollgate-runtime-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("runtime", () => {
  it("runs on the Node that package.json's engines asks for, with native modules built for it", async () => {
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(requiredNodeMajor());
    const { default: Database } = await import("better-sqlite3");
    expect(new Database(":memory:").prepare("select 1 + 1 as two").get()).toEqual({ two: 2 });
  });

  it("npm start on a built tree answers /healthz within 3 s and names its Node in the banner", { timeout: 180_000 }, async () => {
    // The tree is built as npm test builds it; a stale build would be rebuilt here, not timed.
    expect(spawnSync("node", [BUILD_STATE, "ensure"], { cwd: ROOT, stdio: "inherit" }).status).toBe(0);
    const port = await freePort();
    const started = performance.now();
    const child = spawn("npm", ["start", "--silent"], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DEMO_UPSTREAM_PORT: "0", BASE_URL: `http://127.0.0.1:${port}`, DATABASE_URL: `file:${path.join(temp, "start.db")}`, LOG_LEVEL: "warn" },
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      let healthy = false;
      while (!healthy && performance.now() - started < 30_000) {
        healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        if (!healthy) await new Promise((r) => setTimeout(r, 25));
      }
      const seconds = (performance.now() - started) / 1000;
      expect(healthy, output).toBe(true);
      expect(output).not.toContain("Building first");
      expect(seconds, `npm start took ${seconds.toFixed(2)} s to answer /healthz`).toBeLessThan(3);
      await expect.poll(() => output).toContain(`Node ${process.version}`);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
  });
});

describe("build state (scripts/build-state.mjs)", () => {
  /** A project whose build records that it ran, then stamps; `fail` makes the build fail. */
  function project(name: string, fail = false): string {
    const dir = path.join(temp, name);
    mkdirSync(path.join(dir, "server/src"), { recursive: true });
    mkdirSync(path.join(dir, "dist"));
    writeFileSync(path.join(dir, "server/src/main.ts"), "export {};\n");
    const build = fail ? "exit 3" : `node -e "require('fs').writeFileSync('built', '')" && node ${JSON.stringify(BUILD_STATE)} stamp`;
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, scripts: { build } }));
    return dir;
  }
  const ensure = (cwd: string) => spawnSync("node", [BUILD_STATE, "ensure"], { cwd, encoding: "utf8" });

  it("builds when there is no build, then starts without building until a source changes", () => {
    const dir = project("fresh");
    const first = ensure(dir);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("Building first (no build yet)");
    expect(existsSync(path.join(dir, "built"))).toBe(true);

    rmSync(path.join(dir, "built"));
    const second = ensure(dir);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe("");
    expect(existsSync(path.join(dir, "built"))).toBe(false);

    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, "server/src/main.ts"), later, later);
    const third = ensure(dir);
    expect(third.status).toBe(0);
    expect(third.stdout).toContain(`Building first (${path.join("server/src", "main.ts")} changed since the last build)`);
    expect(existsSync(path.join(dir, "built"))).toBe(true);
  });

  it("stops with the build's status and says what to run when the build fails", () => {
    const result = ensure(project("broken", true));
    expect(result.status).toBe(3);
    expect(result.stderr).toContain("run `npm run build`");
  });
});
