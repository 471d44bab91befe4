/**
 * The configuration reference cannot drift from config.ts: every setting of the schema is
 * documented, docs/configuration.md holds exactly what the renderer makes of the schema now,
 * and a variable config.ts reads from the environment outside the schema is documented too.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configSchema } from "../src/config.js";
import { configSettings, renderConfigReference, withConfigReference } from "../../scripts/docs/config-reference.js";

const DOCUMENT = new URL("../../docs/configuration.md", import.meta.url);
const CONFIG_SOURCE = new URL("../src/config.ts", import.meta.url);
const START = "<!-- generated from server/src/config.ts by npm run docs:config: do not edit by hand -->";
const END = "<!-- end of generated reference -->";

/**
 * The environment variables a source reads by name (`env.X`, `process.env.X`, `env["X"]`), and
 * how many times it reads the environment in a way a name cannot be told from (`env[name]`, or
 * destructuring `{ X } = env`).
 */
function environmentReads(source: string): { names: string[]; untold: number } {
  const names = new Set<string>();
  let untold = 0;
  for (const m of source.matchAll(/\benv\s*(?:\??\.\s*([A-Za-z_$][\w$]*)|\[\s*(?:"([^"]*)"|'([^']*)'|`([^`$]*)`)\s*\]|(\[))/g)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (name !== undefined) names.add(name);
    else if (m[5]) untold++;
  }
  untold += [...source.matchAll(/\}\s*=\s*(?:process\.)?env\b/g)].length;
  return { names: [...names], untold };
}

describe("configSchema: every setting is documented", () => {
  it("has a non-empty description on every key", () => {
    const undocumented = Object.entries(configSchema.shape)
      .filter(([, field]) => {
        const description = field.meta()?.description;
        return typeof description !== "string" || description.trim() === "";
      })
      .map(([name]) => name);
    expect(undocumented, "settings of server/src/config.ts without .meta({ description })").toEqual([]);
  });

  it("says every setting's default, once: zod's literal default or .meta({ default }) in words", () => {
    expect(() => configSettings()).not.toThrow();
  });
});

describe("renderConfigReference", () => {
  const sample = z.object({
    A_PORT: z.coerce.number().default(3000).meta({ description: "a port" }),
    A_FLAG: z.enum(["true", "false"]).default("false").meta({ description: "a flag | with a pipe\nand a line break" }),
    A_LIST: z.string().default("").meta({ description: "a list" }),
    A_URL: z.string().optional().meta({ description: "a URL", default: "`PORT + 1`" }),
  });

  it("renders one row per setting in the schema's order: literal defaults as code, an empty one as none, a described one as given", () => {
    expect(renderConfigReference(sample)).toBe(
      [
        "| variable | default | meaning |",
        "|---|---|---|",
        "| `A_PORT` | `3000` | a port |",
        "| `A_FLAG` | `false` | a flag \\| with a pipe and a line break |",
        "| `A_LIST` | none | a list |",
        "| `A_URL` | `PORT + 1` | a URL |",
      ].join("\n"),
    );
  });

  it("documents the real schema's settings, all of them, in its order", () => {
    const names = [...renderConfigReference().matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(names).toEqual(Object.keys(configSchema.shape));
  });

  it.each([
    ["no description", z.object({ X: z.string().default("x") }), /X: no description/],
    ["an empty description", z.object({ X: z.string().default("x").meta({ description: "  " }) }), /X: no description/],
    ["no default anywhere", z.object({ X: z.string().optional().meta({ description: "x" }) }), /X: no default/],
    ["a default in both places", z.object({ X: z.string().default("x").meta({ description: "x", default: "y" }) }), /X: a default both/],
  ])("refuses a setting with %s, naming it", (_, schema, message) => {
    expect(() => renderConfigReference(schema)).toThrow(message);
  });
});

describe("withConfigReference", () => {
  const document = `# Title\n\nIntro.\n\n${START}\n\nold table\n\n${END}\n\nHand-written tail.\n`;

  it("replaces only the text between the markers", () => {
    expect(withConfigReference(document, "new table")).toBe(`# Title\n\nIntro.\n\n${START}\n\nnew table\n\n${END}\n\nHand-written tail.\n`);
  });

  it.each([
    ["no markers", "# Title\n"],
    ["no end marker", `${START}\n`],
    ["the markers the wrong way round", `${END}\n${START}\n`],
    ["a marker twice", `${START}\n${END}\n${START}\n${END}\n`],
  ])("refuses a document with %s", (_, text) => {
    expect(() => withConfigReference(text, "table")).toThrow(/must hold the line/);
  });
});

describe("docs/configuration.md", () => {
  it("holds the reference generated from server/src/config.ts as it is now", () => {
    const current = readFileSync(DOCUMENT, "utf8");
    expect(current, "docs/configuration.md is out of date with server/src/config.ts: run `npm run docs:config`").toBe(withConfigReference(current));
  });

  it("documents every variable server/src/config.ts reads from the environment outside the schema", () => {
    const document = readFileSync(DOCUMENT, "utf8");
    const reads = environmentReads(readFileSync(CONFIG_SOURCE, "utf8"));
    expect(reads.untold, "config.ts reads the environment without naming the variable: read it through configSchema").toBe(0);
    const outside = reads.names.filter((name) => !Object.hasOwn(configSchema.shape, name));
    const undocumented = outside.filter((name) => !document.includes(`\`${name}\``));
    const message = "variables config.ts reads outside configSchema that docs/configuration.md does not name: read them through the schema, or document them";
    expect(undocumented, message).toEqual([]);
  });
});

describe("environmentReads (the scan behind the test above)", () => {
  it("finds reads by name, and counts the reads it cannot name", () => {
    const source = [
      "const a = process.env.FOO_BAR;",
      'const b = env["BAZ"] ?? env[\'QUX\'];',
      "const c = env?.OPTIONAL;",
      "const d = process.env[name];",
      "const { DESTRUCTURED } = process.env;",
      "const e = parsed.PORT; // not the environment",
    ].join("\n");
    const reads = environmentReads(source);
    expect(reads.names.sort()).toEqual(["BAZ", "FOO_BAR", "OPTIONAL", "QUX"]);
    expect(reads.untold).toBe(2);
  });
});
