/**
 * The grant types (RFC 6749 §4.1.3, §4.4, §6; RFC 7636 §4.6; RFC 9700 §4.14) against the
 * in-memory stores: what each issues and stores, and every refusal.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { memoryStores, type MemoryStores } from "../../../test/support/memory-stores.js";
import { InvalidGrant, InvalidRequest, InvalidScope } from "../../kernel/errors.js";
import { hashSecret } from "../../kernel/secrets.js";
import type { UserRecord } from "../../stores/users.js";
import type { Client } from "../client-auth.js";
import type { IssuedToken, TokenSigner } from "../issue.js";
import type { Keyring } from "../../keys/keyring.js";
import { s256Challenge } from "../pkce.js";
import { findTokenRow } from "../tokens.js";
import { authorizationCodeGrant } from "./authorization-code.js";
import { clientCredentialsGrant } from "./client-credentials.js";
import type { Grant } from "./grant.js";
import { refreshTokenGrant } from "./refresh-token.js";

const NOW = new Date("2026-11-24T10:00:00.000Z");

/** The products here issue opaque tokens: nothing is signed (server/test/jwt-access-tokens.test.ts signs on the real server). */
const SIGNER: TokenSigner = { keyring: {} as Keyring, issuer: "http://localhost:3000", baseUrl: "http://localhost:3000" };
const SECOND = 1000;
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const REDIRECT = "https://tpp.example/callback";

const client: Client = {
  clientId: "tpp-key",
  credentialId: "cred1",
  credentialStatus: "approved",
  credentialExpiresAt: null,
  appId: "app1",
  appName: "TPP",
  appStatus: "approved",
  organizationName: "TPP Ltd",
  developerEmail: "dev@tpp.example",
  tokenResponseProfile: "apigee",
  idTokenSignedResponseAlg: "PS256",
  authorizationSignedResponseAlg: "PS256",
  introspectionSignedResponseAlg: "PS256",
  subjectType: "public",
  sectorIdentifierUri: null,
  postLogoutRedirectUris: [],
  accessTokenLifetimeSeconds: 300,
  refreshTokenLifetimeSeconds: 7_776_000,
  requirePkce: true,
  requireNonce: false,
  requireSignedRequestObject: false,
  identityProviderId: null,
  canIntrospect: false,
  tokenEndpointAuthMethods: ["client_secret_basic"],
  securityProfile: "standard",
  jwks: null,
  jwksUri: null,
  tlsClientAuth: null,
  products: [
    { name: "AISP", scopes: ["aisp", "extended_transaction_history"], requiresSca: false, authorizationDetailsTypes: [], accessTokenFormat: "opaque", identityProviderId: null },
    { name: "PISP", scopes: ["pisp"], requiresSca: false, authorizationDetailsTypes: [], accessTokenFormat: "opaque", identityProviderId: null },
  ],
  callbackUrls: [REDIRECT],
};

const alice: UserRecord = { id: "user1", username: "alice", passwordHash: "x", role: "user", status: "active", createdAt: NOW, name: null, givenName: null, familyName: null, email: null, emailVerified: false, temporaryPasswordUntil: null };

let stores: MemoryStores;
beforeEach(() => {
  stores = memoryStores([alice, { ...alice, id: "user2", username: "bob", status: "disabled" }]);
});

const run = (grant: Grant, params: Record<string, string>, now = NOW, c: Client = client) => grant.handle({ stores, client: c, params, now, scaReauthenticationDays: 180, signer: SIGNER, auditEvent: () => ({ type: "token.issued", actor: c.clientId }) });

/** Stores a code for alice as the flow does; @returns its value. */
async function storeCode(o: { challenge?: string | null; expiresAt?: Date; userId?: string; appId?: string; scopes?: string[] } = {}): Promise<string> {
  const value = `code-${stores.state.codes.size + 1}`;
  await stores.codes.insert({
    codeHash: hashSecret(value),
    appId: o.appId ?? client.appId,
    userId: o.userId ?? alice.id,
    redirectUri: REDIRECT,
    scopes: o.scopes ?? ["aisp", "pisp"],
    codeChallenge: o.challenge === undefined ? s256Challenge(VERIFIER) : o.challenge,
    codeChallengeMethod: o.challenge === null ? null : "S256",
    dpopJkt: null,
    nonce: null,
    resource: null,
    authentication: { acr: "urn:tollgate:sca", amr: ["pwd", "otp", "mfa"], authTime: NOW },
    expiresAt: o.expiresAt ?? new Date(NOW.getTime() + 60 * SECOND),
  });
  return value;
}

const exchange = (code: string, extra: Record<string, string> = {}) =>
  run(authorizationCodeGrant, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...extra });

/** The stored row of an issued access token. */
async function rowOf(issued: IssuedToken) {
  return (await findTokenRow(stores.tokens, issued.accessToken))!.row;
}

describe("client_credentials (RFC 6749 §4.4)", () => {
  it("without scope grants every scope of the approved products, all products, no refresh token", async () => {
    const issued = await run(clientCredentialsGrant, { grant_type: "client_credentials" });
    expect(issued.scopes).toEqual(["aisp", "extended_transaction_history", "pisp"]);
    expect(issued.apiProducts).toEqual(["AISP", "PISP"]);
    expect(issued.refresh).toBeUndefined();
    expect(issued.expiresAt.getTime() - NOW.getTime()).toBe(300 * SECOND);
    const row = await rowOf(issued);
    expect(row).toMatchObject({ appId: "app1", credentialId: "cred1", userId: null, status: "approved", refreshTokenHash: null });
    expect(stores.state.tokens.get(row.id)!.grantType).toBe("client_credentials");
  });

  it("with scope grants exactly the requested scopes (RFC 6749 §3.3)", async () => {
    const issued = await run(clientCredentialsGrant, { grant_type: "client_credentials", scope: "pisp aisp" });
    expect(issued.scopes).toEqual(["pisp", "aisp"]);
  });

  it("refuses a scope no approved product offers with invalid_scope and stores nothing (RFC 6749 §5.2)", async () => {
    await expect(run(clientCredentialsGrant, { grant_type: "client_credentials", scope: "aisp admin" })).rejects.toBeInstanceOf(InvalidScope);
    expect(stores.state.tokens.size).toBe(0);
  });

  it("stores only the SHA-256 of the token value", async () => {
    const issued = await run(clientCredentialsGrant, { grant_type: "client_credentials" });
    const row = await rowOf(issued);
    expect(row.tokenHash).toBe(hashSecret(issued.accessToken));
    expect(JSON.stringify([...stores.state.tokens.values()])).not.toContain(issued.accessToken.slice(25));
  });
});

describe("authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6)", () => {
  it("issues an access and a refresh token of the code's family and marks the code used", async () => {
    const code = await storeCode();
    const issued = await exchange(code);
    expect(issued.userId).toBe(alice.id);
    expect(issued.scopes).toEqual(["aisp", "pisp"]);
    expect(issued.apiProducts).toEqual(["AISP", "PISP"]);
    expect(issued.refresh!.expiresAt.getTime() - NOW.getTime()).toBe(7_776_000 * SECOND);
    const stored = (await stores.codes.byHash(hashSecret(code)))!;
    expect(stored.usedAt).toEqual(NOW);
    const row = await rowOf(issued);
    expect(row).toMatchObject({ familyId: stored.id, userId: alice.id, username: "alice", refreshTokenStatus: "approved" });
  });

  it.each([
    ["code", InvalidRequest],
    ["redirect_uri", InvalidRequest],
  ])("requires %s (invalid_request)", async (param, error) => {
    const code = await storeCode();
    const params: Record<string, string> = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: VERIFIER };
    delete params[param];
    await expect(run(authorizationCodeGrant, params)).rejects.toBeInstanceOf(error);
  });

  it("refuses an unknown code (invalid_grant)", async () => {
    await expect(exchange("no-such-code")).rejects.toBeInstanceOf(InvalidGrant);
  });

  it("refuses another app's code as unknown (RFC 6749 §4.1.3: issued to the authenticated client)", async () => {
    const code = await storeCode({ appId: "app2" });
    await expect(exchange(code)).rejects.toThrow("the authorization code is invalid");
    expect(stores.state.tokens.size).toBe(0);
  });

  it("refuses an expired code and leaves it unused", async () => {
    const code = await storeCode({ expiresAt: NOW });
    await expect(exchange(code)).rejects.toThrow("the authorization code has expired");
    expect((await stores.codes.byHash(hashSecret(code)))!.usedAt).toBeNull();
  });

  it("refuses a redirect_uri other than the authorization request's (RFC 6749 §4.1.3)", async () => {
    const code = await storeCode();
    await expect(exchange(code, { redirect_uri: `${REDIRECT}/other` })).rejects.toThrow("redirect_uri does not match");
  });

  it("requires the code_verifier when the request had a code_challenge (RFC 7636 §4.6)", async () => {
    const code = await storeCode();
    await expect(run(authorizationCodeGrant, { grant_type: "authorization_code", code, redirect_uri: REDIRECT })).rejects.toThrow("code_verifier is required");
  });

  it("refuses a code_verifier that does not match the S256 challenge", async () => {
    const code = await storeCode();
    await expect(exchange(code, { code_verifier: "x".repeat(43) })).rejects.toThrow("does not match the code_challenge");
    expect(stores.state.tokens.size).toBe(0);
  });

  it("refuses a code_verifier when the request had no code_challenge (RFC 9700 §4.8.2, PKCE downgrade)", async () => {
    const code = await storeCode({ challenge: null });
    await expect(exchange(code)).rejects.toThrow("no code_challenge");
  });

  it("issues without PKCE when the request had none and none is sent", async () => {
    const code = await storeCode({ challenge: null });
    const params = { grant_type: "authorization_code", code, redirect_uri: REDIRECT };
    expect((await run(authorizationCodeGrant, params)).refresh).toBeDefined();
  });

  it("refuses a second use and revokes every token issued from the code (RFC 6749 §4.1.2, RFC 9700 §4.14)", async () => {
    const code = await storeCode();
    const first = await exchange(code);
    await expect(exchange(code)).rejects.toThrow("already used");
    const row = await rowOf(first);
    expect(row.status).toBe("revoked");
    expect(row.refreshTokenStatus).toBe("revoked");
  });

  it("refuses the code of a disabled resource owner", async () => {
    const code = await storeCode({ userId: "user2" });
    await expect(exchange(code)).rejects.toThrow("the resource owner is disabled");
    expect(stores.state.tokens.size).toBe(0);
  });

  it("narrows to a requested subset of the granted scopes, never wider", async () => {
    const code = await storeCode();
    expect((await exchange(code, { scope: "pisp" })).scopes).toEqual(["pisp"]);
    const other = await storeCode();
    await expect(exchange(other, { scope: "aisp extended_transaction_history" })).rejects.toBeInstanceOf(InvalidScope);
  });

  it("drops scopes whose product is no longer approved on the credential", async () => {
    const code = await storeCode();
    const issued = await run(authorizationCodeGrant, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: VERIFIER }, NOW, {
      ...client,
      products: [client.products[1]!],
    });
    expect(issued.scopes).toEqual(["pisp"]);
    expect(issued.apiProducts).toEqual(["PISP"]);
  });
});

describe("refresh_token with rotation (RFC 6749 §6, RFC 9700 §4.14.2)", () => {
  /** A code exchange for alice; @returns the refresh token value and the first issuance. */
  async function refreshable(): Promise<{ refreshToken: string; first: IssuedToken }> {
    const first = await exchange(await storeCode());
    return { refreshToken: first.refresh!.token, first };
  }
  const refresh = (refreshToken: string, extra: Record<string, string> = {}, now = NOW) =>
    run(refreshTokenGrant, { grant_type: "refresh_token", refresh_token: refreshToken, ...extra }, now);

  it("issues a new pair, revokes the presented refresh token, counts the rotation and keeps the family's expiry", async () => {
    const { refreshToken, first } = await refreshable();
    const later = new Date(NOW.getTime() + 3600 * SECOND);
    const second = await refresh(refreshToken, {}, later);
    expect(second.refreshCount).toBe(1);
    expect(second.refresh!.token).not.toBe(refreshToken);
    expect(second.refresh!.expiresAt).toEqual(first.refresh!.expiresAt);
    expect(second.scopes).toEqual(["aisp", "pisp"]);
    expect((await rowOf(first)).refreshTokenStatus).toBe("revoked");
    expect((await rowOf(second)).familyId).toBe((await rowOf(first)).familyId);
  });

  it("treats a rotated refresh token presented again as theft and revokes the family", async () => {
    const { refreshToken } = await refreshable();
    const second = await refresh(refreshToken);
    await expect(refresh(refreshToken)).rejects.toThrow("the token family is revoked");
    expect((await rowOf(second)).status).toBe("revoked");
    await expect(refresh(second.refresh!.token)).rejects.toBeInstanceOf(InvalidGrant);
  });

  it("narrows the scope and refuses to widen it beyond the original grant (RFC 6749 §6)", async () => {
    const { refreshToken } = await refreshable();
    const narrowed = await refresh(refreshToken, { scope: "aisp" });
    expect(narrowed.scopes).toEqual(["aisp"]);
    // The original grant (the code's scopes) bounds later refreshes, not the narrowed one.
    expect((await refresh(narrowed.refresh!.token)).scopes).toEqual(["aisp", "pisp"]);
  });

  it("refuses a scope outside the original grant with invalid_scope", async () => {
    const { refreshToken } = await refreshable();
    await expect(refresh(refreshToken, { scope: "extended_transaction_history" })).rejects.toBeInstanceOf(InvalidScope);
  });

  it("refuses an expired refresh token", async () => {
    const { refreshToken, first } = await refreshable();
    await expect(refresh(refreshToken, {}, first.refresh!.expiresAt)).rejects.toThrow("the refresh token has expired");
  });

  it("refuses another app's refresh token as invalid", async () => {
    const { refreshToken } = await refreshable();
    await expect(
      run(refreshTokenGrant, { grant_type: "refresh_token", refresh_token: refreshToken }, NOW, { ...client, appId: "app2" }),
    ).rejects.toThrow("the refresh token is invalid");
  });

  it("refuses an access token presented as a refresh token", async () => {
    const { first } = await refreshable();
    await expect(refresh(first.accessToken)).rejects.toThrow("the refresh token is invalid");
  });

  it("requires refresh_token (invalid_request)", async () => {
    await expect(run(refreshTokenGrant, { grant_type: "refresh_token" })).rejects.toBeInstanceOf(InvalidRequest);
  });

  it("refuses when the resource owner was disabled since", async () => {
    const { refreshToken } = await refreshable();
    stores.state.users.set(alice.id, { ...alice, status: "disabled" });
    await expect(refresh(refreshToken)).rejects.toThrow("the resource owner is disabled");
  });
});
