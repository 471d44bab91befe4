import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import type { FactorStore } from "../stores/factors.js";
import { confirmTotp, newTotpEnrolment, registrationOptions, relyingParty, totpUri } from "./factors.js";

const SECRET = "TOLLGATEDEMOALICEPUBLICKEYABCDEF";
const T = new Date("2026-11-24T12:00:10Z");
const at = (date: Date, steps: number) => generate({ secret: SECRET, epoch: Math.floor(date.getTime() / 1000) + steps * 30 });

describe("factors", () => {
  it("the relying party is AUTH_URL's host name and origin, named as the bank", () => {
    expect(relyingParty("https://login.bank.example:8443/base", "Example Bank")).toEqual({ id: "login.bank.example", origin: "https://login.bank.example:8443", name: "Example Bank" });
  });

  it("a TOTP code is accepted one 30-s step either side of now, not two, and names its step", async () => {
    const step = Math.floor(T.getTime() / 1000 / 30);
    expect(await confirmTotp(SECRET, await at(T, 0), T)).toBe(step);
    expect(await confirmTotp(SECRET, await at(T, -1), T)).toBe(step - 1);
    expect(await confirmTotp(SECRET, await at(T, 1), T)).toBe(step + 1);
    expect(await confirmTotp(SECRET, await at(T, -2), T)).toBeUndefined();
    expect(await confirmTotp(SECRET, await at(T, 2), T)).toBeUndefined();
    expect(await confirmTotp(SECRET, "12345", T)).toBeUndefined();
    expect(await confirmTotp(SECRET, "abcdef", T)).toBeUndefined();
  });

  it("an enrolment has a fresh 160-bit key, its otpauth URI and the URI as an SVG QR code", async () => {
    const a = await newTotpEnrolment("alice", "Tollgate");
    const b = await newTotpEnrolment("alice", "Tollgate");
    expect(a.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(a.otpauthUri).toBe(totpUri("alice", a.secret, "Tollgate"));
    expect(a.otpauthUri).toBe(`otpauth://totp/Tollgate:alice?secret=${a.secret}&issuer=Tollgate`);
    expect(totpUri("alice", a.secret, "Example Bank")).toBe(`otpauth://totp/Example%20Bank:alice?secret=${a.secret}&issuer=Example%20Bank`);
    expect(Buffer.from(a.qrCode.replace("data:image/svg+xml;base64,", ""), "base64").toString()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  });

  it("a passkey is registered with ES256, EdDSA or RS256 on every runtime, never the library's runtime-dependent default", async () => {
    const noPasskeys = { webAuthnCredentials: async () => [] } as unknown as FactorStore;
    const options = await registrationOptions(noPasskeys, relyingParty("https://login.bank.example", "Example Bank"), { id: "user-1", username: "alice" });
    // COSE ids (RFC 9053): ES256 -7, EdDSA -8, RS256 -257; not ML-DSA-44 (-48), which Node 24's WebCrypto offers.
    expect(options.pubKeyCredParams).toEqual([-7, -8, -257].map((alg) => ({ alg, type: "public-key" })));
  });
});
