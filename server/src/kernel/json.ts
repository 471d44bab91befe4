/**
 * JSON answers in plain node:http terms, for the node:http endpoints and the error handler.
 */
import type { ServerResponse } from "node:http";

/** Answers `status` with `body` as JSON (the same Content-Type Express's res.json sets). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}
