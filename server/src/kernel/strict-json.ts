/**
 * JSON that reads the same to every parser: RFC 8259 §4 leaves the meaning of an object with
 * two members of one name to each implementation (JSON.parse keeps the last, others the
 * first), so a document checked by one parser and executed by another could mean two
 * things. Such a document is refused.
 */

/** A JSON object (not null, not an array), as JSON.parse gives it. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON text is not JSON, or names one member twice in an object. */
export class StrictJsonError extends Error {}

/**
 * Parses `text` as JSON, refusing an object with two members of the same name (after
 * unescaping: `"a"` and `"\u0061"` are one name). Time linear in the text's length.
 * @throws StrictJsonError naming the problem (the duplicate name, cut to 40 characters).
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StrictJsonError("the body is not JSON");
  }
  const duplicate = firstDuplicateName(text);
  if (duplicate !== undefined) throw new StrictJsonError(`the body names the member '${duplicate.slice(0, 40)}' twice in one object (RFC 8259 §4)`);
  return value;
}

/** The first member name given twice in one object of `json` (valid JSON text), or undefined. */
function firstDuplicateName(json: string): string | undefined {
  // One entry per open object (its names so far) or array (null).
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      const start = i;
      for (i++; json[i] !== '"'; i++) if (json[i] === "\\") i++;
      const names = open.at(-1);
      if (expectName && names) {
        const name = JSON.parse(json.slice(start, i + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
        expectName = false;
      }
    } else if (c === "{") {
      open.push(new Set());
      expectName = true;
    } else if (c === "[") {
      open.push(null);
      expectName = false;
    } else if (c === "}" || c === "]") {
      open.pop();
      expectName = false;
    } else if (c === ",") {
      expectName = open.at(-1) != null;
    }
  }
  return undefined;
}
