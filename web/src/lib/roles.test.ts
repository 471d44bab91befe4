import { describe, expect, it } from "vitest";
import { can, isStaff } from "./roles";

describe("can", () => {
  it("lets an admin call every mutation", () => {
    for (const m of ["createApp", "setUserRole", "rotateSigningKey", "revokeToken"]) expect(can("admin", m)).toBe(true);
  });

  it("lets support revoke and reset factors only", () => {
    for (const m of ["revokeToken", "revokeTokens", "revokeConsent", "revokePsd2Consent", "resetUserFactors"]) expect(can("support", m)).toBe(true);
    for (const m of ["createApp", "setUserRole", "createUser", "rotateSigningKey", "deleteOrganization"]) expect(can("support", m)).toBe(false);
  });

  it("lets an auditor and a user call none", () => {
    for (const m of ["revokeToken", "resetUserFactors", "createApp"]) {
      expect(can("auditor", m)).toBe(false);
      expect(can("user", m)).toBe(false);
    }
  });
});

describe("isStaff", () => {
  it("admits admin, support and auditor to the console", () => {
    expect(["admin", "support", "auditor"].every((r) => isStaff(r as never))).toBe(true);
    expect(isStaff("user")).toBe(false);
  });
});
