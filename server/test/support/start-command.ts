/**
 * How `npm start` runs the built server (package.json `scripts.start`), for the harnesses
 * that start it as a child process (bench/support.ts, playwright.config.ts), so that they
 * measure and test the server as it is run.
 */
import { readFileSync } from "node:fs";

/** The built server's entry point, relative to the repository root. */
export const SERVER_ENTRY = "dist/server/src/main.js";

/** The node flags before the entry point in `npm start` (e.g. the V8 heap limit). */
export function serverNodeFlags(): string[] {
  return startCommand()[2]!.split(" ").filter(Boolean);
}

/** The environment `npm start` sets for the server (`NAME=value` before `node`; none today). */
export function serverEnv(): Record<string, string> {
  return Object.fromEntries(startCommand()[1]!.split(" ").filter(Boolean).map((a) => a.split("=", 2) as [string, string]));
}

/** @throws if package.json's start script does not run `[NAME=value ...] node [flags] dist/server/src/main.js`. */
function startCommand(): RegExpExecArray {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { scripts: { start: string } };
  const match = /((?:\b[A-Z_]+=\S+ )*)\bnode((?: --\S+)*) dist\/server\/src\/main\.js\b/.exec(pkg.scripts.start);
  if (!match) throw new Error(`package.json scripts.start does not run node ${SERVER_ENTRY}: ${pkg.scripts.start}`);
  return match;
}
