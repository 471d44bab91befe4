/**
 * Text checks shared by every surface that takes identifiers from callers, and HTML escaping
 * for the pages the server writes itself.
 */

/**
 * True for text a database can store and compare as given: well-formed UTF-16 (no lone
 * surrogates) without NUL (PostgreSQL refuses U+0000 in text). Identifiers failing it can
 * match nothing, so callers treat them as malformed instead of querying.
 */
export function isCleanText(value: string): boolean {
  return value.isWellFormed() && !value.includes("\0");
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `s` as HTML text or a quoted attribute value: & < > " ' as character references. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
