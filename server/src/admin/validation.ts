/**
 * Input rules of the admin API (zod). A violation is a BAD_USER_INPUT error naming the field.
 */
import { z } from "zod";
import { TOLLGATE_SEGMENTS } from "../http/paths.js";
import { isCleanText } from "../oauth/form.js";
import { gqlError } from "./context.js";

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const isLoopback = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "[::1]";

/** Text a database stores as given (no lone surrogates, no NUL). */
const text = (max: number) => z.string().trim().max(max).refine(isCleanText, "must be well-formed text without NUL");

export const v = {
  name: text(100).pipe(z.string().min(1)),
  optionalText: text(500).optional(),
  email: z.email().max(200),
  /** API product names are stored space-separated in tokens, so no spaces. */
  productName: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "letters, digits, . _ - (no spaces)"),
  apiName: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "lowercase letters, digits, . _ -")
    .refine((n) => !TOLLGATE_SEGMENTS.has(n), "this path is reserved by Tollgate"),
  scopes: z
    .array(z.string().regex(SCOPE, "RFC 6749 §3.3 scope characters only"))
    .max(50)
    .refine((s) => new Set(s).size === s.length, "duplicate scope"),
  /** RFC 9700 §4.1: https, or http on a loopback host; absolute, no fragment. */
  callbackUrl: z
    .string()
    .max(2000)
    .refine((u) => {
      if (!URL.canParse(u) || u.includes("#")) return false;
      const url = new URL(u);
      return (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname)));
    }, "an absolute https URL (http only on localhost), without a fragment"),
  upstreamUrl: z
    .string()
    .max(2000)
    .refine((u) => URL.canParse(u) && ["http:", "https:"].includes(new URL(u).protocol), "an absolute http(s) URL"),
  /** Seconds. */
  accessTokenLifetime: z.number().int().min(60).max(86_400),
  /** Seconds; at most 400 days. */
  refreshTokenLifetime: z.number().int().min(60).max(34_560_000),
  /** Seconds. */
  graceSeconds: z.number().int().min(0).max(2_592_000),
  username: z.string().regex(/^[A-Za-z0-9._@-]{3,100}$/, "3-100 letters, digits, . _ @ -"),
  password: z.string().min(12).max(1000).refine(isCleanText, "must be well-formed text without NUL"),
  first: z.number().int().min(1).max(200),
  /** Client authentication methods (the GraphQL enum admits only known names): one or more, each once. */
  authMethods: z
    .array(z.string())
    .min(1, "at least one method")
    .refine((m) => new Set(m).size === m.length, "duplicate method"),
};

/** Parses `value` with `schema`. @throws BAD_USER_INPUT naming the first invalid field. */
export function check<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = [field, ...issue.path.map(String)].join(".");
    throw gqlError("BAD_USER_INPUT", `${path}: ${issue.message}`);
  }
  return parsed.data;
}

/** {@link check} for an optional field: undefined and null stay undefined. */
export function checkOptional<T>(schema: z.ZodType<T>, value: unknown, field: string): T | undefined {
  return value === undefined || value === null ? undefined : check(schema, value, field);
}
