/**
 * The keys of a starting server from its configuration: the signing key backends
 * (backend.ts) and the keyring (keyring.ts).
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { SigningKeyStore } from "../stores/signing-keys.js";
import type { KeyBackend } from "./backend.js";
import { envelopeBackend } from "./envelope.js";
import type { KeyEncryption } from "../kernel/key-encryption.js";
import { RELOAD_SECONDS, createKeyring, type Keyring } from "./keyring.js";
import type { RotationSettings } from "./rotation.js";

/** A server's keys. */
export interface ServerKeys {
  keyring: Keyring;
  /** The backend new keys are made in. */
  backend: KeyBackend;
  /** Stops the keyring and closes the backends. */
  close(): Promise<void>;
}

/**
 * The rotation of `config`: KEY_ROTATION_DAYS, and a next key's lead of JWKS_MAX_AGE_SECONDS
 * plus the instances' reload interval (the keyring's, and the admin API's "signs from").
 */
export function rotationSettings(config: Pick<Config, "keys">): RotationSettings {
  return { rotationDays: config.keys.rotationDays, leadSeconds: config.keys.jwksMaxAgeSeconds + RELOAD_SECONDS, retiredGraceSeconds: 2 * RELOAD_SECONDS };
}

/**
 * Starts the keyring over `store`. New keys are made in the PKCS#11 token when one is
 * configured, else by the envelope backend under `encryption`; keys the envelope backend made
 * before an HSM was configured keep signing until the rotation replaces them.
 */
export async function openKeys(config: Config, encryption: KeyEncryption, store: SigningKeyStore, logger: Logger): Promise<ServerKeys> {
  const envelope = envelopeBackend(encryption);
  // The PKCS#11 binding is a native module: loaded only when an HSM is configured.
  const backend = config.keys.pkcs11 ? (await import("./pkcs11.js")).pkcs11Backend(config.keys.pkcs11) : envelope;
  const keyring = createKeyring(
    store,
    { current: backend, byName: new Map([envelope, backend].map((b) => [b.name, b])) },
    rotationSettings(config),
    logger,
  );
  return {
    keyring,
    backend,
    async close() {
      await keyring.stop();
      await Promise.all([envelope.close(), backend !== envelope && backend.close()]);
    },
  };
}
