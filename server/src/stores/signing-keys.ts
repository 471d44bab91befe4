/**
 * This server's signing keys (keys/): their public halves, where their private halves are
 * (backend.ts: sealed, or the id of a PKCS#11 object; never a key in clear), and where each
 * is in its life, `next` → `current` → `retired` → removed (keys/rotation.ts). Shared by every
 * instance through the database, so that they all publish one JWK Set and sign with one
 * current key.
 */
/** The algorithms this server signs with (FAPI 2.0 Security Profile §5.4.1). */
export const OWN_SIGNING_ALGORITHMS = ["PS256", "ES256"] as const;

/** One of {@link OWN_SIGNING_ALGORITHMS}. */
export type OwnSigningAlgorithm = (typeof OWN_SIGNING_ALGORITHMS)[number];

/** Where a key is in its life: published before it signs, signing, published until what it signed has expired. */
export type SigningKeyState = "next" | "current" | "retired";

/** A signing key as stored. */
export interface SigningKeyRecord {
  /** Key id (RFC 7515 §4.1.4), unique. */
  kid: string;
  alg: OwnSigningAlgorithm;
  /** The backend holding its private half. */
  backend: "envelope" | "pkcs11";
  state: SigningKeyState;
  /** The public JWK, with `kid`, `alg` and `use`. */
  publicJwk: Record<string, unknown>;
  /** The backend's reference to the private half (backend.ts GeneratedKey.privateRef). */
  privateRef: string;
  createdAt: Date;
  /** When it became `current`; null before. */
  activatedAt: Date | null;
  /** When it was retired; null before. */
  retiredAt: Date | null;
  /** The latest `exp` of what it signed, rounded up; null when it signed nothing yet. It is removed once retired and past this. */
  signedUntil: Date | null;
}

/** A key to insert: as `next`, or as `current` for the first key of its algorithm. */
export type NewSigningKey = Omit<SigningKeyRecord, "activatedAt" | "retiredAt" | "signedUntil" | "state"> & { state: "next" | "current" };

export interface SigningKeyStore {
  /** Every key, oldest first. */
  list(): Promise<SigningKeyRecord[]>;
  /**
   * Inserts `key`, unless its algorithm has a key in that state already (one `next` and one
   * `current` per algorithm across the cluster: the instance that inserts second loses).
   * @returns false when another key holds that state.
   */
  insertIfVacant(key: NewSigningKey, now: Date): Promise<boolean>;
  /**
   * Makes the `next` key `nextKid` of `alg` current and retires the current one, at `now`, in one
   * transaction and only while they still hold those states: of two instances promoting at once,
   * one does.
   * @returns false when `nextKid` is no longer `alg`'s next key (another instance promoted it).
   */
  promote(alg: OwnSigningAlgorithm, nextKid: string, now: Date): Promise<boolean>;
  /** Raises the `signedUntil` of `kid` to `until` when lower (or null). */
  extendSignedUntil(kid: string, until: Date): Promise<void>;
  /** Replaces the private key reference of `kid` with `to` while it is still `from` (a KEK rotation's re-sealing). */
  replacePrivateRef(kid: string, from: string, to: string): Promise<void>;
  /** Deletes the key `kid` when it is retired. @returns whether it was deleted. */
  deleteRetired(kid: string): Promise<boolean>;
}
