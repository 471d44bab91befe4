/**
 * The configuration reference of docs/configuration.md, generated from the settings'
 * documentation in config.ts (each setting's `.meta({ description, default? })`), so that the
 * document cannot drift from the schema: `npm run docs:config` (scripts/config-reference.ts)
 * rewrites the generated part, and server/test/config-reference.test.ts fails when it is stale.
 */
import { z } from "zod";
import { configSchema } from "../../server/src/config.js";

/** One row of the reference: the environment variable, its default and its meaning, as markdown. */
export interface SettingReference {
  name: string;
  default: string;
  description: string;
}

/** Opens the generated part of docs/configuration.md. */
const START = "<!-- generated from server/src/config.ts by npm run docs:config: do not edit by hand -->";
/** Closes it. */
const END = "<!-- end of generated reference -->";

/**
 * The settings of a configuration schema, in its order, with their documentation: the
 * description from `.meta()`, and the default either from `.meta()` (in words, for a setting
 * without a literal zod default) or from zod's literal default (`` `3000` ``; an empty string
 * reads "none").
 * @param schema - the schema to document; config.ts's by default.
 * @throws Error naming every setting without a description, without a default in either
 * place, or with a default in both (which could disagree).
 */
export function configSettings(schema: z.ZodObject = configSchema): SettingReference[] {
  const problems: string[] = [];
  const settings = Object.entries(schema.shape).map(([name, field]) => {
    const meta = field.meta() ?? {};
    const description = typeof meta.description === "string" ? meta.description.trim() : "";
    const described = typeof meta.default === "string" ? meta.default.trim() : "";
    const literal = field instanceof z.ZodDefault ? literalDefault(field.def.defaultValue) : undefined;
    if (!description) problems.push(`${name}: no description (give it .meta({ description }))`);
    if (literal !== undefined && meta.default !== undefined) problems.push(`${name}: a default both in zod and in .meta(); keep zod's`);
    if (literal === undefined && !described) problems.push(`${name}: no default (give it .meta({ default }) in words, e.g. "none")`);
    return { name, default: literal ?? described, description };
  });
  if (problems.length > 0) throw new Error(`Undocumented configuration:\n  ${problems.join("\n  ")}`);
  return settings;
}

/**
 * The reference table of a configuration schema as markdown (`variable | default | meaning`),
 * one row per setting in the schema's order; no trailing newline.
 * @param schema - the schema to document; config.ts's by default.
 * @throws Error as {@link configSettings} does, for an undocumented setting.
 */
export function renderConfigReference(schema: z.ZodObject = configSchema): string {
  const rows = configSettings(schema).map((s) => `| \`${s.name}\` | ${cell(s.default)} | ${cell(s.description)} |`);
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

/**
 * A document with its generated part, between the marker comments, replaced by `reference`;
 * the text around the markers is kept as it is. Equal to `document` exactly when the
 * document is up to date.
 * @param document - the text of docs/configuration.md.
 * @param reference - the generated reference, {@link renderConfigReference}'s by default.
 * @throws Error when the document does not hold each marker exactly once, start before end.
 */
export function withConfigReference(document: string, reference: string = renderConfigReference()): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start || document.indexOf(START, start + 1) >= 0 || document.indexOf(END, end + 1) >= 0) {
    throw new Error(`the document must hold the line\n  ${START}\nonce, and after it the line\n  ${END}\nonce`);
  }
  return `${document.slice(0, start)}${START}\n\n${reference}\n\n${document.slice(end)}`;
}

/** A literal default in words: an empty string is "none", anything else its value as code. */
function literalDefault(value: unknown): string {
  return value === "" ? "none" : `\`${String(value)}\``;
}

/** Text made safe for one cell of a markdown table: on one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replaceAll("|", "\\|");
}
