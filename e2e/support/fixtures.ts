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
 */
import { test as base } from "@playwright/test";
import { openDatabase } from "../../server/src/db/database.js";
import type { PrismaClient } from "../../server/src/generated/prisma/client.js";
import { DEMO } from "../../server/src/demo/seed.js";
import { DATABASE_URL, TOLLGATE_URL } from "./env.js";
import { startRelyingParty, type RelyingParty } from "./relying-party.js";

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

export const test = base.extend<{ rp: RelyingParty; freshConsents: void }, { db: PrismaClient; relyingParty: RelyingParty }>({
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
