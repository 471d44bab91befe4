import { describe, expect, it } from "vitest";
import { isPkceValue, s256Challenge, verifyS256 } from "./pkce.js";

/** RFC 7636 Appendix B. */
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

describe("s256Challenge (RFC 7636 §4.2, Appendix B)", () => {
  it("gives the Appendix B challenge for the Appendix B verifier", () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });

  it("is base64url without padding (Appendix A): 43 characters", () => {
    expect(s256Challenge("a".repeat(128))).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("isPkceValue (RFC 7636 §4.1 code_verifier = 43*128unreserved)", () => {
  it.each([
    ["43 characters", "a".repeat(43)],
    ["128 characters", "a".repeat(128)],
    ["every unreserved character", "ABCXYZabcxyz0123456789-._~".repeat(2)],
    ["the Appendix B verifier", VERIFIER],
  ])("accepts %s", (_what, value) => {
    expect(isPkceValue(value)).toBe(true);
  });

  it.each([
    ["42 characters", "a".repeat(42)],
    ["129 characters", "a".repeat(129)],
    ["empty", ""],
    ["+ (base64, not base64url)", "+".repeat(43)],
    ["/", "a".repeat(42) + "/"],
    ["= padding", CHALLENGE + "="],
    ["a space", "a".repeat(21) + " " + "a".repeat(21)],
    ["a non-ASCII letter", "\u00e9".repeat(43)],
    ["a trailing newline", "a".repeat(43) + "\n"],
  ])("refuses %s", (_what, value) => {
    expect(isPkceValue(value)).toBe(false);
  });
});

describe("verifyS256 (RFC 7636 §4.6)", () => {
  it("accepts the Appendix B verifier for its challenge", () => {
    expect(verifyS256(VERIFIER, CHALLENGE)).toBe(true);
  });

  it.each([
    ["another verifier", VERIFIER.replace(/k$/, "j"), CHALLENGE],
    ["the challenge itself as verifier (plain)", CHALLENGE, CHALLENGE],
    ["the challenge with padding", VERIFIER, CHALLENGE + "="],
    ["the challenge in another case", VERIFIER, CHALLENGE.toLowerCase()],
    ["an empty challenge", VERIFIER, ""],
    ["a verifier too short for §4.1, even with its own S256 challenge", "a".repeat(42), s256Challenge("a".repeat(42))],
    ["a verifier with characters outside §4.1, even with its own S256 challenge", "+".repeat(43), s256Challenge("+".repeat(43))],
  ])("refuses %s", (_what, verifier, challenge) => {
    expect(verifyS256(verifier, challenge)).toBe(false);
  });
});
