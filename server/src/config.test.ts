/**
 * Settings with rules of their own: the brand of the end-user pages, whose logo is an
 * http(s) URL or a path on this origin, never a script or data URL.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig: BRAND_NAME and BRAND_LOGO_URL", () => {
  it("defaults to Tollgate and no logo", () => {
    expect(loadConfig({}).brand).toEqual({ name: "Tollgate", logoUrl: undefined });
  });

  it("takes the bank's name, trimmed, and a logo URL or a path on this origin", () => {
    expect(loadConfig({ BRAND_NAME: "  Acme Bank ", BRAND_LOGO_URL: "https://cdn.acme.example/logo.svg" }).brand).toEqual({
      name: "Acme Bank",
      logoUrl: "https://cdn.acme.example/logo.svg",
    });
    expect(loadConfig({ BRAND_LOGO_URL: "/brand/logo.svg" }).brand.logoUrl).toBe("/brand/logo.svg");
    expect(loadConfig({ BRAND_LOGO_URL: "http://localhost:8080/logo.png" }).brand.logoUrl).toBe("http://localhost:8080/logo.png");
  });

  it.each(["", "   ", "Acme\nBank", "A".repeat(101)])("refuses the name %j, naming the variable", (name) => {
    expect(() => loadConfig({ BRAND_NAME: name })).toThrow(/BRAND_NAME/);
  });

  it.each([
    "javascript:alert(1)",
    "data:image/svg+xml,<svg/>",
    "ftp://files.acme.example/logo.svg",
    "logo.svg",
    "brand/logo.svg",
    "//evil.example/logo.svg",
    "/\\evil.example/logo.svg",
    "/brand/my logo.svg",
    "",
  ])("refuses the logo %j, naming the variable", (logo) => {
    expect(() => loadConfig({ BRAND_LOGO_URL: logo })).toThrow(/BRAND_LOGO_URL/);
  });
});

describe("loadConfig: mutual TLS (RFC 8705)", () => {
  it("is off by default: no TLS listener, no CA, no proxy header", () => {
    const config = loadConfig({});
    expect(config.tls).toBeUndefined();
    expect(config.clientCertificates).toEqual({ caFile: undefined, crlFiles: [], crlReloadSeconds: 3600, header: undefined, proxies: [] });
    expect(config.tppRoleProducts).toBeUndefined();
  });

  it("takes the TLS listener, its public address, the CA and CRL files and the proxy header with its addresses", () => {
    const config = loadConfig({
      TLS_PORT: "8443",
      TLS_CERT: "/etc/tollgate/tls.pem",
      TLS_KEY: "/etc/tollgate/tls.key",
      TLS_CLIENT_CA: "/etc/tollgate/qtsp.pem",
      TLS_CLIENT_CRLS: " /etc/a.crl, /etc/b.crl ,",
      CRL_RELOAD_SECONDS: "300",
      TLS_CLIENT_CERT_HEADER: "X-SSL-Client-Cert",
      TLS_CLIENT_CERT_PROXIES: "10.0.0.0/8, 127.0.0.1",
    });
    expect(config.tls).toEqual({ port: 8443, certFile: "/etc/tollgate/tls.pem", keyFile: "/etc/tollgate/tls.key", baseUrl: "https://localhost:8443" });
    expect(config.clientCertificates).toEqual({
      caFile: "/etc/tollgate/qtsp.pem",
      crlFiles: ["/etc/a.crl", "/etc/b.crl"],
      crlReloadSeconds: 300,
      header: "x-ssl-client-cert",
      proxies: ["10.0.0.0/8", "127.0.0.1"],
    });
    expect(() => loadConfig({ CRL_RELOAD_SECONDS: "0" })).toThrow(/CRL_RELOAD_SECONDS/);
    expect(loadConfig({ TLS_PORT: "8443", TLS_CERT: "c", TLS_KEY: "k", TLS_BASE_URL: "https://mtls.bank.example/" }).tls?.baseUrl).toBe("https://mtls.bank.example");
  });

  it("needs the certificate and key with TLS_PORT, and the proxies with the header", () => {
    expect(() => loadConfig({ TLS_PORT: "8443", TLS_CERT: "c" })).toThrow(/TLS_CERT, TLS_KEY: required with TLS_PORT/);
    expect(() => loadConfig({ TLS_CLIENT_CERT_HEADER: "x-ssl-client-cert" })).toThrow(/TLS_CLIENT_CERT_PROXIES: required with TLS_CLIENT_CERT_HEADER/);
    expect(() => loadConfig({ TLS_CLIENT_CERT_HEADER: "x ssl", TLS_CLIENT_CERT_PROXIES: "127.0.0.1" })).toThrow(/TLS_CLIENT_CERT_HEADER/);
  });
});
