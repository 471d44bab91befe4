import { describe, expect, it } from "vitest";
import type { ClientRecord } from "../stores/clients.js";
import { accessTokenFormat, accessTokenPayload, isJwt, jwtIdOf } from "./access-token-jwt.js";
import { rowIdOf } from "./tokens.js";

const product = (name: string, scopes: string[], accessTokenFormat: "opaque" | "jwt"): ClientRecord["products"][number] => ({
  name,
  scopes,
  requiresSca: false,
  authorizationDetailsTypes: [],
  accessTokenFormat,
  identityProviderId: null,
});
const PRODUCTS = [product("OpenData", ["branches"], "jwt"), product("Accounts", ["aisp"], "jwt"), product("Payments", ["pisp"], "opaque")];

describe("accessTokenFormat: JWT only where every product behind the token asks for it (RFC 9068, opt-in)", () => {
  it("follows the products that grant the token's scopes, not every product a client credentials token lists", () => {
    const all = PRODUCTS.map((p) => p.name);
    expect(accessTokenFormat(["branches"], all, PRODUCTS)).toBe("jwt");
    expect(accessTokenFormat(["branches", "aisp"], all, PRODUCTS)).toBe("jwt");
    expect(accessTokenFormat(["branches", "pisp"], all, PRODUCTS)).toBe("opaque");
  });

  it("a token whose scopes no product grants follows its products; a token of none is opaque", () => {
    expect(accessTokenFormat(["openid"], ["Accounts"], PRODUCTS)).toBe("jwt");
    expect(accessTokenFormat([], ["Accounts", "Payments"], PRODUCTS)).toBe("opaque");
    expect(accessTokenFormat(["openid"], [], PRODUCTS)).toBe("opaque");
  });
});

describe("accessTokenPayload (RFC 9068 §2.2)", () => {
  const base = {
    issuer: "https://auth.bank.example",
    jti: "cmx0000000000000000000000",
    clientId: "tpp-1",
    audience: ["https://api.bank.example/accounts"],
    scopes: ["aisp"],
    issuedAt: new Date("2026-11-29T10:00:00.000Z"),
    expiresAt: new Date("2026-11-29T11:00:00.000Z"),
  };

  it("names the client as sub without a resource owner; one audience is a string; times in seconds", () => {
    expect(accessTokenPayload(base)).toEqual({
      iss: "https://auth.bank.example",
      exp: 1795950000,
      aud: "https://api.bank.example/accounts",
      sub: "tpp-1",
      client_id: "tpp-1",
      iat: 1795946400,
      jti: "cmx0000000000000000000000",
      scope: "aisp",
    });
  });

  it("carries the user, several audiences, cnf, the authentication and the authorization details", () => {
    const payload = accessTokenPayload({
      ...base,
      userId: "user-1",
      audience: ["https://api.bank.example/accounts", "https://api.bank.example/payments"],
      jkt: "j".repeat(43),
      x5t: "x".repeat(43),
      authentication: { acr: "urn:tollgate:sca", amr: ["pwd", "hwk"], authTime: new Date("2026-11-29T09:59:00.000Z") },
      authorizationDetails: '[{"type":"account_information"}]',
    });
    expect(payload).toMatchObject({
      sub: "user-1",
      aud: ["https://api.bank.example/accounts", "https://api.bank.example/payments"],
      cnf: { jkt: "j".repeat(43), "x5t#S256": "x".repeat(43) },
      acr: "urn:tollgate:sca",
      amr: ["pwd", "hwk"],
      auth_time: 1795946340,
      authorization_details: [{ type: "account_information" }],
    });
  });
});

describe("the row a presented JWT names (its jti), read before any check; the stored hash then proves it", () => {
  const jwt = (payload: unknown) => `eyJhbGciOiJQUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.c2ln`;

  it("reads a jti of the shape of a row id, and nothing else", () => {
    const id = "cmx0000000000000000000000";
    expect(isJwt(jwt({ jti: id }))).toBe(true);
    expect(jwtIdOf(jwt({ jti: id }))).toBe(id);
    expect(rowIdOf(jwt({ jti: id }))).toBe(id);
    for (const bad of [jwt({ jti: 42 }), jwt({}), jwt([id]), jwt({ jti: "x".repeat(24) }), jwt({ jti: "UPPERCASE0000000000000000" }), "a.b", "a.!!.c", `${jwt({ jti: id })}.d`]) {
      expect(rowIdOf(bad), bad).toBeUndefined();
    }
    expect(jwtIdOf(jwt({ jti: id, pad: "p".repeat(9000) }))).toBeUndefined();
  });
});
