/**
 * The token endpoint's body in both profiles: the spec's Apigee format
 * (/work/shared/spec/token-service.md "Token response", decisions.md "Token response") and
 * the strict one (RFC 6749 §5.1, decisions.md "Standard clients").
 */
import { describe, expect, it } from "vitest";
import { AUTH_CODE_KEYS, CLIENT_CREDENTIALS_KEYS } from "../../test/support/token-response.js";
import type { TokenResponseProfile } from "../stores/clients.js";
import type { Client } from "./client-auth.js";
import type { IssuedToken } from "./issue.js";
import { formatTokenResponse } from "./token-response.js";

/** 2025-01-01T00:00:00Z: 1735689600 s, 1735689600000 ms. */
const NOW = new Date("2025-01-01T00:00:00.000Z");
const EPOCH_S = 1735689600;
const at = (secondsFromNow: number) => new Date(NOW.getTime() + secondsFromNow * 1000);

function client(profile: TokenResponseProfile): Client {
  return {
    clientId: "ck-demo",
    credentialId: "cred1",
    credentialStatus: "approved",
    credentialExpiresAt: null,
    appId: "app1",
    appName: "Demo App",
    appStatus: "approved",
    organizationName: "Demo Org",
    developerEmail: "dev@example.com",
    tokenResponseProfile: profile,
    idTokenSignedResponseAlg: "PS256",
    authorizationSignedResponseAlg: "PS256",
    introspectionSignedResponseAlg: "PS256",
    subjectType: "public",
    sectorIdentifierUri: null,
    postLogoutRedirectUris: [],
    accessTokenLifetimeSeconds: 3600,
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
    products: [],
    callbackUrls: [],
  };
}

/** A client credentials token: 3600 s, two scopes and products, no refresh token. */
function ccToken(over: Partial<IssuedToken> = {}): IssuedToken {
  return {
    accessToken: "at-123",
    issuedAt: NOW,
    expiresAt: at(3600),
    scopes: ["aisp", "pisp"],
    apiProducts: ["PSD2-AISP-v1", "PSD2-PISP-v1"],
    refreshCount: 0,
    ...over,
  };
}

/** An authorization code token: as ccToken, with a 90-day refresh token issued now. */
function acToken(over: Partial<IssuedToken> = {}): IssuedToken {
  return ccToken({ refresh: { token: "rt-456", issuedAt: NOW, expiresAt: at(7_776_000) }, userId: "u1", ...over });
}

describe("formatTokenResponse, apigee profile (spec 'Token response', decisions.md)", () => {
  it("authorization code flow: exactly the spec's fields, every number a JSON string", () => {
    const body = formatTokenResponse(client("apigee"), acToken(), NOW);
    expect(Object.keys(body).sort()).toEqual(AUTH_CODE_KEYS);
    expect(body).toEqual({
      access_token: "at-123",
      refresh_token: "rt-456",
      token_type: "BearerToken",
      expires_in: "3600",
      issued_at: "1735689600000",
      refresh_token_expires_in: "7776000",
      refresh_token_issued_at: "1735689600000",
      refresh_token_status: "approved",
      refresh_count: "0",
      status: "approved",
      scope: "aisp pisp",
      api_product_list: "[PSD2-AISP-v1, PSD2-PISP-v1]",
      api_product_list_json: ["PSD2-AISP-v1", "PSD2-PISP-v1"],
      client_id: "ck-demo",
      application_name: "Demo App",
      organization_name: "Demo Org",
      "developer.email": "dev@example.com",
    });
  });

  it("client credentials: no refresh_token, refresh_token_issued_at or refresh_token_status; refresh_token_expires_in is \"0\"", () => {
    const body = formatTokenResponse(client("apigee"), ccToken(), NOW);
    expect(Object.keys(body).sort()).toEqual(CLIENT_CREDENTIALS_KEYS);
    expect(body.refresh_token_expires_in).toBe("0");
  });

  it("sends every member except api_product_list_json as a string", () => {
    for (const t of [ccToken(), acToken({ refreshCount: 3 })]) {
      const body = formatTokenResponse(client("apigee"), t, NOW);
      for (const [key, value] of Object.entries(body)) {
        if (key === "api_product_list_json") expect(Array.isArray(value)).toBe(true);
        else expect(typeof value, key).toBe("string");
      }
    }
  });

  it("issued_at and refresh_token_issued_at are epoch milliseconds, not seconds", () => {
    const issued = new Date(NOW.getTime() + 123);
    const body = formatTokenResponse(client("apigee"), acToken({ issuedAt: issued, refresh: { token: "r", issuedAt: issued, expiresAt: at(60) } }), issued);
    expect(body.issued_at).toBe("1735689600123");
    expect(body.refresh_token_issued_at).toBe("1735689600123");
  });

  it("refresh_count is the token's count of rotations as a string", () => {
    expect(formatTokenResponse(client("apigee"), acToken({ refreshCount: 2 }), NOW).refresh_count).toBe("2");
  });

  it("scope is the granted names joined by one space, \"\" when none; api_product_list is bracketed with \", \"", () => {
    const none = formatTokenResponse(client("apigee"), ccToken({ scopes: [], apiProducts: [] }), NOW);
    expect(none.scope).toBe("");
    expect(none.api_product_list).toBe("[]");
    expect(none.api_product_list_json).toEqual([]);
    const one = formatTokenResponse(client("apigee"), ccToken({ scopes: ["extended_transaction_history"], apiProducts: ["PSD2-AISP-v1"] }), NOW);
    expect(one.scope).toBe("extended_transaction_history");
    expect(one.api_product_list).toBe("[PSD2-AISP-v1]");
  });
});

describe("formatTokenResponse, expires_in in whole seconds remaining, rounded down (decisions.md, RFC 6749 §5.1)", () => {
  it.each([
    ["a fresh token", 3_600_000, 3600],
    ["1 ms later", 3_599_999, 3599],
    ["half a second later", 3_599_500, 3599],
    ["under a second left", 999, 0],
    ["at the expiry", 0, 0],
    ["past the expiry (never negative)", -5000, 0],
  ])("%s: %i ms left is %i s", (_what, msLeft, seconds) => {
    const t = ccToken({ expiresAt: new Date(NOW.getTime() + msLeft) });
    expect(formatTokenResponse(client("apigee"), t, NOW).expires_in).toBe(String(seconds));
    expect(formatTokenResponse(client("rfc6749"), t, NOW).expires_in).toBe(seconds);
  });

  it("refresh_token_expires_in counts the refresh token's remaining seconds from now, not from its issue", () => {
    const body = formatTokenResponse(client("apigee"), acToken(), at(100));
    expect(body.refresh_token_expires_in).toBe("7775900");
    expect(body.expires_in).toBe("3500");
  });
});

describe("formatTokenResponse, rfc6749 profile (RFC 6749 §5.1, decisions.md 'Standard clients')", () => {
  it('token_type is "Bearer" (RFC 6750 §4) and expires_in a JSON number of seconds', () => {
    const body = formatTokenResponse(client("rfc6749"), ccToken(), NOW);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    expect(body.access_token).toBe("at-123");
    expect(body.scope).toBe("aisp pisp");
  });

  it("issued_at and refresh_token_issued_at are JSON numbers of epoch seconds (rounded down), so issued_at + expires_in is the expiry", () => {
    const issued = new Date(NOW.getTime() + 999);
    const t = acToken({ issuedAt: issued, expiresAt: new Date(issued.getTime() + 3600_000), refresh: { token: "r", issuedAt: issued, expiresAt: at(86_400) } });
    const body = formatTokenResponse(client("rfc6749"), t, issued);
    expect(body.issued_at).toBe(EPOCH_S);
    expect(body.refresh_token_issued_at).toBe(EPOCH_S);
    expect((body.issued_at as number) + (body.expires_in as number)).toBe(Math.floor(t.expiresAt.getTime() / 1000));
  });

  it("keeps the refresh token and the Apigee extras as extra members", () => {
    const body = formatTokenResponse(client("rfc6749"), acToken(), NOW);
    expect(Object.keys(body).sort()).toEqual(AUTH_CODE_KEYS);
    expect(body.refresh_token).toBe("rt-456");
    expect(body.api_product_list_json).toEqual(["PSD2-AISP-v1", "PSD2-PISP-v1"]);
    expect(body["developer.email"]).toBe("dev@example.com");
  });

  it("has no refresh_token for client credentials (RFC 6749 §4.4.3: SHOULD NOT be included)", () => {
    const body = formatTokenResponse(client("rfc6749"), ccToken(), NOW);
    expect(body).not.toHaveProperty("refresh_token");
    expect(body).not.toHaveProperty("refresh_token_issued_at");
  });
});

describe("formatTokenResponse: no empty scope member where RFC 6749 §5.1 applies", () => {
  // RFC 6749 §3.3: scope = scope-token *( SP scope-token ), scope-token = 1*NQCHAR: "" is no scope value.
  it.each([
    ["rfc6749", { securityProfile: "standard" as const }],
    ["fapi2", { securityProfile: "fapi2" as const }],
  ])("the %s profile leaves scope out when the token has no scope (a consent of authorization details only)", (_what, over) => {
    const body = formatTokenResponse({ ...client("rfc6749"), ...over }, acToken({ scopes: [], authorizationDetails: "[]" }), NOW);
    expect(body).not.toHaveProperty("scope");
    expect(body.authorization_details).toEqual([]);
  });

  it("the apigee profile keeps its scope member, \"\" when there is none (its fixed format)", () => {
    expect(formatTokenResponse(client("apigee"), ccToken({ scopes: [] }), NOW).scope).toBe("");
  });
});
