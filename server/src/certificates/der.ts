/**
 * Decoding untrusted DER into @peculiar/asn1-schema classes, within bounds: asn1js decodes one
 * BER element under resource limits (depth, node count, content length) and the input must end
 * where it ends; the schema class then maps it. No hand-written DER parsing.
 */
import { AsnParser } from "@peculiar/asn1-schema";
import * as asn1js from "asn1js";
import { CertificateFormatError } from "./errors.js";

/** Bounds on one decoding. */
export interface DerLimits {
  /** Largest input accepted, in bytes. */
  maxBytes: number;
  /** asn1js `fromBER` limits (also passed to the schema parser for nested payloads). */
  berOptions: { maxDepth: number; maxNodes: number; maxContentLength: number };
}

/** For a certificate or one of its extensions: 16 KiB, shallow, a few thousand nodes. */
export const CERTIFICATE_LIMITS: DerLimits = { maxBytes: 16 * 1024, berOptions: { maxDepth: 32, maxNodes: 20_000, maxContentLength: 16 * 1024 } };

/**
 * `der` decoded as exactly one BER element within `limits`, then as `type`.
 *
 * @throws CertificateFormatError `empty`, `too_large` (over `limits.maxBytes`), `malformed` (not
 *   BER, over the resource limits, bytes after the element, not of `type`'s structure).
 */
export function decodeDer<T>(der: Uint8Array, type: new () => T, what: string, limits: DerLimits = CERTIFICATE_LIMITS): T {
  if (der.length === 0) throw new CertificateFormatError("empty", `no ${what}`);
  if (der.length > limits.maxBytes) throw new CertificateFormatError("too_large", `${what} longer than ${limits.maxBytes} bytes`);
  let decoded: ReturnType<typeof asn1js.fromBER>;
  try {
    decoded = asn1js.fromBER(der, limits.berOptions);
  } catch (error) {
    // asn1js throws, rather than reporting, on some malformed values (e.g. a UTCTime that is not a time).
    throw new CertificateFormatError("malformed", `${what} is not DER: ${(error as Error).message}`, { cause: error });
  }
  if (decoded.offset === -1 || decoded.result.error) throw new CertificateFormatError("malformed", `${what} is not DER: ${decoded.result.error || "undecodable"}`);
  if (decoded.offset !== der.length) throw new CertificateFormatError("malformed", `bytes after the ${what}`);
  try {
    return AsnParser.fromASN(decoded.result, type, { berOptions: limits.berOptions });
  } catch (error) {
    throw new CertificateFormatError("malformed", `not a ${what}: ${(error as Error).message}`, { cause: error });
  }
}
