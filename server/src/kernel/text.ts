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
 * Characters that reorder, hide or break the text around them rather than show as a glyph:
 * - format characters (`\p{Cf}`, the whole category, about 170 code points): the
 *   bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
 *   marks (U+200E, U+200F, U+061C), the zero-width space, joiners and non-joiner
 *   (U+200B–U+200D), the soft hyphen, the byte order mark, the word joiner and the tag
 *   characters: the "Trojan Source" class (CVE-2021-42574). The whole category, not a list,
 *   so a character a list forgot (or a later Unicode version adds) is refused too. It also
 *   refuses the joiners some writing (Persian, Indic scripts, emoji sequences) uses: SEPA's
 *   character set for names and references (EPC217-08) has none of them, and an app's name
 *   reads without them;
 * - control characters (`\p{Cc}`: C0, DEL, C1), line and paragraph separators
 *   (`\p{Zl}`, `\p{Zp}`: U+2028, U+2029), which break the one line the text belongs on.
 * One character class, tested once: linear in the text.
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * True for text a person may be shown as another party wrote it (a TPP's payee name and
 * remittance information, its app's and organization's names): {@link isCleanText}, and
 * none of the characters above, so nothing in it can restyle the line it appears in (a
 * right-to-left override turning a payee's name into a fake IBAN). The pages still isolate
 * such text (`<bdi>`): right-to-left letters are allowed and must not reorder the words
 * around them.
 */
export function isDisplayText(value: string): boolean {
  return isCleanText(value) && !HIDDEN_CHARACTER.test(value);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `s` as HTML text or a quoted attribute value: & < > " ' as character references. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
