/**
 * The public URL a request arrived on. The same endpoints and gateway are served on two
 * listeners: the plain one, public at BASE_URL, and the mutual-TLS one, public at
 * TLS_BASE_URL (its URLs are the metadata's `mtls_endpoint_aliases`, RFC 8705 §5). A DPoP
 * proof names the URL the client called (RFC 9449 §4.3 item 9), so the URL it is checked
 * against depends on the listener.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";

/** The public base URLs of the listeners, without a trailing slash. */
export interface ListenerUrls {
  /** BASE_URL: the plain listener's. */
  main: string;
  /** TLS_BASE_URL: the mutual-TLS listener's; undefined when it is off. */
  tls: string | undefined;
}

/**
 * `url`, a public URL written against BASE_URL, as the client reached it: on the mutual-TLS
 * listener (the request's socket is a TLS socket: the plain listener has none) the same
 * path under TLS_BASE_URL; on the plain listener, `url` itself.
 * @param url - BASE_URL and a path, e.g. `https://api.bank.example/oauth2/v1/par`.
 * @returns a URL of the same path; `url` unchanged when it does not start with BASE_URL.
 */
export function listenerUrl(req: IncomingMessage, url: string, listeners: ListenerUrls): string {
  const overTls = (req.socket as Partial<TLSSocket> | undefined)?.encrypted === true;
  if (!overTls || listeners.tls === undefined || !url.startsWith(listeners.main)) return url;
  return listeners.tls + url.slice(listeners.main.length);
}
