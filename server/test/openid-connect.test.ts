/**
 * OpenID Connect Core 1.0 with openid-client 6 as the relying party, against a real server on
 * 127.0.0.1: discovery, the authorization code flow with PKCE and nonce, the ID token checked
 * against our JWK Set, UserInfo, a refresh; then a key rotation, after which the client signs
 * in again with the JWK Set it cached. And the clauses openid-client does not exercise, each
 * named in its test's title.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { envelopeBackend } from "../src/keys/envelope.js";
import { rotationSettings } from "../src/keys/setup.js";
import { rotateKeys } from "../src/keys/rotation.js";
import { loadKeyEncryption } from "../src/kernel/key-encryption.js";
import { accessTokenHashClaim, ID_TOKEN_LIFETIME_SECONDS } from "../src/oauth/id-token.js";
import { loadConfig } from "../src/config.js";
import { demoClientKey, pushedParams, pushRequest } from "./support/fapi.js";
import { DEMO_FAPI_PRIVATE_JWK } from "../src/demo/fapi-key.js";
import { request } from "./support/flow.js";
import { Browser, interactionIdFrom, json, pkcePair } from "./support/flow.js";
import { runBrowserStep, startIssuerServer, withHsmIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let issuer: URL;
/** Every URL the relying party fetched, in order. */
const fetched: string[] = [];

beforeAll(async () => {
  ({ server, issuer } = await startIssuerServer({ PURGE_INTERVAL_SECONDS: "0" }));
  await server.keyring.ready();
});
afterAll(() => server?.close());

/**
 * openid-client's configuration of the demo rfc6749 app, PS256 ID tokens (the app's default) or `alg`,
 * over plain HTTP, every request recorded (a 5xx fails the test but `expect5xx`), and ID token signatures checked against the JWK
 * Set (enableNonRepudiationChecks: without it openid-client trusts the TLS of the token
 * endpoint instead, OpenID Connect Core §3.1.3.7 item 6).
 */
async function relyingParty(at: URL = issuer, o: { expect5xx?: number; alg?: "PS256" | "ES256" } = {}): Promise<client.Configuration> {
  const { expect5xx, alg = "PS256" } = o;
  const config = await client.discovery(
    at,
    DEMO.strictApp.consumerKey,
    { client_secret: DEMO.strictApp.consumerSecret, id_token_signed_response_alg: alg },
    client.ClientSecretBasic(DEMO.strictApp.consumerSecret),
    { execute: [client.allowInsecureRequests] },
  );
  config[client.customFetch] = (url, options) => {
    fetched.push(url);
    return request(url, { ...(options as RequestInit), expect5xx });
  };
  client.enableNonRepudiationChecks(config);
  return config;
}

/** One sign-in of alice through the code flow with PKCE and a nonce: the tokens as openid-client validated them. */
async function signIn(config: client.Configuration, scope = "openid profile email aisp") {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: DEMO.callbackUrl,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    nonce,
    prompt: "consent",
  });
  const callback = await runBrowserStep(url);
  const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true });
  return { tokens, nonce };
}

describe("openid-client 6 as the relying party", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await relyingParty();
  });

  it("discovers the provider at /.well-known/openid-configuration with every member Discovery §3 requires", async () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer.href.replace(/\/$/, ""));
    for (const member of ["authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported"]) {
      expect(metadata, member).toHaveProperty(member);
    }
    expect(metadata.jwks_uri).toBe(`${metadata.issuer}/oauth2/v1/jwks`);
    expect(metadata.subject_types_supported).toEqual(["public", "pairwise"]);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["PS256", "ES256"]);
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["openid", "profile", "email"]));
    // Consistent with the RFC 8414 document: one document at both addresses.
    const oauthMetadata = await (await fetch(`${metadata.issuer}/.well-known/oauth-authorization-server`)).json();
    expect(oauthMetadata).toEqual(await (await fetch(`${metadata.issuer}/.well-known/openid-configuration`)).json());
  });

  it("completes the code flow with PKCE and nonce: the ID token validates against the JWK Set, UserInfo answers the granted claims, a refresh gets a new ID token", async () => {
    const { tokens } = await signIn(config);
    const claims = tokens.claims()!;
    const user = (await server.db.users.byUsername(DEMO.user.username))!;
    expect(claims).toMatchObject({ iss: config.serverMetadata().issuer, sub: user.id, aud: DEMO.strictApp.consumerKey, azp: DEMO.strictApp.consumerKey, acr: "urn:tollgate:sca" });
    expect(claims.amr).toEqual(expect.arrayContaining(["pwd"]));
    expect(claims.exp - claims.iat).toBe(ID_TOKEN_LIFETIME_SECONDS);
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ alg: "PS256", typ: "JWT" });
    expect(tokens.scope?.split(" ")).toEqual(expect.arrayContaining(["openid", "profile", "email", "aisp"]));

    const userInfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userInfo).toEqual({
      sub: user.id,
      name: "Alice Martin",
      given_name: "Alice",
      family_name: "Martin",
      preferred_username: DEMO.user.username,
      email: "alice@example.com",
      email_verified: true,
    });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const again = refreshed.claims()!;
    // OpenID Connect Core §12.2: same iss, sub, aud, auth_time; a new iat; no nonce.
    expect({ iss: again.iss, sub: again.sub, aud: again.aud, auth_time: again.auth_time }).toEqual({ iss: claims.iss, sub: claims.sub, aud: claims.aud, auth_time: claims.auth_time });
    expect(again.nonce).toBeUndefined();
  });

  it("after a rotation, signs in again with the JWK Set it cached: the new current key was published before it signed", async () => {
    const jwksFetches = () => fetched.filter((u) => new URL(u).pathname === "/oauth2/v1/jwks").length;
    const before = await signIn(config);
    const fetchesBefore = jwksFetches();
    expect(fetchesBefore).toBeGreaterThanOrEqual(1);
    const oldKid = decodeProtectedHeader(before.tokens.id_token!).kid;

    // The next PS256 key has been published for its lead: an admin's rotation makes it current.
    const settings = rotationSettings(loadConfig({}));
    const keys = await server.db.signingKeys.list();
    const next = keys.find((k) => k.alg === "PS256" && k.state === "next")!;
    const backend = envelopeBackend(loadKeyEncryption(server.kekFile, false).encryption);
    const at = new Date(next.createdAt.getTime() + settings.leadSeconds * 1000);
    expect((await rotateKeys(server.db.signingKeys, { current: backend, byName: new Map([[backend.name, backend]]) }, settings, at, new Set(["PS256"]))).promoted).toEqual([next.kid]);
    await server.keyring.rotate();

    const after = await signIn(config);
    expect(decodeProtectedHeader(after.tokens.id_token!).kid).toBe(next.kid);
    expect(next.kid).not.toBe(oldKid);
    // The client validated the new ID token with the JWK Set it had: no new fetch of it.
    expect(jwksFetches()).toBe(fetchesBefore);
    // The ID token signed before the rotation still validates: the retired key stays published.
    const jwks = createLocalJWKSet((await (await fetch(`${issuer.origin}/oauth2/v1/jwks`)).json()) as JSONWebKeySet);
    expect((await jwtVerify(before.tokens.id_token!, jwks, { currentDate: new Date(decodeJwt(before.tokens.id_token!).iat! * 1000) })).protectedHeader.kid).toBe(oldKid);
  });

  it("as a FAPI 2.0 relying party: PAR, private_key_jwt and DPoP; the ID token validates, and UserInfo takes the DPoP-bound token with a proof", async () => {
    const fapi = await client.discovery(issuer, DEMO.fapiApp.consumerKey, { id_token_signed_response_alg: "PS256" }, client.PrivateKeyJwt({ key: await demoClientKey(), kid: DEMO_FAPI_PRIVATE_JWK.kid }), {
      execute: [client.allowInsecureRequests],
    });
    client.enableNonRepudiationChecks(fapi);
    const dpop = client.getDPoPHandle(fapi, await client.randomDPoPKeyPair("ES256"));
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithPAR(
      fapi,
      { redirect_uri: DEMO.callbackUrl, scope: "openid profile aisp", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", nonce },
      { DPoP: dpop },
    );
    expect([...url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
    const tokens = await client.authorizationCodeGrant(fapi, await runBrowserStep(url), { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true }, undefined, { DPoP: dpop });
    expect(tokens.token_type.toLowerCase()).toBe("dpop");
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ aud: DEMO.fapiApp.consumerKey, nonce, acr: "urn:tollgate:sca" });
    const userInfo = await client.fetchUserInfo(fapi, tokens.access_token, claims.sub, { DPoP: dpop });
    expect(userInfo).toMatchObject({ sub: claims.sub, name: "Alice Martin" });
  });
});

describe("OpenID Connect Core requirements on the provider", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await relyingParty();
  });

  it("§3.1.3.6 at_hash: the left half of the SHA-256 of the access token; §2 auth_time is the sign-in's", async () => {
    const started = Math.floor(Date.now() / 1000);
    const { tokens } = await signIn(config);
    const claims = tokens.claims()!;
    expect(claims.at_hash).toBe(accessTokenHashClaim(tokens.access_token));
    expect(claims.auth_time).toBeGreaterThanOrEqual(started - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(claims.iat);
  });

  it("§3.1.2.1 nonce: the request's nonce is the ID token's, and a nonce longer than 512 characters is invalid_request", async () => {
    const { tokens, nonce } = await signIn(config);
    expect(tokens.claims()!.nonce).toBe(nonce);
    const url = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid", code_challenge: "a".repeat(43), code_challenge_method: "S256", nonce: "n".repeat(513) });
    const callback = await runBrowserStep(url);
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("error_description")).toMatch(/nonce may have at most 512 characters/);
  });

  it("§3.1.2.1 nonce: a client that requires it is refused without one (invalid_request to its redirect URI); with it the ID token carries it; without openid no nonce is needed", async () => {
    const requireNonce = async (on: boolean) => {
      await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { requireNonce: on } });
      // The catalog cache keeps the app for up to a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
    };
    await requireNonce(true);
    try {
      const refused = await runBrowserStep(
        client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid aisp", code_challenge: "a".repeat(43), code_challenge_method: "S256", state: "s-nonce" }),
      );
      expect(`${refused.origin}${refused.pathname}`).toBe(DEMO.callbackUrl);
      expect(Object.fromEntries(refused.searchParams)).toEqual({
        error: "invalid_request",
        error_description: "nonce is required for this client",
        state: "s-nonce",
        iss: config.serverMetadata().issuer,
      });
      const { tokens, nonce } = await signIn(config, "openid aisp");
      expect(tokens.claims()!.nonce).toBe(nonce);
      const verifier = client.randomPKCECodeVerifier();
      const oauthOnly = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "aisp", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" });
      const plain = await client.authorizationCodeGrant(config, await runBrowserStep(oauthOnly), { pkceCodeVerifier: verifier, idTokenExpected: false });
      expect(plain.access_token).toEqual(expect.any(String));
      expect(plain.id_token).toBeUndefined();
    } finally {
      await requireNonce(false);
    }
  });

  it("§3.1.2.1 nonce: a fapi2 app always needs one with openid, checked when the request is pushed (PAR, RFC 9126): invalid_request without; without openid none is needed", async () => {
    const { challenge } = pkcePair();
    const refused = await pushRequest(issuer.origin, pushedParams(challenge, { scope: "openid aisp" }));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toEqual({ error: "invalid_request", error_description: "nonce is required for this client" });
    expect((await pushRequest(issuer.origin, pushedParams(challenge, { scope: "openid aisp", nonce: "n-0S6_WzA2Mj" }))).status).toBe(201);
    expect((await pushRequest(issuer.origin, pushedParams(challenge))).status).toBe(201);
  });

  it("§5.4 scopes: profile and email need openid (invalid_scope), and UserInfo answers only the claims of the granted scopes", async () => {
    const url = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "profile aisp", code_challenge: "a".repeat(43), code_challenge_method: "S256" });
    expect((await runBrowserStep(url)).searchParams.get("error")).toBe("invalid_scope");
    const { tokens } = await signIn(config, "openid aisp");
    expect(await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).toEqual({ sub: tokens.claims()!.sub });
  });

  it("§3.1.3.3 no ID token without openid: an OAuth code exchange answers no id_token", async () => {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "aisp", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" });
    const tokens = await client.authorizationCodeGrant(config, await runBrowserStep(url), { pkceCodeVerifier: verifier, idTokenExpected: false });
    expect(tokens.id_token).toBeUndefined();
  });

  it("§5.3.3 UserInfo errors: no token is 401 with Bearer and DPoP challenges, a token without openid is 403 insufficient_scope, a revoked one 401 invalid_token", async () => {
    const userinfo = `${issuer.origin}/oauth2/v1/userinfo`;
    const none = await fetch(userinfo);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm="tollgate", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"$/);

    const cc = await client.clientCredentialsGrant(config, { scope: "aisp" });
    const noOpenId = await fetch(userinfo, { headers: { Authorization: `Bearer ${cc.access_token}` } });
    expect(noOpenId.status).toBe(403);
    expect(noOpenId.headers.get("www-authenticate")).toMatch(/error="insufficient_scope".*scope="openid"/);

    const { tokens } = await signIn(config, "openid aisp");
    await client.tokenRevocation(config, tokens.access_token);
    const revoked = await fetch(userinfo, { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("§2 an app set to ES256 gets ES256 ID tokens, verified with the published ES256 key", async () => {
    await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { idTokenSignedResponseAlg: "ES256" } });
    try {
      const es = await relyingParty(issuer, { alg: "ES256" });
      // The catalog cache keeps the app for up to a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const { tokens } = await signIn(es);
      expect(decodeProtectedHeader(tokens.id_token!).alg).toBe("ES256");
    } finally {
      await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { idTokenSignedResponseAlg: "PS256" } });
    }
  });
});

describe("OpenID Connect Core authentication request parameters", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await relyingParty();
  });
  /** An authorization URL of the rfc6749 app for `scope` with `extra` parameters (PKCE, no state: RFC 9700 §2.1). */
  const authorizationUrl = (scope: string, extra: Record<string, string> = {}) =>
    client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope, code_challenge: "a".repeat(43), code_challenge_method: "S256", ...extra });

  it("§3.1.2.1 login_hint: offered as the username on the sign-in page; more than 256 characters is invalid_request", async () => {
    const browser = new Browser(issuer.origin);
    const start = await browser.fetch(authorizationUrl("openid", { login_hint: "alice" }).href);
    expect(start.status).toBe(302);
    const view = await json(await browser.fetch(`/interaction/${encodeURIComponent(interactionIdFrom(start.headers.get("location")))}`));
    expect(view).toMatchObject({ stage: "login", loginHint: "alice", user: null });
    const long = await runBrowserStep(authorizationUrl("openid", { login_hint: "a".repeat(257) }));
    expect(long.searchParams.get("error")).toBe("invalid_request");
    expect(long.searchParams.get("error_description")).toBe("login_hint may have at most 256 characters");
  });

  it("§3.1.2.1 ui_locales: passed to the pages in order of preference (their dates and amounts follow it); a malformed or oversized value is invalid_request", async () => {
    const browser = new Browser(issuer.origin);
    const start = await browser.fetch(authorizationUrl("openid", { ui_locales: "de-DE fr" }).href);
    expect(start.status).toBe(302);
    const view = await json(await browser.fetch(`/interaction/${encodeURIComponent(interactionIdFrom(start.headers.get("location")))}`));
    expect(view.uiLocales).toEqual(["de-DE", "fr"]);
    for (const bad of ["de_DE", "de-DE,fr", `${"de-DE ".repeat(30)}fr`]) {
      const answer = await runBrowserStep(authorizationUrl("openid", { ui_locales: bad }));
      expect(answer.searchParams.get("error"), bad).toBe("invalid_request");
    }
  });

  it("§3.1.2.1 id_token_hint: a session is reused for its user only (prompt=none: login_required for another's); a forged or another client's hint is invalid_request", async () => {
    const browser = new Browser(issuer.origin);
    const verifier = client.randomPKCECodeVerifier();
    const first = client.buildAuthorizationUrl(config, {
      redirect_uri: DEMO.callbackUrl,
      scope: "openid",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    const tokens = await client.authorizationCodeGrant(config, await runBrowserStep(first, { browser }), { pkceCodeVerifier: verifier, idTokenExpected: true });
    const hint = tokens.id_token!;

    // Alice is signed in and consented to openid: prompt=none with her own hint gets a code at once.
    const again = await runBrowserStep(authorizationUrl("openid", { prompt: "none", id_token_hint: hint }), { browser });
    expect(again.searchParams.get("code")).toBeTruthy();
    // A hint naming another user: her session is not reused, so prompt=none cannot be answered.
    const bob = await server.keyring.sign({
      alg: "PS256",
      typ: "JWT",
      payload: { iss: config.serverMetadata().issuer, sub: "another-user", aud: DEMO.strictApp.consumerKey, iat: 0, exp: 1 },
      expiresAt: new Date(1000),
    });
    const other = await runBrowserStep(authorizationUrl("openid", { prompt: "none", id_token_hint: bob }), { browser });
    expect(other.searchParams.get("error")).toBe("login_required");

    const [header, payload, signature] = hint.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(hint), sub: "another-user" })).toString("base64url")}.${signature}`;
    const foreign = await server.keyring.sign({ alg: "ES256", typ: "JWT", payload: { ...decodeJwt(hint), aud: DEMO.app.consumerKey }, expiresAt: new Date(Date.now() + 60_000) });
    const notAnIdToken = await server.keyring.sign({ alg: "ES256", typ: "at+jwt", payload: decodeJwt(hint), expiresAt: new Date(Date.now() + 60_000) });
    for (const bad of [forged, foreign, notAnIdToken, `${header}.${payload}`, "not-a-jwt"]) {
      const refused = await runBrowserStep(authorizationUrl("openid", { id_token_hint: bad }), { browser });
      expect(refused.searchParams.get("error"), bad.slice(0, 20)).toBe("invalid_request");
      expect(refused.searchParams.get("error_description")).toBe("id_token_hint is not an ID token this server issued to this client");
    }
  });

  it("§3.1.2.1 prompt: a space-separated list; select_account and login ask for a sign-in although a session exists; none with another value, or an unknown value, is invalid_request", async () => {
    const browser = new Browser(issuer.origin);
    const verifier = client.randomPKCECodeVerifier();
    const first = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" });
    await client.authorizationCodeGrant(config, await runBrowserStep(first, { browser }), { pkceCodeVerifier: verifier, idTokenExpected: true });
    // Signed in, consented: no prompt gets a code at once; select_account, "login consent" show the sign-in page.
    expect((await browser.fetch(authorizationUrl("openid").href)).headers.get("location")).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    for (const prompt of ["select_account", "login consent", "consent login"]) {
      expect((await browser.fetch(authorizationUrl("openid", { prompt }).href)).headers.get("location"), prompt).toMatch(/^\/login\?interaction=/);
    }
    // consent alone keeps the session but asks again.
    expect((await browser.fetch(authorizationUrl("openid", { prompt: "consent" }).href)).headers.get("location")).toMatch(/^\/consent\?interaction=/);
    for (const prompt of ["none login", "none consent", "always", "NONE"]) {
      const refused = await runBrowserStep(authorizationUrl("openid", { prompt }), { browser });
      expect(refused.searchParams.get("error"), prompt).toBe("invalid_request");
    }
    expect(config.serverMetadata().prompt_values_supported).toEqual(["none", "login", "consent", "select_account"]);
  });

  it("§5.5 claims: an essential acr of strong customer authentication needs two factors and is the ID token's acr; an essential acr nobody here meets is unmet_authentication_requirements; a malformed claims is invalid_request", async () => {
    const sca = JSON.stringify({ id_token: { acr: { essential: true, values: ["urn:tollgate:sca"] } } });
    const verifier = client.randomPKCECodeVerifier();
    const browser = new Browser(issuer.origin);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: DEMO.callbackUrl,
      scope: "openid",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      claims: sca,
    });
    const start = await browser.fetch(url.href);
    const view = await json(await browser.fetch(`/interaction/${encodeURIComponent(interactionIdFrom(start.headers.get("location")))}`));
    expect(view.scaRequired).toBe(true);
    const tokens = await client.authorizationCodeGrant(config, await runBrowserStep(url), { pkceCodeVerifier: verifier, idTokenExpected: true });
    expect(tokens.claims()!.acr).toBe("urn:tollgate:sca");

    const unmet = await runBrowserStep(authorizationUrl("openid", { claims: JSON.stringify({ id_token: { acr: { essential: true, values: ["urn:example:loa:4"] } } }) }));
    expect(unmet.searchParams.get("error")).toBe("unmet_authentication_requirements");
    for (const [claims, description] of [
      ["not json", /^claims is not valid JSON/],
      ["[]", /^claims must be a JSON object/],
      [JSON.stringify({ id_token: 5 }), /^claims: id_token must be an object of claim requests$/],
      [JSON.stringify({ userinfo: { email: { essential: "yes" } } }), /^claims: essential of email must be true or false$/],
      ['{"id_token":{"acr":null},"id_token":{}}', /^claims is not valid JSON: .*id_token/],
      [JSON.stringify({ id_token: { acr: { values: ["x".repeat(4100)] } } }), /^claims may have at most 4096 characters$/],
    ] as const) {
      const refused = await runBrowserStep(authorizationUrl("openid", { claims }));
      expect(refused.searchParams.get("error"), claims.slice(0, 30)).toBe("invalid_request");
      expect(refused.searchParams.get("error_description")).toMatch(description);
    }
  });
});

describe("OpenID Connect Core §8 subject identifiers", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await relyingParty();
  });
  const setSubjects = (data: { subjectType: string; sectorIdentifierUri: string | null }) => server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data });
  /** The catalog cache keeps an app for up to a second. */
  const catalogRefresh = () => new Promise((resolve) => setTimeout(resolve, 1100));

  it("§8.1 pairwise: the app's sub is its sector's, not the user's id: the same at UserInfo, in the next sign-in and in its id_token_hint; another sector gets another", async () => {
    const user = (await server.db.users.byUsername(DEMO.user.username))!;
    try {
      await setSubjects({ subjectType: "pairwise", sectorIdentifierUri: null });
      await catalogRefresh();
      const first = (await signIn(config)).tokens;
      const sub = first.claims()!.sub;
      expect(sub).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(sub).not.toBe(user.id);
      expect((await client.fetchUserInfo(config, first.access_token, sub)).sub).toBe(sub);
      expect((await signIn(config)).tokens.claims()!.sub).toBe(sub);
      // The salt is the server's, sealed in the database: never in clear.
      const salt = await server.prisma.serverSecret.findUniqueOrThrow({ where: { name: "pairwise-subject" } });
      expect(salt.sealed).toMatch(/^kek1\./);

      // A hint with the pairwise sub names alice: her session is reused with prompt=none.
      const browser = new Browser(issuer.origin);
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" });
      const signedIn = await client.authorizationCodeGrant(config, await runBrowserStep(url, { browser }), { pkceCodeVerifier: verifier, idTokenExpected: true });
      const again = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid", code_challenge: "a".repeat(43), code_challenge_method: "S256", prompt: "none", id_token_hint: signedIn.id_token! });
      expect((await runBrowserStep(again, { browser })).searchParams.get("code")).toBeTruthy();

      await setSubjects({ subjectType: "pairwise", sectorIdentifierUri: "https://tpp-b.example/sector.json" });
      await catalogRefresh();
      const other = (await signIn(config)).tokens.claims()!.sub;
      expect(other).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other).not.toBe(sub);
    } finally {
      await setSubjects({ subjectType: "public", sectorIdentifierUri: null });
      await catalogRefresh();
    }
    expect((await signIn(config)).tokens.claims()!.sub).toBe(user.id);
  });
});

describe("OpenID Connect RP-Initiated Logout 1.0", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await relyingParty();
  });
  /** A browser where alice signed in through the app, and her ID token. */
  async function signedInBrowser(): Promise<{ browser: Browser; idToken: string }> {
    const browser = new Browser(issuer.origin);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: DEMO.callbackUrl, scope: "openid", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" });
    const tokens = await client.authorizationCodeGrant(config, await runBrowserStep(url, { browser }), { pkceCodeVerifier: verifier, idTokenExpected: true });
    return { browser, idToken: tokens.id_token! };
  }
  const signedInUser = async (browser: Browser) => (await json(await browser.fetch("/session"))).user as { username: string } | null;
  const logoutUrl = (params: Record<string, string>) => `/oauth2/v1/logout?${new URLSearchParams(params)}`;

  it("§2 the discovery document names the end_session_endpoint; with the signed-in user's id_token_hint the session ends at once and the browser goes to the registered post_logout_redirect_uri with state", async () => {
    expect(config.serverMetadata().end_session_endpoint).toBe(`${config.serverMetadata().issuer}/oauth2/v1/logout`);
    const { browser, idToken } = await signedInBrowser();
    expect((await signedInUser(browser))?.username).toBe(DEMO.user.username);
    // openid-client builds the request as a relying party would.
    const url = client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: DEMO.postLogoutRedirectUrl, state: "af0ifjsldkj" });
    const res = await browser.fetch(url.href);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${DEMO.postLogoutRedirectUrl}?state=af0ifjsldkj`);
    expect(await signedInUser(browser)).toBeNull();
    // POST (form) works the same; without post_logout_redirect_uri the browser lands on the sign-out page.
    const again = await signedInBrowser();
    const posted = await again.browser.fetch("/oauth2/v1/logout", { body: new URLSearchParams({ id_token_hint: again.idToken }).toString(), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(posted.headers.get("location")).toBe("/logout?signed-out");
    expect(await signedInUser(again.browser)).toBeNull();
  });

  it("§3 a post_logout_redirect_uri not registered exactly, a forged hint or an unknown client is a 400 page: no redirect, and the session stays", async () => {
    const { browser, idToken } = await signedInBrowser();
    const [header, , signature] = idToken.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(idToken), sub: "someone-else" })).toString("base64url")}.${signature}`;
    for (const params of [
      { id_token_hint: idToken, post_logout_redirect_uri: "https://evil.example/signed-out" },
      { id_token_hint: idToken, post_logout_redirect_uri: `${DEMO.postLogoutRedirectUrl}/` },
      { client_id: DEMO.strictApp.consumerKey, id_token_hint: forged },
      { client_id: "no-such-client", post_logout_redirect_uri: DEMO.postLogoutRedirectUrl },
      { post_logout_redirect_uri: DEMO.postLogoutRedirectUrl },
    ] as Record<string, string>[]) {
      const res = await browser.fetch(logoutUrl(params));
      expect(res.status, JSON.stringify(params).slice(0, 80)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
    expect((await signedInUser(browser))?.username).toBe(DEMO.user.username);
  });

  it("§2 without an id_token_hint, or with another user's, the PSU is asked on /logout; their Sign out (CSRF-protected) ends the session and returns the app's redirect", async () => {
    const { browser } = await signedInBrowser();
    const params = { client_id: DEMO.strictApp.consumerKey, post_logout_redirect_uri: DEMO.postLogoutRedirectUrl, state: "s1" };
    const asked = await browser.fetch(logoutUrl(params));
    expect(asked.status).toBe(302);
    expect(asked.headers.get("location")).toBe(`/logout?${new URLSearchParams(params)}`);
    expect((await signedInUser(browser))?.username).toBe(DEMO.user.username);

    const { csrfToken } = (await json(await browser.fetch("/session"))) as { csrfToken: string };
    const withoutCsrf = await browser.fetch("/session/end", { json: params });
    expect(withoutCsrf.status).toBe(403);
    expect((await signedInUser(browser))?.username).toBe(DEMO.user.username);
    const confirmed = await browser.fetch("/session/end", { json: params, headers: { "X-CSRF-Token": csrfToken } });
    expect(confirmed.status).toBe(200);
    expect(await json(confirmed)).toEqual({ redirectTo: `${DEMO.postLogoutRedirectUrl}?state=s1` });
    expect(await signedInUser(browser)).toBeNull();
  });
});

describe("signing keys in an HSM (SoftHSM2)", () => {
  it("with the device away, the code exchange answers 503 temporarily_unavailable, never tokens without their ID token; with it back, ID tokens again", async () => {
    await withHsmIssuerServer("tollgate-oidc", "pin-51e0d2", async (hsm, device) => {
      const config = await relyingParty(hsm.issuer, { expect5xx: 503 });
      expect(decodeProtectedHeader((await signIn(config)).tokens.id_token!).alg).toBe("PS256");

      device.takeAway();
      const refused = await signIn(config).then(
        () => expect.unreachable("tokens were issued while no key could sign"),
        (error: unknown) => error as client.ClientError & { cause: unknown },
      );
      // openid-client takes only 400 and 401 for an OAuth error body (RFC 6749 §5.2): it hands over the 503 as it came.
      expect(refused.code).toBe("OAUTH_RESPONSE_IS_NOT_CONFORM");
      const answer = refused.cause as Response;
      expect(answer.status).toBe(503);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(await answer.json()).toEqual({ error: "temporarily_unavailable", error_description: "the ID token cannot be signed now: try again later" });

      device.bringBack();
      expect(decodeProtectedHeader((await signIn(config)).tokens.id_token!).alg).toBe("PS256");
    });
  });
});
