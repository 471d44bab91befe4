/**
 * The PKCS#11 backend of signing keys (backend.ts): the key pair is generated inside a token
 * (an HSM; SoftHSM2 in tests) as token objects whose private half is sensitive and not
 * extractable (PKCS#11 v2.40 §4.9 "Private key objects"), so it never leaves the device; the
 * database keeps the public JWK and the objects' CKA_ID.
 *
 * Through the pkcs11js binding (Node-API). The library is process-wide state in PKCS#11
 * (C_Initialize once per process, and a login is the application's, not the session's: v2.40
 * §5.4, §5.6), so each module is loaded once per process and shared by the backends over it:
 * - every call into a module runs one at a time, in the order asked; C_GenerateKeyPair and
 *   C_Sign run on the thread pool, the other calls (short, and without an async form in the
 *   binding) on the event loop;
 * - each backend has one R/W session, opened and logged in (CKU_USER) at its first call and
 *   reused;
 * - a call that fails because the device, the token or the session went away (see
 *   {@link DEVICE_FAILURES}) drops the session, restarts the module (C_Finalize, C_Initialize:
 *   some modules see a token again only then) and is tried once more; when that fails too it
 *   throws {@link KeyBackendUnavailable}. The next call starts over, so the backend recovers
 *   by itself when the device is back;
 * - a PIN the token refuses is never tried again by the process, so that the token does not
 *   lock it: every call throws KeyBackendUnavailable until the server restarts.
 */
import { createHash, createPublicKey, type JsonWebKey } from "node:crypto";
import type { JWK } from "jose";
import pkcs11js from "pkcs11js";
import { KeyBackendUnavailable, type GeneratedKey, type KeyBackend, type OwnSigningAlgorithm } from "./backend.js";

type Binding = InstanceType<typeof pkcs11js.PKCS11>;
type Template = pkcs11js.Template;

/** Where the keys are: the operator's PKCS11_MODULE, PKCS11_TOKEN_LABEL and PKCS11_PIN. */
export interface Pkcs11Settings {
  /** Path of the PKCS#11 library (a `.so`), e.g. `/usr/lib/softhsm/libsofthsm2.so`. */
  module: string;
  /**
   * The label of the token (CK_TOKEN_INFO `label`, trailing blanks ignored), e.g. as given to
   * `softhsm2-util --init-token --label`. By label rather than slot id or index: SoftHSM2 and
   * many HSMs give a token a new slot id when it is (re)initialized or another is added.
   */
  tokenLabel: string;
  /** The token's user PIN (CKU_USER). Never part of an error message. */
  pin: string;
}

/**
 * Return values that mean the device, the token, the session or the login went away, not
 * that the call was wrong (PKCS#11 v2.40 §5.1 "Function return values"): the session is
 * dropped and the call tried once more. CKR_GENERAL_ERROR is among them: it is what SoftHSM2 (and many network HSM
 * clients) answer when the token's storage is gone.
 */
const DEVICE_FAILURES = new Set([
  pkcs11js.CKR_GENERAL_ERROR,
  pkcs11js.CKR_DEVICE_ERROR,
  pkcs11js.CKR_DEVICE_REMOVED,
  pkcs11js.CKR_TOKEN_NOT_PRESENT,
  pkcs11js.CKR_TOKEN_NOT_RECOGNIZED,
  pkcs11js.CKR_SESSION_CLOSED,
  pkcs11js.CKR_SESSION_HANDLE_INVALID,
  pkcs11js.CKR_USER_NOT_LOGGED_IN,
  pkcs11js.CKR_CRYPTOKI_NOT_INITIALIZED,
]);

/** C_Login's answers that say the PIN itself is refused (v2.40 §5.6): never tried again. */
const PIN_REFUSALS = new Set([pkcs11js.CKR_PIN_INCORRECT, pkcs11js.CKR_PIN_INVALID, pkcs11js.CKR_PIN_LEN_RANGE, pkcs11js.CKR_PIN_EXPIRED, pkcs11js.CKR_PIN_LOCKED]);

/** DER of the OID of P-256, prime256v1 (1.2.840.10045.3.1.7): its CKA_EC_PARAMS (PKCS#11 v2.40 Current Mechanisms, "Elliptic curve public key objects"). */
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex");

/** CK_STATE of a R/W session logged in as CKU_USER (v2.40 §3.3 "Session types", CK_STATE; the binding does not export it). */
const CKS_RW_USER_FUNCTIONS = 3;

/** Room for any signature this backend makes: 64 bytes for ES256, 256 for PS256 with RSA 2048. */
const SIGNATURE_ROOM = 512;

/** A failure met outside a PKCS#11 return value: `reason` for the operator; `retry` when reopening may help. */
class Failure extends Error {
  constructor(
    readonly reason: string,
    readonly retry: boolean,
  ) {
    super(reason);
  }
}

const isPkcs11Error = (error: unknown): error is InstanceType<typeof pkcs11js.Pkcs11Error> => error instanceof pkcs11js.Pkcs11Error;

/** Whether dropping the session and reopening may cure `error`. */
function retryable(error: unknown): boolean {
  if (error instanceof Failure) return error.retry;
  return isPkcs11Error(error) && DEVICE_FAILURES.has(error.code);
}

/** `promise`, its PKCS#11 error named after `method`: the binding names the function of synchronous calls only. */
function naming<T>(method: string, promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    if (isPkcs11Error(error) && !error.method) Object.assign(error, { method });
    throw error;
  });
}

/** What a PKCS#11 return value says, for an operator: `C_Sign answered CKR_DEVICE_ERROR`. */
const answered = (error: InstanceType<typeof pkcs11js.Pkcs11Error>) => `${error.method || "the PKCS#11 module"} answered ${error.message}`;

/** `error` as the KeyBackendUnavailable it means; an error of this program (not of the device) as it is. */
function unavailable(error: unknown): unknown {
  if (error instanceof KeyBackendUnavailable) return error;
  if (error instanceof Failure) return new KeyBackendUnavailable(error.reason);
  if (isPkcs11Error(error)) return new KeyBackendUnavailable(`the PKCS#11 device failed: ${answered(error)}`);
  if (error instanceof pkcs11js.NativeError) return new KeyBackendUnavailable(`the PKCS#11 module failed: ${error.message}`);
  return error;
}

/** A PKCS#11 module loaded in this process, shared by the backends over it. */
interface Module {
  readonly path: string;
  /** The binding, once the library was loaded (it stays loaded: unloading C++ modules is unsafe). */
  binding: Binding | undefined;
  /** Whether C_Initialize succeeded since the last C_Finalize. */
  initialized: boolean;
  /** Counts the C_Initialize calls: a session opened under an earlier one is void (its handle may be another's now). */
  generation: number;
  /** The backends open over it: the last to close finalizes it. */
  users: number;
  /** The PIN each token was logged in with by a backend, by token label, since C_Initialize (a login is the application's: v2.40 §5.6). */
  logins: Map<string, string>;
  /** The end of the queue of calls into the module, which run one at a time. */
  tail: Promise<unknown>;
}

const modules = new Map<string, Module>();

function moduleAt(path: string): Module {
  let module = modules.get(path);
  if (!module) {
    module = { path, binding: undefined, initialized: false, generation: 0, users: 0, logins: new Map(), tail: Promise.resolve() };
    modules.set(path, module);
  }
  return module;
}

/** Runs `task` after every call queued on `module` before it. */
function serialized<T>(module: Module, task: () => Promise<T>): Promise<T> {
  const result = module.tail.then(task, task);
  module.tail = result.catch(() => {});
  return result;
}

/** Loads and initializes `module` when it is not. @throws Failure when it does not load or start. */
function started(module: Module): Binding {
  if (!module.binding) {
    const binding = new pkcs11js.PKCS11();
    try {
      binding.load(module.path);
    } catch (error) {
      throw new Failure(`the PKCS#11 module ${module.path} does not load: ${error instanceof Error ? error.message : String(error)}`, true);
    }
    module.binding = binding;
  }
  if (!module.initialized) {
    try {
      // Without arguments: this program never calls the module from two threads at once (v2.40 §5.4 C_Initialize).
      module.binding.C_Initialize();
    } catch (error) {
      // Initialized already by another user of the library in this process: usable as it is.
      if (!(isPkcs11Error(error) && error.code === pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED)) {
        throw new Failure(`the PKCS#11 module ${module.path} does not start: ${isPkcs11Error(error) ? answered(error) : String(error)}`, true);
      }
    }
    module.initialized = true;
    module.generation += 1;
  }
  return module.binding;
}

/** C_Finalize, whatever it answers: every session of the module is void after it. */
function finalize(module: Module): void {
  if (!module.initialized) return;
  module.initialized = false;
  module.logins.clear();
  try {
    module.binding?.C_Finalize();
  } catch {
    // A module whose device is gone may refuse to finalize; it is initialized anew all the same.
  }
}

/** A logged-in session of one backend. */
interface Session {
  handle: Buffer;
  slot: Buffer;
  generation: number;
}

/** The objects on the token of `template` (class, id...), at most `max`. */
function findObjects(binding: Binding, session: Buffer, template: Template, max: number): Buffer[] {
  binding.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_TOKEN, value: true }, ...template]);
  let found: Buffer[];
  try {
    found = binding.C_FindObjects(session, max);
  } catch (error) {
    try {
      binding.C_FindObjectsFinal(session);
    } catch {
      // The find failed already: its error is the one to tell.
    }
    throw error;
  }
  binding.C_FindObjectsFinal(session);
  return found;
}

/** An unsigned big-endian integer as base64url without leading zero bytes (RFC 7518 §2 "Base64urlUInt"). */
const uint = (bytes: Buffer) => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  return bytes.subarray(start).toString("base64url");
};

/**
 * The uncompressed P-256 point 0x04 || X || Y of CKA_EC_POINT, which is DER of an OCTET STRING
 * wrapping it (v2.40 Current Mechanisms, "Elliptic curve public key objects"); some modules
 * give the bare point, taken too.
 * @throws Failure when it is neither.
 */
function ecPoint(value: Buffer): Buffer {
  if (value.length === 67 && value[0] === 0x04 && value[1] === 65 && value[2] === 0x04) return value.subarray(2);
  if (value.length === 65 && value[0] === 0x04) return value;
  throw new Failure(`the PKCS#11 device gave a CKA_EC_POINT that is not an uncompressed P-256 point (${value.length} bytes)`, false);
}

/** The public key object `key` as a JWK with `kid`, `alg` and `use` (RFC 7518 §6.2.1 for EC, §6.3.1 for RSA). */
function publicJwk(binding: Binding, session: Buffer, key: Buffer, kid: string, alg: OwnSigningAlgorithm): JWK {
  let jwk: JWK;
  if (alg === "ES256") {
    const [point] = binding.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_EC_POINT }]);
    const xy = ecPoint(point!.value);
    jwk = { kty: "EC", crv: "P-256", x: xy.subarray(1, 33).toString("base64url"), y: xy.subarray(33).toString("base64url") };
  } else {
    const [modulus, exponent] = binding.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_MODULUS }, { type: pkcs11js.CKA_PUBLIC_EXPONENT }]);
    jwk = { kty: "RSA", n: uint(modulus!.value), e: uint(exponent!.value) };
  }
  try {
    createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch {
    throw new Failure(`the PKCS#11 device gave a public key for ${kid} that is not a valid ${alg} key`, false);
  }
  return { ...jwk, kid, alg, use: "sig" };
}

/**
 * Key-pair templates for `alg`: a token key pair whose private half only signs (v2.40 §4.8
 * "Public key objects", §4.9 "Private key objects"; Current Mechanisms "PKCS #1 RSA key pair
 * generation", "Elliptic curve key pair generation").
 */
function templates(alg: OwnSigningAlgorithm, id: Buffer, kid: string): { mechanism: number; publicKey: Template; privateKey: Template } {
  const both: Template = [
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_ID, value: id },
    { type: pkcs11js.CKA_LABEL, value: `tollgate:${kid}` },
  ];
  const publicKey: Template = [...both, { type: pkcs11js.CKA_PRIVATE, value: false }, { type: pkcs11js.CKA_VERIFY, value: true }, { type: pkcs11js.CKA_ENCRYPT, value: false }, { type: pkcs11js.CKA_WRAP, value: false }];
  const privateKey: Template = [
    ...both,
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
    { type: pkcs11js.CKA_SIGN, value: true },
    { type: pkcs11js.CKA_DECRYPT, value: false },
    { type: pkcs11js.CKA_UNWRAP, value: false },
    { type: pkcs11js.CKA_DERIVE, value: false },
  ];
  if (alg === "ES256") {
    return { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN, publicKey: [...publicKey, { type: pkcs11js.CKA_EC_PARAMS, value: P256_PARAMS }], privateKey };
  }
  return {
    mechanism: pkcs11js.CKM_RSA_PKCS_KEY_PAIR_GEN,
    publicKey: [...publicKey, { type: pkcs11js.CKA_MODULUS_BITS, value: 2048 }, { type: pkcs11js.CKA_PUBLIC_EXPONENT, value: Buffer.from([0x01, 0x00, 0x01]) }],
    privateKey,
  };
}

/**
 * How the device signs `alg` and what it is given (RFC 7518 §3.4, §3.5): ES256 is CKM_ECDSA
 * over the SHA-256 digest made here, and answers R || S of 32 bytes each (v2.40 Current
 * Mechanisms "ECDSA"); PS256 is CKM_SHA256_RSA_PKCS_PSS with a CK_RSA_PKCS_PSS_PARAMS of
 * SHA-256, MGF1 SHA-256 and a 32-byte salt ("PKCS #1 RSA PSS signature with SHA-256...").
 */
function signing(alg: OwnSigningAlgorithm, signingInput: Buffer): { mechanism: pkcs11js.Mechanism; data: Buffer } {
  if (alg === "ES256") return { mechanism: { mechanism: pkcs11js.CKM_ECDSA }, data: createHash("sha256").update(signingInput).digest() };
  const parameter: pkcs11js.RsaPSS = { type: pkcs11js.CK_PARAMS_RSA_PSS, hashAlg: pkcs11js.CKM_SHA256, mgf: pkcs11js.CKG_MGF1_SHA256, saltLen: 32 };
  return { mechanism: { mechanism: pkcs11js.CKM_SHA256_RSA_PKCS_PSS, parameter }, data: signingInput };
}

/** The CKA_ID a `privateRef` names: its hex. @throws KeyBackendUnavailable when it is not hex. */
function objectId(kid: string, privateRef: string): Buffer {
  if (!/^(?:[0-9a-f]{2})+$/.test(privateRef)) throw new KeyBackendUnavailable(`the key ${kid} has no valid PKCS#11 object id`);
  return Buffer.from(privateRef, "hex");
}

/**
 * The PKCS#11 backend over the token of `settings`. Opens nothing until its first call.
 *
 * `generate` makes a token key pair (CKM_EC_KEY_PAIR_GEN on P-256, or CKM_RSA_PKCS_KEY_PAIR_GEN
 * of 2048 bits and exponent 65537) whose objects carry CKA_ID = the kid's UTF-8 bytes and
 * CKA_LABEL = `tollgate:<kid>`; the private key is CKA_PRIVATE, CKA_SENSITIVE, not
 * CKA_EXTRACTABLE, and signs only. `privateRef` is the hex of CKA_ID.
 *
 * @throws (from every method but close) KeyBackendUnavailable with a reason for the operator
 *   (never the PIN) when the module does not load or start, the token is not there, the PIN
 *   is refused, the device fails twice in a row, or (sign) the key is not in the device.
 *   `generate` throws an Error when the token holds objects with the kid's id already.
 */
export function pkcs11Backend(settings: Pkcs11Settings): KeyBackend {
  const module = moduleAt(settings.module);
  module.users += 1;
  let session: Session | undefined;
  /** Why the token refused the PIN: set once, never tried again. */
  let refused: string | undefined;
  let closed = false;

  /** The slot of the token labelled `settings.tokenLabel`. @throws Failure when there is none, or more than one. */
  const tokenSlot = (binding: Binding): Buffer => {
    const slots = binding.C_GetSlotList(true);
    const labels = slots.map((slot) => binding.C_GetTokenInfo(slot).label.trimEnd());
    const matching = slots.filter((_, i) => labels[i] === settings.tokenLabel);
    if (matching.length === 1) return matching[0]!;
    if (matching.length > 1) throw new Failure(`${matching.length} tokens of the PKCS#11 module ${settings.module} are labelled "${settings.tokenLabel}"`, false);
    const present = labels.filter((label) => label !== "").map((label) => `"${label}"`);
    throw new Failure(`no token labelled "${settings.tokenLabel}" in the PKCS#11 module ${settings.module} (tokens present: ${present.join(", ") || "none"})`, true);
  };

  /** Logs in on a new session of the token. @throws Failure for a refused PIN (remembered), or what the module answered. */
  const open = (binding: Binding): Session => {
    const slot = tokenSlot(binding);
    const handle = binding.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      binding.C_Login(handle, pkcs11js.CKU_USER, settings.pin);
      module.logins.set(settings.tokenLabel, settings.pin);
    } catch (error) {
      const code = isPkcs11Error(error) ? error.code : undefined;
      // Logged in already: a login is the application's, shared with its other sessions (v2.40 §5.6), so the
      // token did not check this PIN; it took the PIN of the backend that logged in, which this one's must be.
      const otherPin = module.logins.get(settings.tokenLabel);
      if (code === pkcs11js.CKR_USER_ALREADY_LOGGED_IN && (otherPin === undefined || otherPin === settings.pin)) return { handle, slot, generation: module.generation };
      try {
        binding.C_CloseSession(handle);
      } catch {
        // The login's error is the one to tell.
      }
      if (code === pkcs11js.CKR_USER_ALREADY_LOGGED_IN) {
        refused = `the token "${settings.tokenLabel}" is logged in already in this process with a PIN other than this backend's: set the right PKCS11_PIN and restart the server`;
      } else if (code === pkcs11js.CKR_PIN_LOCKED) {
        refused = `the user PIN of the token "${settings.tokenLabel}" is locked (C_Login answered CKR_PIN_LOCKED): its security officer must unlock it, then restart the server`;
      } else if (code !== undefined && PIN_REFUSALS.has(code)) {
        refused = `the token "${settings.tokenLabel}" refused the PIN (C_Login answered ${(error as Error).message}): set the right PKCS11_PIN and restart the server; it is not tried again, so that the token does not lock it`;
      } else {
        throw error;
      }
      throw new Failure(refused, false);
    }
    return { handle, slot, generation: module.generation };
  };

  /** This backend's session, opened when it has none or its module was restarted since. */
  const current = (): { binding: Binding; session: Session } => {
    const binding = started(module);
    if (!session || session.generation !== module.generation) session = open(binding);
    return { binding, session };
  };

  /** Closes the session, whatever the module answers; `restart` finalizes the module too. */
  const drop = (restart: boolean) => {
    if (session && module.initialized && session.generation === module.generation) {
      try {
        module.binding?.C_CloseSession(session.handle);
      } catch {
        // Gone with the device, most likely.
      }
    }
    session = undefined;
    if (restart) finalize(module);
  };

  /** Runs `operation` on the session, in the module's queue, reopening once on a device failure (this file's header). */
  const run = <T>(operation: (binding: Binding, session: Session) => T | Promise<T>): Promise<T> =>
    serialized(module, async () => {
      if (closed) throw new KeyBackendUnavailable("the PKCS#11 backend is closed");
      if (refused) throw new KeyBackendUnavailable(refused);
      try {
        const { binding, session } = current();
        return await operation(binding, session);
      } catch (first) {
        if (!retryable(first)) throw unavailable(first);
        drop(true);
        try {
          const { binding, session } = current();
          return await operation(binding, session);
        } catch (second) {
          if (retryable(second)) drop(true);
          throw unavailable(second);
        }
      }
    });

  return {
    name: "pkcs11",
    generate(kid, alg): Promise<GeneratedKey> {
      return run(async (binding, { handle }) => {
        const id = Buffer.from(kid, "utf8");
        if (findObjects(binding, handle, [{ type: pkcs11js.CKA_ID, value: id }], 1).length > 0) {
          throw new Error(`the PKCS#11 token "${settings.tokenLabel}" holds a key with the id ${kid} already`);
        }
        const { mechanism, publicKey, privateKey } = templates(alg, id, kid);
        const pair = await naming("C_GenerateKeyPair", binding.C_GenerateKeyPairAsync(handle, { mechanism }, publicKey, privateKey));
        return { publicJwk: publicJwk(binding, handle, pair.publicKey, kid, alg), privateRef: id.toString("hex") };
      });
    },
    sign(kid, privateRef, alg, signingInput) {
      return run(async (binding, { handle, slot }) => {
        const id = objectId(kid, privateRef);
        const keys = findObjects(binding, handle, [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY }, { type: pkcs11js.CKA_ID, value: id }], 2);
        if (keys.length !== 1) {
          // Is it the key that is missing, or the whole token? A token gone fails here, and is retried as such.
          binding.C_GetTokenInfo(slot);
          throw new KeyBackendUnavailable(keys.length === 0 ? `the key ${kid} is not in the device` : `the device holds ${keys.length} private keys with the id of ${kid}`);
        }
        const { mechanism, data } = signing(alg, signingInput);
        binding.C_SignInit(handle, mechanism, keys[0]!);
        return naming("C_Sign", binding.C_SignAsync(handle, data, Buffer.alloc(SIGNATURE_ROOM)));
      });
    },
    destroy(kid, privateRef) {
      return run((binding, { handle }) => {
        for (const object of findObjects(binding, handle, [{ type: pkcs11js.CKA_ID, value: objectId(kid, privateRef) }], 16)) binding.C_DestroyObject(handle, object);
      });
    },
    check() {
      return run((binding, { handle, slot }) => {
        // A session of this application that is no longer logged in (v2.40 §5.6 C_GetSessionInfo: CK_STATE).
        if (binding.C_GetSessionInfo(handle).state !== CKS_RW_USER_FUNCTIONS) throw new Failure(`the session with the token "${settings.tokenLabel}" is not logged in`, true);
        binding.C_GetTokenInfo(slot);
      });
    },
    close() {
      return serialized(module, async () => {
        if (closed) return;
        closed = true;
        // No C_Logout: the login is the application's, shared with the other backends of the module; it ends with the last session (v2.40 §5.6 C_CloseSession).
        drop(false);
        module.users -= 1;
        if (module.users === 0) finalize(module);
      });
    },
  };
}
