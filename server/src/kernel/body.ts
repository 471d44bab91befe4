/**
 * Reading a request body within a bound, without ever losing the answer: a body over the bound
 * is refused by its `Content-Length` before a byte is read, or as soon as the bytes read pass
 * the bound; either way the request stops being read but is not destroyed, so the 413 can be
 * written, and the answer closes the connection (`Connection: close`), so the unread rest is
 * never parsed as a next request. A body the client stops sending (the connection closes
 * before its end) is a 400 that nobody will read. Memory and time are linear in the bytes
 * read, never more than `limit` of them kept (RFC 9110 §15.5.14).
 */
import type { IncomingMessage } from "node:http";
import { OAuthError } from "./errors.js";

/** The body was larger than the bound: 413, and the connection is closed after the answer. */
export class BodyTooLarge extends OAuthError {
  constructor(what: string, limit: number) {
    super("invalid_request", `${what} may have at most ${limit} bytes`, 413, { Connection: "close" });
  }
}

/**
 * The request body, at most `limit` bytes.
 * @param what - names the body in the error ("a payment body").
 * @param limit - the most bytes accepted.
 * @throws BodyTooLarge (413) for a larger body, by its Content-Length or by its bytes;
 *   OAuthError 400 `invalid_request` when the request ends before its body did (aborted, half sent).
 */
export function readBody(req: IncomingMessage, what: string, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) {
    req.pause();
    return Promise.reject(new BodyTooLarge(what, limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: OAuthError | undefined) => {
      req.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(new BodyTooLarge(what, limit));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined);
    const onClose = () => settle(new OAuthError("invalid_request", `${what} ended before it was complete`, 400));
    req.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onClose);
  });
}
