import { describe, expect, it } from "vitest";
import { authMethodsFor, fapi2MethodsOf, inputMessageAbout, TLS_CLIENT_AUTH_PARAMETERS, tlsClientAuthExample, tlsClientAuthInput, usesSigningKeys } from "./client-auth";

describe("client authentication methods", () => {
  it("offers every method to a standard app, and private_key_jwt and mutual TLS only to a FAPI 2.0 app", () => {
    expect(authMethodsFor("standard").map((m) => m.value)).toEqual([
      "client_secret_basic",
      "client_secret_post",
      "private_key_jwt",
      "tls_client_auth",
      "self_signed_tls_client_auth",
    ]);
    expect(authMethodsFor("fapi2").map((m) => m.value)).toEqual(["private_key_jwt", "tls_client_auth", "self_signed_tls_client_auth"]);
    for (const m of authMethodsFor("standard")) expect(m.label).toContain(`(${m.value})`);
  });

  it("keeps the methods FAPI 2.0 allows on a switch to it, or none for the server's default", () => {
    expect(fapi2MethodsOf(["client_secret_basic", "tls_client_auth"])).toEqual(["tls_client_auth"]);
    expect(fapi2MethodsOf(["private_key_jwt", "self_signed_tls_client_auth"])).toEqual(["private_key_jwt", "self_signed_tls_client_auth"]);
    expect(fapi2MethodsOf(["client_secret_basic", "client_secret_post"])).toBeUndefined();
  });

  it("knows which methods need the app's signing keys", () => {
    expect(usesSigningKeys(["client_secret_basic", "tls_client_auth"])).toBe(false);
    expect(usesSigningKeys(["tls_client_auth", "self_signed_tls_client_auth"])).toBe(true);
    expect(usesSigningKeys(["private_key_jwt"])).toBe(true);
  });
});

describe("the tls_client_auth certificate name", () => {
  it("names the five RFC 8705 parameters in words, each with an example", () => {
    expect(TLS_CLIENT_AUTH_PARAMETERS.map((p) => [p.value, p.label])).toEqual([
      ["tls_client_auth_subject_dn", "Subject DN"],
      ["tls_client_auth_san_dns", "DNS name"],
      ["tls_client_auth_san_uri", "URI"],
      ["tls_client_auth_san_ip", "IP address"],
      ["tls_client_auth_san_email", "Email address"],
    ]);
    expect(tlsClientAuthExample("tls_client_auth_san_ip")).toBe("192.0.2.10");
  });

  it("sends the trimmed name, null to remove the app's, and nothing when there is none to remove", () => {
    const current = { parameter: "tls_client_auth_san_dns", value: "tpp.example" } as const;
    expect(tlsClientAuthInput(null, "tls_client_auth_subject_dn", "  CN=tpp.example, O=TPP ")).toEqual({ parameter: "tls_client_auth_subject_dn", value: "CN=tpp.example, O=TPP" });
    expect(tlsClientAuthInput(current, "tls_client_auth_san_dns", " ")).toBeNull();
    expect(tlsClientAuthInput(null, "tls_client_auth_san_dns", "")).toBeUndefined();
  });

  it("reads the server's refusal of the name without the field's name", () => {
    expect(inputMessageAbout("tlsClientAuth", "tlsClientAuth: tls_client_auth_san_ip must be an IPv4 address in dotted decimal or an IPv6 address (RFC 5952)")).toBe(
      "tls_client_auth_san_ip must be an IPv4 address in dotted decimal or an IPv6 address (RFC 5952).",
    );
    expect(inputMessageAbout("tlsClientAuth", "tlsClientAuth: set it first.")).toBe("set it first.");
    expect(inputMessageAbout("tlsClientAuth", "tokenEndpointAuthMethods: private_key_jwt needs keys")).toBeUndefined();
    expect(inputMessageAbout("tlsClientAuth", "tlsClientAuth: ")).toBeUndefined();
  });
});
