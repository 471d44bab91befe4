/**
 * Strict reading of `application/x-www-form-urlencoded` bodies for the OAuth endpoints.
 */
import type { Request } from "express";
import { InvalidRequest } from "./errors.js";

/** Form parameters, each present at most once; empty values are treated as omitted. */
export type FormParams = Record<string, string>;

/**
 * Parses the form body text that `express.text` left on `req.body`.
 * RFC 6749 §3.1/§3.2: parameters without a value are treated as omitted, and a parameter
 * may not appear more than once.
 * @throws InvalidRequest when the content type is not form-urlencoded or a parameter repeats.
 */
export function readForm(req: Request): FormParams {
  if (!req.is("application/x-www-form-urlencoded")) {
    throw new InvalidRequest("Content-Type must be application/x-www-form-urlencoded");
  }
  const params: FormParams = Object.create(null);
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(typeof req.body === "string" ? req.body : "")) {
    if (seen.has(key)) throw new InvalidRequest(`parameter "${key}" is repeated`);
    seen.add(key);
    if (value !== "") params[key] = value;
  }
  return params;
}
