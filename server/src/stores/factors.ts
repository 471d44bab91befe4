/**
 * Users' second authentication factors (PSD2 RTS Art. 4, 6–8): TOTP keys (RFC 6238) and
 * WebAuthn credentials (passkeys).
 */

/** A factor as shown to its user and to administrators: never its key material. */
export interface FactorSummary {
  id: string;
  /** totp | webauthn */
  type: FactorType;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type FactorType = "totp" | "webauthn";

/** A TOTP factor with its shared key (stored sealed under the key-encryption key, handed out in clear). */
export interface TotpFactor extends FactorSummary {
  type: "totp";
  /** The base32 shared key. */
  secret: string;
  /** The last accepted time step (30 s steps since the epoch), or null before the first use. */
  lastTimeStep: number | null;
}

/** A WebAuthn credential. */
export interface WebAuthnFactor extends FactorSummary {
  type: "webauthn";
  userId: string;
  /** base64url */
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  /** singleDevice (device-bound) | multiDevice (synced) */
  deviceType: string;
  transports: string[];
}

export type NewFactor =
  | { type: "totp"; userId: string; name: string; secret: string; lastTimeStep: number }
  | { type: "webauthn"; userId: string; name: string; credentialId: string; publicKey: string; counter: number; deviceType: string; transports: string[] };

export interface FactorStore {
  /** The user's factors, oldest first. */
  list(userId: string): Promise<FactorSummary[]>;
  /** The user's TOTP factors with their keys. */
  totpFactors(userId: string): Promise<TotpFactor[]>;
  /** The WebAuthn credential with this id (base64url), or undefined. */
  webAuthnCredential(credentialId: string): Promise<WebAuthnFactor | undefined>;
  /** The user's WebAuthn credentials (to exclude on registration). */
  webAuthnCredentials(userId: string): Promise<WebAuthnFactor[]>;
  /** @throws Conflict when the WebAuthn credential id is already registered. */
  insert(factor: NewFactor, now: Date): Promise<FactorSummary>;
  /**
   * Accepts TOTP time step `step` for factor `id` only if it is later than the last one
   * accepted, atomically (RFC 6238 §5.2: a code is accepted once).
   * @returns false when that step or a later one was already used.
   */
  acceptTimeStep(id: string, step: number, now: Date): Promise<boolean>;
  /**
   * Records a WebAuthn use of credential `id` with signature counter `counter`, only if the
   * counter is above the stored one, or both are 0 (an authenticator without a counter),
   * compared and set in one statement (WebAuthn Level 3 §6.1.1, §7.2): of parallel
   * assertions carrying one counter value only one is recorded, and the counter never falls.
   * @returns false when the stored counter was already as high (a cloned authenticator or a race lost).
   */
  recordWebAuthnUse(id: string, counter: number, now: Date): Promise<boolean>;
  /** Deletes one factor of the user. @returns false when the user has no factor with this id. */
  delete(userId: string, id: string): Promise<boolean>;
  /** Deletes every factor of the user (an administrator's reset). @returns how many. */
  deleteAll(userId: string): Promise<number>;
  /**
   * Seals the TOTP keys stored in clear (written before keys were sealed at rest), and seals
   * again under the first key-encryption key those another key of the file sealed (its
   * rotation, kernel/key-encryption.ts). Run at start; a row changed meanwhile is left to the next start.
   * @returns how many keys were sealed.
   * @throws SealedValueRefused when a sealed key opens under no key of the file.
   */
  sealTotpKeys(): Promise<number>;
}
