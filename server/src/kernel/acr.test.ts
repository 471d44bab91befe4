import { describe, expect, it } from "vitest";
import { ACR_PASSWORD, ACR_SCA, satisfiesAcr } from "./acr.js";

describe("satisfiesAcr", () => {
  it("a level meets itself and weaker ones, never a stronger or an unknown one", () => {
    expect(satisfiesAcr(ACR_SCA, ACR_SCA)).toBe(true);
    expect(satisfiesAcr(ACR_SCA, ACR_PASSWORD)).toBe(true);
    expect(satisfiesAcr(ACR_PASSWORD, ACR_PASSWORD)).toBe(true);
    expect(satisfiesAcr(ACR_PASSWORD, ACR_SCA)).toBe(false);
    expect(satisfiesAcr(null, ACR_PASSWORD)).toBe(false);
    expect(satisfiesAcr("urn:example:gold", ACR_PASSWORD)).toBe(false);
    expect(satisfiesAcr(ACR_SCA, "urn:example:gold")).toBe(false);
  });
});
