/**
 * Strict reading of `application/x-www-form-urlencoded` bodies for the OAuth endpoints.
 */
import type { IncomingMessage } from "node:http";
import { InvalidRequest } from "../kernel/errors.js";
import { isCleanText } from "../kernel/text.js";

/** Form parameters, each present at most once (those of {@link LIST_PARAMETERS} joined); empty values are treated as omitted. */
export type FormParams = Record<string, string>;

/**
 * Parameters that may be sent more than once: `resource` (RFC 8707 §2). Their values are
 * joined by spaces, which no absolute URI holds.
 */
const LIST_PARAMETERS: ReadonlySet<string> = new Set(["resource"]);

/** A `%` that starts no escape (not followed by two hex digits): the form decoder keeps it as itself. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/**
 * One name or value of `application/x-www-form-urlencoded` text, decoded as the WHATWG URL
 * standard's form decoder does (`+` is a space, a `%` that starts no escape stays), except
 * that escapes which do not form UTF-8 are refused rather than read as U+FFFD: OAuth values
 * are UTF-8 (RFC 6749 Appendix B), and a replacement character would stand for bytes the
 * client never meant. Linear in the text.
 * @throws InvalidRequest when the escapes are not well-formed UTF-8 (RFC 3629: no overlong
 *   forms, no surrogates, nothing above U+10FFFF).
 */
function formDecode(text: string): string {
  const spaced = text.replaceAll("+", " ");
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced.replace(LONE_PERCENT, "%25"));
  } catch {
    throw new InvalidRequest("parameters must be well-formed UTF-8: a percent-escape does not decode to UTF-8");
  }
}

/** The name and value pairs of form text, in order (`&`-separated, the first `=` splits; empty pairs skipped). */
function* formPairs(body: string): Generator<[string, string]> {
  for (const pair of body.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    yield eq === -1 ? [formDecode(pair), ""] : [formDecode(pair.slice(0, eq)), formDecode(pair.slice(eq + 1))];
  }
}

/**
 * Parses the form body text that body-parser's `text` parser, set to the
 * `application/x-www-form-urlencoded` type (http/dispatch.ts), left on `req.body`. That
 * parser leaves text only for a body of that type (checked with type-is), so no text means
 * another content type, or no body at all.
 * RFC 6749 §3.1/§3.2: parameters without a value are treated as omitted, and a parameter
 * may not appear more than once, but for those of {@link LIST_PARAMETERS}.
 * @throws InvalidRequest when there is no form-urlencoded body, a parameter repeats, a
 *   percent-escape does not decode to UTF-8, or a name or value is not clean text ({@link isCleanText}).
 */
export function readForm(req: IncomingMessage & { body?: unknown }): FormParams {
  if (typeof req.body !== "string") throw new InvalidRequest("Content-Type must be application/x-www-form-urlencoded");
  const params: FormParams = Object.create(null);
  const seen = new Set<string>();
  for (const [key, value] of formPairs(req.body)) {
    if (!isCleanText(key) || !isCleanText(value)) throw new InvalidRequest("parameters must be well-formed UTF-8 without NUL");
    if (LIST_PARAMETERS.has(key)) {
      if (value !== "") params[key] = params[key] === undefined ? value : `${params[key]} ${value}`;
      continue;
    }
    if (seen.has(key)) throw new InvalidRequest(`parameter ${key} is repeated`);
    seen.add(key);
    if (value !== "") params[key] = value;
  }
  return params;
}
