/**
 * A software WebAuthn authenticator for the suites: one passkey (a discoverable credential
 * with an ECDSA P-256 key, COSE alg ES256 = -7) that answers the server's ceremonies the way
 * a platform authenticator behind @simplewebauthn/browser would, so HTTP suites can sign a
 * user in with a second factor as often as they like (a TOTP code is accepted once per 30 s
 * step, RFC 6238 §5.2). Every answer takes overrides so the hostile cases can forge exactly
 * one thing.
 *
 * Formats, from W3C Web Authentication Level 3 (https://www.w3.org/TR/webauthn-3/):
 * - authenticator data (§6.1): SHA-256(rpId) (32 bytes) ‖ flags (1 byte: UP 0x01, UV 0x04,
 *   BE 0x08, BS 0x10, AT 0x40) ‖ signature counter (4 bytes, big-endian) ‖ attested
 *   credential data when AT is set (§6.5.2: AAGUID (16 bytes) ‖ credential id length
 *   (2 bytes, big-endian) ‖ credential id ‖ COSE_Key);
 * - client data (§5.8.1, serialized as §5.8.1.1): `{"type","challenge","origin","crossOrigin"}`;
 * - assertion signature (§6.3.3 step 11): over authenticator data ‖ SHA-256(clientDataJSON),
 *   here ECDSA P-256 with SHA-256, DER-encoded (§6.5.5);
 * - attestation object (§6.5.4) in the "none" format (§8.7): CBOR `{fmt, attStmt: {}, authData}`;
 * - the COSE_Key (RFC 9053 §7.1.1, RFC 9052 §7): kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
 *
 * CBOR comes from @simplewebauthn/server's helpers (isoCBOR), the library the server
 * verifies with; keys, hashes and signatures from node:crypto; base64url from Buffer.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { NewFactor } from "../../src/stores/factors.js";

/** Authenticator data flags (WebAuthn §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;
/** COSE algorithm ES256: ECDSA with SHA-256 (RFC 9053 §2.1). */
export const COSE_ES256 = -7;
/** The AAGUID of an authenticator that does not say what it is: 16 zero bytes (WebAuthn §6.5.1). */
const ZERO_AAGUID = Buffer.alloc(16);

/** The factor row of a WebAuthn credential. */
export type NewWebAuthnFactor = Extract<NewFactor, { type: "webauthn" }>;

/** A value isoCBOR encodes. */
type Cbor = Parameters<typeof isoCBOR.encode>[0];

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();

/**
 * The user handle the server would put in `user.id` for `userId`: the base64url of the id's
 * UTF-8 bytes (what generateRegistrationOptions makes of `userID: isoUint8Array.fromUTF8String(id)`).
 */
export function userHandleFor(userId: string): string {
  return Buffer.from(userId, "utf8").toString("base64url");
}

/** How to build a passkey. */
export interface PasskeyOptions {
  /** The relying party's origin the browser reports, e.g. the server's AUTH_URL origin ("http://127.0.0.1:4321"). */
  origin: string;
  /** The RP ID the credential is scoped to; default the origin's hostname (the server's rule). */
  rpId?: string;
  /** The signature counter to start from (WebAuthn §6.1.1); default 0, which never moves. */
  counter?: number;
  /** The user handle (base64url) the credential returns; default set by {@link SoftwarePasskey.factor} or {@link SoftwarePasskey.register}. */
  userHandle?: string;
  /** The credential id (base64url); default 16 random bytes. */
  credentialId?: string;
  /** A synced passkey: backup eligible and backed up (BE, BS), deviceType "multiDevice"; default false, a device-bound one. */
  synced?: boolean;
}

/** What a forged answer changes; each field replaces exactly one thing of an honest answer. */
export interface CeremonyOverrides {
  /** clientDataJSON.origin instead of the passkey's origin. */
  origin?: string;
  /** The RP ID hashed into the authenticator data instead of the passkey's. */
  rpId?: string;
  /** clientDataJSON.challenge instead of the options' challenge. */
  challenge?: string;
  /** clientDataJSON.type instead of "webauthn.get" / "webauthn.create". */
  type?: string;
  /** This signature counter instead of the passkey's; the passkey's own counter does not move. */
  counter?: number;
  /** false: clear the UV flag (the user was not verified). */
  userVerified?: boolean;
  /** false: clear the UP flag (the user was not present). */
  userPresent?: boolean;
}

/** What a forged assertion changes, on top of {@link CeremonyOverrides}. */
export interface AssertionOverrides extends CeremonyOverrides {
  /** true: flip the last byte of the DER signature (still well-formed DER, no longer valid). */
  tamperSignature?: boolean;
  /** Claim this credential id (e.g. another user's) while signing with this passkey's key. */
  credentialId?: string;
  /** This user handle instead of the passkey's; null leaves it out. */
  userHandle?: string | null;
}

/**
 * One software passkey: a P-256 key pair, a credential id, a user handle and a signature
 * counter, scoped to one RP ID and origin.
 */
export class SoftwarePasskey {
  readonly origin: string;
  readonly rpId: string;
  /** base64url */
  readonly credentialId: string;
  readonly synced: boolean;
  /** The signature counter (WebAuthn §6.1.1): the value of the last answer. */
  counter: number;
  /** base64url; undefined until set by the options, {@link factor} or {@link register}. */
  userHandle: string | undefined;
  readonly publicKey: KeyObject;
  readonly #privateKey: KeyObject;

  constructor(options: PasskeyOptions) {
    this.origin = new URL(options.origin).origin;
    this.rpId = options.rpId ?? new URL(options.origin).hostname;
    this.counter = options.counter ?? 0;
    this.userHandle = options.userHandle;
    this.credentialId = options.credentialId ?? b64url(randomBytes(16));
    this.synced = options.synced ?? false;
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.publicKey = publicKey;
    this.#privateKey = privateKey;
  }

  /** The credential public key as a COSE_Key (EC2, ES256, P-256, x, y), CBOR-encoded. */
  coseKeyBytes(): Uint8Array<ArrayBuffer> {
    const jwk = this.publicKey.export({ format: "jwk" });
    const key = new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, COSE_ES256], // alg
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
    return isoCBOR.encode(key);
  }

  /** {@link coseKeyBytes}, base64url: the form `UserFactor.publicKey` stores. */
  cosePublicKey(): string {
    return b64url(this.coseKeyBytes());
  }

  /** "singleDevice" (device-bound) or "multiDevice" (synced), as @simplewebauthn/server names them. */
  get deviceType(): "singleDevice" | "multiDevice" {
    return this.synced ? "multiDevice" : "singleDevice";
  }

  /**
   * The factor row for `userId`, to insert with `server.db.factors.insert(...)` as if the
   * passkey had been registered. Sets the passkey's user handle to {@link userHandleFor}(userId)
   * unless it has one.
   */
  factor(userId: string, name = "Test passkey"): NewWebAuthnFactor {
    this.userHandle ??= userHandleFor(userId);
    return { type: "webauthn", userId, name, credentialId: this.credentialId, publicKey: this.cosePublicKey(), counter: this.counter, deviceType: this.deviceType, transports: ["internal"] };
  }

  /**
   * Answers an authentication ceremony (navigator.credentials.get) as @simplewebauthn/browser's
   * startAuthentication returns it. Counts the signature counter up by one unless it is 0
   * (an authenticator without a counter) or `overrides.counter` is given.
   * @throws like a browser finding no credential: when the options name another RP ID, or
   *   list allowed credentials without this one.
   */
  assert(options: PublicKeyCredentialRequestOptionsJSON, overrides: AssertionOverrides = {}): AuthenticationResponseJSON {
    if (options.rpId !== undefined && options.rpId !== this.rpId) throw new Error(`passkey: no credential for RP ID ${options.rpId} (this one is for ${this.rpId})`);
    const allowed = options.allowCredentials ?? [];
    if (allowed.length > 0 && !allowed.some((c) => c.id === this.credentialId)) throw new Error("passkey: this credential is not in allowCredentials");
    const counter = overrides.counter ?? (this.counter > 0 ? ++this.counter : this.counter);
    const authenticatorData = this.#authenticatorData(overrides, counter, 0);
    const clientDataJSON = this.#clientDataJSON("webauthn.get", options.challenge, overrides);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.#privateKey);
    if (overrides.tamperSignature) signature[signature.length - 1]! ^= 0x01;
    const id = overrides.credentialId ?? this.credentialId;
    const userHandle = overrides.userHandle === undefined ? this.userHandle : (overrides.userHandle ?? undefined);
    return {
      id,
      rawId: id,
      response: {
        clientDataJSON: Buffer.from(clientDataJSON, "utf8").toString("base64url"),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(userHandle !== undefined ? { userHandle } : {}),
      },
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /**
   * Answers a registration ceremony (navigator.credentials.create) as @simplewebauthn/browser's
   * startRegistration returns it, with "none" attestation; the passkey takes `options.user.id`
   * as its user handle, as an authenticator stores it. The counter is reported as it is.
   * @throws like a browser: when the options name another RP ID, do not offer ES256, or
   *   exclude this credential.
   */
  register(options: PublicKeyCredentialCreationOptionsJSON, overrides: CeremonyOverrides = {}): RegistrationResponseJSON {
    if (options.rp.id !== undefined && options.rp.id !== this.rpId) throw new Error(`passkey: RP ID ${options.rp.id} is not this passkey's ${this.rpId}`);
    if (!options.pubKeyCredParams.some((p) => p.alg === COSE_ES256)) throw new Error("passkey: the options do not offer ES256");
    if ((options.excludeCredentials ?? []).some((c) => c.id === this.credentialId)) throw new Error("passkey: this credential is excluded (already registered)");
    this.userHandle = options.user.id;
    const authenticatorData = this.#authenticatorData(overrides, overrides.counter ?? this.counter, FLAG.AT);
    const attestationObject = isoCBOR.encode(new Map<string, Cbor>([
      ["fmt", "none"],
      ["attStmt", new Map<string, Cbor>()],
      ["authData", authenticatorData],
    ]));
    const clientDataJSON = this.#clientDataJSON("webauthn.create", options.challenge, overrides);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      response: {
        clientDataJSON: Buffer.from(clientDataJSON, "utf8").toString("base64url"),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authenticatorData),
        transports: ["internal"],
        publicKeyAlgorithm: COSE_ES256,
        publicKey: b64url(this.publicKey.export({ type: "spki", format: "der" })),
      },
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Authenticator data (WebAuthn §6.1); with attested credential data when `extraFlags` has AT. */
  #authenticatorData(o: CeremonyOverrides, counter: number, extraFlags: number): Buffer {
    let flags = extraFlags;
    if (o.userPresent !== false) flags |= FLAG.UP;
    if (o.userVerified !== false) flags |= FLAG.UV;
    if (this.synced) flags |= FLAG.BE | FLAG.BS;
    const head = Buffer.alloc(5);
    head.writeUInt8(flags, 0);
    head.writeUInt32BE(counter, 1);
    const parts: Uint8Array[] = [sha256(o.rpId ?? this.rpId), head];
    if (extraFlags & FLAG.AT) {
      const id = Buffer.from(this.credentialId, "base64url");
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(id.length, 0);
      parts.push(ZERO_AAGUID, idLength, id, this.coseKeyBytes());
    }
    return Buffer.concat(parts);
  }

  /** The client data's JSON serialization (WebAuthn §5.8.1.1), key order as browsers write it. */
  #clientDataJSON(type: string, challenge: string, o: CeremonyOverrides): string {
    return JSON.stringify({ type: o.type ?? type, challenge: o.challenge ?? challenge, origin: o.origin ?? this.origin, crossOrigin: false });
  }
}
