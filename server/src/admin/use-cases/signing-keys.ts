/**
 * Admin use cases of this server's signing keys (keys/): their rotation on demand. The
 * keyring's run is not one database transaction (it may call an HSM, and writes as it goes),
 * so its audit event is recorded after it rather than with it (common.ts auditedChange).
 */
import type { Keyring } from "../../keys/keyring.js";
import { signsFrom, type RotationSettings } from "../../keys/rotation.js";
import type { Database } from "../../stores/index.js";
import type { OwnSigningAlgorithm, SigningKeyRecord } from "../../stores/signing-keys.js";
import type { Audited } from "./common.js";

/** What {@link rotateSigningKey} did. */
export interface SigningKeyRotationResult {
  alg: OwnSigningAlgorithm;
  /** Whether the algorithm's next key became current. */
  promoted: boolean;
  /** When not promoted: when the next key may sign (keys/rotation.ts signsFrom); else null. */
  signsFrom: Date | null;
  /** Every key after the rotation, oldest first. */
  keys: SigningKeyRecord[];
}

/**
 * Runs the rotation now with `alg` asked to rotate (keys/rotation.ts item 3): its next key
 * becomes current if it may sign already, else nothing changes for `alg` and nothing is
 * remembered. Then records `o.audit`, promoted or not, about that next key (its kid as
 * subject), with the kids the run created, promoted and removed in its details.
 * @throws KeyBackendUnavailable when the backend cannot make or destroy a key: nothing is recorded.
 */
export async function rotateSigningKey(
  db: Database,
  keyring: Keyring,
  settings: RotationSettings,
  o: { alg: OwnSigningAlgorithm } & Audited,
): Promise<SigningKeyRotationResult> {
  const changes = await keyring.rotate(new Set([o.alg]));
  const keys = keyring.keys();
  const promoted = keys.find((k) => k.alg === o.alg && changes.promoted.includes(k.kid));
  const next = keys.find((k) => k.alg === o.alg && k.state === "next");
  await db.audit.record({ ...o.audit, subject: (promoted ?? next)?.kid, details: { ...o.audit.details, ...changes } });
  return { alg: o.alg, promoted: promoted !== undefined, signsFrom: !promoted && next ? signsFrom(next, settings) : null, keys };
}
