import { describe, expect, it } from "vitest";
import { allowedProducts, DEFAULT_ROLE_PRODUCTS, parseRoleProductMapping, productsBeyondRoles, PSD2_ROLE_OIDS, PSD2_ROLES, roleOfOid } from "./roles.js";

describe("PSD2 roles (ETSI TS 119 495 §5.1)", () => {
  it("have the OIDs of id-psd2-role", () => {
    expect(PSD2_ROLE_OIDS).toEqual({ PSP_AS: "0.4.0.19495.1.1", PSP_PI: "0.4.0.19495.1.2", PSP_AI: "0.4.0.19495.1.3", PSP_IC: "0.4.0.19495.1.4" });
    for (const role of PSD2_ROLES) expect(roleOfOid(PSD2_ROLE_OIDS[role])).toBe(role);
    expect(roleOfOid("0.4.0.19495.1.5")).toBeUndefined();
    expect(roleOfOid("0.4.0.19495.2")).toBeUndefined();
  });
});

describe("allowedProducts (default mapping: the demo's PSD2 products)", () => {
  it.each([
    [["PSP_AI"], ["PSD2-AISP-v1"]],
    [["PSP_PI"], ["PSD2-PISP-v1"]],
    [["PSP_IC"], ["PSD2-PIISP-v1"]],
    [["PSP_AS"], []],
    [[], []],
    [["PSP_AI", "PSP_PI"], ["PSD2-PISP-v1", "PSD2-AISP-v1"]],
    [["PSP_IC", "PSP_AI", "PSP_PI", "PSP_AS"], ["PSD2-PISP-v1", "PSD2-AISP-v1", "PSD2-PIISP-v1"]],
  ] as const)("%j → %j", (roles, products) => {
    expect(allowedProducts(roles)).toEqual(products);
  });

  it("uses a given mapping, each product once", () => {
    const mapping = { PSP_AI: ["accounts", "shared"], PSP_PI: ["payments", "shared"] };
    expect(allowedProducts(["PSP_AI", "PSP_PI"], mapping)).toEqual(["payments", "shared", "accounts"]);
    expect(allowedProducts(["PSP_IC"], mapping)).toEqual([]);
  });
});

describe("productsBeyondRoles", () => {
  it("lists the requested products the roles do not allow, in the order requested", () => {
    expect(productsBeyondRoles(["PSD2-AISP-v1"], ["PSP_AI"])).toEqual([]);
    expect(productsBeyondRoles(["PSD2-PISP-v1", "PSD2-AISP-v1", "Other"], ["PSP_AI"])).toEqual(["PSD2-PISP-v1", "Other"]);
    expect(productsBeyondRoles(["PSD2-AISP-v1"], [])).toEqual(["PSD2-AISP-v1"]);
    expect(productsBeyondRoles([], [])).toEqual([]);
  });
});

describe("parseRoleProductMapping", () => {
  it("reads a mapping from configuration, each product once per role", () => {
    expect(parseRoleProductMapping({ PSP_AI: ["A", "A", "B"], PSP_AS: [] })).toEqual({ PSP_AI: ["A", "B"], PSP_AS: [] });
    expect(parseRoleProductMapping(JSON.parse(JSON.stringify(DEFAULT_ROLE_PRODUCTS)))).toEqual(DEFAULT_ROLE_PRODUCTS);
  });

  it.each([
    ["not an object", "PSP_AI"],
    ["null", null],
    ["an array", [["PSP_AI", ["A"]]]],
    ["an unknown role", { PSP_XX: ["A"] }],
    ["a role in lower case", { psp_ai: ["A"] }],
    ["products not in an array", { PSP_AI: "A" }],
    ["an empty product name", { PSP_AI: [""] }],
    ["a product name that is not a string", { PSP_AI: [1] }],
  ])("refuses %s", (_what, input) => {
    expect(() => parseRoleProductMapping(input)).toThrow(TypeError);
  });
});
