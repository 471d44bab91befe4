import { exportJWK, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_DIRECTORY_ISSUER, DEMO_DIRECTORY_PUBLIC_JWKS, DEMO_SOFTWARE, signDemoSoftwareStatement } from "../demo/directory.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../demo/fapi-key.js";
import { clientInformationResponse } from "./client-information.js";
import { newClientSecret, newRegistrationAccessToken } from "./credentials.js";
import { RegistrationError, type RegistrationErrorCode } from "./errors.js";
import { resolveRegistration, resolveUpdate, type RegistrationContext, type StoredRegistration } from "./registration.js";
import type { SectorFetch } from "./sector-identifier.js";
import { createDirectory, type Directory } from "./software-statement.js";

const REGISTERED_AT = new Date("2026-03-01T12:00:00Z");
/** A year later: the statement (24 hours) has long expired. */
const LATER = new Date("2027-03-01T12:00:00Z");
const MAX_AGE = 3600;
const MAX_LIFETIME = 30 * 86_400;

/** A sector_identifier_uri of the demo software, and what the fake TPP serves there. */
const SECTOR = "https://tpp.example/sector.json";
const SECTOR_DOCUMENTS = new Map<string, string>([[SECTOR, JSON.stringify([DEMO_SOFTWARE.redirectUri])]]);
/** The sector_identifier_uris fetched, in order. */
const fetched: string[] = [];
/** Serves {@link SECTOR_DOCUMENTS}; 404 for any other URL. */
const fetchSector: SectorFetch = async (uri) => {
  fetched.push(uri);
  const document = SECTOR_DOCUMENTS.get(uri);
  return new Response(document ?? "not found", { status: document === undefined ? 404 : 200 });
};

let directory: Directory;
let ctx: RegistrationContext;
beforeAll(async () => {
  directory = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: DEMO_DIRECTORY_PUBLIC_JWKS, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME });
  ctx = { directory, profile: "fapi2", now: REGISTERED_AT, fetchSector };
});

async function refusal(decision: Promise<unknown>, code: RegistrationErrorCode, description: RegExp) {
  const error = await decision.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the request was accepted").toBeInstanceOf(RegistrationError);
  expect((error as RegistrationError).error).toBe(code);
  expect((error as RegistrationError).message).toMatch(description);
}

/** Registers the demo software at REGISTERED_AT with `body`, and stores it as the endpoint would. */
async function registered(body: Record<string, unknown> = {}, context: Partial<RegistrationContext> = {}) {
  const softwareStatement = await signDemoSoftwareStatement({ now: REGISTERED_AT });
  const decided = await resolveRegistration({ token_endpoint_auth_method: "private_key_jwt", software_statement: softwareStatement, ...body }, { ...ctx, ...context });
  const token = newRegistrationAccessToken();
  const secret = decided.metadata.tokenEndpointAuthMethod === "client_secret_basic" ? newClientSecret() : undefined;
  const stored: StoredRegistration = {
    clientId: "client-1",
    clientIdIssuedAt: REGISTERED_AT.getTime() / 1000,
    registrationClientUri: "https://bank.example/oauth2/v1/register/client-1",
    registrationAccessTokenHash: token.hash,
    clientSecretHash: secret?.hash,
    metadata: decided.metadata,
    softwareStatement: decided.softwareStatement,
    statementVerifiedAt: decided.statementVerifiedAt,
  };
  const response = clientInformationResponse({ ...stored, registrationAccessToken: token.value, clientSecret: secret?.value });
  return { decided, stored, response: JSON.parse(JSON.stringify(response)) as Record<string, unknown> };
}

describe("resolveRegistration (RFC 7591 section 3.1)", () => {
  it("registers a fapi2 client from the demo directory's statement", async () => {
    const { decided, response } = await registered({ redirect_uris: [DEMO_SOFTWARE.redirectUri], scope: "aisp" });
    expect(decided.statement).toMatchObject({ softwareId: DEMO_SOFTWARE.softwareId, roles: ["PSP_AI", "PSP_PI"], organizationName: "Acme Fintech Ltd" });
    expect(decided.metadata).toMatchObject({
      securityProfile: "fapi2",
      softwareId: DEMO_SOFTWARE.softwareId,
      clientName: DEMO_SOFTWARE.clientName,
      redirectUris: [DEMO_SOFTWARE.redirectUri],
      tokenEndpointAuthMethod: "private_key_jwt",
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      dpopBoundAccessTokens: true,
      scope: "aisp",
    });
    expect(decided.statementVerifiedAt).toEqual(REGISTERED_AT);
    expect(response.software_statement).toBe(decided.softwareStatement);
  });

  it("needs a software statement", async () => {
    await refusal(resolveRegistration({ token_endpoint_auth_method: "private_key_jwt", redirect_uris: ["https://tpp.example/cb"] }, ctx), "invalid_software_statement", /software_statement signed by the trusted directory is required/);
  });

  it("checks the body before the statement, and the statement before the rules", async () => {
    await refusal(resolveRegistration({ redirect_uris: ["http://tpp.example/cb"] }, ctx), "invalid_redirect_uri", /https URL/);
    await refusal(resolveRegistration({ software_statement: "x.y.z" }, ctx), "invalid_software_statement", /compact JWS/);
    const statement = await signDemoSoftwareStatement({ now: REGISTERED_AT });
    await refusal(resolveRegistration({ software_statement: statement, token_endpoint_auth_method: "client_secret_basic" }, ctx), "invalid_client_metadata", /fapi2 registration must choose/);
    await refusal(resolveRegistration({ software_statement: statement, token_endpoint_auth_method: "private_key_jwt", redirect_uris: ["https://elsewhere.example/cb"] }, ctx), "invalid_redirect_uri", /not among the software statement's/);
  });
});

describe("subject_type and sector_identifier_uri (OpenID Connect Registration section 2)", () => {
  it("registers public subjects by default, and fetches nothing", async () => {
    fetched.length = 0;
    const { decided, response } = await registered();
    expect(decided.metadata).toMatchObject({ subjectType: "public", sectorIdentifierUri: undefined });
    expect(response.subject_type).toBe("public");
    expect(response).not.toHaveProperty("sector_identifier_uri");
    expect(fetched).toEqual([]);
  });

  it("registers a pairwise client with a sector_identifier_uri that lists its redirect URIs, fetched once", async () => {
    fetched.length = 0;
    const { decided, response } = await registered({ subject_type: "pairwise", sector_identifier_uri: SECTOR });
    expect(decided.metadata).toMatchObject({ subjectType: "pairwise", sectorIdentifierUri: SECTOR, redirectUris: [DEMO_SOFTWARE.redirectUri] });
    expect(response).toMatchObject({ subject_type: "pairwise", sector_identifier_uri: SECTOR });
    expect(fetched).toEqual([SECTOR]);
  });

  it("refuses a sector_identifier_uri that cannot be fetched or does not list the redirect URIs, after every other check", async () => {
    const statement = await signDemoSoftwareStatement({ now: REGISTERED_AT });
    const body = { software_statement: statement, token_endpoint_auth_method: "private_key_jwt", subject_type: "pairwise" };
    await refusal(resolveRegistration({ ...body, sector_identifier_uri: "https://tpp.example/missing.json" }, ctx), "invalid_client_metadata", /^sector_identifier_uri could not be fetched: it answered HTTP 404/);
    const elsewhere = { ...ctx, fetchSector: async () => new Response(JSON.stringify(["https://tpp.example/other"])) };
    await refusal(resolveRegistration({ ...body, sector_identifier_uri: SECTOR }, elsewhere), "invalid_client_metadata", /^sector_identifier_uri does not list redirect_uri https:\/\/localhost:8443\/callback/);
    // A request refused on other grounds fetches nothing.
    fetched.length = 0;
    await refusal(resolveRegistration({ ...body, sector_identifier_uri: SECTOR, client_name: "Someone Else" }, ctx), "invalid_client_metadata", /client_name differs/);
    await refusal(resolveRegistration({ ...body, sector_identifier_uri: SECTOR, software_statement: "x.y.z" }, ctx), "invalid_software_statement", /compact JWS/);
    expect(fetched).toEqual([]);
  });

  it("refuses a pairwise client whose redirect URIs are on two hosts without a sector_identifier_uri", async () => {
    const twoHosts = ["https://tpp.example/cb", "https://app.tpp.example/cb"];
    const softwareStatement = await signDemoSoftwareStatement({ now: REGISTERED_AT, claims: { software_redirect_uris: twoHosts } });
    const body = { software_statement: softwareStatement, token_endpoint_auth_method: "private_key_jwt", subject_type: "pairwise" };
    await refusal(resolveRegistration(body, ctx), "invalid_client_metadata", /more than one host needs a sector_identifier_uri/);
    SECTOR_DOCUMENTS.set("https://tpp.example/both.json", JSON.stringify(twoHosts));
    expect((await resolveRegistration({ ...body, sector_identifier_uri: "https://tpp.example/both.json" }, ctx)).metadata.redirectUris).toEqual(twoHosts);
  });

  it("an update fetches the sector_identifier_uri again only when it or the redirect URIs change", async () => {
    const { stored, response } = await registered({ subject_type: "pairwise", sector_identifier_uri: SECTOR });
    fetched.length = 0;
    // Sent back as read: nothing fetched.
    expect((await resolveUpdate(response, stored, { ...ctx, now: LATER })).metadata).toEqual(stored.metadata);
    expect(fetched).toEqual([]);
    // A new sector_identifier_uri: fetched, and refused when it does not list the redirect URI.
    SECTOR_DOCUMENTS.set("https://tpp.example/v2.json", JSON.stringify([DEMO_SOFTWARE.redirectUri]));
    expect((await resolveUpdate({ ...response, sector_identifier_uri: "https://tpp.example/v2.json" }, stored, { ...ctx, now: LATER })).metadata.sectorIdentifierUri).toBe("https://tpp.example/v2.json");
    expect(fetched).toEqual(["https://tpp.example/v2.json"]);
    SECTOR_DOCUMENTS.set("https://tpp.example/empty.json", "[]");
    await refusal(resolveUpdate({ ...response, sector_identifier_uri: "https://tpp.example/empty.json" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /does not list redirect_uri/);
    // Other redirect URIs under the same sector_identifier_uri: fetched again.
    const wider = await signDemoSoftwareStatement({ now: LATER, claims: { software_redirect_uris: [DEMO_SOFTWARE.redirectUri, "https://localhost:8443/other"] } });
    fetched.length = 0;
    await refusal(
      resolveUpdate({ ...response, software_statement: wider, redirect_uris: [DEMO_SOFTWARE.redirectUri, "https://localhost:8443/other"] }, stored, { ...ctx, now: LATER }),
      "invalid_client_metadata",
      /does not list redirect_uri https:\/\/localhost:8443\/other/,
    );
    expect(fetched).toEqual([SECTOR]);
    // Public again, without it: nothing fetched.
    fetched.length = 0;
    const { subject_type: _type, sector_identifier_uri: _uri, ...rest } = response;
    expect((await resolveUpdate(rest, stored, { ...ctx, now: LATER })).metadata).toMatchObject({ subjectType: "public", sectorIdentifierUri: undefined });
    expect(fetched).toEqual([]);
  });
});

describe("resolveUpdate (RFC 7592 section 2.2)", () => {
  it("takes the last response back as it was: same metadata, statement and secret", async () => {
    const { stored, response } = await registered();
    const update = await resolveUpdate(response, stored, { ...ctx, now: LATER });
    expect(update.metadata).toEqual(stored.metadata);
    expect(update.softwareStatement).toBe(stored.softwareStatement);
    expect(update.statementVerifiedAt).toEqual(REGISTERED_AT);
    expect(update.clientSecret).toBe("none");
  });

  it("replaces the metadata: members left out take their defaults", async () => {
    const { stored, response } = await registered({ scope: "aisp", grant_types: ["authorization_code", "refresh_token"] });
    const { scope: _scope, grant_types: _grants, ...rest } = response;
    const update = await resolveUpdate(rest, stored, { ...ctx, now: LATER });
    expect(update.metadata.scope).toBeUndefined();
    expect(update.metadata.grantTypes).toEqual(["authorization_code"]);
  });

  it("changes id_token_signed_response_alg, and takes PS256 back when the update leaves it out (OpenID Connect Registration section 2)", async () => {
    const { stored, response } = await registered();
    expect(response.id_token_signed_response_alg).toBe("PS256");
    const update = await resolveUpdate({ ...response, id_token_signed_response_alg: "ES256" }, stored, { ...ctx, now: LATER });
    expect(update.metadata).toEqual({ ...stored.metadata, idTokenSignedResponseAlg: "ES256" });
    const es256 = await registered({ id_token_signed_response_alg: "ES256" });
    expect(es256.stored.metadata.idTokenSignedResponseAlg).toBe("ES256");
    expect(es256.response.id_token_signed_response_alg).toBe("ES256");
    const { id_token_signed_response_alg: _alg, ...rest } = es256.response;
    expect((await resolveUpdate(rest, es256.stored, { ...ctx, now: LATER })).metadata.idTokenSignedResponseAlg).toBe("PS256");
    await refusal(resolveUpdate({ ...response, id_token_signed_response_alg: "RS256" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /id_token_signed_response_alg must be PS256 or ES256/);
  });

  it("changes introspection_signed_response_alg, and takes PS256 back when the update leaves it out (RFC 9701 section 6)", async () => {
    const { stored, response } = await registered();
    expect(response.introspection_signed_response_alg).toBe("PS256");
    const update = await resolveUpdate({ ...response, introspection_signed_response_alg: "ES256" }, stored, { ...ctx, now: LATER });
    expect(update.metadata).toEqual({ ...stored.metadata, introspectionSignedResponseAlg: "ES256" });
    const es256 = await registered({ introspection_signed_response_alg: "ES256" });
    expect(es256.stored.metadata.introspectionSignedResponseAlg).toBe("ES256");
    expect(es256.response.introspection_signed_response_alg).toBe("ES256");
    const { introspection_signed_response_alg: _alg, ...rest } = es256.response;
    expect((await resolveUpdate(rest, es256.stored, { ...ctx, now: LATER })).metadata.introspectionSignedResponseAlg).toBe("PS256");
    await refusal(resolveUpdate({ ...response, introspection_signed_response_alg: "RS256" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /introspection_signed_response_alg must be PS256 or ES256/);
  });

  it("changes authorization_signed_response_alg, and takes PS256 back when the update leaves it out (JARM section 3)", async () => {
    const { stored, response } = await registered();
    expect(response.authorization_signed_response_alg).toBe("PS256");
    const update = await resolveUpdate({ ...response, authorization_signed_response_alg: "ES256" }, stored, { ...ctx, now: LATER });
    expect(update.metadata).toEqual({ ...stored.metadata, authorizationSignedResponseAlg: "ES256" });
    const es256 = await registered({ authorization_signed_response_alg: "ES256" });
    expect(es256.stored.metadata.authorizationSignedResponseAlg).toBe("ES256");
    expect(es256.response.authorization_signed_response_alg).toBe("ES256");
    const { authorization_signed_response_alg: _alg, ...rest } = es256.response;
    expect((await resolveUpdate(rest, es256.stored, { ...ctx, now: LATER })).metadata.authorizationSignedResponseAlg).toBe("PS256");
    await refusal(resolveUpdate({ ...response, authorization_signed_response_alg: "RS256" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /authorization_signed_response_alg must be PS256 or ES256/);
  });

  it("changes require_nonce, and takes false back when the update leaves it out; a fapi2 client's stays true (OpenID Connect Core section 3.1.2.1)", async () => {
    const standard = { ...ctx, profile: "standard" as const, now: LATER };
    const { stored, response } = await registered({ require_nonce: true }, { profile: "standard" });
    expect(stored.metadata.requireNonce).toBe(true);
    expect(response.require_nonce).toBe(true);
    expect((await resolveUpdate(response, stored, standard)).metadata).toEqual(stored.metadata);
    expect((await resolveUpdate({ ...response, require_nonce: false }, stored, standard)).metadata).toEqual({ ...stored.metadata, requireNonce: false });
    const { require_nonce: _nonce, ...rest } = response;
    expect((await resolveUpdate(rest, stored, standard)).metadata.requireNonce).toBe(false);
    await refusal(resolveUpdate({ ...response, require_nonce: "yes" }, stored, standard), "invalid_client_metadata", /^require_nonce must be true or false$/);
    const fapi = await registered();
    expect(fapi.response.require_nonce).toBe(true);
    expect((await resolveUpdate(fapi.response, fapi.stored, { ...ctx, now: LATER })).metadata.requireNonce).toBe(true);
    await refusal(resolveUpdate({ ...fapi.response, require_nonce: false }, fapi.stored, { ...ctx, now: LATER }), "invalid_client_metadata", /leave require_nonce out or set it to true$/);
  });

  it("changes require_signed_request_object, and takes false back when the update leaves it out (RFC 9101 section 10.5)", async () => {
    const { stored, response } = await registered();
    expect(response.require_signed_request_object).toBe(false);
    const update = await resolveUpdate({ ...response, require_signed_request_object: true }, stored, { ...ctx, now: LATER });
    expect(update.metadata).toEqual({ ...stored.metadata, requireSignedRequestObject: true });
    const jar = await registered({ require_signed_request_object: true });
    expect(jar.stored.metadata.requireSignedRequestObject).toBe(true);
    expect(jar.response.require_signed_request_object).toBe(true);
    const { require_signed_request_object: _jar, ...rest } = jar.response;
    expect((await resolveUpdate(rest, jar.stored, { ...ctx, now: LATER })).metadata.requireSignedRequestObject).toBe(false);
    await refusal(resolveUpdate({ ...response, require_signed_request_object: "yes" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /^require_signed_request_object must be true or false$/);
  });

  it("replaces post_logout_redirect_uris, and clears them when the update leaves them out (OpenID Connect RP-Initiated Logout 1.0 section 3.1)", async () => {
    const first = ["https://tpp.example/signed-out"];
    const { decided, stored, response } = await registered({ post_logout_redirect_uris: first });
    expect(decided.metadata.postLogoutRedirectUris).toEqual(first);
    expect(response.post_logout_redirect_uris).toEqual(first);
    expect((await resolveUpdate(response, stored, { ...ctx, now: LATER })).metadata).toEqual(stored.metadata);
    const replaced = await resolveUpdate({ ...response, post_logout_redirect_uris: ["https://tpp.example/bye", "https://app.tpp.example/bye"] }, stored, { ...ctx, now: LATER });
    expect(replaced.metadata).toEqual({ ...stored.metadata, postLogoutRedirectUris: ["https://tpp.example/bye", "https://app.tpp.example/bye"] });
    const { post_logout_redirect_uris: _uris, ...rest } = response;
    expect((await resolveUpdate(rest, stored, { ...ctx, now: LATER })).metadata.postLogoutRedirectUris).toEqual([]);
    await refusal(resolveUpdate({ ...response, post_logout_redirect_uris: ["https://tpp.example/signed-out#x"] }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /^post_logout_redirect_uris: URI 1 must be without a fragment$/);
  });

  it("keeps the stored statement when the update leaves it out, and still holds the update to it", async () => {
    const { stored } = await registered();
    const update = await resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "tls_client_auth", tls_client_auth_san_dns: "tpp.example" }, stored, { ...ctx, now: LATER });
    expect(update.metadata).toMatchObject({ tokenEndpointAuthMethod: "tls_client_auth", tlsClientCertificateBoundAccessTokens: true, jwks: DEMO_FAPI_PUBLIC_JWKS });
    expect(update.softwareStatement).toBe(stored.softwareStatement);
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt", client_name: "Renamed" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /client_name differs/);
  });

  it("verifies a new statement now, and only for the same software", async () => {
    const { stored } = await registered();
    const fresh = await signDemoSoftwareStatement({ now: LATER, claims: { software_client_name: "Acme Open Banking v2" } });
    const update = await resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt", software_statement: fresh }, stored, { ...ctx, now: LATER });
    expect(update).toMatchObject({ softwareStatement: fresh, statementVerifiedAt: LATER, metadata: { clientName: "Acme Open Banking v2" } });
    const other = await signDemoSoftwareStatement({ now: LATER, claims: { software_id: "another-software" } });
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt", software_statement: other }, stored, { ...ctx, now: LATER }), "invalid_software_statement", /for another software/);
    const stale = await signDemoSoftwareStatement({ now: REGISTERED_AT, claims: { jti: "other" } });
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt", software_statement: stale }, stored, { ...ctx, now: LATER }), "invalid_software_statement", /has expired/);
  });

  it("refuses a stored statement the directory no longer verifies, or whose software is now denied", async () => {
    const { stored } = await registered();
    const { publicKey } = await generateKeyPair("EdDSA", { extractable: true });
    const rotated = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: "demo-directory-2026" }] }, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME });
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt" }, stored, { ...ctx, directory: rotated, now: LATER }), "invalid_software_statement", /not signed by a key of the directory; send a current software_statement/);
    const denying = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: DEMO_DIRECTORY_PUBLIC_JWKS, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME, deniedSoftwareIds: [DEMO_SOFTWARE.softwareId] });
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt" }, stored, { ...ctx, directory: denying, now: LATER }), "unapproved_software_statement", /not approved/);
  });

  it("checks the issued members first", async () => {
    const { stored, response } = await registered();
    await refusal(resolveUpdate({ ...response, client_id: "client-2" }, stored, ctx), "invalid_client_metadata", /client_id is not this client's/);
    await refusal(resolveUpdate({ ...response, registration_access_token: "guess" }, stored, ctx), "invalid_client_metadata", /registration_access_token is not/);
    await refusal(resolveUpdate({ ...response, client_secret: "chosen" }, stored, ctx), "invalid_client_metadata", /client_secret is not the issued secret/);
  });

  it("says what becomes of the client secret when the method changes (standard profile)", async () => {
    const standard = { ...ctx, profile: "standard" as const, now: LATER };
    const jwt = await registered({}, { profile: "standard" });
    expect((await resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "client_secret_basic" }, jwt.stored, standard)).clientSecret).toBe("issue");
    const basic = await registered({ token_endpoint_auth_method: "client_secret_basic" }, { profile: "standard" });
    expect(basic.response).toMatchObject({ client_secret: expect.any(String), client_secret_expires_at: 0 });
    expect((await resolveUpdate(basic.response, basic.stored, standard)).clientSecret).toBe("keep");
    expect((await resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "private_key_jwt" }, basic.stored, standard)).clientSecret).toBe("drop");
  });

  it("holds an update to the profile the bank requires now", async () => {
    const { stored } = await registered({ token_endpoint_auth_method: "client_secret_basic" }, { profile: "standard" });
    await refusal(resolveUpdate({ client_id: "client-1", token_endpoint_auth_method: "client_secret_basic" }, stored, { ...ctx, now: LATER }), "invalid_client_metadata", /fapi2 registration must choose/);
  });
});
