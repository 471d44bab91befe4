/**
 * Envelope encryption of secrets kept at rest: the private halves of the envelope backend's
 * signing keys (keys/envelope.ts) and users' TOTP keys. Each value is sealed with AES-256-GCM
 * (NIST SP 800-38D: a random 96-bit IV per value, a 128-bit tag) under a key-encryption
 * key (KEK) the operator provides in a file, never in the database. The value's purpose and
 * owner are its additional authenticated data, so a sealed value moved to another row does
 * not open.
 *
 * The KEK file holds one or more keys, one per line: 32 random bytes in base64
 * (`openssl rand -base64 32`); blank lines and lines starting with `#` are ignored. The first
 * key seals; every key listed opens. To rotate the KEK (docs/operations.md "Key-encryption
 * key"): add the new key as the second line on every instance, then make it the first (each
 * instance re-seals at its start what another key sealed: {@link KeyEncryption.isCurrent}),
 * then remove the old line.
 */
import { createCipheriv, createDecipheriv, hash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Bytes of a KEK (AES-256). */
const KEK_BYTES = 32;
/** Bytes of a GCM IV (NIST SP 800-38D §8.2.2: 96 bits, random). */
const IV_BYTES = 12;
/** Bytes of a GCM tag. */
const TAG_BYTES = 16;
/** What a sealed value starts with: the format's version. */
const PREFIX = "kek1";

/** A sealed value: `kek1.<KEK id>.<IV>.<ciphertext>.<tag>`, each part base64url. */
const SEALED = /^kek1\.([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

/** A sealed value that does not open: another KEK sealed it, another row's context, or it was altered. */
export class SealedValueRefused extends Error {
  constructor(reason: string) {
    super(`a sealed value does not open: ${reason}`);
  }
}

/** Seals and opens values under the operator's KEK. */
export interface KeyEncryption {
  /**
   * `plaintext` sealed under the first KEK.
   * @param context - the value's purpose and owner (`totp:<user id>`, `signing-key:<kid>`): it must be given again to open it.
   * @returns `kek1.<KEK id>.<IV>.<ciphertext>.<tag>` (base64url parts), about 4/3 of the plaintext plus 60 characters.
   */
  seal(plaintext: Buffer, context: string): string;
  /**
   * The plaintext of a value {@link seal} made with the same `context`, under any KEK of the file.
   * @throws SealedValueRefused when it is not a sealed value, no KEK of the file sealed it, or it does not authenticate.
   */
  open(sealed: string, context: string): Buffer;
  /** True when `value` has the sealed format (it may still not open). */
  isSealed(value: string): boolean;
  /** True when `sealed` was sealed under the first KEK: false means it should be sealed again. */
  isCurrent(sealed: string): boolean;
  /** What every value sealed under the first KEK starts with (`kek1.<KEK id>.`): to find, in SQL, the values that are not. */
  readonly currentPrefix: string;
}

/** A KEK's id: the first 8 bytes of SHA-256 over a label and the key, base64url (11 characters); it names the key, never reveals it. */
function kekId(key: Buffer): string {
  return hash("sha256", Buffer.concat([Buffer.from("tollgate kek id\0"), key]), "buffer").subarray(0, 8).toString("base64url");
}

/**
 * The keys of a KEK file's text, first the one that seals.
 * @throws Error naming the line that is not 32 bytes in base64, or when there is none.
 */
export function parseKekFile(text: string, file: string): Buffer[] {
  const keys: Buffer[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const value = line.trim();
    if (value === "" || value.startsWith("#")) return;
    const key = Buffer.from(value, "base64");
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) || key.length !== KEK_BYTES) {
      throw new Error(`${file} line ${index + 1}: a key-encryption key is ${KEK_BYTES} random bytes in base64 (openssl rand -base64 32)`);
    }
    keys.push(key);
  });
  if (keys.length === 0) throw new Error(`${file} holds no key-encryption key: write one with openssl rand -base64 32`);
  return keys;
}

/**
 * Envelope encryption under `keys`, the first of which seals.
 * @param keys - KEKs of {@link KEK_BYTES} bytes each, as {@link parseKekFile} reads them.
 */
export function keyEncryption(keys: Buffer[]): KeyEncryption {
  const byId = new Map(keys.map((key) => [kekId(key), key]));
  const sealing = keys[0]!;
  const sealingId = kekId(sealing);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", sealing, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return [PREFIX, sealingId, iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
    },
    open(sealed, context) {
      const parts = SEALED.exec(sealed);
      if (!parts) throw new SealedValueRefused("it is not in the kek1 format");
      const key = byId.get(parts[1]!);
      if (!key) throw new SealedValueRefused(`no key of the key-encryption key file has id ${parts[1]}`);
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(parts[2]!, "base64url"), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(parts[4]!, "base64url"));
      try {
        return Buffer.concat([decipher.update(Buffer.from(parts[3]!, "base64url")), decipher.final()]);
      } catch {
        throw new SealedValueRefused("it does not authenticate (altered, or sealed for another row)");
      }
    },
    isSealed: (value) => SEALED.test(value),
    isCurrent: (sealed) => SEALED.exec(sealed)?.[1] === sealingId,
    currentPrefix: `${PREFIX}.${sealingId}.`,
  };
}

/**
 * The key encryption of the KEK file `file`. When `create` is true and the file does not
 * exist, it is made with one new random key, readable by its owner only (mode 0600).
 * @returns the key encryption, and a warning for the log when the file is readable by
 *   others than its owner, or was just created.
 * @throws Error when the file cannot be read or holds no valid key ({@link parseKekFile}).
 */
export function loadKeyEncryption(file: string, create: boolean): { encryption: KeyEncryption; warning: string | undefined } {
  let warning: string | undefined;
  if (create && !existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(KEK_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    warning = `created the key-encryption key file ${file}: set KEY_ENCRYPTION_KEY_FILE to a file kept apart from the database and its backups in production`;
  }
  const text = readFileSync(file, "utf8");
  if ((statSync(file).mode & 0o077) !== 0) warning = `the key-encryption key file ${file} is readable by others than its owner: chmod 600 it`;
  return { encryption: keyEncryption(parseKekFile(text, file)), warning };
}
