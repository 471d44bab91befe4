import { describe, expect, it } from "vitest";
import { ACR_PASSWORD, ACR_SCA } from "../kernel/acr.js";
import { BearerError, type DpopChallenge } from "../kernel/errors.js";
import type { ApiRoute } from "../stores/catalog.js";
import type { PresentedToken } from "../oauth/tokens.js";
import type { AccountInformation } from "../consents/authorization-details.js";
import { checkAccess } from "./access.js";

/** The BearerError checkAccess throws at `now`. @throws when it throws nothing or something else. */
function denialOf(t: PresentedToken | undefined, api: ApiRoute, now: Date, dpop?: DpopChallenge): BearerError {
  try {
    checkAccess(t, api, GATEWAY, now, dpop);
  } catch (err) {
    expect(err).toBeInstanceOf(BearerError);
    return err as BearerError;
  }
  return expect.unreachable();
}

/** The gateway's realm and BASE_URL. */
const GATEWAY = { realm: "tollgate", baseUrl: "https://api.bank.example" };

/** The time of every call. */
const NOW = new Date("2026-11-26T10:00:00.000Z");

/** An active client credentials token of the demo app for the AISP product, with `over` on top. */
const token = (over: Partial<PresentedToken> = {}): PresentedToken => ({
  x5t: null,
  consent: null,
  authorizationDetails: null,
  audience: null,
  active: true,
  scopes: ["aisp"],
  apiProducts: ["PSD2-AISP-v1"],
  clientId: "ck",
  appName: "Demo",
  jkt: null,
  authentication: null,
  userId: null,
  ...over,
});

describe("checkAccess (RFC 6750 §3.1, decisions.md 'Errors')", () => {
  const API: ApiRoute = {
    name: "accounts",
    upstream: { origin: "http://upstream.example", basePath: "" },
    requiredScopes: ["aisp"],
    productNames: ["PSD2-AISP-v1"],
    passCookies: false,
    requiredAcr: null,
    maxAgeSeconds: null,
    consentCheck: "none",
  };

  const denial = (t: PresentedToken | undefined, api: ApiRoute = API, dpop?: DpopChallenge) => denialOf(t, api, NOW, dpop);

  it("lets through an active token whose product grants the API and that has every required scope", () => {
    expect(() => checkAccess(token(), API, GATEWAY, NOW)).not.toThrow();
  });

  it("lets through a token with more scopes and products than the API needs", () => {
    expect(() => checkAccess(token({ scopes: ["pisp", "aisp"], apiProducts: ["PSD2-PISP-v1", "PSD2-AISP-v1"] }), API, GATEWAY, NOW)).not.toThrow();
  });

  it("lets through any token of a granting product when the API requires no scope", () => {
    expect(() => checkAccess(token({ scopes: [] }), { ...API, requiredScopes: [] }, GATEWAY, NOW)).not.toThrow();
  });

  it.each([
    ["an unknown token", undefined],
    ["an inactive (expired, revoked) token, even with the right product and scope", { active: false }],
  ] as const)("§3.1 invalid_token: refuses %s with 401", (_what, over) => {
    const err = denial(over === undefined ? undefined : token(over));
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_token");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token", error_description="the access token is invalid, expired or revoked"');
  });

  it("§3.1 insufficient_scope: 403 naming the API's required scope when no product of the token grants the API", () => {
    const err = denial(token({ apiProducts: ["PSD2-PISP-v1"] }));
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.headers["WWW-Authenticate"]).toMatch(/^Bearer realm="tollgate", error="insufficient_scope", error_description="[^"]*accounts[^"]*", scope="aisp"$/);
  });

  it("refuses a token without products, even if it has the scopes", () => {
    expect(denial(token({ apiProducts: [] })).status).toBe(403);
  });

  it("§3.1 insufficient_scope: 403 when a required scope is missing; scope= lists every scope the API requires", () => {
    const api = { ...API, requiredScopes: ["aisp", "extended_transaction_history"] };
    const err = denial(token({ scopes: ["aisp"] }), api);
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.message).toContain("extended_transaction_history");
    expect(err.headers["WWW-Authenticate"]).toMatch(/, scope="aisp extended_transaction_history"$/);
  });

  it("compares scopes case-sensitively (RFC 6749 §3.3)", () => {
    expect(denial(token({ scopes: ["AISP"] })).status).toBe(403);
  });

  it("leaves scope= out of the challenge when the API requires no scope", () => {
    const err = denial(token({ apiProducts: ["other"] }), { ...API, requiredScopes: [] });
    expect(err.status).toBe(403);
    expect(err.headers["WWW-Authenticate"]).not.toContain("scope=");
  });
});

describe("checkAccess step-up (RFC 9470 §3: insufficient_user_authentication)", () => {
  const API: ApiRoute = {
    name: "payments",
    upstream: { origin: "http://upstream.example", basePath: "" },
    requiredScopes: ["pisp"],
    productNames: ["PSD2-PISP-v1"],
    passCookies: false,
    requiredAcr: null,
    maxAgeSeconds: null,
    consentCheck: "none",
  };
  /** A user's authentication `ageSeconds` before {@link NOW}. */
  const authentication = (acr: string, ageSeconds: number, amr: string[] = acr === ACR_SCA ? ["pwd", "otp", "mfa"] : ["pwd"]) => ({
    acr,
    amr,
    authTime: new Date(NOW.getTime() - ageSeconds * 1000),
  });
  /** A user's payment token, signed in with a password 10 s before {@link NOW}. */
  const pispToken = (over: Partial<PresentedToken> = {}) =>
    token({ scopes: ["pisp"], apiProducts: ["PSD2-PISP-v1"], authentication: authentication(ACR_PASSWORD, 10), userId: "u1", ...over });
  const SCA_API: ApiRoute = { ...API, requiredAcr: ACR_SCA };
  const check = (t: PresentedToken, api: ApiRoute, dpop?: DpopChallenge) => () => checkAccess(t, api, GATEWAY, NOW, dpop);
  const denial = (t: PresentedToken, api: ApiRoute, dpop?: DpopChallenge) => denialOf(t, api, NOW, dpop);


  it("an API without requirements takes any user authentication, and none (client credentials)", () => {
    expect(check(pispToken(), API)).not.toThrow();
    expect(check(pispToken({ authentication: null, userId: null }), API)).not.toThrow();
  });

  it("refuses a password-only token where the API requires SCA: 401 with acr_values and no max_age", () => {
    const err = denial(pispToken(), SCA_API);
    expect(err.status).toBe(401);
    expect(err.error).toBe("insufficient_user_authentication");
    expect(err.message).toBe("the user's authentication is not strong enough; this API requires strong customer authentication");
    expect(err.headers["WWW-Authenticate"]).toBe(
      'Bearer realm="tollgate", error="insufficient_user_authentication", error_description="the user\'s authentication is not strong enough; this API requires strong customer authentication", acr_values="urn:tollgate:sca"',
    );
    expect(err.toJSON()).toEqual({ error: "insufficient_user_authentication", error_description: err.message });
  });

  it("accepts an SCA token where the API requires SCA, and where it requires only a password (a stronger level meets a weaker one)", () => {
    expect(check(pispToken({ authentication: authentication(ACR_SCA, 10) }), SCA_API)).not.toThrow();
    expect(check(pispToken({ authentication: authentication(ACR_SCA, 10) }), { ...API, requiredAcr: ACR_PASSWORD })).not.toThrow();
    expect(check(pispToken(), { ...API, requiredAcr: ACR_PASSWORD })).not.toThrow();
  });

  it("refuses a token with no user authentication (client credentials) where the API requires an acr", () => {
    const err = denial(pispToken({ authentication: null, userId: null }), { ...API, requiredAcr: ACR_PASSWORD });
    expect(err.status).toBe(401);
    expect(err.message).toBe("this access token carries no user authentication; this API requires a password sign-in");
    expect(err.headers["WWW-Authenticate"]).toMatch(/, acr_values="urn:tollgate:pwd"$/);
  });

  it("refuses an unknown acr on the token: it meets no level", () => {
    expect(denial(pispToken({ authentication: authentication("urn:other:gold", 10) }), { ...API, requiredAcr: ACR_PASSWORD }).error).toBe("insufficient_user_authentication");
  });

  it("max age: accepts an authentication exactly maxAgeSeconds old, refuses one a millisecond older with max_age and no acr_values", () => {
    const api = { ...API, maxAgeSeconds: 300 };
    expect(check(pispToken({ authentication: authentication(ACR_PASSWORD, 300) }), api)).not.toThrow();
    const err = denial(pispToken({ authentication: authentication(ACR_PASSWORD, 300.001) }), api);
    expect(err.status).toBe(401);
    expect(err.error).toBe("insufficient_user_authentication");
    expect(err.headers["WWW-Authenticate"]).toBe(
      'Bearer realm="tollgate", error="insufficient_user_authentication", error_description="the user\'s authentication is too old; this API requires a sign-in within the last 300 seconds", max_age="300"',
    );
  });

  it("max age: refuses a token with no user authentication, naming max_age", () => {
    const err = denial(pispToken({ authentication: null }), { ...API, maxAgeSeconds: 60 });
    expect(err.headers["WWW-Authenticate"]).toMatch(/error="insufficient_user_authentication", .*, max_age="60"$/);
    expect(err.headers["WWW-Authenticate"]).not.toContain("acr_values");
  });

  it("both: the challenge names acr_values and max_age, whichever of the two the token fails", () => {
    const api = { ...SCA_API, maxAgeSeconds: 60 };
    expect(check(pispToken({ authentication: authentication(ACR_SCA, 59) }), api)).not.toThrow();
    for (const t of [pispToken({ authentication: authentication(ACR_PASSWORD, 1) }), pispToken({ authentication: authentication(ACR_SCA, 61) })]) {
      const err = denial(t, api);
      expect(err.status).toBe(401);
      expect(err.headers["WWW-Authenticate"]).toMatch(/, acr_values="urn:tollgate:sca", max_age="60"$/);
      expect(err.message).toContain("this API requires strong customer authentication and a sign-in within the last 60 seconds");
    }
  });

  it("a DPoP-presented token gets the DPoP scheme with algs after the step-up parameters (RFC 9449 §7.1)", () => {
    const err = denial(pispToken({ jkt: "thumbprint" }), { ...SCA_API, maxAgeSeconds: 60 }, { algs: ["ES256", "PS256"] });
    expect(err.headers["WWW-Authenticate"]).toMatch(/^DPoP realm="tollgate", error="insufficient_user_authentication", error_description="[^"]+", acr_values="urn:tollgate:sca", max_age="60", algs="ES256 PS256"$/);
  });

  it("is checked after validity and scopes: an inactive token is invalid_token, a token without the scope insufficient_scope", () => {
    const api = { ...SCA_API, maxAgeSeconds: 1 };
    expect(denial(pispToken({ active: false }), api).error).toBe("invalid_token");
    expect(denial(pispToken({ scopes: [] }), api).error).toBe("insufficient_scope");
    expect(denial(pispToken({ apiProducts: [] }), api).status).toBe(403);
  });
});

describe("checkAccess on an account API (PSD2 Art. 67, RTS Arts. 10 and 36: account data only with the PSU)", () => {
  const ACCOUNTS: ApiRoute = {
    name: "accounts",
    upstream: { origin: "http://upstream.example", basePath: "" },
    requiredScopes: ["aisp"],
    productNames: ["PSD2-AISP-v1"],
    passCookies: false,
    requiredAcr: null,
    maxAgeSeconds: null,
    consentCheck: "accounts",
  };
  const ACCESS: AccountInformation = {
    type: "account_information",
    access: { accounts: [{ iban: "DE89370400440532013000" }], balances: true },
    validUntil: "2026-12-31",
    frequencyPerDay: 4,
    recurringIndicator: true,
  };
  const sca = { acr: ACR_SCA, amr: ["pwd", "otp", "mfa"], authTime: new Date(NOW.getTime() - 10_000) };
  /** A token carrying `details` of consent `consentId` (null: self-asserted at the client credentials grant). */
  const withDetails = (consentId: string | null, over: Partial<PresentedToken> = {}) =>
    token({ consent: { consentId, authorizationDetails: JSON.stringify([ACCESS]) }, authorizationDetails: [ACCESS], ...over });
  const check = (t: PresentedToken, api: ApiRoute = ACCOUNTS) => () => checkAccess(t, api, GATEWAY, NOW);

  it("refuses a client credentials token with the API's scope: 403 insufficient_scope, no PSU behind it", () => {
    const err = denialOf(token(), ACCOUNTS, NOW);
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.message).toBe("account data needs the PSU: a token of a consent the PSU approved, or of the PSU's strong customer authentication");
    expect(err.headers["WWW-Authenticate"]).toMatch(/^Bearer realm="tollgate", error="insufficient_scope", error_description="account data needs the PSU[^"]*", scope="aisp"$/);
  });

  it("refuses self-asserted details (client credentials, no consent) as much as no details: they never stand in for the PSU", () => {
    expect(denialOf(withDetails(null), ACCOUNTS, NOW).error).toBe("insufficient_scope");
    expect(denialOf(withDetails(null, { scopes: [] }), ACCOUNTS, NOW).error).toBe("insufficient_scope");
  });

  it("self-asserted details never replace a scope, on any consent-checked API", () => {
    expect(denialOf(withDetails(null, { scopes: [] }), ACCOUNTS, NOW).message).toBe("the API 'accounts' requires scope aisp");
    const payment = { type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "1.00" }, creditorName: "X", creditorAccount: { iban: "DE02120300000000202051" } } as const;
    const asserted = token({ scopes: [], consent: { consentId: null, authorizationDetails: JSON.stringify([payment]) }, authorizationDetails: [payment] });
    const payments: ApiRoute = { ...ACCOUNTS, name: "payments", requiredScopes: ["pisp"], consentCheck: "payments" };
    expect(denialOf(asserted, payments, NOW).message).toBe("the API 'payments' requires scope pisp");
  });

  it("lets through a token of a consent the PSU approved, without the scope (the consent's details grant less)", () => {
    expect(check(withDetails("consent-1", { scopes: [], userId: "u1", authentication: sca }))).not.toThrow();
  });

  it("lets through a PSU's token whose authentication met SCA", () => {
    expect(check(token({ userId: "u1", authentication: sca }))).not.toThrow();
  });

  it("refuses a PSU's password-only token: 401 insufficient_user_authentication asking for SCA (RFC 9470 §3)", () => {
    const err = denialOf(token({ userId: "u1", authentication: { acr: ACR_PASSWORD, amr: ["pwd"], authTime: NOW } }), ACCOUNTS, NOW);
    expect(err.status).toBe(401);
    expect(err.error).toBe("insufficient_user_authentication");
    expect(err.headers["WWW-Authenticate"]).toMatch(/, acr_values="urn:tollgate:sca"$/);
  });

  it("refuses a PSU's consent that grants payments only as account access: its token is held to SCA like any PSU token", () => {
    const payment = { type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "1.00" }, creditorName: "X", creditorAccount: { iban: "DE02120300000000202051" } } as const;
    const t = token({ userId: "u1", authentication: { acr: ACR_PASSWORD, amr: ["pwd"], authTime: NOW }, consent: { consentId: "c", authorizationDetails: JSON.stringify([payment]) }, authorizationDetails: [payment] });
    expect(denialOf(t, ACCOUNTS, NOW).error).toBe("insufficient_user_authentication");
  });

  it("leaves client credentials alone on an API without an account consent check", () => {
    expect(check(token(), { ...ACCOUNTS, consentCheck: "none" })).not.toThrow();
    expect(check(token({ scopes: ["pisp"] }), { ...ACCOUNTS, requiredScopes: ["pisp"], consentCheck: "payments" })).not.toThrow();
  });
});
