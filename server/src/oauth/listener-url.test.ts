/**
 * listenerUrl: the URL a DPoP proof must name, by the listener the request arrived on
 * (RFC 9449 §4.3 item 9, RFC 8705 §5 mtls_endpoint_aliases).
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { listenerUrl } from "./listener-url.js";

const over = (encrypted: boolean) => ({ socket: encrypted ? { encrypted: true } : {} }) as unknown as IncomingMessage;
const listeners = { main: "https://api.bank.example", tls: "https://mtls.bank.example:8443" };

describe("listenerUrl", () => {
  it("on the plain listener, the BASE_URL form", () => {
    expect(listenerUrl(over(false), "https://api.bank.example/oauth2/v1/par", listeners)).toBe("https://api.bank.example/oauth2/v1/par");
  });

  it("on the mutual-TLS listener, the same path under TLS_BASE_URL", () => {
    expect(listenerUrl(over(true), "https://api.bank.example/oauth2/v1/par", listeners)).toBe("https://mtls.bank.example:8443/oauth2/v1/par");
    expect(listenerUrl(over(true), "https://api.bank.example/psd2/v1/consents/x", listeners)).toBe("https://mtls.bank.example:8443/psd2/v1/consents/x");
  });

  it("leaves the URL alone without a TLS listener, or when it is not under BASE_URL", () => {
    expect(listenerUrl(over(true), "https://api.bank.example/accounts/", { main: listeners.main, tls: undefined })).toBe("https://api.bank.example/accounts/");
    expect(listenerUrl(over(true), "https://other.example/accounts/", listeners)).toBe("https://other.example/accounts/");
  });
});
