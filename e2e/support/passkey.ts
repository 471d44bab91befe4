/**
 * Passkeys in the journeys: Chromium's virtual authenticator (Chrome DevTools Protocol,
 * `WebAuthn` domain, https://chromedevtools.github.io/devtools-protocol/tot/WebAuthn/), which
 * answers `navigator.credentials.create()` / `get()` in the page without any UI, as a
 * platform authenticator with user verification (a fingerprint or screen lock) would.
 *
 * - {@link virtualAuthenticator}: one authenticator per page (CTAP2, internal transport,
 *   resident keys, user verification that always succeeds).
 * - {@link VirtualPasskey}: a passkey made here (an ECDSA P-256 key pair, COSE ES256) and put
 *   into a page's authenticator with `WebAuthn.addCredential`; its public key is stored as a
 *   user's factor directly in the e2e database, as if it had been registered. The shared
 *   sign-in helper (journey.ts) signs alice's factor step with {@link ALICE_PASSKEY}: unlike a
 *   TOTP code (accepted once per 30-s step), a passkey can sign in any number of times in a
 *   row, so the journeys never depend on the clock.
 *
 * The WebAuthn RP ID is the host name of AUTH_URL; browsers refuse an IP address as an RP ID
 * ("This is an invalid domain"), which is why the e2e server is at `localhost` (env.ts).
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import type { CDPSession, Page } from "@playwright/test";
import type { PrismaClient } from "../../server/src/generated/prisma/client.js";
import { TOLLGATE_URL } from "./env.js";

/** The WebAuthn RP ID of the e2e server: the host name of its URL. */
export const RP_ID = new URL(TOLLGATE_URL).hostname;

/** COSE key parameters (RFC 9052 §7, RFC 9053 §7.1.1): kty EC2, alg ES256, crv P-256. */
const COSE = { kty: 1, alg: 3, crv: -1, x: -2, y: -3, EC2: 2, ES256: -7, P256: 1 } as const;

/** A page's virtual authenticator, over the page's own CDP session. */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/** A credential as the CDP WebAuthn domain reports it (binary fields in standard base64). */
export interface CdpCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  userHandle?: string;
  signCount: number;
}

const authenticators = new WeakMap<Page, Promise<VirtualAuthenticator>>();

/**
 * The page's virtual authenticator, added on first use: CTAP2 over the internal transport (a
 * platform authenticator) holding resident (discoverable) credentials, with user
 * verification that succeeds. It stays with the page across navigations.
 */
export function virtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  let found = authenticators.get(page);
  if (!found) {
    found = (async () => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("WebAuthn.enable", { enableUI: false });
      const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      return { cdp, authenticatorId };
    })();
    authenticators.set(page, found);
  }
  return found;
}

/** The credentials the page's authenticator holds (e.g. the passkey a registration created). */
export async function authenticatorCredentials(page: Page): Promise<CdpCredential[]> {
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  return credentials;
}

/**
 * A passkey made in the test: a P-256 key pair and a random credential id, for the e2e RP ID.
 * The virtual authenticator counts signatures (WebAuthn §6.1.1) and the server refuses a
 * counter that did not go up, so the passkey carries its counter from page to page: each
 * use installs it with the last count and reads the new one back.
 */
export class VirtualPasskey {
  /** base64url, as `UserFactor.credentialId` stores it. */
  readonly credentialId = randomBytes(16).toString("base64url");
  /** base64url of the user handle (what the server puts in `user.id`: the user id's UTF-8 bytes); set by {@link bindTo}. */
  userHandle = "";
  /** The signature counter of the last use. */
  signCount = 0;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.#privateKey = privateKey;
    this.#publicKey = publicKey;
  }

  /** Makes it the passkey of the user with this id (its user handle). */
  bindTo(userId: string): this {
    this.userHandle = Buffer.from(userId, "utf8").toString("base64url");
    return this;
  }

  /** The COSE_Key of the public key (RFC 9052 §7, EC2 / ES256 / P-256), base64url: `UserFactor.publicKey`. */
  cosePublicKey(): string {
    const jwk = this.#publicKey.export({ format: "jwk" });
    const coordinate = (b64url: string | undefined) => new Uint8Array(Buffer.from(b64url ?? "", "base64url"));
    const key = new Map<number, number | Uint8Array>([
      [COSE.kty, COSE.EC2],
      [COSE.alg, COSE.ES256],
      [COSE.crv, COSE.P256],
      [COSE.x, coordinate(jwk.x)],
      [COSE.y, coordinate(jwk.y)],
    ]);
    return Buffer.from(isoCBOR.encode(key)).toString("base64url");
  }

  /** Stores it as a WebAuthn factor of `userId` (a device-bound passkey, as the server would after a registration). */
  async insertFactor(db: PrismaClient, userId: string, name: string): Promise<void> {
    this.bindTo(userId);
    await db.userFactor.create({
      data: {
        userId,
        type: "webauthn",
        name,
        credentialId: this.credentialId,
        publicKey: this.cosePublicKey(),
        counter: 0,
        deviceType: "singleDevice",
        transports: "internal",
      },
    });
  }

  /**
   * Puts it alone into the page's virtual authenticator, with its current counter: a sign-in
   * asks for any discoverable credential, and the authenticator would answer with the first of
   * several (another user's). A passkey used before is synced back first (syncFrom), so its
   * counter is kept.
   */
  async installOn(page: Page): Promise<void> {
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const credentialId = Buffer.from(this.credentialId, "base64url").toString("base64");
    await cdp.send("WebAuthn.clearCredentials", { authenticatorId });
    await cdp.send("WebAuthn.addCredential", {
      authenticatorId,
      credential: {
        credentialId,
        isResidentCredential: true,
        rpId: RP_ID,
        privateKey: this.#privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
        userHandle: Buffer.from(this.userHandle, "base64url").toString("base64"),
        signCount: this.signCount,
      },
    });
  }

  /** Reads the counter back from the page's authenticator after a use. */
  async syncFrom(page: Page): Promise<void> {
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const { credential } = await cdp.send("WebAuthn.getCredential", {
      authenticatorId,
      credentialId: Buffer.from(this.credentialId, "base64url").toString("base64"),
    });
    this.signCount = Math.max(this.signCount, credential.signCount);
  }
}

/**
 * alice's passkey in the journeys: stored as her factor by the `alicePasskey` fixture
 * (fixtures.ts), used by the shared sign-in helper for her factor step.
 */
export const ALICE_PASSKEY = new VirtualPasskey();

/**
 * The demo administrator's passkey in the journeys: stored as their factor by the
 * `adminPasskey` fixture (fixtures.ts), used by the console sign-in (console.ts) for their
 * factor step (ADMIN_REQUIRE_SCA: staff act in their role only after a second factor).
 */
export const ADMIN_PASSKEY = new VirtualPasskey();
