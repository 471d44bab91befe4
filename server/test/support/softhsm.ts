/**
 * Throw-away SoftHSM2 tokens for the PKCS#11 tests (server/src/keys/pkcs11.ts): each in a
 * folder of its own, with its own softhsm2.conf (`directories.tokendir`, file object store),
 * made with `softhsm2-util --init-token`. Debian's `softhsm2` package brings the module and
 * the tool; .ci/run installs it. Without it {@link softHsmToken} throws: the tests fail, they
 * are not skipped.
 *
 * SoftHSM2 reads SOFTHSM2_CONF, and lists the tokens of its folder, at C_Initialize, which is
 * once per process until C_Finalize: make the token before the first backend of a test opens,
 * and close every backend at the test's end (the last one closed finalizes the module), so
 * that the next test's module starts on the next token's configuration. The tests run in
 * forked workers (Vitest's default pool), so the environment variable set here is the
 * process's own, as the module reads it with getenv.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pkcs11js from "pkcs11js";
import type { Pkcs11Settings } from "../../src/keys/pkcs11.js";

/** Where Debian's libsofthsm2 puts the module. */
export const SOFTHSM2_MODULE = "/usr/lib/softhsm/libsofthsm2.so";

/** A token made for one test. */
export interface SoftHsmToken {
  /** What pkcs11Backend is given for it. */
  settings: Pkcs11Settings;
  /** The folder SoftHSM2 keeps the token in (`directories.tokendir`): remove it and the device is gone. */
  tokenDir: string;
  /** Removes the folder and restores SOFTHSM2_CONF as it was. */
  remove(): void;
}

/** @throws Error saying how to install SoftHSM2 when it is not. */
function assertInstalled(): void {
  if (!existsSync(SOFTHSM2_MODULE)) {
    throw new Error(`SoftHSM2 is not installed (no ${SOFTHSM2_MODULE}): apt-get install softhsm2 (.ci/run does it on a machine without it)`);
  }
}

/**
 * A new SoftHSM2 token labelled `label`, its user PIN `pin`, in a new temporary folder, and
 * SOFTHSM2_CONF pointing at its configuration for this process.
 * @throws Error when SoftHSM2 is not installed, or softhsm2-util fails (with its output).
 */
export function softHsmToken(label = "tollgate-test", pin = "1234"): SoftHsmToken {
  assertInstalled();
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-softhsm-"));
  const tokenDir = path.join(dir, "tokens");
  mkdirSync(tokenDir);
  const conf = path.join(dir, "softhsm2.conf");
  writeFileSync(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  const previous = process.env.SOFTHSM2_CONF;
  process.env.SOFTHSM2_CONF = conf;
  try {
    execFileSync("softhsm2-util", ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", `so-${pin}`], { env: process.env, stdio: "pipe" });
  } catch (error) {
    const { code, stderr } = error as { code?: string; stderr?: Buffer };
    if (code === "ENOENT") throw new Error("softhsm2-util is not installed: apt-get install softhsm2 (.ci/run does it on a machine without it)");
    throw new Error(`softhsm2-util --init-token failed: ${stderr?.toString() || String(error)}`);
  }
  return {
    settings: { module: SOFTHSM2_MODULE, tokenLabel: label, pin },
    tokenDir,
    remove() {
      rmSync(dir, { recursive: true, force: true });
      if (previous === undefined) delete process.env.SOFTHSM2_CONF;
      else process.env.SOFTHSM2_CONF = previous;
    },
  };
}

type Binding = InstanceType<typeof pkcs11js.PKCS11>;

/**
 * Runs `look` on a session of its own, logged in to the token, through the binding directly
 * (for what the backend does not expose, such as the attributes of a private key object). Only
 * while no backend is open in the process: it initializes and finalizes the module itself.
 */
export function withTokenSession<T>(token: SoftHsmToken, look: (binding: Binding, session: Buffer) => T): T {
  const binding = new pkcs11js.PKCS11();
  binding.load(token.settings.module);
  binding.C_Initialize();
  try {
    const slot = binding.C_GetSlotList(true).find((s) => binding.C_GetTokenInfo(s).label.trimEnd() === token.settings.tokenLabel);
    if (!slot) throw new Error(`no token labelled ${token.settings.tokenLabel}`);
    const session = binding.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    binding.C_Login(session, pkcs11js.CKU_USER, token.settings.pin);
    return look(binding, session);
  } finally {
    binding.C_Finalize();
  }
}
