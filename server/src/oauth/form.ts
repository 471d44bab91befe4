/**
 * Strict reading of `application/x-www-form-urlencoded` bodies for the OAuth endpoints.
 */
import type { IncomingMessage } from "node:http";
import { InvalidRequest } from "../kernel/errors.js";
import { isCleanText } from "../kernel/text.js";

/** Form parameters, each present at most once; empty values are treated as omitted. */
export type FormParams = Record<string, string>;

/**
 * Parses the form body text that body-parser's `text` parser, set to the
 * `application/x-www-form-urlencoded` type (http/dispatch.ts), left on `req.body`. That
 * parser leaves text only for a body of that type (checked with type-is), so no text means
 * another content type, or no body at all.
 * RFC 6749 §3.1/§3.2: parameters without a value are treated as omitted, and a parameter
 * may not appear more than once.
 * @throws InvalidRequest when there is no form-urlencoded body, a parameter repeats, or a
 *   name or value is not clean text ({@link isCleanText}).
 */
export function readForm(req: IncomingMessage & { body?: unknown }): FormParams {
  if (typeof req.body !== "string") throw new InvalidRequest("Content-Type must be application/x-www-form-urlencoded");
  const params: FormParams = Object.create(null);
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(req.body)) {
    if (seen.has(key)) throw new InvalidRequest(`parameter ${key} is repeated`);
    if (!isCleanText(key) || !isCleanText(value)) throw new InvalidRequest("parameters must be well-formed UTF-8 without NUL");
    seen.add(key);
    if (value !== "") params[key] = value;
  }
  return params;
}
