import { describe, expect, it } from "vitest";
import { addForwardingFields, addVia, answerFields, endToEndHeaders, isDroppedCallerField } from "./forward.js";

describe("endToEndHeaders (RFC 9110 §7.6.1)", () => {
  it("drops the connection's own fields and keeps the message's", () => {
    const headers = {
      connection: "keep-alive",
      "keep-alive": "timeout=5",
      "transfer-encoding": "chunked",
      te: "trailers",
      trailer: "x-sum",
      upgrade: "websocket",
      "proxy-authorization": "Basic eDp5",
      "proxy-connection": "keep-alive",
      host: "gateway.example",
      expect: "100-continue",
      accept: "application/json",
      "set-cookie": ["a=1", "b=2"],
    };
    expect(endToEndHeaders(headers)).toEqual({ accept: "application/json", "set-cookie": ["a=1", "b=2"] });
  });

  it("drops every field the Connection field names, whatever its case and spacing", () => {
    const headers = { connection: "Keep-Alive ,X-Internal,  x-trace", "x-internal": "1", "x-trace": "2", "x-other": "3" };
    expect(endToEndHeaders(headers)).toEqual({ "x-other": "3" });
  });

  it("also drops the fields the caller's drop function names", () => {
    const headers = { authorization: "Bearer x", accept: "*/*", cookie: "a=1" };
    expect(endToEndHeaders(headers, (name) => name === "authorization" || name === "cookie")).toEqual({ accept: "*/*" });
  });

  it("does not change the headers it is given", () => {
    const headers = { connection: "x-a", "x-a": "1" };
    endToEndHeaders(headers);
    expect(headers).toEqual({ connection: "x-a", "x-a": "1" });
  });
});

describe("addForwardingFields (RFC 7239)", () => {
  it("describes a direct caller: its address, the Host field, http, and the Host's port", () => {
    const out: Record<string, string | string[]> = { accept: "*/*" };
    addForwardingFields(out, ["192.0.2.43"], "api.bank.example:8080", "http");
    expect(out).toEqual({
      accept: "*/*",
      forwarded: 'for=192.0.2.43;host="api.bank.example:8080";proto=http',
      "x-forwarded-for": "192.0.2.43",
      "x-forwarded-proto": "http",
      "x-forwarded-host": "api.bank.example:8080",
      "x-forwarded-port": "8080",
      "x-real-ip": "192.0.2.43",
    });
  });

  it("lists a chain of trusted proxies client first, host and proto on the first element, and defaults the port to the scheme's", () => {
    const out: Record<string, string | string[]> = {};
    addForwardingFields(out, ["198.51.100.17", "10.0.0.2", "10.0.0.1"], "api.bank.example", "https");
    expect(out.forwarded).toBe("for=198.51.100.17;host=api.bank.example;proto=https, for=10.0.0.2, for=10.0.0.1");
    expect(out["x-forwarded-for"]).toBe("198.51.100.17, 10.0.0.2, 10.0.0.1");
    expect(out["x-real-ip"]).toBe("198.51.100.17");
    expect(out["x-forwarded-proto"]).toBe("https");
    expect(out["x-forwarded-port"]).toBe("443");
    addForwardingFields(out, ["198.51.100.17"], "api.bank.example", "http");
    expect(out["x-forwarded-port"]).toBe("80");
  });

  it("brackets and quotes IPv6 addresses (§6), IPv4-mapped ones too, and reads the port of an IPv6 host", () => {
    const out: Record<string, string | string[]> = {};
    addForwardingFields(out, ["2001:db8:cafe::17", "::ffff:127.0.0.1"], "[2001:db8::1]:8443", "https");
    expect(out.forwarded).toBe('for="[2001:db8:cafe::17]";host="[2001:db8::1]:8443";proto=https, for="[::ffff:127.0.0.1]"');
    expect(out["x-forwarded-for"]).toBe("2001:db8:cafe::17, ::ffff:127.0.0.1");
    expect(out["x-forwarded-port"]).toBe("8443");
    addForwardingFields(out, ["::1"], "[::1]", "http");
    expect(out.forwarded).toBe('for="[::1]";host="[::1]";proto=http');
    expect(out["x-forwarded-port"]).toBe("80");
  });

  it("quotes a Host that is not a token, escaping quotes and backslashes, so it cannot add parameters or elements", () => {
    const out: Record<string, string | string[]> = {};
    addForwardingFields(out, ["192.0.2.43"], 'evil";for=203.0.113.9, for=a\\b', "http");
    expect(out.forwarded).toBe('for=192.0.2.43;host="evil\\";for=203.0.113.9, for=a\\\\b";proto=http');
    expect(out["x-forwarded-port"]).toBe("80");
  });

  it("forwards no host when the caller sent none (HTTP/1.0), and an unknown address as unknown", () => {
    for (const host of [undefined, ""]) {
      const out: Record<string, string | string[]> = {};
      addForwardingFields(out, ["unknown"], host, "http");
      expect(out).toEqual({ forwarded: "for=unknown;proto=http", "x-forwarded-for": "unknown", "x-forwarded-proto": "http", "x-forwarded-port": "80", "x-real-ip": "unknown" });
    }
  });
});

describe("answerFields", () => {
  const upstream = { "content-type": "application/json", "set-cookie": ["a=1; Path=/", "b=2"], "x-content-type-options": "none", connection: "close" };

  it("drops Set-Cookie unless the API passes cookies, and answers nosniff in place of the upstream's value", () => {
    expect(answerFields(upstream, false)).toEqual({ "content-type": "application/json", "x-content-type-options": "nosniff" });
    expect(answerFields(upstream, true)).toEqual({ "content-type": "application/json", "set-cookie": ["a=1; Path=/", "b=2"], "x-content-type-options": "nosniff" });
  });

  it("adds nosniff to an answer without it and leaves the upstream's fields unchanged", () => {
    const headers = { "content-type": "text/html" };
    expect(answerFields(headers, false)).toEqual({ "content-type": "text/html", "x-content-type-options": "nosniff" });
    expect(headers).toEqual({ "content-type": "text/html" });
  });
});

describe("endToEndHeaders: more of RFC 9110 §7.6.1", () => {
  it("leaves out fields whose value is undefined", () => {
    expect(endToEndHeaders({ accept: "*/*", "x-a": undefined })).toEqual({ accept: "*/*" });
  });

  it("ignores empty entries in Connection and never drops a field only because Connection is missing", () => {
    expect(endToEndHeaders({ connection: "x-a,, ,", "x-a": "1", "x-b": "2" })).toEqual({ "x-b": "2" });
    expect(endToEndHeaders({ "x-b": "2" })).toEqual({ "x-b": "2" });
  });
});

describe("answerFields: the upstream's hop-by-hop fields (RFC 9110 §7.6.1)", () => {
  it("drops the upstream's Connection, the fields it names, Keep-Alive and Transfer-Encoding", () => {
    const upstream = { connection: "close, x-upstream-hop", "x-upstream-hop": "1", "keep-alive": "timeout=5", "transfer-encoding": "chunked", "content-type": "text/plain" };
    expect(answerFields(upstream, true)).toEqual({ "content-type": "text/plain", "x-content-type-options": "nosniff" });
  });
});

describe("addForwardingFields: more of RFC 7239", () => {
  it("replaces forwarding values already in the fields, so none the caller wrote survives", () => {
    const out: Record<string, string | string[]> = { forwarded: "for=6.6.6.6", "x-forwarded-for": "6.6.6.6", "x-real-ip": "6.6.6.6", "x-forwarded-proto": "https" };
    addForwardingFields(out, ["192.0.2.1"], "api.bank.example", "http");
    expect(out.forwarded).toBe("for=192.0.2.1;host=api.bank.example;proto=http");
    expect(out["x-forwarded-for"]).toBe("192.0.2.1");
    expect(out["x-real-ip"]).toBe("192.0.2.1");
    expect(out["x-forwarded-proto"]).toBe("http");
  });

  it("§6: quotes a node with a port (':' is not a token character) and leaves an obfuscated identifier bare", () => {
    const out: Record<string, string | string[]> = {};
    addForwardingFields(out, ["198.51.100.1:4711", "_hidden"], "h", "http");
    expect(out.forwarded).toBe('for="198.51.100.1:4711";host=h;proto=http, for=_hidden');
  });

  it.each([
    ["api.example:8443", "http", "8443"],
    ["api.example:abc", "http", "80"],
    ["api.example:", "https", "443"],
    ["api.example:123456", "http", "80"],
    ["[2001:db8::1]", "https", "443"],
  ] as const)("X-Forwarded-Port of Host %j over %s is %s (RFC 9110 §7.2 uri-host [\":\" port])", (host, proto, port) => {
    const out: Record<string, string | string[]> = {};
    addForwardingFields(out, ["192.0.2.1"], host, proto);
    expect(out["x-forwarded-port"]).toBe(port);
  });
});

describe("isDroppedCallerField: what only the gateway may tell the upstream", () => {
  it.each([
    "authorization", "cookie", "forwarded", "x-forwarded-for", "x_forwarded_host", "x-real-ip",
    // Method overrides (Rails, Laravel, Express's method-override, ASP.NET, Spring's filter).
    "x-http-method-override", "x_http_method_override", "x-http-method", "x-method-override",
    // A client certificate as TLS-terminating proxies forward it: RFC 9440, Envoy, nginx, Apache, Traefik, IIS ARR, AWS ALB.
    "client-cert", "client-cert-chain", "x-forwarded-client-cert", "x-ssl-client-cert", "x_ssl_client_cert", "x-ssl-client-verify",
    "ssl-client-cert", "ssl_client_s_dn", "x-tls-client-cert", "x-client-cert", "x-client-verify", "x-forwarded-tls-client-cert",
    "x-arr-clientcert", "x-amzn-mtls-clientcert", "x-amzn-mtls-clientcert-leaf", "x-amzn-mtls-clientcert-serial-number",
  ])("drops %s", (name) => {
    expect(isDroppedCallerField(name)).toBe(true);
  });

  it.each(["accept", "content-type", "x-request-id", "psu-ip-address", "tpp-redirect-uri", "digest", "signature", "tpp-signature-certificate", "x-client-name"])("keeps %s", (name) => {
    expect(isDroppedCallerField(name)).toBe(false);
  });
});

describe("addVia (RFC 9110 §7.6.3)", () => {
  it("names the gateway by the protocol version it received and its pseudonym, after the intermediaries the caller lists", () => {
    const out: Record<string, string | string[]> = {};
    addVia(out, "1.1");
    expect(out.via).toBe("1.1 tollgate");
    const behind: Record<string, string | string[]> = { via: "1.0 fred, 1.1 p.example.net" };
    addVia(behind, "1.0");
    expect(behind.via).toBe("1.0 fred, 1.1 p.example.net, 1.0 tollgate");
  });
});
