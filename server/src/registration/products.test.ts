import { describe, expect, it } from "vitest";
import { registrationGrant } from "./products.js";

describe("registrationGrant: the statement's roles, intersected with the certificate's", () => {
  it("takes the statement's roles when there are no certificate roles", () => {
    expect(registrationGrant(["PSP_PI", "PSP_AI"], undefined)).toEqual({ roles: ["PSP_PI", "PSP_AI"], products: ["PSD2-PISP-v1", "PSD2-AISP-v1"] });
  });

  it("keeps only the roles both grant", () => {
    expect(registrationGrant(["PSP_AI", "PSP_PI"], ["PSP_AI", "PSP_IC"])).toEqual({ roles: ["PSP_AI"], products: ["PSD2-AISP-v1"] });
    expect(registrationGrant(["PSP_AI"], ["PSP_AI", "PSP_PI", "PSP_IC"])).toEqual({ roles: ["PSP_AI"], products: ["PSD2-AISP-v1"] });
  });

  it("grants nothing when they share no role, or the certificate has none", () => {
    expect(registrationGrant(["PSP_AI"], ["PSP_PI"])).toEqual({ roles: [], products: [] });
    expect(registrationGrant(["PSP_AI"], [])).toEqual({ roles: [], products: [] });
  });

  it("gives PSP_AS no product, and follows a given mapping", () => {
    expect(registrationGrant(["PSP_AS"], undefined)).toEqual({ roles: ["PSP_AS"], products: [] });
    expect(registrationGrant(["PSP_AI", "PSP_IC"], ["PSP_IC", "PSP_AI"], { PSP_AI: ["accounts"], PSP_IC: ["funds"] })).toEqual({ roles: ["PSP_AI", "PSP_IC"], products: ["accounts", "funds"] });
  });
});
