/**
 * Every section of docs/decisions.md that the code cites exists. Comments cite a section by
 * its heading, in double quotes after the file name, several separated by commas (a citation
 * may run over the next comment line). This suite reads server/src, server/test, web/src, e2e
 * and bench and checks each cited name against the headings of docs/decisions.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const SCANNED = ["server/src", "server/test", "web/src", "e2e", "bench"];
const SKIPPED = new Set(["node_modules", "generated", "dist"]);
const TEXT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|css|html|graphql|md)$/;
const SELF = path.relative(REPO, fileURLToPath(import.meta.url));

/** A line break inside a comment: the break, then the next line's `*` or `//`. */
const BREAK = String.raw`[ \t]*\r?\n[ \t]*(?:\*(?!/)|//+)?[ \t]*`;
const SPACE = String.raw`(?:${BREAK}|[ \t]+)`;
const NAME = String.raw`"(?:[^"\r\n]|${BREAK}){1,100}?"`;
const CITATION = new RegExp(String.raw`decisions\.md${SPACE}+(${NAME}(?:${SPACE}*(?:,|and)${SPACE}*(?:and${SPACE}+)?${NAME})*)`, "g");

interface Citation {
  /** file:line of the citation. */
  at: string;
  section: string;
}

/** The sections cited in `text`, a file's content. */
function citations(text: string, file: string): Citation[] {
  const found: Citation[] = [];
  for (const match of text.matchAll(CITATION)) {
    const line = text.slice(0, match.index).split("\n").length;
    for (const name of match[1]!.matchAll(new RegExp(NAME, "g"))) {
      const section = name[0].slice(1, -1).replace(new RegExp(BREAK, "g"), " ").trim();
      found.push({ at: `${file}:${line}`, section });
    }
  }
  return found;
}

/** The text files under `dir` (relative to the repository), recursively. */
function files(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(REPO, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const file = path.posix.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED.has(e.name) ? [] : files(file);
    return TEXT.test(e.name) && file !== SELF ? [file] : [];
  });
}

/** The headings of docs/decisions.md. */
function headings(): Set<string> {
  const text = readFileSync(path.join(REPO, "docs/decisions.md"), "utf8");
  return new Set([...text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)].map((m) => m[1]!));
}

describe("docs/decisions.md citations", () => {
  it("reads citations, lists of them, and citations broken over comment lines", () => {
    const text = [
      "/**",
      ' * HTTP suite (spec "Token response"; decisions.md "Authorization code',
      ' * flow", "Refresh tokens" and "Errors"; RFC 6749). decisions.md: 60 s.',
      " */",
      '// decisions.md "Scopes and API',
      '// products"',
    ].join("\n");
    expect(citations(text, "x.ts")).toEqual([
      { at: "x.ts:2", section: "Authorization code flow" },
      { at: "x.ts:2", section: "Refresh tokens" },
      { at: "x.ts:2", section: "Errors" },
      { at: "x.ts:5", section: "Scopes and API products" },
    ]);
  });

  it("cites only sections that are headings of docs/decisions.md", () => {
    const sections = headings();
    const cited = SCANNED.flatMap(files).flatMap((file) => citations(readFileSync(path.join(REPO, file), "utf8"), file));
    expect(cited.length, "citations found").toBeGreaterThan(10);
    const unresolved = cited.filter((c) => !sections.has(c.section)).map((c) => `${c.at}: "${c.section}"`);
    expect(unresolved, `sections cited but not in docs/decisions.md (headings: ${[...sections].join(" | ")})`).toEqual([]);
  });
});
