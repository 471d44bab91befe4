/**
 * The server's own secrets (the salt of pairwise subject identifiers), each kept sealed under
 * the key-encryption key (kernel/key-encryption.ts) and shared by every instance.
 */

export interface ServerSecretStore {
  /** The sealed value of `name`, or undefined when none was made yet. */
  sealed(name: string): Promise<string | undefined>;
  /** Stores `sealed` as `name` unless another instance did first. @returns the value stored, this one or the other's. */
  insertIfAbsent(name: string, sealed: string, now: Date): Promise<string>;
  /** Replaces the sealed value of `name` while it is still `from` (a key-encryption key rotation's re-sealing). */
  replace(name: string, from: string, to: string): Promise<void>;
}
