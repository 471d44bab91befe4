/**
 * Every error description written in the source is printable ASCII. OAuthError replaces
 * any character outside RFC 6749 §5.2's set with `?` (a "§" came out as "RFC 6749 ?3.3"),
 * which is right for echoed input but means a non-ASCII character in a fixed text is a
 * bug. The source is parsed with the TypeScript compiler: the text parts of every argument
 * of `new <OAuthError or a subclass>(...)` anywhere under server/src, and of the
 * authorization endpoint's error redirects (`fail`, `errorRedirect`), are checked.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Calls whose arguments become an `error_description` on an authorization error redirect (oauth/authorize.ts). */
const REDIRECT_CALLS = new Set(["fail", "errorRedirect"]);

/** Parsed source files of server/src, without tests and generated code. */
function sources(): ts.SourceFile[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f.split(path.sep)[0] !== "generated")
    .map((f) => ts.createSourceFile(f, readFileSync(path.join(SRC, f), "utf8"), ts.ScriptTarget.Latest, true));
}

function visit(node: ts.Node, f: (n: ts.Node) => void): void {
  f(node);
  node.forEachChild((child) => visit(child, f));
}

/** Names of OAuthError and every class that extends it, directly or not. */
function errorClasses(files: ts.SourceFile[]): Set<string> {
  const parents = new Map<string, string>();
  for (const file of files) {
    visit(file, (n) => {
      const base = ts.isClassDeclaration(n) && n.name ? n.heritageClauses?.[0]?.types[0]?.expression : undefined;
      if (base && ts.isIdentifier(base)) parents.set((n as ts.ClassDeclaration).name!.text, base.text);
    });
  }
  const classes = new Set(["OAuthError"]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, parent] of parents) {
      if (classes.has(parent) && !classes.has(name)) {
        classes.add(name);
        grew = true;
      }
    }
  }
  return classes;
}

/** The literal text parts (strings, template parts) inside `node`, with where they are. */
function literalTexts(node: ts.Node, file: ts.SourceFile): { text: string; at: string }[] {
  const found: { text: string; at: string }[] = [];
  visit(node, (n) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      found.push({ text: n.text, at: `${file.fileName}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}` });
    }
  });
  return found;
}

describe("error descriptions in the source", () => {
  it("are printable ASCII, so none reaches a client with a '?' in place of a character", () => {
    const files = sources();
    const classes = errorClasses(files);
    const texts: { text: string; at: string }[] = [];
    for (const file of files) {
      visit(file, (n) => {
        const callee = ts.isNewExpression(n) || ts.isCallExpression(n) ? n.expression : undefined;
        if (!callee || !ts.isIdentifier(callee)) return;
        const described = ts.isNewExpression(n) ? classes.has(callee.text) : REDIRECT_CALLS.has(callee.text);
        if (described) for (const arg of (n as ts.NewExpression | ts.CallExpression).arguments ?? []) texts.push(...literalTexts(arg, file));
      });
    }
    // The scan sees the error classes and their uses throughout the server.
    expect([...classes]).toEqual(expect.arrayContaining(["InvalidRequest", "InvalidClient", "InvalidScope", "BearerError", "InvalidAuthorizationRequest"]));
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((t) => !/^[\x20-\x7e]*$/.test(t.text))).toEqual([]);
  });
});
