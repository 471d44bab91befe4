import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keyEncryption, loadKeyEncryption, parseKekFile, SealedValueRefused } from "./key-encryption.js";

const kek = () => randomBytes(32);
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "kek-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("key encryption (AES-256-GCM under the key-encryption key)", () => {
  it("opens what it sealed, with the same context, and the sealed text holds nothing of the plaintext", () => {
    const encryption = keyEncryption([kek()]);
    const plaintext = Buffer.from("JBSWY3DPEHPK3PXP");
    const sealed = encryption.seal(plaintext, "totp:user-1");
    expect(sealed).toMatch(/^kek1\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(sealed).not.toContain(plaintext.toString("base64url"));
    expect(encryption.open(sealed, "totp:user-1")).toEqual(plaintext);
    expect(encryption.isSealed(sealed)).toBe(true);
    expect(encryption.isSealed("JBSWY3DPEHPK3PXP")).toBe(false);
  });

  it("seals the same value differently each time (a random IV per value)", () => {
    const encryption = keyEncryption([kek()]);
    expect(encryption.seal(Buffer.from("same"), "c")).not.toBe(encryption.seal(Buffer.from("same"), "c"));
  });

  it("refuses a value sealed for another context, an altered one, another KEK's and a value in clear", () => {
    const encryption = keyEncryption([kek()]);
    const sealed = encryption.seal(Buffer.from("secret"), "totp:user-1");
    expect(() => encryption.open(sealed, "totp:user-2")).toThrow(SealedValueRefused);
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3]!, "base64url");
    flipped[0]! ^= 1;
    expect(() => encryption.open([...parts.slice(0, 3), flipped.toString("base64url"), parts[4]].join("."), "totp:user-1")).toThrow(SealedValueRefused);
    expect(() => keyEncryption([kek()]).open(sealed, "totp:user-1")).toThrow(/no key of the key-encryption key file has id/);
    expect(() => encryption.open("JBSWY3DPEHPK3PXP", "totp:user-1")).toThrow(/not in the kek1 format/);
  });

  it("rotation: the first key seals, every key opens, and only the first key's values are current", () => {
    const [oldKey, newKey] = [kek(), kek()];
    const before = keyEncryption([oldKey]);
    const sealedBefore = before.seal(Buffer.from("v"), "c");
    const during = keyEncryption([newKey, oldKey]);
    expect(during.open(sealedBefore, "c").toString()).toBe("v");
    expect(during.isCurrent(sealedBefore)).toBe(false);
    const resealed = during.seal(during.open(sealedBefore, "c"), "c");
    expect(during.isCurrent(resealed)).toBe(true);
    expect(keyEncryption([newKey]).open(resealed, "c").toString()).toBe("v");
  });

  it("reads a KEK file of base64 lines with comments, and names the line of a bad key", () => {
    const [a, b] = [kek(), kek()];
    expect(parseKekFile(`# current\n${a.toString("base64")}\n\n# previous\n${b.toString("base64")}\n`, "f")).toEqual([a, b]);
    expect(() => parseKekFile(`${a.toString("base64")}\n${randomBytes(16).toString("base64")}\n`, "kek.txt")).toThrow(/kek\.txt line 2: a key-encryption key is 32 random bytes in base64/);
    expect(() => parseKekFile("not base64 at all!\n", "kek.txt")).toThrow(/line 1/);
    expect(() => parseKekFile("# nothing\n", "kek.txt")).toThrow(/holds no key-encryption key/);
  });

  it("creates a missing KEK file readable by its owner only, with a warning, and reads it again unchanged", () => {
    const file = path.join(tempDir(), "data", "tollgate.db.kek");
    const created = loadKeyEncryption(file, true);
    expect(created.warning).toMatch(/created the key-encryption key file .*tollgate\.db\.kek: set KEY_ENCRYPTION_KEY_FILE/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = created.encryption.seal(Buffer.from("kept"), "c");
    const text = readFileSync(file, "utf8");
    const again = loadKeyEncryption(file, true);
    expect(again.warning).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(again.encryption.open(sealed, "c").toString()).toBe("kept");
  });

  it("warns about a KEK file others can read, and refuses a missing one it may not create", () => {
    const dir = tempDir();
    const file = path.join(dir, "kek");
    writeFileSync(file, `${kek().toString("base64")}\n`, { mode: 0o644 });
    expect(loadKeyEncryption(file, false).warning).toMatch(/readable by others than its owner: chmod 600 it/);
    expect(() => loadKeyEncryption(path.join(dir, "missing"), false)).toThrow(/ENOENT/);
  });
});
