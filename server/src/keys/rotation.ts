/**
 * The life of this server's signing keys, per algorithm: `next` → `current` → `retired` →
 * removed. Every instance runs {@link rotateKeys} on a schedule (keyring.ts); the database
 * decides which one acts (one `next` and one `current` key per algorithm, stores/signing-keys.ts):
 *   1. An algorithm without keys gets a `current` key at once (and a `next` one, item 2): no
 *      client has cached a JWK Set without it, so it may sign at once.
 *   2. An algorithm with a current key and no `next` one gets a `next` key. It is published in
 *      the JWK Set from then on, but signs nothing yet.
 *   3. A `next` key becomes `current`, and the current one `retired`, when the current one is
 *      `rotationDays` old (or an admin asks for it, or its backend is no longer the configured
 *      one), and only once the `next` key has been published for `leadSeconds`: a client that
 *      cached the JWK Set then has it (at least one JWK Set cache lifetime, issue's "never an
 *      unknown kid"; RFC 7517 §5 leaves the caching to HTTP, RFC 9111).
 *   4. A retired key stays published until everything it signed has expired (`signedUntil`),
 *      then is deleted, and the backend destroys its private half.
 * And before all that, a private key the backend would store otherwise now (sealed under an
 * older key-encryption key) is stored again (KeyBackend.reseal).
 */
import { randomBytes } from "node:crypto";
import type { SigningKeyRecord, SigningKeyStore } from "../stores/signing-keys.js";
import { OWN_SIGNING_ALGORITHMS, type KeyBackend, type OwnSigningAlgorithm } from "./backend.js";

/** When keys rotate. */
export interface RotationSettings {
  /** Days a key is current before the next one replaces it (KEY_ROTATION_DAYS). */
  rotationDays: number;
  /**
   * Seconds a `next` key is published before it may sign: the JWK Set's cache lifetime
   * (JWKS_MAX_AGE_SECONDS) plus the interval at which instances reload their keys.
   */
  leadSeconds: number;
  /**
   * Seconds a retired key is kept at least, whatever it signed: an instance that has not yet
   * reloaded its keys may still sign with it for one reload interval.
   */
  retiredGraceSeconds: number;
}

/** The backends keys may be in: the configured one makes new keys; the other, when present, still signs its own. */
export interface Backends {
  /** Makes every new key. */
  current: KeyBackend;
  /** By name: every backend available to sign, the current one included. */
  byName: ReadonlyMap<string, KeyBackend>;
}

/** What one run changed, for the log and the audit: key ids by what happened to them. */
export interface RotationChanges {
  created: string[];
  promoted: string[];
  removed: string[];
}

/** A new key id: 16 random bytes, base64url (22 characters). */
function newKid(): string {
  return randomBytes(16).toString("base64url");
}

/** Makes a key of `alg` in `state` unless another instance got there first; a key that lost the race is destroyed. */
async function createKey(store: SigningKeyStore, backend: KeyBackend, alg: OwnSigningAlgorithm, state: "next" | "current", now: Date): Promise<string | undefined> {
  const kid = newKid();
  const { publicJwk, privateRef } = await backend.generate(kid, alg);
  const inserted = await store.insertIfVacant({ kid, alg, backend: backend.name, state, publicJwk, privateRef, createdAt: now }, now);
  if (inserted) return kid;
  await backend.destroy(kid, privateRef);
  return undefined;
}

/**
 * True when `alg`'s current key should give way to its next key at `now` (item 3 above): it
 * is due, asked to go, or in a backend that no longer makes keys.
 */
function dueForRotation(current: SigningKeyRecord, settings: RotationSettings, backend: KeyBackend, now: Date, requested: boolean): boolean {
  const activated = (current.activatedAt ?? current.createdAt).getTime();
  return requested || current.backend !== backend.name || now.getTime() - activated >= settings.rotationDays * 86_400_000;
}

/** The earliest time `next` may sign: {@link RotationSettings.leadSeconds} after it was created. */
export function signsFrom(next: SigningKeyRecord, settings: RotationSettings): Date {
  return new Date(next.createdAt.getTime() + settings.leadSeconds * 1000);
}

/**
 * One run of the rotation at `now`, items 1-4 above, for every algorithm of
 * {@link OWN_SIGNING_ALGORITHMS}.
 * @param requested - algorithms whose current key an admin asked to replace: they are
 *   promoted as soon as their next key may sign (at once when it may already).
 * @returns the keys created, promoted and removed by this instance.
 * @throws KeyBackendUnavailable when the backend cannot make or destroy a key.
 */
export async function rotateKeys(store: SigningKeyStore, backends: Backends, settings: RotationSettings, now: Date, requested: ReadonlySet<OwnSigningAlgorithm> = new Set()): Promise<RotationChanges> {
  const changes: RotationChanges = { created: [], promoted: [], removed: [] };
  const keys = await store.list();
  for (const key of keys) {
    const resealed = backends.byName.get(key.backend)?.reseal?.(key.kid, key.privateRef);
    if (resealed) await store.replacePrivateRef(key.kid, key.privateRef, resealed);
  }
  for (const alg of OWN_SIGNING_ALGORITHMS) {
    const current = keys.find((k) => k.alg === alg && k.state === "current");
    const next = keys.find((k) => k.alg === alg && k.state === "next");
    if (!current && !next) {
      const kid = await createKey(store, backends.current, alg, "current", now);
      if (kid) changes.created.push(kid);
    } else if (next && signsFrom(next, settings) <= now && (!current || dueForRotation(current, settings, backends.current, now, requested.has(alg)))) {
      if (await store.promote(alg, next.kid, now)) changes.promoted.push(next.kid);
    }
    if (!next || changes.promoted.includes(next.kid)) {
      const kid = await createKey(store, backends.current, alg, "next", now);
      if (kid) changes.created.push(kid);
    }
  }
  for (const key of keys.filter((k) => k.state === "retired")) {
    const graceOver = (key.retiredAt ?? now).getTime() + settings.retiredGraceSeconds * 1000 <= now.getTime();
    if (graceOver && (key.signedUntil === null || key.signedUntil <= now) && (await store.deleteRetired(key.kid))) {
      await backends.byName.get(key.backend)?.destroy(key.kid, key.privateRef);
      changes.removed.push(key.kid);
    }
  }
  return changes;
}
