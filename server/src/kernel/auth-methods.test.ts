import { describe, expect, it } from "vitest";
import { CLIENT_AUTH_METHODS, parseClientAuthMethods } from "./auth-methods.js";

describe("parseClientAuthMethods (RFC 7591 §2 token_endpoint_auth_method names)", () => {
  it("knows exactly the two client secret methods of RFC 6749 §2.3.1, private_key_jwt (RFC 7523 §2.2) and the two mutual-TLS methods (RFC 8705 §2)", () => {
    expect([...CLIENT_AUTH_METHODS]).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt", "tls_client_auth", "self_signed_tls_client_auth"]);
  });

  it.each([
    [["client_secret_basic"], ["client_secret_basic"]],
    [["client_secret_post", "client_secret_basic"], ["client_secret_basic", "client_secret_post"]],
    [["none", "client_secret_jwt", "TLS_CLIENT_AUTH"], []],
    [["self_signed_tls_client_auth", "tls_client_auth"], ["tls_client_auth", "self_signed_tls_client_auth"]],
    [["private_key_jwt", "client_secret_basic"], ["client_secret_basic", "private_key_jwt"]],
    [["CLIENT_SECRET_BASIC", "client_secret_post "], []],
    [["client_secret_post", "client_secret_post"], ["client_secret_post"]],
    [[], []],
  ])("%j gives %j", (names, methods) => {
    expect(parseClientAuthMethods(names)).toEqual(methods);
  });
});
