/** decisions.md "Scopes and API products"; RFC 6749 §6 (refresh: no scope beyond the original grant). */
import { describe, expect, it } from "vitest";
import { InvalidGrant, InvalidScope } from "../kernel/errors.js";
import { productScopes, productsForScopes, userTokenScopes, type ApprovedProduct } from "./products.js";

const AISP: ApprovedProduct = { name: "PSD2-AISP-v1", scopes: ["aisp", "extended_transaction_history"] };
const PISP: ApprovedProduct = { name: "PSD2-PISP-v1", scopes: ["pisp", "piisp"] };
const FUNDS: ApprovedProduct = { name: "PSD2-FUNDS-v1", scopes: ["piisp"] };
const OPEN: ApprovedProduct = { name: "Open-Data-v1", scopes: [] };

describe("productScopes (client credentials: every scope of the approved products)", () => {
  it("lists each scope once, in product order", () => {
    expect(productScopes([AISP, PISP, FUNDS])).toEqual(["aisp", "extended_transaction_history", "pisp", "piisp"]);
  });

  it("is empty without products or scopes", () => {
    expect(productScopes([])).toEqual([]);
    expect(productScopes([OPEN])).toEqual([]);
  });
});

describe("productsForScopes (decisions.md: products covering a granted scope, or all when none has scopes)", () => {
  it("keeps the products that cover at least one granted scope", () => {
    expect(productsForScopes([AISP, PISP, FUNDS], ["piisp"])).toEqual(["PSD2-PISP-v1", "PSD2-FUNDS-v1"]);
    expect(productsForScopes([AISP, PISP], ["extended_transaction_history"])).toEqual(["PSD2-AISP-v1"]);
  });

  it("leaves out a product without scopes when another product has scopes", () => {
    expect(productsForScopes([AISP, OPEN], ["aisp"])).toEqual(["PSD2-AISP-v1"]);
  });

  it("keeps every product when none has scopes", () => {
    expect(productsForScopes([OPEN, { name: "B", scopes: [] }], [])).toEqual(["Open-Data-v1", "B"]);
  });

  it("is empty when no granted scope is covered", () => {
    expect(productsForScopes([AISP, PISP], ["other"])).toEqual([]);
  });
});

describe("userTokenScopes (authorization code exchange and refresh; RFC 6749 §6)", () => {
  it("without scope: every granted scope still offered by an approved product", () => {
    expect(userTokenScopes(undefined, ["aisp", "pisp"], [AISP, PISP])).toEqual(["aisp", "pisp"]);
  });

  it("drops a granted scope whose product was revoked on the credential", () => {
    expect(userTokenScopes(undefined, ["aisp", "pisp"], [AISP])).toEqual(["aisp"]);
  });

  it("with scope: narrows to the requested scopes", () => {
    expect(userTokenScopes("pisp", ["aisp", "pisp"], [AISP, PISP])).toEqual(["pisp"]);
  });

  it("§6: refuses a scope not originally granted, even if a product offers it", () => {
    expect(() => userTokenScopes("aisp extended_transaction_history", ["aisp"], [AISP])).toThrow(InvalidScope);
  });

  it("refuses a granted scope that is no longer offered", () => {
    expect(() => userTokenScopes("pisp", ["aisp", "pisp"], [AISP])).toThrow(InvalidScope);
  });

  it("refuses a malformed scope parameter (RFC 6749 §3.3)", () => {
    expect(() => userTokenScopes('ai"sp', ["aisp"], [AISP])).toThrow(InvalidScope);
  });

  it("answers invalid_grant when no scope of the grant is offered any more", () => {
    expect(() => userTokenScopes(undefined, ["pisp"], [AISP])).toThrow(InvalidGrant);
    expect(() => userTokenScopes("aisp", ["aisp"], [])).toThrow(InvalidGrant);
  });
});
