/**
 * PEM text (RFC 7468): `-----BEGIN LABEL-----`, base64 lines, `-----END LABEL-----`. A single
 * forward scan with `indexOf`, so the cost is linear in the length of the text, which the caller
 * bounds. The DER inside is decoded by the callers (x509.ts, crl.ts) with @peculiar's parsers.
 */
import { CertificateFormatError } from "./errors.js";

/** One PEM block: its label (e.g. `CERTIFICATE`, `X509 CRL`) and the bytes its base64 holds. */
export interface PemBlock {
  label: string;
  der: Uint8Array;
}

export interface PemOptions {
  /** Longest text accepted, in characters; longer → `too_large`. */
  maxLength: number;
  /** Most blocks accepted; more → `too_many`. */
  maxBlocks: number;
  /**
   * Whether text outside the blocks is allowed (RFC 7468 §5.2: explanatory text, as in CA bundle
   * files). When false, only whitespace may surround the blocks.
   */
  textOutsideBlocks: boolean;
}

const BEGIN = "-----BEGIN ";
const DASHES = "-----";
/** RFC 7468 §3 labels, restricted to the upper-case words real labels use. */
const LABEL = /^[A-Z0-9]+(?: [A-Z0-9]+)*$/;
const MAX_LABEL_LENGTH = 64;
/** RFC 7468 §3 `base64text` after removing whitespace: standard alphabet, padding only at the end. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const WHITESPACE = /[ \t\r\n]/g;
const ONLY_WHITESPACE = /^[ \t\r\n]*$/;

/** Whether `text` looks like PEM rather than base64 or DER: it holds a BEGIN line. */
export function looksLikePem(text: string): boolean {
  return text.includes(BEGIN);
}

/**
 * The blocks of a PEM text, in order.
 *
 * @throws CertificateFormatError `too_large` (text longer than `maxLength`), `not_pem` (no block,
 *   an unterminated block, a bad label, base64 that is not strict RFC 4648 §4, text outside the
 *   blocks when not allowed), `too_many` (more than `maxBlocks` blocks).
 */
export function decodePem(text: string, options: PemOptions): PemBlock[] {
  if (text.length > options.maxLength) {
    throw new CertificateFormatError("too_large", `PEM text longer than ${options.maxLength} characters`);
  }
  const blocks: PemBlock[] = [];
  let position = 0;
  for (;;) {
    const start = text.indexOf(BEGIN, position);
    const outside = text.slice(position, start < 0 ? text.length : start);
    if (!options.textOutsideBlocks && !ONLY_WHITESPACE.test(outside)) {
      throw new CertificateFormatError("not_pem", "text outside the PEM block");
    }
    if (start < 0) break;
    const labelStart = start + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    if (labelEnd < 0 || labelEnd - labelStart > MAX_LABEL_LENGTH) throw new CertificateFormatError("not_pem", "unterminated PEM BEGIN line");
    const label = text.slice(labelStart, labelEnd);
    if (!LABEL.test(label)) throw new CertificateFormatError("not_pem", "bad PEM label");
    const endLine = `-----END ${label}-----`;
    const bodyStart = labelEnd + DASHES.length;
    const end = text.indexOf(endLine, bodyStart);
    if (end < 0) throw new CertificateFormatError("not_pem", `PEM block ${label} has no END line`);
    const base64 = text.slice(bodyStart, end).replace(WHITESPACE, "");
    if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
      throw new CertificateFormatError("not_pem", `PEM block ${label} does not hold base64`);
    }
    if (blocks.length === options.maxBlocks) {
      throw new CertificateFormatError("too_many", `more than ${options.maxBlocks} PEM block(s)`);
    }
    blocks.push({ label, der: new Uint8Array(Buffer.from(base64, "base64")) });
    position = end + endLine.length;
  }
  if (blocks.length === 0) throw new CertificateFormatError("not_pem", "no PEM block");
  return blocks;
}

/** `der` as a PEM block with `label`, base64 in lines of 64 characters (RFC 7468 §2). */
export function encodePem(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der).toString("base64");
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
