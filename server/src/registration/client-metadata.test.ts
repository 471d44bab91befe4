import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEMO_DIRECTORY_PRIVATE_JWK } from "../demo/directory.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../demo/fapi-key.js";
import { MAX_REQUEST_MEMBERS, parseClientMetadata } from "./client-metadata.js";
import { RegistrationError, type RegistrationErrorCode } from "./errors.js";

async function expectRefused(body: unknown, description: RegExp, code: RegistrationErrorCode = "invalid_client_metadata") {
  const error = await parseClientMetadata(body).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the body was accepted").toBeInstanceOf(RegistrationError);
  expect((error as RegistrationError).error).toBe(code);
  expect((error as RegistrationError).message).toMatch(description);
}

describe("parseClientMetadata reads the RFC 7591 members", () => {
  it("reads every supported member", async () => {
    const body = {
      redirect_uris: ["https://tpp.example/cb", "https://tpp.example/cb", "https://tpp.example/cb?x=1"],
      token_endpoint_auth_method: "tls_client_auth",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "Budget Buddy",
      scope: "aisp pisp aisp",
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      tls_client_auth_subject_dn: "CN=tpp.example,O=Acme Fintech Ltd,C=GB",
      tls_client_certificate_bound_access_tokens: true,
      dpop_bound_access_tokens: false,
      id_token_signed_response_alg: "ES256",
      introspection_signed_response_alg: "ES256",
      authorization_signed_response_alg: "ES256",
      subject_type: "pairwise",
      sector_identifier_uri: "https://tpp.example/sector.json",
      post_logout_redirect_uris: ["https://tpp.example/signed-out", "https://tpp.example/signed-out", "https://tpp.example/bye?x=1"],
      require_nonce: true,
      require_signed_request_object: true,
      software_id: "acme",
      software_version: 2,
      software_statement: "a.b.c",
    };
    expect(await parseClientMetadata(body)).toEqual({
      redirectUris: ["https://tpp.example/cb", "https://tpp.example/cb?x=1"],
      tokenEndpointAuthMethod: "tls_client_auth",
      grantTypes: ["authorization_code", "refresh_token"],
      responseTypes: ["code"],
      clientName: "Budget Buddy",
      scope: "aisp pisp",
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      tlsClientAuth: { parameter: "tls_client_auth_subject_dn", value: "CN=tpp.example,O=Acme Fintech Ltd,C=GB" },
      tlsClientCertificateBoundAccessTokens: true,
      dpopBoundAccessTokens: false,
      idTokenSignedResponseAlg: "ES256",
      introspectionSignedResponseAlg: "ES256",
      authorizationSignedResponseAlg: "ES256",
      subjectType: "pairwise",
      sectorIdentifierUri: "https://tpp.example/sector.json",
      postLogoutRedirectUris: ["https://tpp.example/signed-out", "https://tpp.example/bye?x=1"],
      requireNonce: true,
      requireSignedRequestObject: true,
      softwareId: "acme",
      softwareVersion: "2",
      softwareStatement: "a.b.c",
    });
  });

  it("takes an empty body, null members and an empty scope as left out", async () => {
    const empty = await parseClientMetadata({});
    expect(Object.values(empty).every((value) => value === undefined)).toBe(true);
    const nulls = await parseClientMetadata({ redirect_uris: null, client_name: null, jwks: null, jwks_uri: null, tls_client_auth_san_dns: null, scope: "", dpop_bound_access_tokens: null, id_token_signed_response_alg: null, introspection_signed_response_alg: null, authorization_signed_response_alg: null, subject_type: null, sector_identifier_uri: null, post_logout_redirect_uris: null, require_nonce: null, require_signed_request_object: null });
    expect(Object.values(nulls).every((value) => value === undefined)).toBe(true);
  });

  it("ignores unknown members and never returns them", async () => {
    const body = JSON.parse('{"logo_uri":"https://x.example/l.png","contacts":["a@b"],"__proto__":{"admin":true},"constructor":1,"client_name#ja-Jpan-JP":"x","client_name":"Ok"}');
    const parsed = await parseClientMetadata(body);
    expect(parsed.clientName).toBe("Ok");
    expect(Object.keys(parsed).sort()).toEqual(
      [
        "clientName", "dpopBoundAccessTokens", "grantTypes", "idTokenSignedResponseAlg", "introspectionSignedResponseAlg", "authorizationSignedResponseAlg", "redirectUris", "responseTypes", "scope", "softwareId", "softwareStatement", "softwareVersion",
        "tlsClientAuth", "tlsClientCertificateBoundAccessTokens", "tokenEndpointAuthMethod", "subjectType", "sectorIdentifierUri", "postLogoutRedirectUris", "requireNonce", "requireSignedRequestObject",
      ].sort(),
    );
    expect((parsed as Record<string, unknown>).admin).toBeUndefined();
  });

  it("reads a jwks_uri, and each tls_client_auth_* member", async () => {
    expect((await parseClientMetadata({ jwks_uri: "https://tpp.example/jwks" })).jwksUri).toBe("https://tpp.example/jwks");
    for (const [parameter, value] of [
      ["tls_client_auth_san_dns", "tpp.example"],
      ["tls_client_auth_san_uri", "https://tpp.example/id"],
      ["tls_client_auth_san_ip", "2001:db8::1"],
      ["tls_client_auth_san_email", "ops@tpp.example"],
    ]) {
      expect((await parseClientMetadata({ [parameter!]: value })).tlsClientAuth).toEqual({ parameter, value });
    }
  });

  it("reads require_nonce true and false (OpenID Connect Core section 3.1.2.1)", async () => {
    for (const value of [true, false]) expect((await parseClientMetadata({ require_nonce: value })).requireNonce).toBe(value);
  });

  it("reads require_signed_request_object true and false (RFC 9101 section 10.5)", async () => {
    for (const value of [true, false]) expect((await parseClientMetadata({ require_signed_request_object: value })).requireSignedRequestObject).toBe(value);
  });

  it("reads id_token_signed_response_alg PS256 and ES256 (OpenID Connect Registration section 2)", async () => {
    for (const alg of ["PS256", "ES256"]) expect((await parseClientMetadata({ id_token_signed_response_alg: alg })).idTokenSignedResponseAlg).toBe(alg);
  });

  it("reads introspection_signed_response_alg PS256 and ES256 (RFC 9701 section 6)", async () => {
    for (const alg of ["PS256", "ES256"]) expect((await parseClientMetadata({ introspection_signed_response_alg: alg })).introspectionSignedResponseAlg).toBe(alg);
  });

  it("reads authorization_signed_response_alg PS256 and ES256 (JARM section 3)", async () => {
    for (const alg of ["PS256", "ES256"]) expect((await parseClientMetadata({ authorization_signed_response_alg: alg })).authorizationSignedResponseAlg).toBe(alg);
  });

  it("reads subject_type public and pairwise, and an https sector_identifier_uri as sent (OpenID Connect Registration section 2)", async () => {
    for (const type of ["public", "pairwise"]) expect((await parseClientMetadata({ subject_type: type })).subjectType).toBe(type);
    const uri = "https://tpp.example:8443/sector/uris.json?v=2";
    expect((await parseClientMetadata({ sector_identifier_uri: uri })).sectorIdentifierUri).toBe(uri);
  });

  it("reads post_logout_redirect_uris as sent, each once, empty or not (OpenID Connect RP-Initiated Logout 1.0 section 3.1)", async () => {
    const uris = ["https://tpp.example/signed-out", "https://tpp.example:8443/bye?from=bank", "https://app.tpp.example/signed-out"];
    expect((await parseClientMetadata({ post_logout_redirect_uris: uris })).postLogoutRedirectUris).toEqual(uris);
    expect((await parseClientMetadata({ post_logout_redirect_uris: [uris[0], uris[0]] })).postLogoutRedirectUris).toEqual([uris[0]]);
    expect((await parseClientMetadata({ post_logout_redirect_uris: [] })).postLogoutRedirectUris).toEqual([]);
    expect((await parseClientMetadata({})).postLogoutRedirectUris).toBeUndefined();
  });
});

describe("parseClientMetadata refuses", () => {
  it("a body that is not a JSON object, or has too many members", async () => {
    for (const body of [null, 1, "x", [], true]) await expectRefused(body, /must be a JSON object/);
    const many = Object.fromEntries(Array.from({ length: MAX_REQUEST_MEMBERS + 1 }, (_, i) => [`m${i}`, i]));
    await expectRefused(many, /at most 64 members/);
  });

  it("redirect URIs that are not exact https URIs, with invalid_redirect_uri", async () => {
    const refused = (redirect_uris: unknown, description: RegExp) => expectRefused({ redirect_uris }, description, "invalid_redirect_uri");
    await refused("https://tpp.example/cb", /redirect_uris must be an array of strings/);
    await refused([1], /redirect_uris must be an array of strings/);
    await refused(["http://tpp.example/cb"], /redirect URI 1 must be an https URL/);
    await refused(["https://tpp.example/cb", "http://localhost:8080/callback"], /redirect URI 2 must be an https URL/);
    await refused(["https://tpp.example/cb#frag"], /without a fragment/);
    await refused(["https://tpp.example/c b"], /RFC 3986 characters only/);
    await refused(["https://tpp.example/é"], /RFC 3986 characters only/);
    await refused(["/relative/cb"], /an absolute URL/);
    await refused(["custom-scheme:/cb"], /an https URL/);
    await refused([`https://tpp.example/${"a".repeat(2000)}`], /at most 2000 characters/);
    await refused(Array.from({ length: 21 }, (_, i) => `https://tpp.example/${i}`), /at most 20 values/);
  });

  it("post_logout_redirect_uris that are not what redirect_uris may be, with invalid_client_metadata naming the member (not invalid_redirect_uri)", async () => {
    const cases: [unknown, RegExp][] = [
      ["https://tpp.example/signed-out", /^post_logout_redirect_uris must be an array of strings$/],
      [{ uri: "https://tpp.example/signed-out" }, /^post_logout_redirect_uris must be an array of strings$/],
      [1, /^post_logout_redirect_uris must be an array of strings$/],
      [[1], /^post_logout_redirect_uris must be an array of strings$/],
      [["https://tpp.example/signed-out", null], /^post_logout_redirect_uris must be an array of strings$/],
      [[["https://tpp.example/signed-out"]], /^post_logout_redirect_uris must be an array of strings$/],
      [["https://tpp.example/signed-out#done"], /^post_logout_redirect_uris: URI 1 must be without a fragment$/],
      [["https://tpp.example/signed-out", "/signed-out"], /^post_logout_redirect_uris: URI 2 must be an absolute URL$/],
      [["signed-out"], /^post_logout_redirect_uris: URI 1 must be an absolute URL$/],
      [["http://tpp.example/signed-out"], /^post_logout_redirect_uris: URI 1 must be an https URL$/],
      [["http://localhost:8080/signed-out"], /^post_logout_redirect_uris: URI 1 must be an https URL$/],
      [["custom-scheme:/signed-out"], /^post_logout_redirect_uris: URI 1 must be an https URL$/],
      [["https://tpp.example/signed out"], /^post_logout_redirect_uris: URI 1 must be RFC 3986 characters only/],
      [["https://tpp.example/é"], /^post_logout_redirect_uris: URI 1 must be RFC 3986 characters only/],
      [[`https://tpp.example/${"a".repeat(2000)}`], /^post_logout_redirect_uris: URI 1 must be at most 2000 characters$/],
      [Array.from({ length: 21 }, (_, i) => `https://tpp.example/${i}`), /^post_logout_redirect_uris may hold at most 20 values$/],
    ];
    for (const [uris, description] of cases) await expectRefused({ post_logout_redirect_uris: uris }, description);
  });

  it("an unsupported token_endpoint_auth_method", async () => {
    for (const method of ["none", "client_secret_post", "client_secret_jwt", "", 1, "PRIVATE_KEY_JWT"]) {
      await expectRefused({ token_endpoint_auth_method: method }, /token_endpoint_auth_method must be one of private_key_jwt, tls_client_auth, self_signed_tls_client_auth, client_secret_basic/);
    }
  });

  it("unsupported grant and response types", async () => {
    await expectRefused({ grant_types: ["implicit"] }, /grant_types may hold only authorization_code, refresh_token, client_credentials; implicit is not supported/);
    await expectRefused({ grant_types: ["password"] }, /password is not supported/);
    await expectRefused({ grant_types: [] }, /at least one grant type/);
    await expectRefused({ grant_types: "authorization_code" }, /grant_types must be an array/);
    await expectRefused({ response_types: ["token"] }, /response_types may hold only code/);
    await expectRefused({ response_types: ["code id_token"] }, /response_types may hold only code/);
  });

  it("a client_name that is not short, clean text", async () => {
    await expectRefused({ client_name: 1 }, /client_name must be a string/);
    await expectRefused({ client_name: " " }, /client_name must be non-empty/);
    await expectRefused({ client_name: "a\u0000b" }, /without NUL/);
    await expectRefused({ client_name: "\ud800" }, /well-formed/);
    await expectRefused({ client_name: "x".repeat(101) }, /at most 100 characters/);
  });

  it.each([
    ["a right-to-left override", "Budget \u202eBuddy"],
    ["a first-strong isolate", "\u2068Budget Buddy\u2069"],
    ["an Arabic letter mark", "Budget Buddy\u061c"],
    ["a zero-width space", "Your B\u200bank"],
    ["a left-to-right mark", "Budget Buddy\u200e"],
    ["a soft hyphen", "Budget\u00adBuddy"],
    ["a line feed", "Budget\nBuddy"],
    ["a line separator", "Budget\u2028Buddy"],
  ])("a client_name with %s: the PSU is shown it (kernel/text.ts isDisplayText)", async (_what, name) => {
    await expectRefused({ client_name: name }, /client_name must be text without control or invisible characters/);
  });

  it("a client_name in right-to-left letters is no such character: it is accepted", async () => {
    await expect(parseClientMetadata({ client_name: "\u05ea\u05e7\u05e6\u05d9\u05d1 Budget" })).resolves.toMatchObject({ clientName: "\u05ea\u05e7\u05e6\u05d9\u05d1 Budget" });
  });

  it("a scope that is not RFC 6749 scope tokens", async () => {
    await expectRefused({ scope: ["aisp"] }, /scope must be a string/);
    await expectRefused({ scope: "aisp  pisp" }, /scope tokens separated by single spaces/);
    await expectRefused({ scope: 'a"b' }, /scope tokens/);
    await expectRefused({ scope: "x".repeat(1001) }, /at most 1000 characters/);
    await expectRefused({ scope: Array.from({ length: 51 }, (_, i) => `s${i}`).join(" ") }, /at most 50 scopes/);
  });

  it("keys that are not public signing keys, or given twice", async () => {
    await expectRefused({ jwks: DEMO_FAPI_PUBLIC_JWKS, jwks_uri: "https://tpp.example/jwks" }, /jwks and jwks_uri exclude each other/);
    await expectRefused({ jwks: { keys: [DEMO_DIRECTORY_PRIVATE_JWK] } }, /jwks: key 1 has a private member \(d\)/);
    await expectRefused({ jwks: { keys: [] } }, /jwks: the JWK Set must hold 1 to 10 keys/);
    await expectRefused({ jwks: [DEMO_FAPI_PUBLIC_JWKS.keys[0]] }, /jwks must be a JWK Set/);
    await expectRefused({ jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } }, /jwks: key 1 has a private member \(k\)/);
    await expectRefused({ jwks_uri: "http://tpp.example/jwks" }, /jwks_uri must be an https URL/);
    await expectRefused({ jwks_uri: "https://169.254.169.254/latest/meta-data" }, /link-local/);
    await expectRefused({ jwks_uri: "https://[fe80::1]/jwks" }, /link-local/);
    await expectRefused({ jwks_uri: "https://metadata.google.internal./jwks" }, /link-local/);
    await expectRefused({ jwks_uri: 5 }, /jwks_uri must be a string/);
  });

  it("tls_client_auth_* members that are not exactly one well-formed value (RFC 8705 section 2.1.2)", async () => {
    await expectRefused({ tls_client_auth_subject_dn: "CN=a", tls_client_auth_san_dns: "a.example" }, /exactly one of tls_client_auth_subject_dn/);
    await expectRefused({ tls_client_auth_subject_dn: "not a DN" }, /tls_client_auth_subject_dn is not an RFC 4514 distinguished name/);
    await expectRefused({ tls_client_auth_san_ip: "999.1.1.1" }, /tls_client_auth_san_ip must be an IPv4 address/);
    await expectRefused({ tls_client_auth_san_dns: 1 }, /tls_client_auth_san_dns must be a string/);
    await expectRefused({ tls_client_auth_san_uri: "" }, /tls_client_auth_san_uri must be non-empty/);
    await expectRefused({ tls_client_auth_san_email: "a\u0000@b.example" }, /without NUL/);
    await expectRefused({ tls_client_auth_subject_dn: `CN=${"a".repeat(5000)}` }, /at most 4096 characters/);
  });

  it("binding flags that are not booleans", async () => {
    await expectRefused({ tls_client_certificate_bound_access_tokens: "true" }, /tls_client_certificate_bound_access_tokens must be true or false/);
    await expectRefused({ dpop_bound_access_tokens: 1 }, /dpop_bound_access_tokens must be true or false/);
  });

  it("a require_nonce that is not a boolean (OpenID Connect Core section 3.1.2.1)", async () => {
    for (const value of ["true", "false", 1, 0, "", [true], { required: true }]) await expectRefused({ require_nonce: value }, /^require_nonce must be true or false$/);
  });

  it("a require_signed_request_object that is not a boolean (RFC 9101 section 10.5)", async () => {
    for (const value of ["true", 1, 0, "", [true], { required: true }]) await expectRefused({ require_signed_request_object: value }, /^require_signed_request_object must be true or false$/);
  });

  it("an id_token_signed_response_alg other than our own signing algorithms (FAPI 2.0 section 5.4.1), naming the allowed values", async () => {
    for (const alg of ["none", "RS256", "HS256", "EdDSA", "ps256", "PS256 ", "", 256, true, ["ES256"], { alg: "ES256" }]) {
      await expectRefused({ id_token_signed_response_alg: alg }, /^id_token_signed_response_alg must be PS256 or ES256 \(FAPI 2\.0 Security Profile section 5\.4\.1\)/);
    }
  });

  it("an introspection_signed_response_alg other than our own signing algorithms (RFC 9701 section 6, FAPI 2.0 section 5.4.1), naming the allowed values", async () => {
    for (const alg of ["none", "RS256", "HS256", "EdDSA", "es256", "", 256, ["PS256"]]) {
      await expectRefused({ introspection_signed_response_alg: alg }, /^introspection_signed_response_alg must be PS256 or ES256 \(FAPI 2\.0 Security Profile section 5\.4\.1\): the algorithms this server signs introspection responses with$/);
    }
  });

  it("an authorization_signed_response_alg other than our own signing algorithms (JARM section 3), naming the allowed values", async () => {
    for (const alg of ["none", "RS256", "HS256", "EdDSA", "es256", "", 256, ["PS256"]]) {
      await expectRefused({ authorization_signed_response_alg: alg }, /^authorization_signed_response_alg must be PS256 or ES256 \(FAPI 2\.0 Security Profile section 5\.4\.1\): the algorithms this server signs authorization responses with$/);
    }
  });

  it("a subject_type other than public or pairwise, naming the allowed values", async () => {
    for (const type of ["Pairwise", "PUBLIC", "pairwise ", "", "ppid", 1, true, ["pairwise"], { type: "public" }]) {
      await expectRefused({ subject_type: type }, /^subject_type must be public or pairwise \(OpenID Connect Core section 8\)$/);
    }
  });

  it("a sector_identifier_uri that is not an https URL, or names a link-local or metadata address", async () => {
    const cases: [unknown, RegExp][] = [
      [1, /^sector_identifier_uri must be a string$/],
      [["https://tpp.example/s.json"], /^sector_identifier_uri must be a string$/],
      ["", /^sector_identifier_uri must be non-empty/],
      ["http://tpp.example/sector.json", /^sector_identifier_uri must be an https URL$/],
      ["/sector.json", /^sector_identifier_uri must be an absolute URL$/],
      ["https://tpp.example/sector.json#x", /^sector_identifier_uri must be without a fragment$/],
      ["https://tpp.example/a b", /^sector_identifier_uri must be RFC 3986 characters only/],
      [`https://tpp.example/${"a".repeat(2000)}`, /^sector_identifier_uri must be at most 2000 characters$/],
      ["https://169.254.169.254/latest/meta-data", /^sector_identifier_uri must be on neither a link-local nor a cloud metadata address$/],
      ["https://metadata.google.internal/x", /^sector_identifier_uri must be on neither a link-local nor a cloud metadata address$/],
    ];
    for (const [uri, description] of cases) await expectRefused({ sector_identifier_uri: uri }, description);
  });

  it("a software_statement that is not a string, with invalid_software_statement", async () => {
    await expectRefused({ software_statement: { alg: "none" } }, /compact JWS string/, "invalid_software_statement");
    await expectRefused({ software_statement: 1 }, /compact JWS string/, "invalid_software_statement");
  });

  it("software_id and software_version of the wrong type", async () => {
    await expectRefused({ software_id: 1 }, /software_id must be a string/);
    await expectRefused({ software_version: [1] }, /software_version must be a string/);
    await expectRefused({ software_version: "v".repeat(65) }, /software_version must be at most 64/);
  });
});

describe("properties", () => {
  const MEMBERS = [
    "redirect_uris", "token_endpoint_auth_method", "grant_types", "response_types", "client_name", "scope", "jwks", "jwks_uri",
    "tls_client_auth_subject_dn", "tls_client_auth_san_dns", "tls_client_auth_san_uri", "tls_client_auth_san_ip", "tls_client_auth_san_email",
    "tls_client_certificate_bound_access_tokens", "dpop_bound_access_tokens", "id_token_signed_response_alg", "introspection_signed_response_alg", "subject_type", "sector_identifier_uri", "post_logout_redirect_uris", "require_nonce", "require_signed_request_object", "software_id", "software_version", "software_statement",
  ];
  const outcome = (body: unknown) => parseClientMetadata(body).then(() => undefined, (e: unknown) => e);

  it("any JSON value is parsed or refused with a RegistrationError, never anything else", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const error = await outcome(body);
        if (error !== undefined) expect(error).toBeInstanceOf(RegistrationError);
      }),
      { numRuns: 300 },
    );
  });

  it("bodies of known members with arbitrary values are parsed or refused with a RegistrationError", async () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom("https://tpp.example/cb", "private_key_jwt", "authorization_code", "code", "CN=x", "1.2.3.4", "https://tpp.example/jwks", "ES256", "RS256", "none", "public", "pairwise"),
      fc.array(fc.constantFrom("https://tpp.example/cb", "authorization_code", "refresh_token", "code", "http://x", 1), { maxLength: 4 }),
      fc.constant(DEMO_FAPI_PUBLIC_JWKS),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...MEMBERS), value, { maxKeys: 8 }), async (body) => {
        const error = await outcome(body);
        if (error !== undefined) expect(error).toBeInstanceOf(RegistrationError);
      }),
      { numRuns: 400 },
    );
  });

  it("costs time linear in the body: a huge body is refused by its bounds", async () => {
    const cases = [
      Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`m${i}`, i])),
      { redirect_uris: Array.from({ length: 100_000 }, () => "https://tpp.example/cb") },
      { post_logout_redirect_uris: Array.from({ length: 100_000 }, () => "https://tpp.example/signed-out") },
      { client_name: "x".repeat(1_000_000) },
      { scope: "a ".repeat(500_000) },
      { tls_client_auth_subject_dn: "CN=a+".repeat(200_000) },
    ];
    for (const body of cases) {
      const started = performance.now();
      expect(await outcome(body)).toBeInstanceOf(RegistrationError);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
