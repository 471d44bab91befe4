/**
 * The `Accept` request header (RFC 9110 §12.5.1): which media types a client takes, and how
 * much it wants each (its quality value, §12.4.2).
 */

/** One media range of an `Accept` header: `type/subtype`, either part `*`, lowercase, and its weight. */
export interface MediaRange {
  type: string;
  subtype: string;
  /** The quality value, 0 to 1 (§12.4.2); 1 when the range has no `q` parameter. */
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The media ranges of an `Accept` header value, in order. A malformed element (no
 * `type/subtype`, a `*` type with a concrete subtype, a `q` that is no qvalue) is left out,
 * as if the client had not sent it. Parameters other than `q` are not kept.
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of header.split(",")) {
    const [range = "", ...parameters] = element.split(";").map((part) => part.trim().toLowerCase());
    const [type = "", subtype = "", ...rest] = range.split("/");
    if (rest.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === "*" && subtype !== "*")) continue;
    const qParameter = parameters.find((p) => /^q\s*=/.test(p));
    const qText = qParameter?.slice(qParameter.indexOf("=") + 1).trim();
    if (qText !== undefined && !QVALUE.test(qText)) continue;
    ranges.push({ type, subtype, q: qText === undefined ? 1 : Number(qText) });
  }
  return ranges;
}

/**
 * The quality a client gives `mediaType` (`type/subtype`, lowercase): that of the most
 * specific range that matches it (§12.5.1: `type/subtype` over `type/*` over `*\/*`), 0 when
 * none does. `named` tells whether the match was the media type itself, not a wildcard.
 */
export function acceptQuality(ranges: readonly MediaRange[], mediaType: string): { q: number; named: boolean } {
  const [type, subtype] = mediaType.split("/");
  let best: { specificity: number; q: number } = { specificity: 0, q: 0 };
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 3 : range.type === type && range.subtype === "*" ? 2 : range.type === "*" ? 1 : 0;
    if (specificity > best.specificity) best = { specificity, q: range.q };
  }
  return { q: best.q, named: best.specificity === 3 };
}
