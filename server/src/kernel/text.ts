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

/**
 * Control (`\p{Cc}`) and format (`\p{Cf}`) characters: among the latter the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, U+061C), the zero-width
 * ones (U+200B–U+200F) and the soft hyphen, which reorder or hide what a reader sees (the
 * "Trojan Source" class, CVE-2021-42574).
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}]/u;

/**
 * True for text a person may be shown as another party wrote it (a TPP's payee name, its
 * app's name): {@link isCleanText}, and no control or format character, so none can restyle
 * the line it appears in (a right-to-left override turning a payee's name into a fake IBAN).
 */
export function isDisplayText(value: string): boolean {
  return isCleanText(value) && !HIDDEN_CHARACTER.test(value);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `s` as HTML text or a quoted attribute value: & < > " ' as character references. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
