/**
 * Whether `dist/` is a build of the sources, so that `npm start` only starts the server.
 *
 *   node scripts/build-state.mjs stamp    after a build (the last step of `npm run build`):
 *                                         records that dist/ holds a build of the sources as they are
 *   node scripts/build-state.mjs ensure   before a start: when a source is newer than the stamp
 *                                         (or there is no stamp), says so and runs `npm run build`;
 *                                         exits non-zero if that build fails
 *
 * Sources are everything the build reads: server/src, web/, prisma/, the TypeScript and
 * code-generation configs, package.json and package-lock.json. Plain JavaScript, so that it
 * runs before anything is compiled, on any Node.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const STAMP = "dist/.build-stamp";
const SOURCES = ["server/src", "web", "prisma", "tsconfig.json", "tsconfig.build.json", "codegen.ts", "prisma.config.ts", "package.json", "package-lock.json"];
/** Outputs and data inside the source folders, which a build or a run writes. */
const SKIP = new Set(["node_modules", "dist", "data", "generated"]);

/** @returns the newest modification time (milliseconds) under `path`, and the file that has it. */
function newest(path) {
  if (!existsSync(path)) return { mtimeMs: 0, file: path };
  const stat = statSync(path);
  if (!stat.isDirectory()) return { mtimeMs: stat.mtimeMs, file: path };
  let best = { mtimeMs: 0, file: path };
  for (const entry of readdirSync(path)) {
    if (SKIP.has(entry) || entry.endsWith(".db") || entry.includes(".db-")) continue;
    const candidate = newest(join(path, entry));
    if (candidate.mtimeMs > best.mtimeMs) best = candidate;
  }
  return best;
}

/** @returns why dist/ is stale, or undefined when it holds a build of the sources as they are. */
function staleness() {
  if (!existsSync(STAMP)) return "no build yet";
  const stampMs = statSync(STAMP).mtimeMs;
  const latest = SOURCES.map(newest).reduce((a, b) => (b.mtimeMs > a.mtimeMs ? b : a));
  return latest.mtimeMs > stampMs ? `${latest.file} changed since the last build` : undefined;
}

const command = process.argv[2];
if (command === "stamp") {
  writeFileSync(STAMP, `built ${new Date().toISOString()} on Node ${process.version}\n`);
  const now = new Date();
  utimesSync(STAMP, now, now);
} else if (command === "ensure") {
  const reason = staleness();
  if (reason) {
    console.log(`Building first (${reason}): npm run build`);
    const build = spawnSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
    if (build.status !== 0) {
      console.error("The build failed: fix the error above, or run `npm run build` to see it again.");
      process.exit(build.status ?? 1);
    }
  }
} else {
  console.error("usage: node scripts/build-state.mjs stamp|ensure");
  process.exit(2);
}
