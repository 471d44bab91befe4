import { describe, expect, it } from "vitest";
import type { IdentityProvider } from "../api/admin";
import { clientAuthName, identityProviderDraft, identityProviderInput, OWN_SIGN_IN, signInName, signInOptions, usedBy } from "./identity-providers";

const provider: IdentityProvider = {
  id: "idp1",
  name: "Hausbank",
  issuer: "https://idp.bank.example/realms/retail",
  clientId: "tollgate",
  clientAuthMethod: "client_secret_basic",
  scopes: ["openid", "profile"],
  customerNumberClaim: "kundennummer",
  scaAcrValues: ["urn:bank:sca", "level4"],
  hasClientSecret: true,
  redirectUri: "https://auth.bank.example/federation/callback",
  jwksUri: "https://auth.bank.example/oauth2/v1/jwks",
  apps: [{ id: "a1", name: "Budget" }],
  apiProducts: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("identityProviderDraft", () => {
  it("starts a new provider with private_key_jwt and the openid scope, everything else blank", () => {
    expect(identityProviderDraft()).toEqual({
      name: "",
      issuer: "",
      clientId: "",
      clientAuthMethod: "private_key_jwt",
      clientSecret: "",
      scopes: "openid",
      customerNumberClaim: "",
      scaAcrValues: "",
    });
  });

  it("fills the form from a provider, its lists space-separated, never with a secret", () => {
    expect(identityProviderDraft(provider)).toEqual({
      name: "Hausbank",
      issuer: "https://idp.bank.example/realms/retail",
      clientId: "tollgate",
      clientAuthMethod: "client_secret_basic",
      clientSecret: "",
      scopes: "openid profile",
      customerNumberClaim: "kundennummer",
      scaAcrValues: "urn:bank:sca level4",
    });
    expect(identityProviderDraft({ ...provider, customerNumberClaim: null }).customerNumberClaim).toBe("");
  });
});

describe("identityProviderInput", () => {
  const draft = identityProviderDraft(provider);

  it("gives every setting, texts trimmed, lists split on spaces and commas, each once", () => {
    expect(
      identityProviderInput({ ...draft, name: "  Hausbank ", issuer: " https://idp.bank.example ", clientId: " tollgate ", scopes: "openid, profile  accounts,profile", scaAcrValues: " a,b  a " }),
    ).toEqual({
      name: "Hausbank",
      issuer: "https://idp.bank.example",
      clientId: "tollgate",
      clientAuthMethod: "client_secret_basic",
      scopes: ["openid", "profile", "accounts"],
      customerNumberClaim: "kundennummer",
      scaAcrValues: ["a", "b"],
    });
  });

  it("sends a client secret as typed, only when one is typed for client_secret_basic", () => {
    expect(identityProviderInput({ ...draft, clientSecret: " s3cret with spaces " }).clientSecret).toBe(" s3cret with spaces ");
    expect(identityProviderInput({ ...draft, clientSecret: "   " })).not.toHaveProperty("clientSecret");
    expect(identityProviderInput({ ...draft, clientSecret: "" })).not.toHaveProperty("clientSecret");
    expect(identityProviderInput({ ...draft, clientAuthMethod: "private_key_jwt", clientSecret: "left-over" })).not.toHaveProperty("clientSecret");
  });

  it("makes a blank customer number claim null (sub) and blank lists empty", () => {
    expect(identityProviderInput({ ...draft, customerNumberClaim: "  ", scopes: " ", scaAcrValues: "" })).toMatchObject({ customerNumberClaim: null, scopes: [], scaAcrValues: [] });
  });
});

describe("usedBy", () => {
  it("counts the apps and API products, or says it is not used", () => {
    expect(usedBy(provider)).toBe("1 app");
    expect(usedBy({ apps: [], apiProducts: [] })).toBe("Not used");
    expect(usedBy({ apps: [{ id: "a", name: "A" }, { id: "b", name: "B" }], apiProducts: [{ id: "p", name: "P" }] })).toBe("2 apps, 1 API product");
    expect(usedBy({ apps: [], apiProducts: [{ id: "p", name: "P" }, { id: "q", name: "Q" }] })).toBe("2 API products");
  });
});

describe("sign-in choices", () => {
  it("offers Tollgate's own sign-in (the empty value) first, then each provider by name", () => {
    expect(signInOptions([{ id: "idp1", name: "Hausbank" }, { id: "idp2", name: "Partnerbank" }])).toEqual([
      { value: "", label: OWN_SIGN_IN },
      { value: "idp1", label: "Hausbank" },
      { value: "idp2", label: "Partnerbank" },
    ]);
    expect(signInOptions([])).toEqual([{ value: "", label: "Tollgate's own sign-in" }]);
  });

  it("names where PSUs sign in", () => {
    expect(signInName({ id: "idp1", name: "Hausbank" })).toBe("Hausbank");
    expect(signInName(null)).toBe("Tollgate's own sign-in");
  });

  it("words the client authentication methods", () => {
    expect(clientAuthName("private_key_jwt")).toBe("private_key_jwt (Tollgate's signing keys)");
    expect(clientAuthName("client_secret_basic")).toBe("client_secret_basic (a client secret)");
  });
});
