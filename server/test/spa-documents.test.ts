/**
 * Every GraphQL document the SPA sends is valid against the admin schema (schema.graphql):
 * a document naming a field, argument, type or variable the schema does not have fails
 * here, named, rather than in the browser.
 *
 * The SPA's documents are the exported strings of its API modules (web/src/api/*.ts; the
 * pages import them from there), so a new document is checked as soon as it is exported.
 */
import { readdirSync, readFileSync } from "node:fs";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";

const API_DIR = new URL("../../web/src/api/", import.meta.url);
const schema = buildSchema(readFileSync(new URL("../src/admin/schema.graphql", import.meta.url), "utf8"));

/** Each API module's exported strings, as ["module.EXPORT", document]. */
async function spaDocuments(): Promise<Array<[name: string, document: string]>> {
  const documents: Array<[string, string]> = [];
  for (const file of readdirSync(API_DIR).filter((f) => f.endsWith(".ts")).sort()) {
    // A URL built at run time: the SPA's modules are typed by web/tsconfig.json, not by the server's.
    const exports = (await import(new URL(file, API_DIR).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value === "string") documents.push([`${file.replace(/\.ts$/, "")}.${name}`, value]);
    }
  }
  return documents;
}

const documents = await spaDocuments();

describe("the SPA's GraphQL documents", () => {
  it("are found in web/src/api", () => {
    expect(documents.length).toBeGreaterThan(0);
  });

  it.each(documents)("%s is valid against the admin schema", (_name, document) => {
    expect(validate(schema, parse(document)).map((error) => error.message)).toEqual([]);
  });
});
