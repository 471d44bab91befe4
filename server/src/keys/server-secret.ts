/**
 * The server's own secrets, kept in the database sealed under the key-encryption key
 * (stores/server-secrets.ts): made by the instance that first needs one, the same for all.
 */
import { randomBytes } from "node:crypto";
import type { KeyEncryption } from "../kernel/key-encryption.js";
import type { ServerSecretStore } from "../stores/server-secrets.js";

/** Bytes of a server secret. */
const SECRET_BYTES = 32;

/**
 * The secret `name`: made (32 random bytes) and stored sealed when there is none; sealed again
 * when another key of the key-encryption key file than the first sealed it (its rotation).
 * @throws SealedValueRefused when the stored secret opens under no key of the file.
 */
export async function serverSecret(store: ServerSecretStore, encryption: KeyEncryption, name: string, now: Date): Promise<Buffer> {
  const context = `server-secret:${name}`;
  let sealed = await store.sealed(name);
  if (sealed === undefined) sealed = await store.insertIfAbsent(name, encryption.seal(randomBytes(SECRET_BYTES), context), now);
  const secret = encryption.open(sealed, context);
  if (!encryption.isCurrent(sealed)) await store.replace(name, sealed, encryption.seal(secret, context));
  return secret;
}
