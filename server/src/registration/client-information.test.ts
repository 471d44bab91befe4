import { describe, expect, it } from "vitest";
import { DEMO_FAPI_PUBLIC_JWKS } from "../demo/fapi-key.js";
import { parseClientMetadata } from "./client-metadata.js";
import { clientInformationResponse, metadataMembers, registrationClientUri } from "./client-information.js";
import { resolveMetadata, type RegisteredMetadata } from "./resolve.js";
import type { SoftwareStatement } from "./software-statement.js";

const STATEMENT: SoftwareStatement = {
  issuer: "https://directory.example",
  softwareId: "s-1",
  clientName: "Budget Buddy",
  redirectUris: ["https://tpp.example/cb"],
  roles: ["PSP_AI"],
  unknownRoles: [],
  jwks: DEMO_FAPI_PUBLIC_JWKS,
  organizationId: "org-1",
  issuedAt: 1_770_000_000,
  statementId: "statement-1",
};

const FAPI: RegisteredMetadata = resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", scope: "aisp" }, STATEMENT, "fapi2");
const BASIC: RegisteredMetadata = resolveMetadata({ grantTypes: ["client_credentials"], redirectUris: [] }, { ...STATEMENT, jwks: undefined }, "standard");
const MTLS: RegisteredMetadata = resolveMetadata(
  { tokenEndpointAuthMethod: "tls_client_auth", tlsClientAuth: { parameter: "tls_client_auth_san_dns", value: "tpp.example" } },
  STATEMENT,
  "fapi2",
);

const ES256: RegisteredMetadata = resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", idTokenSignedResponseAlg: "ES256" }, STATEMENT, "fapi2");

const PAIRWISE: RegisteredMetadata = resolveMetadata(
  { tokenEndpointAuthMethod: "private_key_jwt", subjectType: "pairwise", sectorIdentifierUri: "https://tpp.example/sector.json" },
  STATEMENT,
  "fapi2",
);

const LOGOUT: RegisteredMetadata = resolveMetadata(
  { tokenEndpointAuthMethod: "private_key_jwt", postLogoutRedirectUris: ["https://tpp.example/signed-out", "https://tpp.example/bye"] },
  STATEMENT,
  "fapi2",
);

const NONCE: RegisteredMetadata = resolveMetadata({ grantTypes: ["authorization_code"], requireNonce: true }, { ...STATEMENT, jwks: undefined }, "standard");

const BASE = { clientId: "client-1", clientIdIssuedAt: 1_772_000_000, registrationClientUri: "https://bank.example/oauth2/v1/register/client-1", softwareStatement: "h.p.s" };

describe("clientInformationResponse (RFC 7591 section 3.2.1, RFC 7592 section 3)", () => {
  it("answers a registration with the registration access token and every registered member", () => {
    expect(clientInformationResponse({ ...BASE, metadata: FAPI, registrationAccessToken: "rat" })).toEqual({
      client_id: "client-1",
      client_id_issued_at: 1_772_000_000,
      registration_access_token: "rat",
      registration_client_uri: "https://bank.example/oauth2/v1/register/client-1",
      redirect_uris: ["https://tpp.example/cb"],
      token_endpoint_auth_method: "private_key_jwt",
      grant_types: ["authorization_code"],
      response_types: ["code"],
      client_name: "Budget Buddy",
      scope: "aisp",
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      tls_client_certificate_bound_access_tokens: false,
      dpop_bound_access_tokens: true,
      require_pushed_authorization_requests: true,
      id_token_signed_response_alg: "PS256",
      introspection_signed_response_alg: "PS256",
      authorization_signed_response_alg: "PS256",
      subject_type: "public",
      require_nonce: true,
      require_signed_request_object: false,
      software_id: "s-1",
      software_statement: "h.p.s",
    });
  });

  it("leaves out the secrets it does not issue: a read carries neither token nor secret", () => {
    const read = clientInformationResponse({ ...BASE, metadata: FAPI });
    expect(read).not.toHaveProperty("registration_access_token");
    expect(read).not.toHaveProperty("client_secret");
    expect(read).not.toHaveProperty("client_secret_expires_at");
  });

  it("gives a client_secret_basic client its secret once, and client_secret_expires_at 0 always", () => {
    expect(clientInformationResponse({ ...BASE, metadata: BASIC, clientSecret: "secret", registrationAccessToken: "rat" })).toMatchObject({
      client_secret: "secret",
      client_secret_expires_at: 0,
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
    });
    const read = clientInformationResponse({ ...BASE, metadata: BASIC });
    expect(read).not.toHaveProperty("client_secret");
    expect(read.client_secret_expires_at).toBe(0);
  });

  it("names the tls_client_auth member of RFC 8705 section 2.1.2", () => {
    expect(metadataMembers(MTLS)).toMatchObject({ token_endpoint_auth_method: "tls_client_auth", tls_client_auth_san_dns: "tpp.example", tls_client_certificate_bound_access_tokens: true });
  });

  it("answers the registered id_token_signed_response_alg (OpenID Connect Registration section 2), in a registration and a read", () => {
    expect(clientInformationResponse({ ...BASE, metadata: ES256, registrationAccessToken: "rat" }).id_token_signed_response_alg).toBe("ES256");
    expect(clientInformationResponse({ ...BASE, metadata: ES256 }).id_token_signed_response_alg).toBe("ES256");
    expect(metadataMembers(BASIC).id_token_signed_response_alg).toBe("PS256");
  });

  it("answers the registered introspection_signed_response_alg (RFC 9701 section 6), in a registration and a read", () => {
    const es256 = resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", introspectionSignedResponseAlg: "ES256" }, STATEMENT, "fapi2");
    expect(clientInformationResponse({ ...BASE, metadata: es256, registrationAccessToken: "rat" }).introspection_signed_response_alg).toBe("ES256");
    expect(clientInformationResponse({ ...BASE, metadata: es256 }).introspection_signed_response_alg).toBe("ES256");
    expect(metadataMembers(BASIC).introspection_signed_response_alg).toBe("PS256");
  });

  it("answers the registered authorization_signed_response_alg (JARM section 3), in a registration and a read", () => {
    const es256 = resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", authorizationSignedResponseAlg: "ES256" }, STATEMENT, "fapi2");
    expect(clientInformationResponse({ ...BASE, metadata: es256, registrationAccessToken: "rat" }).authorization_signed_response_alg).toBe("ES256");
    expect(clientInformationResponse({ ...BASE, metadata: es256 }).authorization_signed_response_alg).toBe("ES256");
    expect(metadataMembers(BASIC).authorization_signed_response_alg).toBe("PS256");
  });

  it("answers subject_type (public by default) and sector_identifier_uri (when registered), in a registration and a read", () => {
    expect(clientInformationResponse({ ...BASE, metadata: PAIRWISE, registrationAccessToken: "rat" })).toMatchObject({ subject_type: "pairwise", sector_identifier_uri: "https://tpp.example/sector.json" });
    expect(clientInformationResponse({ ...BASE, metadata: PAIRWISE })).toMatchObject({ subject_type: "pairwise", sector_identifier_uri: "https://tpp.example/sector.json" });
    expect(metadataMembers(FAPI).subject_type).toBe("public");
    expect(metadataMembers(FAPI)).not.toHaveProperty("sector_identifier_uri");
  });

  it("answers post_logout_redirect_uris (OpenID Connect RP-Initiated Logout 1.0 section 3.1) when registered, in a registration and a read; leaves it out when there are none", () => {
    const uris = ["https://tpp.example/signed-out", "https://tpp.example/bye"];
    expect(clientInformationResponse({ ...BASE, metadata: LOGOUT, registrationAccessToken: "rat" }).post_logout_redirect_uris).toEqual(uris);
    expect(clientInformationResponse({ ...BASE, metadata: LOGOUT }).post_logout_redirect_uris).toEqual(uris);
    expect(metadataMembers(FAPI)).not.toHaveProperty("post_logout_redirect_uris");
    expect(metadataMembers(BASIC)).not.toHaveProperty("post_logout_redirect_uris");
  });

  it("answers require_nonce (OpenID Connect Core section 3.1.2.1) as registered, true for fapi2, in a registration and a read", () => {
    expect(clientInformationResponse({ ...BASE, metadata: NONCE, registrationAccessToken: "rat" }).require_nonce).toBe(true);
    expect(clientInformationResponse({ ...BASE, metadata: NONCE }).require_nonce).toBe(true);
    expect(metadataMembers(BASIC).require_nonce).toBe(false);
    expect(metadataMembers(FAPI).require_nonce).toBe(true);
  });

  it("answers require_signed_request_object (RFC 9101 section 10.5) as registered, false by default, in a registration and a read", () => {
    const jar = resolveMetadata({ tokenEndpointAuthMethod: "private_key_jwt", requireSignedRequestObject: true }, STATEMENT, "fapi2");
    expect(clientInformationResponse({ ...BASE, metadata: jar, registrationAccessToken: "rat" }).require_signed_request_object).toBe(true);
    expect(clientInformationResponse({ ...BASE, metadata: jar }).require_signed_request_object).toBe(true);
    expect(metadataMembers(BASIC).require_signed_request_object).toBe(false);
  });

  it("is read back by parseClientMetadata into the same registration (what an RFC 7592 update sends)", async () => {
    for (const metadata of [FAPI, BASIC, MTLS, ES256, PAIRWISE, LOGOUT, NONCE]) {
      const body = JSON.parse(JSON.stringify(clientInformationResponse({ ...BASE, metadata, registrationAccessToken: "rat" })));
      const statement = metadata === BASIC || metadata === NONCE ? { ...STATEMENT, jwks: undefined } : STATEMENT;
      expect(resolveMetadata(await parseClientMetadata(body), statement, metadata.securityProfile)).toEqual(metadata);
    }
  });
});

describe("registrationClientUri (RFC 7592 section 2)", () => {
  it("appends the client id as a path segment", () => {
    expect(registrationClientUri("https://bank.example/oauth2/v1/register", "abc_-1")).toBe("https://bank.example/oauth2/v1/register/abc_-1");
    expect(registrationClientUri("https://bank.example/oauth2/v1/register/", "a/b?c")).toBe("https://bank.example/oauth2/v1/register/a%2Fb%3Fc");
  });
});
