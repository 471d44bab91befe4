/**
 * The keyring of one instance: the signing keys of the database as last read, the JWK Set
 * they publish, and JWS signing with the current key of an algorithm. It reads the keys and
 * runs the rotation (rotation.ts) at start and every {@link RELOAD_SECONDS}, so every
 * instance publishes the same JWK Set and signs with the same current key, give or take one
 * reload.
 */
import type { JWK } from "jose";
import type { Logger } from "pino";
import type { SigningKeyRecord, SigningKeyStore } from "../stores/signing-keys.js";
import { KeyBackendUnavailable, type OwnSigningAlgorithm } from "./backend.js";
import { rotateKeys, type Backends, type RotationChanges, type RotationSettings } from "./rotation.js";

/** Seconds between two reloads of the keys (and runs of the rotation) by an instance. */
export const RELOAD_SECONDS = 60;

/** `signedUntil` is raised an hour past the `exp` that needed it, so that it is written about once an hour per key and instance. */
const SIGNED_UNTIL_STEP_MS = 3_600_000;

/** A JWK Set (RFC 7517 §5). */
export interface JwkSet {
  keys: JWK[];
}

/** What a JWS is signed with. */
export interface JwsToSign {
  alg: OwnSigningAlgorithm;
  /** The `typ` header (`JWT`, `at+jwt` for RFC 9068 access tokens). */
  typ: string;
  /** The JWT claims (RFC 7519), serialized as JSON. */
  payload: Record<string, unknown>;
  /** When what is signed expires: the key stays published at least until then. */
  expiresAt: Date;
}

export interface Keyring {
  /**
   * Resolves once the keys were read (and made, on a first start): at once after the first
   * success. Until then, with the run under way.
   * @throws KeyBackendUnavailable (or the database's error) when that run fails.
   */
  ready(): Promise<void>;
  /** The public keys of every next, current and retired key, newest first, as last read. */
  jwks(): JwkSet;
  /** Every key as last read (for the admin API), oldest first. */
  keys(): SigningKeyRecord[];
  /**
   * A compact JWS (RFC 7515 §7.1) of `jws.payload` signed with the current key of `jws.alg`,
   * its header `{alg, kid, typ}`.
   * @throws KeyBackendUnavailable when there is no current key or the backend cannot sign.
   */
  sign(jws: JwsToSign): Promise<string>;
  /**
   * Runs the rotation now and reloads the keys.
   * @param requested - algorithms whose current key is to be replaced as soon as the next key may sign.
   */
  rotate(requested?: ReadonlySet<OwnSigningAlgorithm>): Promise<RotationChanges>;
  /**
   * Runs the first rotation and reload: once the server listens, so that making the first
   * keys (RSA key generation) does not hold up its start. Until then {@link ready} waits.
   */
  start(): void;
  /** Stops the schedule. @returns when a run under way has ended. */
  stop(): Promise<void>;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * Makes the keyring: the first rotation and reload when {@link Keyring.start} is called (not
 * awaited: see {@link Keyring.ready}), then every {@link RELOAD_SECONDS}.
 */
export function createKeyring(store: SigningKeyStore, backends: Backends, settings: RotationSettings, logger: Logger): Keyring {
  let keys: SigningKeyRecord[] = [];
  let published: JwkSet = { keys: [] };
  /** The `signedUntil` this instance knows each key has, by kid. */
  const signedUntil = new Map<string, number>();

  const run = async (requested?: ReadonlySet<OwnSigningAlgorithm>) => {
    const changes = await rotateKeys(store, backends, settings, new Date(), requested);
    if (changes.created.length + changes.promoted.length + changes.removed.length > 0) logger.info({ signingKeys: changes }, "signing keys rotated");
    keys = await store.list();
    published = { keys: keys.map((k) => k.publicJwk as JWK).reverse() };
    for (const key of keys) if (key.signedUntil) signedUntil.set(key.kid, Math.max(signedUntil.get(key.kid) ?? 0, key.signedUntil.getTime()));
    return changes;
  };
  let begin!: () => void;
  const started = new Promise<void>((resolve) => (begin = resolve));
  /** The run under way or the last one; `loaded` once one succeeded. */
  let latest = started.then(() => run());
  let loaded = false;
  const track = (result: Promise<RotationChanges>) => {
    latest = result;
    result.then(() => (loaded = true), () => {});
    return result;
  };
  track(latest);
  const timer = setInterval(() => {
    track(latest.catch(() => {}).then(() => run())).catch((error: unknown) => logger.error({ err: error }, "signing key rotation failed"));
  }, RELOAD_SECONDS * 1000);
  timer.unref();
  /** Resolves when a run has succeeded; else with the run under way (rejecting with its error). */
  const ready = async () => {
    if (!loaded) await latest;
  };

  return {
    ready,
    start: () => begin(),
    jwks: () => published,
    keys: () => keys,
    async sign({ alg, typ, payload, expiresAt }) {
      await ready();
      const key = keys.find((k) => k.alg === alg && k.state === "current");
      const backend = key && backends.byName.get(key.backend);
      if (!key || !backend) throw new KeyBackendUnavailable(`no current ${alg} key can sign`);
      if ((signedUntil.get(key.kid) ?? 0) < expiresAt.getTime()) {
        const until = new Date(expiresAt.getTime() + SIGNED_UNTIL_STEP_MS);
        await store.extendSignedUntil(key.kid, until);
        signedUntil.set(key.kid, until.getTime());
      }
      const signingInput = `${encode({ alg, kid: key.kid, typ })}.${encode(payload)}`;
      const signature = await backend.sign(key.kid, key.privateRef, alg, Buffer.from(signingInput, "ascii"));
      return `${signingInput}.${signature.toString("base64url")}`;
    },
    rotate(requested) {
      return track(latest.catch(() => {}).then(() => run(requested)));
    },
    async stop() {
      clearInterval(timer);
      await latest.catch(() => {});
    },
  };
}
