import { describe, expect, it } from "vitest";
import { ncaText, organizationText, roleText, statementExpired } from "./registration";

describe("a registered TPP in words", () => {
  it("names each PSD2 role by what it lets the TPP do, with its ETSI name", () => {
    expect(["PSP_AI", "PSP_PI", "PSP_IC", "PSP_AS"].map(roleText)).toEqual([
      "Account information (PSP_AI)",
      "Payment initiation (PSP_PI)",
      "Funds confirmation (PSP_IC)",
      "Account servicing (PSP_AS)",
    ]);
  });

  it("shows a role it does not know as it is", () => {
    expect(roleText("PSP_XY")).toBe("PSP_XY");
  });

  it("names the national competent authority and the directory's organization by what is known", () => {
    expect(ncaText("Federal Financial Supervisory Authority", "DE-BAFIN")).toBe("Federal Financial Supervisory Authority (DE-BAFIN)");
    expect(ncaText(null, "DE-BAFIN")).toBe("DE-BAFIN");
    expect(ncaText("BaFin", null)).toBe("BaFin");
    expect(ncaText(null, null)).toBeNull();
    expect(organizationText("Acme Fintech Ltd", "acme-fintech-demo")).toBe("Acme Fintech Ltd (id acme-fintech-demo)");
    expect(organizationText(null, "acme-fintech-demo")).toBe("id acme-fintech-demo");
    expect(organizationText("Acme Fintech Ltd", null)).toBe("Acme Fintech Ltd");
    expect(organizationText(null, null)).toBeNull();
  });

  it("tells an expired software statement, and one without exp never expires", () => {
    const now = new Date("2026-05-01T12:00:00Z");
    expect(statementExpired("2026-05-01T11:59:59Z", now)).toBe(true);
    expect(statementExpired("2026-05-01T12:00:00Z", now)).toBe(true);
    expect(statementExpired("2026-05-01T12:00:01Z", now)).toBe(false);
    expect(statementExpired(null, now)).toBe(false);
  });
});
