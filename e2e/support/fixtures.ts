/**
 * Playwright fixtures of the authorization code journeys.
 *
 * - `db` (worker): the project's own Prisma client (`openDatabase`) on the database the
 *   webServer runs on (e2e/support/env.ts); SQLite is in WAL mode, so this second
 *   connection and the server's coexist.
 * - `relyingParty` (worker): the relying party of relying-party.ts on its own free port,
 *   with its callback URL registered on the demo apps for the duration of the worker (the
 *   rows are removed afterwards).
 * - `rp` (test): the same relying party with its request log cleared.
 * - alice's remembered consents are deleted before every test (automatic), so that each
 *   journey starts from "alice never consented", whatever ran before it.
 * - `alicePasskey` (worker, automatic): alice's passkey (passkey.ts, ALICE_PASSKEY) stored as
 *   her WebAuthn factor, so the shared sign-in helper can answer her factor step (the PSD2
 *   products require strong customer authentication) any number of times in a row.
 * - `adminPasskey` (worker, automatic): the same for the demo administrator (ADMIN_PASSKEY),
 *   whose console sign-in asks for the second factor (ADMIN_REQUIRE_SCA).
 * - `newUser` (test): makes an end user of its own for a journey (a fresh name, a password, no
 *   factor), so that its factors, TOTP time steps and failed sign-ins touch no other journey.
 */
import { randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import { test as base } from "@playwright/test";
import { openDatabase } from "../../server/src/db/database.js";
import type { PrismaClient } from "../../server/src/generated/prisma/client.js";
import { DEMO } from "../../server/src/demo/seed.js";
import { DATABASE_URL, TOLLGATE_URL } from "./env.js";
import { ADMIN_PASSKEY, ALICE_PASSKEY } from "./passkey.js";
import { startRelyingParty, type RelyingParty } from "./relying-party.js";

/** An end user made for one journey. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
}

export { expect } from "@playwright/test";

/** The relying party's names of the demo apps (`/start?app=`). */
export const RP_APPS = {
  /** Acme Budgeting: the spec's (apigee) token format, PKCE optional: the RP sends none. */
  legacy: { ...DEMO.app, pkce: false },
  /** Acme Budgeting (RFC 6749): rfc6749 token format, PKCE required: the RP sends S256. */
  strict: { ...DEMO.strictApp, pkce: true },
} as const;

export type RpApp = keyof typeof RP_APPS;

/** Adds `url` as a registered callback URL of the apps with these client ids. @returns the new rows' ids. */
async function registerCallbackUrl(db: PrismaClient, url: string, clientIds: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const consumerKey of clientIds) {
    const credential = await db.credential.findUnique({ where: { consumerKey }, select: { appId: true } });
    if (!credential) throw new Error(`demo client ${consumerKey} is not in ${DATABASE_URL}: is the demo seeded?`);
    const row = await db.callbackUrl.create({ data: { appId: credential.appId, url }, select: { id: true } });
    ids.push(row.id);
  }
  return ids;
}

/** The id of a user of the e2e database. */
async function userId(db: PrismaClient, username: string): Promise<string> {
  const user = await db.user.findUnique({ where: { username }, select: { id: true } });
  if (!user) throw new Error(`user ${username} is not in ${DATABASE_URL}: is the demo seeded?`);
  return user.id;
}

export const test = base.extend<
  { rp: RelyingParty; freshConsents: void; newUser: (prefix: string) => Promise<TestUser> },
  { db: PrismaClient; relyingParty: RelyingParty; alicePasskey: void; adminPasskey: void }
>({
  db: [
    async ({}, use) => {
      const opened = await openDatabase(DATABASE_URL);
      await use(opened.prisma);
      await opened.close();
    },
    { scope: "worker" },
  ],

  relyingParty: [
    async ({ db }, use) => {
      const rp = await startRelyingParty({
        tollgateUrl: TOLLGATE_URL,
        clients: Object.fromEntries(
          Object.entries(RP_APPS).map(([name, app]) => [name, { clientId: app.consumerKey, clientSecret: app.consumerSecret, pkce: app.pkce }]),
        ),
        scope: "aisp",
        apiPath: "/accounts/",
      });
      const rows = await registerCallbackUrl(
        db,
        rp.callbackUrl,
        Object.values(RP_APPS).map((a) => a.consumerKey),
      );
      await use(rp);
      await db.callbackUrl.deleteMany({ where: { id: { in: rows } } });
      await rp.close();
    },
    { scope: "worker" },
  ],

  alicePasskey: [
    async ({ db }, use) => {
      await ALICE_PASSKEY.insertFactor(db, await userId(db, DEMO.user.username), "E2E passkey");
      await use();
      await db.userFactor.deleteMany({ where: { credentialId: ALICE_PASSKEY.credentialId } });
    },
    { scope: "worker", auto: true },
  ],

  adminPasskey: [
    async ({ db }, use) => {
      await ADMIN_PASSKEY.insertFactor(db, await userId(db, DEMO.admin.username), "E2E admin passkey");
      await use();
      await db.userFactor.deleteMany({ where: { credentialId: ADMIN_PASSKEY.credentialId } });
    },
    { scope: "worker", auto: true },
  ],

  newUser: async ({ db }, use) => {
    await use(async (prefix) => {
      const username = `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
      const password = `pw-${randomBytes(12).toString("base64url")}`;
      const user = await db.user.create({ data: { username, passwordHash: await hash(password), role: "user", status: "active" }, select: { id: true } });
      return { id: user.id, username, password };
    });
  },

  rp: async ({ relyingParty }, use) => {
    relyingParty.clearLog();
    await use(relyingParty);
  },

  freshConsents: [
    async ({ db }, use) => {
      await db.consent.deleteMany({ where: { user: { username: DEMO.user.username } } });
      await use();
    },
    { auto: true },
  ],
});
