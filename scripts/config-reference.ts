/**
 * `npm run docs:config`: rewrites the generated part of docs/configuration.md (between its
 * marker comments) from the settings' documentation in server/src/config.ts; the rest of the
 * document is kept. With `--check` it writes nothing, and exits 1 when the document is not up
 * to date, saying what to run.
 *
 *   node --import tsx scripts/config-reference.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withConfigReference } from "./docs/config-reference.js";

const DOCUMENT = "docs/configuration.md";
const path = fileURLToPath(new URL(`../${DOCUMENT}`, import.meta.url));
const args = process.argv.slice(2);

if (args.some((a) => a !== "--check")) {
  console.error("usage: node --import tsx scripts/config-reference.ts [--check]");
  process.exit(2);
}

try {
  const current = readFileSync(path, "utf8");
  const updated = withConfigReference(current);
  if (updated === current) {
    console.log(`${DOCUMENT} is up to date with server/src/config.ts`);
  } else if (args.includes("--check")) {
    console.error(`${DOCUMENT} differs from the settings in server/src/config.ts: run \`npm run docs:config\` and commit the result`);
    process.exit(1);
  } else {
    writeFileSync(path, updated);
    console.log(`${DOCUMENT}: reference rewritten from server/src/config.ts`);
  }
} catch (error) {
  console.error(`${DOCUMENT}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
