import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_DIRECTORY_ISSUER, DEMO_DIRECTORY_PRIVATE_JWK, DEMO_DIRECTORY_PUBLIC_JWKS, DEMO_SOFTWARE, signDemoSoftwareStatement } from "../demo/directory.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../demo/fapi-key.js";
import { RegistrationError, type RegistrationErrorCode } from "./errors.js";
import {
  checkSoftwareApproved,
  createDirectory,
  MAX_SOFTWARE_STATEMENT_LENGTH,
  STATEMENT_CLOCK_SKEW_SECONDS,
  statementAcceptedUntil,
  verifySoftwareStatement,
  type Directory,
} from "./software-statement.js";

const NOW = new Date("2026-03-01T12:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const MAX_AGE = 3600;
const MAX_LIFETIME = 30 * 86_400;
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

let directory: Directory;
beforeAll(async () => {
  directory = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: DEMO_DIRECTORY_PUBLIC_JWKS, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME, deniedSoftwareIds: ["withdrawn-software"] });
});

/** A demo statement issued at NOW (or `now`), valid for a day; `claims` override (undefined removes). */
const demo = (claims: Record<string, unknown> = {}, options: { now?: Date; lifetimeSeconds?: number | null } = {}) =>
  signDemoSoftwareStatement({ now: NOW, claims, ...options });

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** The RegistrationError `statement` is refused with; fails the test when it is accepted or something else is thrown. */
async function refusal(statement: unknown, options: { directory?: Directory; now?: Date } = {}): Promise<RegistrationError> {
  const error = await verifySoftwareStatement(statement, options.directory ?? directory, options.now ?? NOW).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the statement was accepted").toBeInstanceOf(RegistrationError);
  return error as RegistrationError;
}

async function expectRefused(statement: unknown, description: RegExp, code: RegistrationErrorCode = "invalid_software_statement", options: { directory?: Directory; now?: Date } = {}) {
  const error = await refusal(statement, options);
  expect(error.error).toBe(code);
  expect(error.status).toBe(400);
  expect(error.message).toMatch(description);
}

interface Signer {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: string, kid: string, options: Record<string, unknown> = {}): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...options });
  return { alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

/** A statement of the demo directory's issuer signed by `key`, at NOW for 10 minutes; `claims` and `header` override. */
function signedBy(key: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: DEMO_DIRECTORY_ISSUER, iat: NOW_SECONDS, exp: NOW_SECONDS + 600, software_id: "s-1", software_roles: ["PSP_AI"], org_id: "org-1", jti: "statement-1", ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.jwk.kid, ...header })
    .sign(key.privateKey);
}

describe("verifySoftwareStatement: a statement of the trusted directory", () => {
  it("is accepted and normalized from the UK Open Banking claim names", async () => {
    const statement = await verifySoftwareStatement(await demo(), directory, NOW);
    expect(statement).toEqual({
      issuer: DEMO_DIRECTORY_ISSUER,
      softwareId: DEMO_SOFTWARE.softwareId,
      clientName: DEMO_SOFTWARE.clientName,
      redirectUris: [DEMO_SOFTWARE.redirectUri],
      roles: ["PSP_AI", "PSP_PI"],
      unknownRoles: [],
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      organizationId: DEMO_SOFTWARE.organizationId,
      organizationName: "Acme Fintech Ltd",
      issuedAt: NOW_SECONDS,
      expiresAt: NOW_SECONDS + 86_400,
      statementId: expect.any(String),
    });
  });

  it("is read under the RFC 7591 names too, with roles by UK Open Banking or ETSI name", async () => {
    const statement = await verifySoftwareStatement(
      await demo({
        software_client_name: undefined,
        software_redirect_uris: undefined,
        jwks: undefined,
        client_name: "Budget Buddy",
        redirect_uris: ["https://tpp.example/cb", "https://tpp.example/cb", "https://tpp.example/cb2"],
        jwks_uri: "https://tpp.example/jwks.json",
        software_roles: ["AISP", "CBPII", "DATA", "ASPSP", "PSP_AI"],
        software_version: 1.2,
        org_name: undefined,
      }),
      directory,
      NOW,
    );
    expect(statement).toMatchObject({
      clientName: "Budget Buddy",
      redirectUris: ["https://tpp.example/cb", "https://tpp.example/cb2"],
      jwksUri: "https://tpp.example/jwks.json",
      roles: ["PSP_AI", "PSP_IC", "PSP_AS"],
      unknownRoles: ["DATA"],
      softwareVersion: "1.2",
    });
    expect(statement.jwks).toBeUndefined();
    expect(statement.organizationName).toBeUndefined();
  });

  it("takes software_jwks_endpoint as the jwks_uri", async () => {
    const statement = await verifySoftwareStatement(await demo({ jwks: undefined, software_jwks_endpoint: "https://keystore.directory.example/org/software.jwks" }), directory, NOW);
    expect(statement.jwksUri).toBe("https://keystore.directory.example/org/software.jwks");
  });

  it("reads id_token_signed_response_alg (OpenID Connect Registration section 2)", async () => {
    await expect(verifySoftwareStatement(await demo({ id_token_signed_response_alg: "ES256" }), directory, NOW)).resolves.toMatchObject({ idTokenSignedResponseAlg: "ES256" });
    expect((await verifySoftwareStatement(await demo(), directory, NOW)).idTokenSignedResponseAlg).toBeUndefined();
  });

  it("reads subject_type and sector_identifier_uri (OpenID Connect Registration section 2)", async () => {
    const sector = "https://tpp.example/sector.json";
    await expect(verifySoftwareStatement(await demo({ subject_type: "pairwise", sector_identifier_uri: sector }), directory, NOW)).resolves.toMatchObject({ subjectType: "pairwise", sectorIdentifierUri: sector });
    const plain = await verifySoftwareStatement(await demo(), directory, NOW);
    expect(plain.subjectType).toBeUndefined();
    expect(plain.sectorIdentifierUri).toBeUndefined();
  });

  it("reads post_logout_redirect_uris under its own name, each once (OpenID Connect RP-Initiated Logout 1.0 section 3.1)", async () => {
    const uris = ["https://tpp.example/signed-out", "https://tpp.example/signed-out", "https://app.tpp.example/bye"];
    await expect(verifySoftwareStatement(await demo({ post_logout_redirect_uris: uris }), directory, NOW)).resolves.toMatchObject({
      postLogoutRedirectUris: ["https://tpp.example/signed-out", "https://app.tpp.example/bye"],
    });
    expect((await verifySoftwareStatement(await demo(), directory, NOW)).postLogoutRedirectUris).toBeUndefined();
  });

  it("accepts a claim under both names when they agree, and refuses it when they differ", async () => {
    await expect(verifySoftwareStatement(await demo({ client_name: DEMO_SOFTWARE.clientName }), directory, NOW)).resolves.toMatchObject({ clientName: DEMO_SOFTWARE.clientName });
    await expectRefused(await demo({ client_name: "Other" }), /client_name and software_client_name with different values/);
    await expectRefused(await demo({ redirect_uris: ["https://elsewhere.example/cb"] }), /redirect_uris and software_redirect_uris/);
  });

  it("accepts PS256 and ES256 directory keys, each by its kid", async () => {
    const [ps, es] = await Promise.all([signer("PS256", "ps", { modulusLength: 2048 }), signer("ES256", "es")]);
    const keyed = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: { keys: [ps.jwk, es.jwk] }, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME });
    for (const key of [ps, es]) {
      await expect(verifySoftwareStatement(await signedBy(key), keyed, NOW)).resolves.toMatchObject({ softwareId: "s-1", roles: ["PSP_AI"] });
    }
  });

  it("accepts exp and iat within the clock skew, and an old iat when exp has not passed", async () => {
    await expect(verifySoftwareStatement(await demo({}, { now: at(-600), lifetimeSeconds: 600 - STATEMENT_CLOCK_SKEW_SECONDS + 1 }), directory, NOW)).resolves.toBeDefined();
    await expect(verifySoftwareStatement(await demo({}, { now: at(STATEMENT_CLOCK_SKEW_SECONDS) }), directory, NOW)).resolves.toBeDefined();
    await expect(verifySoftwareStatement(await demo({}, { now: at(-10 * 86_400), lifetimeSeconds: 11 * 86_400 }), directory, NOW)).resolves.toBeDefined();
  });

  it("accepts an exp up to the maximum lifetime after iat", async () => {
    await expect(verifySoftwareStatement(await demo({}, { lifetimeSeconds: MAX_LIFETIME }), directory, NOW)).resolves.toMatchObject({ expiresAt: NOW_SECONDS + MAX_LIFETIME });
  });

  it("accepts a statement without exp up to the maximum age (plus the skew)", async () => {
    await expect(verifySoftwareStatement(await demo({}, { now: at(-MAX_AGE - STATEMENT_CLOCK_SKEW_SECONDS), lifetimeSeconds: null }), directory, NOW)).resolves.toMatchObject({
      expiresAt: undefined,
    });
  });
});

describe("verifySoftwareStatement refuses with invalid_software_statement", () => {
  it("no statement, or one that is not a string", async () => {
    await expectRefused(undefined, /a software_statement signed by the trusted directory is required/);
    await expectRefused(null, /required/);
    for (const value of [42, {}, [], true, ""]) await expectRefused(value, /must be a compact JWS string/);
  });

  it("a malformed JWS", async () => {
    for (const value of ["abc", "a.b.c", "a.b", "....", `${base64url({ alg: "EdDSA" })}.${base64url({})}`, `${base64url({ alg: "EdDSA" })}.@@@.sig`]) {
      await expectRefused(value, /well-formed compact JWS|not signed|not a JWT/);
    }
    await expectRefused(`${base64url({ alg: "EdDSA", kid: DEMO_DIRECTORY_PRIVATE_JWK.kid })}.${Buffer.from("[1,2]").toString("base64url")}.AAAA`, /not signed by a key of the directory|JSON object/);
  });

  it("an oversized statement, before decoding it", async () => {
    await expectRefused("a".repeat(MAX_SOFTWARE_STATEMENT_LENGTH + 1), /longer than 16384 characters/);
    const padded = await demo({ padding: "x".repeat(MAX_SOFTWARE_STATEMENT_LENGTH) });
    await expectRefused(padded, /longer than/);
  });

  it("alg none, HS256 and RS256 (FAPI 2.0 allows PS256, ES256, EdDSA only)", async () => {
    const payload = { iss: DEMO_DIRECTORY_ISSUER, iat: NOW_SECONDS, software_id: "s-1", software_roles: ["PSP_AI"] };
    await expectRefused(`${base64url({ alg: "none" })}.${base64url(payload)}.`, /must be signed with PS256, ES256, EdDSA/);
    const hs = await new SignJWT(payload).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("a-shared-secret-of-thirty-two-by"));
    await expectRefused(hs, /must be signed with/);
    const rs = await signer("RS256", "rs", { modulusLength: 2048 });
    await expectRefused(await signedBy(rs), /must be signed with/);
    // The same key pair as PS256 is fine when the directory has the key; RS256 stays refused even then.
    const keyed = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: { keys: [{ ...rs.jwk, alg: "PS256" }] }, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME });
    await expectRefused(await signedBy(rs), /must be signed with/, "invalid_software_statement", { directory: keyed });
    // RFC 9864's fully-specified name for the same algorithm is not on FAPI 2.0's list either.
    await expectRefused(`${base64url({ alg: "Ed25519" })}.${base64url(payload)}.AAAA`, /must be signed with/);
  });

  it("a statement signed by another key, or naming a key the directory does not have", async () => {
    const stranger = await signer("EdDSA", DEMO_DIRECTORY_PRIVATE_JWK.kid);
    await expectRefused(await signedBy(stranger), /is not signed by a key of the directory/);
    await expectRefused(await signedBy(stranger, {}, { kid: "unknown-kid" }), /names a key \(kid, alg\) the directory does not have/);
    const es = await signer("ES256", "es");
    await expectRefused(await signedBy(es), /names a key/);
  });

  it("a statement without kid when several directory keys fit its alg", async () => {
    const [one, two] = await Promise.all([signer("ES256", "one"), signer("ES256", "two")]);
    const keyed = await createDirectory({ issuer: DEMO_DIRECTORY_ISSUER, jwks: { keys: [one.jwk, two.jwk] }, maxAgeSeconds: MAX_AGE, maxLifetimeSeconds: MAX_LIFETIME });
    await expectRefused(await signedBy(one, {}, { kid: undefined }), /must name its key \(kid\)/, "invalid_software_statement", { directory: keyed });
    await expect(verifySoftwareStatement(await signedBy(two), keyed, NOW)).resolves.toBeDefined();
  });

  it("an expired statement", async () => {
    await expectRefused(await demo({}, { now: at(-7200), lifetimeSeconds: 3600 }), /has expired \(exp\)/);
    await expectRefused(await demo({}, { now: at(-600), lifetimeSeconds: 600 - STATEMENT_CLOCK_SKEW_SECONDS }), /has expired/);
    await expectRefused(await demo({ exp: "tomorrow" }), /invalid exp claim/);
  });

  it("an iat in the future, beyond the skew", async () => {
    await expectRefused(await demo({}, { now: at(STATEMENT_CLOCK_SKEW_SECONDS + 1) }), /was issued in the future \(iat\)/);
    await expectRefused(await demo({}, { now: at(86_400) }), /issued in the future/);
  });

  it("no iat, or one that is not a number", async () => {
    await expectRefused(await demo({ iat: undefined }), /needs an iat claim/);
    await expectRefused(await demo({ iat: "2026-03-01" }), /invalid iat claim/);
    await expectRefused(await demo({ iat: null }), /invalid iat claim/);
  });

  it("an nbf in the future", async () => {
    await expectRefused(await demo({ nbf: NOW_SECONDS + 3600 }), /not valid yet \(nbf\)/);
  });

  it("an exp further after iat than the maximum lifetime (10 years, or one second too many)", async () => {
    await expectRefused(await demo({}, { lifetimeSeconds: 10 * 365 * 86_400 }), /is valid for too long: its exp may be at most 2592000 seconds after its iat/);
    await expectRefused(await demo({}, { lifetimeSeconds: MAX_LIFETIME + 1 }), /valid for too long/);
    await expectRefused(await demo({}, { now: at(-MAX_LIFETIME), lifetimeSeconds: MAX_LIFETIME + 86_400 }), /valid for too long/);
  });

  it("a statement without jti or org_id, or with one that is not text", async () => {
    await expectRefused(await demo({ jti: undefined }), /needs a jti claim/);
    await expectRefused(await demo({ jti: 7 }), /the software statement's jti must be a string/);
    await expectRefused(await demo({ org_id: undefined }), /needs an org_id claim/);
    await expectRefused(await demo({ org_id: "" }), /org_id must be non-empty/);
  });

  it("a statement without exp older than the maximum age", async () => {
    await expectRefused(await demo({}, { now: at(-MAX_AGE - STATEMENT_CLOCK_SKEW_SECONDS - 1), lifetimeSeconds: null }), /has no exp and was issued more than 3600 seconds ago/);
  });

  it("a statement of another issuer, or none", async () => {
    await expectRefused(await demo({ iss: "https://other-directory.example" }), /is not from the trusted directory: its iss must be https:\/\/directory.tollgate-demo.example/);
    await expectRefused(await demo({ iss: undefined }), /needs an iss claim/);
    await expectRefused(await demo({ iss: `${DEMO_DIRECTORY_ISSUER}/` }), /not from the trusted directory/);
  });

  it("a statement without software_id, or with one that is not text", async () => {
    await expectRefused(await demo({ software_id: undefined }), /needs a software_id claim/);
    await expectRefused(await demo({ software_id: 42 }), /the software statement's software_id must be a string/);
    await expectRefused(await demo({ software_id: "  " }), /software_id must be non-empty/);
    await expectRefused(await demo({ software_id: "a\u0000b" }), /software_id must be non-empty, well-formed text without NUL/);
    await expectRefused(await demo({ software_id: "x".repeat(257) }), /software_id must be at most 256 characters/);
  });

  it("a statement naming no PSD2 role", async () => {
    await expectRefused(await demo({ software_roles: undefined }), /needs software_roles naming at least one PSD2 role/);
    await expectRefused(await demo({ software_roles: [] }), /needs software_roles/);
    await expectRefused(await demo({ software_roles: ["DATA", "__proto__", "constructor"] }), /needs software_roles/);
    await expectRefused(await demo({ software_roles: "AISP" }), /software_roles must be an array of strings/);
    await expectRefused(await demo({ software_roles: [1] }), /software_roles must be an array of strings/);
    await expectRefused(await demo({ software_roles: Array.from({ length: 17 }, (_, i) => `R${i}`) }), /software_roles may hold at most 16 values/);
  });

  it("claims of the wrong form: redirect URIs, keys, names, the ID token algorithm", async () => {
    await expectRefused(await demo({ software_redirect_uris: ["http://tpp.example/cb"] }), /redirect URI that is not valid here: it must be an https URL/);
    await expectRefused(await demo({ software_redirect_uris: ["https://tpp.example/cb#x"] }), /without a fragment/);
    await expectRefused(await demo({ software_redirect_uris: "https://tpp.example/cb" }), /software_redirect_uris must be an array/);
    await expectRefused(await demo({ software_redirect_uris: Array.from({ length: 21 }, (_, i) => `https://tpp.example/${i}`) }), /at most 20 values/);
    await expectRefused(await demo({ software_jwks_endpoint: "https://tpp.example/jwks" }), /the software statement's jwks and jwks_uri exclude each other/);
    await expectRefused(await demo({ jwks: undefined, software_jwks_endpoint: "http://tpp.example/jwks" }), /the software statement's jwks_uri must be an https URL/);
    await expectRefused(await demo({ jwks: undefined, jwks_uri: "https://169.254.169.254/latest" }), /link-local/);
    await expectRefused(await demo({ jwks: { keys: [DEMO_DIRECTORY_PRIVATE_JWK] } }), /the software statement's jwks: key 1 has a private member \(d\)/);
    await expectRefused(await demo({ jwks: [1] }), /the software statement's jwks must be a JWK Set/);
    await expectRefused(await demo({ software_client_name: "x".repeat(101) }), /software_client_name must be at most 100 characters/);
    await expectRefused(await demo({ org_name: 7 }), /org_name must be a string/);
    await expectRefused(await demo({ software_version: { major: 1 } }), /software_version must be a string/);
    for (const alg of ["RS256", "none", "HS256", 1]) {
      await expectRefused(await demo({ id_token_signed_response_alg: alg }), /the software statement's id_token_signed_response_alg must be PS256 or ES256/);
    }
    for (const type of ["ppid", "Pairwise", 1]) await expectRefused(await demo({ subject_type: type }), /the software statement's subject_type must be public or pairwise/);
    await expectRefused(await demo({ sector_identifier_uri: "http://tpp.example/sector.json" }), /the software statement's sector_identifier_uri must be an https URL/);
    await expectRefused(await demo({ sector_identifier_uri: "https://169.254.169.254/sector.json" }), /the software statement's sector_identifier_uri must be on neither a link-local/);
    await expectRefused(await demo({ post_logout_redirect_uris: "https://tpp.example/signed-out" }), /^the software statement's post_logout_redirect_uris must be an array of strings$/);
    await expectRefused(await demo({ post_logout_redirect_uris: ["https://tpp.example/signed-out#x"] }), /^the software statement's post_logout_redirect_uris: URI 1 must be without a fragment$/);
    await expectRefused(await demo({ post_logout_redirect_uris: ["http://tpp.example/signed-out"] }), /^the software statement's post_logout_redirect_uris: URI 1 must be an https URL$/);
  });
});

describe("statementAcceptedUntil", () => {
  it("is the exp, or without one the iat plus the maximum age, plus the clock skew", () => {
    expect(statementAcceptedUntil({ issuedAt: NOW_SECONDS, expiresAt: NOW_SECONDS + 600 }, directory)).toBe(NOW_SECONDS + 600 + STATEMENT_CLOCK_SKEW_SECONDS);
    expect(statementAcceptedUntil({ issuedAt: NOW_SECONDS }, directory)).toBe(NOW_SECONDS + MAX_AGE + STATEMENT_CLOCK_SKEW_SECONDS);
  });
});

describe("the deny list", () => {
  it("refuses a denied software id with unapproved_software_statement", async () => {
    await expectRefused(await demo({ software_id: "withdrawn-software" }), /not approved for registration/, "unapproved_software_statement");
    expect(() => checkSoftwareApproved({ softwareId: "withdrawn-software" }, directory)).toThrow(RegistrationError);
    expect(() => checkSoftwareApproved({ softwareId: DEMO_SOFTWARE.softwareId }, directory)).not.toThrow();
  });
});

describe("createDirectory", () => {
  it("refuses a configuration it cannot trust, naming the setting", async () => {
    const config = { issuer: DEMO_DIRECTORY_ISSUER, jwks: DEMO_DIRECTORY_PUBLIC_JWKS, maxAgeSeconds: 60, maxLifetimeSeconds: 60 };
    await expect(createDirectory({ ...config, issuer: " " })).rejects.toThrow(/issuer must be a non-empty string/);
    await expect(createDirectory({ ...config, maxAgeSeconds: 0 })).rejects.toThrow(/maximum age/);
    await expect(createDirectory({ ...config, maxAgeSeconds: 1.5 })).rejects.toThrow(/maximum age/);
    await expect(createDirectory({ ...config, maxLifetimeSeconds: 0 })).rejects.toThrow(/maximum lifetime/);
    await expect(createDirectory({ ...config, jwks: { keys: [DEMO_DIRECTORY_PRIVATE_JWK] } })).rejects.toThrow(/JWK Set is invalid: key 1 has a private member/);
    await expect(createDirectory({ ...config, jwks: { keys: [] } })).rejects.toThrow(/JWK Set is invalid/);
    await expect(createDirectory({ ...config, jwks: undefined })).rejects.toThrow(/JWK Set is invalid/);
    await expect(createDirectory({ ...config, jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } })).rejects.toThrow(/JWK Set is invalid/);
  });
});

describe("properties", () => {
  const isRefusal = (error: unknown) => error instanceof RegistrationError && ["invalid_software_statement", "unapproved_software_statement"].includes(error.error);

  it("any JSON value is refused with a RegistrationError, never anything else", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.string({ maxLength: 300 })), async (value) => {
        const error = await verifySoftwareStatement(value, directory, NOW).then(() => undefined, (e: unknown) => e);
        expect(isRefusal(error)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("a JWS-shaped string with arbitrary header and payload is refused with a RegistrationError", async () => {
    const header = fc.record({ alg: fc.constantFrom("EdDSA", "ES256", "PS256", "none", "HS256", "RS256", 1), kid: fc.option(fc.constantFrom(DEMO_DIRECTORY_PRIVATE_JWK.kid, "x"), { nil: undefined }), crit: fc.option(fc.array(fc.string()), { nil: undefined }) }, { requiredKeys: [] });
    const payload = fc.oneof(fc.jsonValue(), fc.record({ iss: fc.constantFrom(DEMO_DIRECTORY_ISSUER, 1, "x"), iat: fc.oneof(fc.integer(), fc.constant(NOW_SECONDS)), software_id: fc.jsonValue(), software_roles: fc.jsonValue() }, { requiredKeys: [] }));
    await fc.assert(
      fc.asyncProperty(header, payload, fc.base64String({ maxLength: 120 }), async (h, p, signature) => {
        const jws = `${base64url(h)}.${base64url(p)}.${signature.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_")}`;
        const error = await verifySoftwareStatement(jws, directory, NOW).then(() => undefined, (e: unknown) => e);
        expect(isRefusal(error)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("a signed statement with arbitrary claims is accepted or refused with a RegistrationError", async () => {
    const claim = fc.constantFrom("software_id", "software_roles", "software_redirect_uris", "redirect_uris", "jwks", "jwks_uri", "software_jwks_endpoint", "client_name", "software_client_name", "org_id", "org_name", "software_version", "jti", "exp", "nbf", "iat", "subject_type", "sector_identifier_uri", "post_logout_redirect_uris");
    await fc.assert(
      fc.asyncProperty(fc.dictionary(claim, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), async (claims) => {
        const outcome = await verifySoftwareStatement(await demo(claims), directory, NOW).then(() => undefined, (e: unknown) => e);
        if (outcome !== undefined) expect(isRefusal(outcome)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("refuses a huge input in time independent of its content (length checked first)", async () => {
    const huge = `${"a".repeat(5_000_000)}.${"b".repeat(5_000_000)}.c`;
    const started = performance.now();
    await expectRefused(huge, /longer than/);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
