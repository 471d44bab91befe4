import { describe, expect, it } from "vitest";
import { ACR_PASSWORD, ACR_SCA } from "../kernel/acr.js";
import { reauthenticationDue } from "./reauthentication.js";

const NOW = new Date("2026-11-24T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const products = [
  { name: "AIS", scopes: ["aisp"], requiresSca: true },
  { name: "Open", scopes: ["profile"], requiresSca: false },
];
const sca = (days: number) => ({ acr: ACR_SCA, amr: ["pwd", "otp", "mfa"], authTime: daysAgo(days) });

describe("reauthenticationDue (RTS Art. 10a)", () => {
  it("a grant needing SCA is due more than `days` days after its SCA, not before", () => {
    expect(reauthenticationDue(["aisp"], sca(179), products, 180, NOW)).toBe(false);
    expect(reauthenticationDue(["aisp"], sca(180), products, 180, NOW)).toBe(false);
    expect(reauthenticationDue(["aisp"], sca(180.001), products, 180, NOW)).toBe(true);
  });

  it("without an SCA on record it is due at once; a grant that needs none never is; 0 days turns the rule off", () => {
    expect(reauthenticationDue(["aisp"], null, products, 180, NOW)).toBe(true);
    expect(reauthenticationDue(["aisp"], { ...sca(1), acr: ACR_PASSWORD }, products, 180, NOW)).toBe(true);
    expect(reauthenticationDue(["profile"], null, products, 180, NOW)).toBe(false);
    expect(reauthenticationDue(["aisp"], sca(400), products, 0, NOW)).toBe(false);
  });
});
