import { describe, expect, it } from "vitest";
import { isAdminProduct, partitionAdminProducts, productLabel, productsNotOn } from "./api-products";

const aisp = { id: "p1", name: "PSD2-AISP-v1", displayName: "PSD2 Account Information", scopes: ["aisp", "extended_transaction_history"] };
const admin = { id: "p2", name: "Tollgate-Admin", displayName: "Tollgate admin API", scopes: ["admin"] };
const mixed = { id: "p3", name: "ops", displayName: "ops", scopes: ["aisp", "admin"] };
const none = { id: "p4", name: "empty", displayName: "", scopes: [] };

describe("isAdminProduct", () => {
  it("is true for a product granting the admin scope, whatever its name or other scopes", () => {
    expect(isAdminProduct(admin)).toBe(true);
    expect(isAdminProduct(mixed)).toBe(true);
  });

  it("is false for other products, including one merely named like it", () => {
    expect(isAdminProduct(aisp)).toBe(false);
    expect(isAdminProduct(none)).toBe(false);
    expect(isAdminProduct({ scopes: ["administration", "Admin"] })).toBe(false);
  });
});

describe("productLabel", () => {
  it("gives the display name with the name, or the name alone when the display name adds nothing", () => {
    expect(productLabel(aisp)).toBe("PSD2 Account Information (PSD2-AISP-v1)");
    expect(productLabel(mixed)).toBe("ops");
    expect(productLabel(none)).toBe("empty");
  });
});

describe("partitionAdminProducts", () => {
  it("keeps the admin API products apart, each part in the given order", () => {
    expect(partitionAdminProducts([admin, aisp, mixed, none])).toEqual({ regular: [aisp, none], admin: [admin, mixed] });
    expect(partitionAdminProducts([])).toEqual({ regular: [], admin: [] });
  });
});

describe("productsNotOn", () => {
  it("leaves out the products the credential has, approved, pending or revoked", () => {
    const credential = { products: [{ product: { id: "p1" } }, { product: { id: "p3" } }] };
    expect(productsNotOn([aisp, admin, mixed, none], credential)).toEqual([admin, none]);
    expect(productsNotOn([aisp], credential)).toEqual([]);
  });
});
