import { describe, expect, it } from "vitest";
import { DEMO_FAPI_PUBLIC_JWKS } from "../demo/fapi-key.js";
import type { SecurityProfile } from "../stores/clients.js";
import type { RequestedMetadata } from "./client-metadata.js";
import { RegistrationError, type RegistrationErrorCode } from "./errors.js";
import { resolveMetadata } from "./resolve.js";
import type { SoftwareStatement } from "./software-statement.js";

const KEYS = DEMO_FAPI_PUBLIC_JWKS;
const OTHER_KEYS = { keys: [{ ...DEMO_FAPI_PUBLIC_JWKS.keys[0]!, kid: "other" }] };
const DN = { parameter: "tls_client_auth_subject_dn" as const, value: "CN=tpp.example,O=Acme,C=GB" };

/** A verified statement: software s-1, two redirect URIs, the demo FAPI key. */
const STATEMENT: SoftwareStatement = {
  issuer: "https://directory.example",
  softwareId: "s-1",
  softwareVersion: "1.0",
  clientName: "Budget Buddy",
  redirectUris: ["https://tpp.example/cb", "https://tpp.example/cb2"],
  roles: ["PSP_AI"],
  unknownRoles: [],
  jwks: KEYS,
  organizationId: "org-1",
  issuedAt: 1_770_000_000,
  statementId: "statement-1",
};

function refusal(requested: RequestedMetadata, statement: SoftwareStatement, profile: SecurityProfile, code: RegistrationErrorCode, description: RegExp) {
  let error: unknown;
  try {
    resolveMetadata(requested, statement, profile);
  } catch (e) {
    error = e;
  }
  expect(error, "the registration was accepted").toBeInstanceOf(RegistrationError);
  expect((error as RegistrationError).error).toBe(code);
  expect((error as RegistrationError).message).toMatch(description);
}

describe("resolveMetadata: the software statement takes precedence (RFC 7591 section 3.1)", () => {
  it("fills what the request leaves out from the statement", () => {
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt" }, STATEMENT, "fapi2")).toEqual({
      securityProfile: "fapi2",
      softwareId: "s-1",
      softwareVersion: "1.0",
      clientName: "Budget Buddy",
      redirectUris: ["https://tpp.example/cb", "https://tpp.example/cb2"],
      tokenEndpointAuthMethod: "private_key_jwt",
      grantTypes: ["authorization_code"],
      responseTypes: ["code"],
      scope: undefined,
      jwks: KEYS,
      tlsClientAuth: undefined,
      tlsClientCertificateBoundAccessTokens: false,
      dpopBoundAccessTokens: true,
      requirePushedAuthorizationRequests: true,
      idTokenSignedResponseAlg: "PS256",
      introspectionSignedResponseAlg: "PS256",
      authorizationSignedResponseAlg: "PS256",
      subjectType: "public",
      sectorIdentifierUri: undefined,
      postLogoutRedirectUris: [],
      requireNonce: true,
      requireSignedRequestObject: false,
    });
  });

  it("accepts request values equal to the statement's", () => {
    const requested: RequestedMetadata = { tokenEndpointAuthMethod: "private_key_jwt", softwareId: "s-1", softwareVersion: "1.0", clientName: "Budget Buddy", jwks: structuredClone(KEYS) };
    expect(resolveMetadata(requested, STATEMENT, "fapi2")).toMatchObject({ softwareId: "s-1", clientName: "Budget Buddy", jwks: KEYS });
  });

  it("refuses request values that differ from the statement's with invalid_client_metadata", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    refusal({ ...method, softwareId: "s-2" }, STATEMENT, "fapi2", "invalid_client_metadata", /software_id differs from the software statement's/);
    refusal({ ...method, softwareVersion: "2.0" }, STATEMENT, "fapi2", "invalid_client_metadata", /software_version differs/);
    refusal({ ...method, clientName: "Other" }, STATEMENT, "fapi2", "invalid_client_metadata", /client_name differs/);
    refusal({ ...method, jwks: OTHER_KEYS }, STATEMENT, "fapi2", "invalid_client_metadata", /jwks differs/);
    refusal({ ...method, jwksUri: "https://tpp.example/jwks" }, STATEMENT, "fapi2", "invalid_client_metadata", /carries the client's keys in the other form/);
    const byUri = { ...STATEMENT, jwks: undefined, jwksUri: "https://tpp.example/jwks" };
    refusal({ ...method, jwks: KEYS }, byUri, "fapi2", "invalid_client_metadata", /other form/);
    refusal({ ...method, jwksUri: "https://tpp.example/other" }, byUri, "fapi2", "invalid_client_metadata", /jwks_uri differs/);
    const registered = resolveMetadata({ ...method, jwksUri: "https://tpp.example/jwks" }, byUri, "fapi2");
    expect(registered.jwksUri).toBe("https://tpp.example/jwks");
    expect(registered.jwks).toBeUndefined();
  });

  it("lets the request narrow the statement's redirect URIs, never widen them (invalid_redirect_uri)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    expect(resolveMetadata({ ...method, redirectUris: ["https://tpp.example/cb2"] }, STATEMENT, "fapi2").redirectUris).toEqual(["https://tpp.example/cb2"]);
    refusal({ ...method, redirectUris: ["https://tpp.example/cb", "https://evil.example/cb"] }, STATEMENT, "fapi2", "invalid_redirect_uri", /not among the software statement's redirect URIs: https:\/\/evil.example\/cb/);
    refusal({ ...method, redirectUris: ["https://tpp.example/cb/"] }, STATEMENT, "fapi2", "invalid_redirect_uri", /not among/);
  });

  it("takes the request's redirect URIs and keys when the statement has none", () => {
    const bare = { ...STATEMENT, redirectUris: undefined, jwks: undefined, clientName: undefined };
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", redirectUris: ["https://other.example/cb"], jwks: OTHER_KEYS, clientName: "Mine" }, bare, "fapi2")).toMatchObject({
      redirectUris: ["https://other.example/cb"],
      jwks: OTHER_KEYS,
      clientName: "Mine",
    });
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", redirectUris: ["https://other.example/cb"], jwksUri: "https://other.example/jwks" }, bare, "fapi2")).toMatchObject({
      jwksUri: "https://other.example/jwks",
    });
  });

  it("takes id_token_signed_response_alg from the statement, else the request, else PS256 (OpenID Connect Registration section 2)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    expect(resolveMetadata(method, STATEMENT, "fapi2").idTokenSignedResponseAlg).toBe("PS256");
    expect(resolveMetadata({ ...method, idTokenSignedResponseAlg: "ES256" }, STATEMENT, "fapi2").idTokenSignedResponseAlg).toBe("ES256");
    expect(resolveMetadata({ ...method, idTokenSignedResponseAlg: "PS256" }, STATEMENT, "standard").idTokenSignedResponseAlg).toBe("PS256");
    const es256 = { ...STATEMENT, idTokenSignedResponseAlg: "ES256" as const };
    expect(resolveMetadata(method, es256, "fapi2").idTokenSignedResponseAlg).toBe("ES256");
    expect(resolveMetadata({ ...method, idTokenSignedResponseAlg: "ES256" }, es256, "fapi2").idTokenSignedResponseAlg).toBe("ES256");
    refusal({ ...method, idTokenSignedResponseAlg: "PS256" }, es256, "fapi2", "invalid_client_metadata", /id_token_signed_response_alg differs from the software statement's/);
  });

  it("takes introspection_signed_response_alg from the request, else PS256 (RFC 9701 section 6)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    expect(resolveMetadata(method, STATEMENT, "fapi2").introspectionSignedResponseAlg).toBe("PS256");
    expect(resolveMetadata({ ...method, introspectionSignedResponseAlg: "ES256" }, STATEMENT, "fapi2").introspectionSignedResponseAlg).toBe("ES256");
    expect(resolveMetadata({ ...method, introspectionSignedResponseAlg: "PS256" }, STATEMENT, "standard").introspectionSignedResponseAlg).toBe("PS256");
  });

  it("takes authorization_signed_response_alg from the request, else PS256 (JARM section 3)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    expect(resolveMetadata(method, STATEMENT, "fapi2").authorizationSignedResponseAlg).toBe("PS256");
    expect(resolveMetadata({ ...method, authorizationSignedResponseAlg: "ES256" }, STATEMENT, "fapi2").authorizationSignedResponseAlg).toBe("ES256");
    expect(resolveMetadata({ ...method, authorizationSignedResponseAlg: "PS256" }, STATEMENT, "standard").authorizationSignedResponseAlg).toBe("PS256");
  });

  it("takes subject_type and sector_identifier_uri from the statement, else the request; public by default (OpenID Connect Registration section 2)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    const sector = "https://tpp.example/sector.json";
    expect(resolveMetadata(method, STATEMENT, "fapi2")).toMatchObject({ subjectType: "public", sectorIdentifierUri: undefined });
    expect(resolveMetadata({ ...method, subjectType: "pairwise", sectorIdentifierUri: sector }, STATEMENT, "fapi2")).toMatchObject({ subjectType: "pairwise", sectorIdentifierUri: sector });
    const stated = { ...STATEMENT, subjectType: "pairwise" as const, sectorIdentifierUri: sector };
    expect(resolveMetadata(method, stated, "fapi2")).toMatchObject({ subjectType: "pairwise", sectorIdentifierUri: sector });
    expect(resolveMetadata({ ...method, subjectType: "pairwise", sectorIdentifierUri: sector }, stated, "fapi2")).toMatchObject({ subjectType: "pairwise", sectorIdentifierUri: sector });
    refusal({ ...method, subjectType: "public" }, stated, "fapi2", "invalid_client_metadata", /^subject_type differs from the software statement's/);
    refusal({ ...method, sectorIdentifierUri: "https://other.example/sector.json" }, stated, "fapi2", "invalid_client_metadata", /^sector_identifier_uri differs from the software statement's/);
  });

  it("takes post_logout_redirect_uris from the request, narrowed to the statement's when it lists some (OpenID Connect RP-Initiated Logout 1.0 section 3.1)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    const out = "https://tpp.example/signed-out";
    const bye = "https://app.tpp.example/bye";
    // None anywhere: none registered.
    expect(resolveMetadata(method, STATEMENT, "fapi2").postLogoutRedirectUris).toEqual([]);
    // The statement lists none: the request's, on any host.
    expect(resolveMetadata({ ...method, postLogoutRedirectUris: [out, bye] }, STATEMENT, "fapi2").postLogoutRedirectUris).toEqual([out, bye]);
    expect(resolveMetadata({ ...method, postLogoutRedirectUris: [] }, STATEMENT, "fapi2").postLogoutRedirectUris).toEqual([]);
    // The statement lists some: its own when the request leaves them out, some of them, none of them; never another.
    const stated = { ...STATEMENT, postLogoutRedirectUris: [out, bye] };
    expect(resolveMetadata(method, stated, "fapi2").postLogoutRedirectUris).toEqual([out, bye]);
    expect(resolveMetadata({ ...method, postLogoutRedirectUris: [bye] }, stated, "fapi2").postLogoutRedirectUris).toEqual([bye]);
    expect(resolveMetadata({ ...method, postLogoutRedirectUris: [] }, stated, "fapi2").postLogoutRedirectUris).toEqual([]);
    refusal({ ...method, postLogoutRedirectUris: [out, "https://evil.example/signed-out"] }, stated, "fapi2", "invalid_client_metadata", /^post_logout_redirect_uris: https:\/\/evil.example\/signed-out is not among the software statement's post_logout_redirect_uris$/);
    refusal({ ...method, postLogoutRedirectUris: [`${out}/`] }, stated, "fapi2", "invalid_client_metadata", /is not among the software statement's post_logout_redirect_uris/);
    // Apart from the redirect URIs: one of those is no post-logout redirect URI, and the reverse.
    refusal({ ...method, postLogoutRedirectUris: ["https://tpp.example/cb"] }, stated, "fapi2", "invalid_client_metadata", /is not among/);
    refusal({ ...method, redirectUris: [out] }, stated, "fapi2", "invalid_redirect_uri", /not among the software statement's redirect URIs/);
  });

  it("refuses a pairwise client without sector_identifier_uri whose redirect URIs are on more than one host (OpenID Connect Core section 8.1)", () => {
    const method = { tokenEndpointAuthMethod: "private_key_jwt", subjectType: "pairwise" } as const;
    const twoHosts = { ...STATEMENT, redirectUris: ["https://tpp.example/cb", "https://app.tpp.example/cb"] };
    refusal(method, twoHosts, "fapi2", "invalid_client_metadata", /^a pairwise client whose redirect_uris are on more than one host needs a sector_identifier_uri/);
    // The host with its port, as oauth/subject.ts's sector.
    refusal({ ...method, redirectUris: ["https://tpp.example/cb", "https://tpp.example:8443/cb"] }, { ...STATEMENT, redirectUris: undefined }, "fapi2", "invalid_client_metadata", /more than one host/);
    // One host, several paths; a sector_identifier_uri; a public client; or a narrowed list on one host: accepted.
    expect(resolveMetadata(method, STATEMENT, "fapi2").subjectType).toBe("pairwise");
    expect(resolveMetadata({ ...method, sectorIdentifierUri: "https://tpp.example/sector.json" }, twoHosts, "fapi2").subjectType).toBe("pairwise");
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt" }, twoHosts, "fapi2").subjectType).toBe("public");
    expect(resolveMetadata({ ...method, redirectUris: ["https://app.tpp.example/cb"] }, twoHosts, "fapi2").redirectUris).toEqual(["https://app.tpp.example/cb"]);
    // No redirect URI at all (client credentials only): no sector to be ambiguous about.
    expect(resolveMetadata({ ...method, grantTypes: ["client_credentials"] }, { ...STATEMENT, redirectUris: undefined }, "fapi2").subjectType).toBe("pairwise");
  });

  it("takes require_nonce from the request, false when left out; true for fapi2, which refuses false (OpenID Connect Core section 3.1.2.1)", () => {
    const basic = { tokenEndpointAuthMethod: "client_secret_basic" } as const;
    expect(resolveMetadata(basic, STATEMENT, "standard").requireNonce).toBe(false);
    expect(resolveMetadata({ ...basic, requireNonce: true }, STATEMENT, "standard").requireNonce).toBe(true);
    expect(resolveMetadata({ ...basic, requireNonce: false }, STATEMENT, "standard").requireNonce).toBe(false);
    const method = { tokenEndpointAuthMethod: "private_key_jwt" } as const;
    expect(resolveMetadata(method, STATEMENT, "fapi2").requireNonce).toBe(true);
    expect(resolveMetadata({ ...method, requireNonce: true }, STATEMENT, "fapi2").requireNonce).toBe(true);
    refusal({ ...method, requireNonce: false }, STATEMENT, "fapi2", "invalid_client_metadata", /^a fapi2 client sends a nonce with every openid request .*: leave require_nonce out or set it to true$/);
  });

  it("takes require_signed_request_object from the request, false when left out; true needs keys (RFC 9101 section 10.5)", () => {
    const basic = { tokenEndpointAuthMethod: "client_secret_basic" } as const;
    expect(resolveMetadata(basic, STATEMENT, "standard").requireSignedRequestObject).toBe(false);
    expect(resolveMetadata({ ...basic, requireSignedRequestObject: true }, STATEMENT, "standard").requireSignedRequestObject).toBe(true);
    expect(resolveMetadata({ ...basic, requireSignedRequestObject: false }, STATEMENT, "standard").requireSignedRequestObject).toBe(false);
    const keyless = { ...STATEMENT, jwks: undefined };
    const byUri = { ...basic, requireSignedRequestObject: true, jwksUri: "https://tpp.example/jwks" };
    expect(resolveMetadata(byUri, keyless, "standard").requireSignedRequestObject).toBe(true);
    expect(resolveMetadata({ ...basic, requireSignedRequestObject: false }, keyless, "standard").requireSignedRequestObject).toBe(false);
    refusal({ ...basic, requireSignedRequestObject: true }, keyless, "standard", "invalid_client_metadata", /^require_signed_request_object true needs the client's public keys: jwks or jwks_uri/);
  });

  it("keeps the request's scope", () => {
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", scope: "aisp" }, STATEMENT, "fapi2").scope).toBe("aisp");
  });
});

describe("resolveMetadata: the fapi2 profile (FAPI 2.0 Security Profile section 5.3.2.1)", () => {
  it("needs token_endpoint_auth_method private_key_jwt or tls_client_auth, chosen explicitly", () => {
    refusal({}, STATEMENT, "fapi2", "invalid_client_metadata", /a fapi2 registration must choose token_endpoint_auth_method private_key_jwt or tls_client_auth/);
    refusal({ tokenEndpointAuthMethod: "client_secret_basic" }, STATEMENT, "fapi2", "invalid_client_metadata", /must choose/);
    refusal({ tokenEndpointAuthMethod: "self_signed_tls_client_auth" }, STATEMENT, "fapi2", "invalid_client_metadata", /must choose/);
  });

  it("gives private_key_jwt DPoP-bound tokens and tls_client_auth certificate-bound ones by default, and PAR", () => {
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt" }, STATEMENT, "fapi2")).toMatchObject({ dpopBoundAccessTokens: true, tlsClientCertificateBoundAccessTokens: false, requirePushedAuthorizationRequests: true });
    expect(resolveMetadata({ tokenEndpointAuthMethod: "tls_client_auth", tlsClientAuth: DN }, STATEMENT, "fapi2")).toMatchObject({
      tlsClientAuth: DN,
      dpopBoundAccessTokens: false,
      tlsClientCertificateBoundAccessTokens: true,
      requirePushedAuthorizationRequests: true,
    });
  });

  it("keeps an explicit choice of binding, and refuses none", () => {
    expect(resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", tlsClientCertificateBoundAccessTokens: true }, STATEMENT, "fapi2")).toMatchObject({
      dpopBoundAccessTokens: false,
      tlsClientCertificateBoundAccessTokens: true,
    });
    expect(resolveMetadata({ tokenEndpointAuthMethod: "tls_client_auth", tlsClientAuth: DN, dpopBoundAccessTokens: true, tlsClientCertificateBoundAccessTokens: true }, STATEMENT, "fapi2")).toMatchObject({
      dpopBoundAccessTokens: true,
      tlsClientCertificateBoundAccessTokens: true,
    });
    refusal({ tokenEndpointAuthMethod: "private_key_jwt", dpopBoundAccessTokens: false }, STATEMENT, "fapi2", "invalid_client_metadata", /sender-constrained access tokens only/);
    refusal({ tokenEndpointAuthMethod: "tls_client_auth", tlsClientAuth: DN, tlsClientCertificateBoundAccessTokens: false, dpopBoundAccessTokens: false }, STATEMENT, "fapi2", "invalid_client_metadata", /sender-constrained/);
  });
});

describe("resolveMetadata: client authentication", () => {
  it("defaults a standard registration to client_secret_basic (RFC 7591 section 2), with no binding or PAR", () => {
    expect(resolveMetadata({}, STATEMENT, "standard")).toMatchObject({
      securityProfile: "standard",
      tokenEndpointAuthMethod: "client_secret_basic",
      dpopBoundAccessTokens: false,
      tlsClientCertificateBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
  });

  it("needs keys for private_key_jwt and self_signed_tls_client_auth", () => {
    const keyless = { ...STATEMENT, jwks: undefined };
    refusal({ tokenEndpointAuthMethod: "private_key_jwt" }, keyless, "standard", "invalid_client_metadata", /private_key_jwt needs the client's public keys/);
    refusal({ tokenEndpointAuthMethod: "self_signed_tls_client_auth" }, keyless, "standard", "invalid_client_metadata", /self_signed_tls_client_auth needs the client's public keys/);
    expect(resolveMetadata({ tokenEndpointAuthMethod: "self_signed_tls_client_auth" }, STATEMENT, "standard").tokenEndpointAuthMethod).toBe("self_signed_tls_client_auth");
  });

  it("needs the tls_client_auth_* member with tls_client_auth, and refuses it with another method", () => {
    refusal({ tokenEndpointAuthMethod: "tls_client_auth" }, STATEMENT, "standard", "invalid_client_metadata", /tls_client_auth needs exactly one of/);
    refusal({ tokenEndpointAuthMethod: "private_key_jwt", tlsClientAuth: DN }, STATEMENT, "fapi2", "invalid_client_metadata", /tls_client_auth_subject_dn goes with token_endpoint_auth_method tls_client_auth only/);
    refusal({ tlsClientAuth: DN }, STATEMENT, "standard", "invalid_client_metadata", /goes with token_endpoint_auth_method tls_client_auth only/);
  });
});

describe("resolveMetadata: grant and response types (RFC 7591 section 2.1)", () => {
  const fapi = { tokenEndpointAuthMethod: "private_key_jwt" } as const;

  it("registers client credentials alone without response types or redirect URIs", () => {
    const noUris = { ...STATEMENT, redirectUris: [] };
    expect(resolveMetadata({ ...fapi, grantTypes: ["client_credentials"] }, noUris, "fapi2")).toMatchObject({ grantTypes: ["client_credentials"], responseTypes: [], redirectUris: [] });
  });

  it("pairs authorization_code with code", () => {
    expect(resolveMetadata({ ...fapi, grantTypes: ["authorization_code", "refresh_token", "client_credentials"] }, STATEMENT, "fapi2").responseTypes).toEqual(["code"]);
    refusal({ ...fapi, grantTypes: ["authorization_code"], responseTypes: [] }, STATEMENT, "fapi2", "invalid_client_metadata", /authorization_code and response_types code go together/);
    refusal({ ...fapi, grantTypes: ["client_credentials"], responseTypes: ["code"] }, STATEMENT, "fapi2", "invalid_client_metadata", /go together/);
  });

  it("refuses refresh_token without authorization_code", () => {
    refusal({ ...fapi, grantTypes: ["client_credentials", "refresh_token"] }, STATEMENT, "fapi2", "invalid_client_metadata", /refresh_token needs authorization_code/);
  });

  it("needs a redirect URI for authorization_code (invalid_redirect_uri)", () => {
    refusal(fapi, { ...STATEMENT, redirectUris: [] }, "fapi2", "invalid_redirect_uri", /needs at least one redirect URI/);
    refusal(fapi, { ...STATEMENT, redirectUris: undefined }, "fapi2", "invalid_redirect_uri", /needs at least one redirect URI/);
  });
});
