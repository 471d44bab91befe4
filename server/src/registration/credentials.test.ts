import { describe, expect, it } from "vitest";
import { hashSecret } from "../kernel/secrets.js";
import { issuedSecretMatches, newClientId, newClientSecret, newRegistrationAccessToken } from "./credentials.js";

describe("issued credentials", () => {
  it("client ids are 32 base64url characters, all different", () => {
    const ids = Array.from({ length: 200 }, newClientId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("registration access tokens and client secrets are 256-bit secrets stored as their SHA-256", () => {
    for (const issue of [newRegistrationAccessToken, newClientSecret]) {
      const secrets = Array.from({ length: 200 }, issue);
      for (const { value, hash } of secrets) {
        expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(hash).toBe(hashSecret(value));
        expect(hash).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(new Set(secrets.map((s) => s.value)).size).toBe(secrets.length);
    }
  });
});

describe("issuedSecretMatches", () => {
  const { value, hash } = newRegistrationAccessToken();

  it("matches the issued secret against its stored hash", () => {
    expect(issuedSecretMatches(value, hash)).toBe(true);
  });

  it("refuses another secret, the hash itself, and a secret differing in one character", () => {
    expect(issuedSecretMatches(newRegistrationAccessToken().value, hash)).toBe(false);
    expect(issuedSecretMatches(hash, hash)).toBe(false);
    expect(issuedSecretMatches(`${value.slice(0, -1)}${value.endsWith("A") ? "B" : "A"}`, hash)).toBe(false);
    expect(issuedSecretMatches(value.toUpperCase() === value ? value.toLowerCase() : value.toUpperCase(), hash)).toBe(false);
  });

  it("refuses when nothing is stored (an unknown client), nothing is presented, or too much is", () => {
    expect(issuedSecretMatches(value, undefined)).toBe(false);
    expect(issuedSecretMatches("0", undefined)).toBe(false);
    expect(issuedSecretMatches(undefined, hash)).toBe(false);
    expect(issuedSecretMatches("", hash)).toBe(false);
    expect(issuedSecretMatches("a".repeat(513), hashSecret("a".repeat(513)))).toBe(false);
  });

  it("refuses a stored value that is not a SHA-256 hex digest", () => {
    expect(issuedSecretMatches(value, value)).toBe(false);
    expect(issuedSecretMatches(value, hash.toUpperCase())).toBe(false);
    expect(issuedSecretMatches(value, "")).toBe(false);
  });
});
