/**
 * Suite for the purge of expired data (server/src/maintenance/purge.ts): which rows
 * `purgeExpired` deletes and which it keeps, on the database of a real server; that a
 * token family's code outlives its expiry while the family can still be refreshed (checked
 * over HTTP); and that the scheduled purge runs on its own when the server starts.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { purgeExpired } from "../src/maintenance/purge.js";
import { hashSecret } from "../src/kernel/secrets.js";
import { expectOAuthError, request, TOKEN_ENDPOINT, tokenRequest, userTokens } from "./support/flow.js";
import { startTestServer, type TestServer } from "./support/server.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** What a purge that finds nothing counts. */
const NOTHING_PURGED = {
  tokens: 0,
  interactions: 0,
  sessions: 0,
  authorizationCodes: 0,
  auditEvents: 0,
  gatewayTraffic: 0,
  pushedRequests: 0,
  usedJtis: 0,
  unansweredConsents: 0,
  evidence: 0,
};

/** Retention of the tests that are not about it, days. */
const RETENTION = { auditDays: 30, evidenceDays: 30 };

const random = () => randomBytes(32).toString("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ids of the demo app, its credential and alice in a server's database. */
interface Owners {
  appId: string;
  credentialId: string;
  userId: string;
}

async function owners(server: TestServer): Promise<Owners> {
  const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: DEMO.app.consumerKey } });
  const user = await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } });
  return { appId: credential.appId, credentialId: credential.id, userId: user.id };
}

/** Row factories over one server's database. */
function rows(server: TestServer, o: Owners) {
  const db = server.prisma;
  return {
    interaction: async (expiresAt: Date) =>
      (await db.interaction.create({ data: { appId: o.appId, redirectUri: DEMO.callbackUrl, scope: "aisp", expiresAt } })).id,
    session: async (expiresAt: Date) => (await db.session.create({ data: { sidHash: random(), data: "{}", expiresAt } })).sidHash,
    code: async (expiresAt: Date, usedAt: Date | null = null) =>
      (
        await db.authorizationCode.create({
          data: { codeHash: random(), appId: o.appId, userId: o.userId, redirectUri: DEMO.callbackUrl, scope: "aisp", expiresAt, usedAt },
        })
      ).id,
    token: async (t: { expiresAt: Date; refreshExpiresAt?: Date; familyId?: string; status?: string }) =>
      (
        await db.accessToken.create({
          data: {
            tokenHash: random(),
            appId: o.appId,
            credentialId: o.credentialId,
            userId: t.refreshExpiresAt ? o.userId : null,
            grantType: t.refreshExpiresAt ? "authorization_code" : "client_credentials",
            scope: "aisp",
            apiProducts: "PSD2-AISP-v1",
            issuedAt: new Date(t.expiresAt.getTime() - HOUR),
            expiresAt: t.expiresAt,
            status: t.status ?? "approved",
            ...(t.refreshExpiresAt
              ? { refreshTokenHash: random(), refreshTokenIssuedAt: new Date(t.expiresAt.getTime() - HOUR), refreshTokenExpiresAt: t.refreshExpiresAt, refreshTokenStatus: "approved" }
              : {}),
            familyId: t.familyId ?? null,
          },
        })
      ).id,
    audit: async (at: Date) => (await db.auditEvent.create({ data: { type: "token.issued", actor: "purge-test", at } })).id,
    pushedRequest: async (expiresAt: Date) => (await db.pushedAuthorizationRequest.create({ data: { requestUriHash: random(), appId: o.appId, parameters: "{}", expiresAt } })).id,
    usedJti: async (expiresAt: Date) => (await db.usedJti.create({ data: { key: random(), expiresAt } })).key,
    psd2Consent: async (createdAt: Date, status: string) =>
      (await db.psd2Consent.create({ data: { appId: o.appId, kind: "payment_initiation", origin: "rar", status, requestedDetails: "[]", createdAt } })).id,
    evidence: async (createdAt: Date, psd2ConsentId: string | null = null) =>
      (
        await db.authorizationEvidence.create({
          data: { appId: o.appId, clientId: DEMO.app.consumerKey, userId: o.userId, psd2ConsentId, requestObject: "h.p.s", outcome: "code", createdAt },
        })
      ).id,
  };
}

describe("purgeExpired", () => {
  let server: TestServer;
  let o: Owners;

  beforeAll(async () => {
    // The schedule is off here, so only the direct calls of this suite purge.
    server = await startTestServer({ PURGE_INTERVAL_SECONDS: "0" });
    o = await owners(server);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("deletes exactly what expired and keeps every live row", async () => {
    const db = server.prisma;
    const make = rows(server, o);
    const now = new Date();
    const past = new Date(now.getTime() - HOUR);
    const future = new Date(now.getTime() + HOUR);
    const retentionDays = 30;
    const evidenceDays = 60;

    const before = {
      apps: await db.app.count(),
      credentials: await db.credential.count(),
      users: await db.user.count(),
      products: await db.apiProduct.count(),
      consents: await db.consent.count(),
      scopes: await db.scope.count(),
    };

    const interactions = { expired: await make.interaction(new Date(now.getTime() - 1000)), live: await make.interaction(future) };
    const sessions = { expired: await make.session(new Date(now.getTime() - 1000)), live: await make.session(future) };
    const pushed = { expired: await make.pushedRequest(new Date(now.getTime() - 1000)), live: await make.pushedRequest(future) };
    const jtis = { expired: await make.usedJti(new Date(now.getTime() - 1000)), live: await make.usedJti(future) };
    // A PSD2 consent the PSU never answered is deleted after a day; an answered one is kept.
    const psd2 = {
      unanswered: await make.psd2Consent(new Date(now.getTime() - DAY - MINUTE), "received"),
      awaiting: await make.psd2Consent(new Date(now.getTime() - DAY + MINUTE), "received"),
      answered: await make.psd2Consent(new Date(now.getTime() - 2 * DAY), "valid"),
    };
    // Evidence is kept the evidence retention past its consent's end (here: no consent, so from its making), and while its consent lasts.
    const evidence = {
      old: await make.evidence(new Date(now.getTime() - (evidenceDays + 1) * DAY)),
      inside: await make.evidence(new Date(now.getTime() - (evidenceDays - 1) * DAY)),
      ofLiveConsent: await make.evidence(new Date(now.getTime() - (evidenceDays + 1) * DAY), psd2.answered),
    };

    const codes = {
      /** Expired, never exchanged: no token family. */
      expiredNoFamily: await make.code(past),
      /** Expired and used, but its family is gone (no token rows). */
      expiredUsedNoFamily: await make.code(past, new Date(past.getTime() + 1000)),
      /** Expired; its family still holds a live refresh token (the refresh grant reads the code's scopes). */
      expiredLiveFamily: await make.code(past, new Date(past.getTime() + 1000)),
      /** Expired; its family's only token row is fully expired, so both go in the same run. */
      expiredDeadFamily: await make.code(past, new Date(past.getTime() + 1000)),
      live: await make.code(new Date(now.getTime() + MINUTE)),
    };

    const tokens = {
      ccExpired: await make.token({ expiresAt: past }),
      ccExpiredRevoked: await make.token({ expiresAt: past, status: "revoked" }),
      bothExpired: await make.token({ expiresAt: new Date(now.getTime() - 2 * DAY), refreshExpiresAt: past, familyId: codes.expiredDeadFamily }),
      accessExpiredRefreshLive: await make.token({ expiresAt: past, refreshExpiresAt: new Date(now.getTime() + 80 * DAY), familyId: codes.expiredLiveFamily }),
      ccLive: await make.token({ expiresAt: future }),
      accessLiveRefreshExpired: await make.token({ expiresAt: future, refreshExpiresAt: past }),
      revokedButLive: await make.token({ expiresAt: future, status: "revoked" }),
    };

    const audit = {
      old: await make.audit(new Date(now.getTime() - (retentionDays + 1) * DAY)),
      veryOld: await make.audit(new Date(now.getTime() - 400 * DAY)),
      justInside: await make.audit(new Date(now.getTime() - retentionDays * DAY + HOUR)),
      recent: await make.audit(now),
    };
    // Gateway traffic is kept 31 days (the dashboard's 30 and one), minute by minute: 110 old minutes drain in two batches.
    const minuteOf = (t: number) => new Date(Math.floor(t / MINUTE) * MINUTE);
    const trafficKept = [minuteOf(now.getTime() - 31 * DAY + HOUR), minuteOf(now.getTime())];
    const oldMinutes = 110;
    await server.db.traffic.add([
      ...Array.from({ length: oldMinutes }, (_, i) => ({ minute: minuteOf(now.getTime() - 31 * DAY - (i + 1) * MINUTE), api: "accounts", clientId: "purge", statusClass: 2, count: 1 })),
      ...trafficKept.map((minute) => ({ minute, api: "accounts", clientId: "purge", statusClass: 4, count: 3 })),
    ]);

    // More old events than one batch (500), to drain in several statements.
    const bulk = 1200;
    await db.auditEvent.createMany({
      data: Array.from({ length: bulk }, (_, i) => ({ type: "signin.failed", actor: "purge-bulk", at: new Date(now.getTime() - (retentionDays + 2) * DAY - i * 1000) })),
    });

    // Nothing is purged without a purge run (the schedule is off).
    await sleep(1100);
    expect(await db.accessToken.count({ where: { id: tokens.ccExpired } })).toBe(1);

    // A purge as of two hours ago with a long retention finds nothing yet: `now` is honoured.
    expect(await purgeExpired(server.db, new Date(now.getTime() - 2 * HOUR), { auditDays: 10_000, evidenceDays: 10_000 })).toEqual(NOTHING_PURGED);

    const counts = await purgeExpired(server.db, now, { auditDays: retentionDays, evidenceDays });
    expect(counts).toEqual({
      tokens: 3,
      interactions: 1,
      sessions: 1,
      authorizationCodes: 3,
      auditEvents: 2 + bulk,
      gatewayTraffic: oldMinutes,
      pushedRequests: 1,
      usedJtis: 1,
      unansweredConsents: 1,
      evidence: 1,
    });

    const ids = async <T extends { id: string }>(rowsOf: Promise<T[]>) => new Set((await rowsOf).map((r) => r.id));
    const tokenIds = await ids(db.accessToken.findMany({ select: { id: true } }));
    expect(tokenIds.has(tokens.ccExpired)).toBe(false);
    expect(tokenIds.has(tokens.ccExpiredRevoked)).toBe(false);
    expect(tokenIds.has(tokens.bothExpired)).toBe(false);
    expect(tokenIds.has(tokens.accessExpiredRefreshLive)).toBe(true);
    expect(tokenIds.has(tokens.ccLive)).toBe(true);
    expect(tokenIds.has(tokens.accessLiveRefreshExpired)).toBe(true);
    expect(tokenIds.has(tokens.revokedButLive)).toBe(true);

    const codeIds = await ids(db.authorizationCode.findMany({ select: { id: true } }));
    expect(codeIds.has(codes.expiredNoFamily)).toBe(false);
    expect(codeIds.has(codes.expiredUsedNoFamily)).toBe(false);
    expect(codeIds.has(codes.expiredDeadFamily)).toBe(false);
    expect(codeIds.has(codes.expiredLiveFamily)).toBe(true);
    expect(codeIds.has(codes.live)).toBe(true);

    const interactionIds = await ids(db.interaction.findMany({ select: { id: true } }));
    expect(interactionIds.has(interactions.expired)).toBe(false);
    expect(interactionIds.has(interactions.live)).toBe(true);

    const sessionIds = new Set((await db.session.findMany({ select: { sidHash: true } })).map((s) => s.sidHash));
    expect(sessionIds.has(sessions.expired)).toBe(false);
    expect(sessionIds.has(sessions.live)).toBe(true);

    const auditIds = await ids(db.auditEvent.findMany({ select: { id: true } }));
    expect(auditIds.has(audit.old)).toBe(false);
    expect(auditIds.has(audit.veryOld)).toBe(false);
    expect(auditIds.has(audit.justInside)).toBe(true);
    expect(auditIds.has(audit.recent)).toBe(true);
    expect(await db.auditEvent.count({ where: { actor: "purge-bulk" } })).toBe(0);
    expect((await db.gatewayTraffic.findMany({ where: { clientId: "purge" }, orderBy: { minute: "asc" } })).map((r) => [r.minute, r.count])).toEqual(trafficKept.map((m) => [m, 3]));

    expect(await ids(db.pushedAuthorizationRequest.findMany({ select: { id: true } }))).toEqual(new Set([pushed.live]));
    expect(new Set((await db.usedJti.findMany({ select: { key: true } })).map((r) => r.key))).toEqual(new Set([jtis.live]));
    expect(await ids(db.psd2Consent.findMany({ select: { id: true } }))).toEqual(new Set([psd2.awaiting, psd2.answered]));
    expect(await ids(db.authorizationEvidence.findMany({ select: { id: true } }))).toEqual(new Set([evidence.inside, evidence.ofLiveConsent]));

    // Live rows are untouched, not just present.
    const kept = await db.accessToken.findUniqueOrThrow({ where: { id: tokens.accessExpiredRefreshLive } });
    expect(kept.status).toBe("approved");
    expect(kept.refreshTokenStatus).toBe("approved");
    expect(kept.familyId).toBe(codes.expiredLiveFamily);

    // Nothing else was touched.
    expect({
      apps: await db.app.count(),
      credentials: await db.credential.count(),
      users: await db.user.count(),
      products: await db.apiProduct.count(),
      consents: await db.consent.count(),
      scopes: await db.scope.count(),
    }).toEqual(before);

    // A second run finds nothing more.
    expect(await purgeExpired(server.db, now, { auditDays: retentionDays, evidenceDays })).toEqual(NOTHING_PURGED);
  });

  it("deletes token rows and interactions in batches past the batch size", async () => {
    const db = server.prisma;
    const now = new Date();
    const past = new Date(now.getTime() - HOUR);
    const n = 1100;
    await db.accessToken.createMany({
      data: Array.from({ length: n }, () => ({
        tokenHash: random(),
        appId: o.appId,
        credentialId: o.credentialId,
        grantType: "client_credentials",
        issuedAt: new Date(past.getTime() - HOUR),
        expiresAt: past,
      })),
    });
    await db.interaction.createMany({ data: Array.from({ length: 600 }, () => ({ appId: o.appId, redirectUri: DEMO.callbackUrl, expiresAt: past })) });
    const counts = await purgeExpired(server.db, now, RETENTION);
    expect(counts.tokens).toBe(n);
    expect(counts.interactions).toBe(600);
    expect(await db.accessToken.count({ where: { expiresAt: { lt: now }, refreshTokenExpiresAt: null } })).toBe(0);
  });

  it("keeps a family's expired code so its live refresh token still refreshes over HTTP", async () => {
    const { tokens } = await userTokens(server.url, { client: DEMO.app, scope: "aisp extended_transaction_history" });
    const row = await server.prisma.accessToken.findFirstOrThrow({ where: { tokenHash: hashSecret(tokens.access_token) } });
    expect(row.familyId).not.toBeNull();
    // The access token and the code expire; the refresh token stays live.
    const past = new Date(Date.now() - HOUR);
    await server.prisma.accessToken.update({ where: { id: row.id }, data: { expiresAt: past } });
    await server.prisma.authorizationCode.update({ where: { id: row.familyId! }, data: { expiresAt: past } });

    const counts = await purgeExpired(server.db, new Date(), RETENTION);
    expect(counts.tokens).toBe(0);
    expect(counts.authorizationCodes).toBe(0);
    expect(await server.prisma.authorizationCode.count({ where: { id: row.familyId! } })).toBe(1);

    // The refresh grant still works and still knows the original grant (scope cannot widen past it).
    const refreshed = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.scope.split(" ").sort()).toEqual(["aisp", "extended_transaction_history"]);

    // Once the whole family is past its refresh expiry, the rows and the code go together.
    await server.prisma.accessToken.updateMany({ where: { familyId: row.familyId }, data: { expiresAt: past, refreshTokenExpiresAt: past } });
    const later = await purgeExpired(server.db, new Date(), RETENTION);
    expect(later.tokens).toBe(2);
    expect(later.authorizationCodes).toBe(1);
    expect(await server.prisma.authorizationCode.count({ where: { id: row.familyId! } })).toBe(0);
    // And the refresh token is simply unknown now.
    const gone = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token });
    await expectOAuthError(gone, 400, "invalid_grant");
  });
});

describe("scheduled purge", () => {
  let server: TestServer;

  afterAll(async () => {
    await server?.close();
  });

  it("runs on its own every PURGE_INTERVAL_SECONDS once the server has started", async () => {
    server = await startTestServer({ PURGE_INTERVAL_SECONDS: "1", AUDIT_RETENTION_DAYS: "1" });
    const o = await owners(server);
    const make = rows(server, o);
    const now = Date.now();
    const past = new Date(now - HOUR);
    const future = new Date(now + HOUR);

    const expired = {
      interaction: await make.interaction(past),
      session: await make.session(past),
      token: await make.token({ expiresAt: past }),
      code: await make.code(past),
      audit: await make.audit(new Date(now - 2 * DAY)),
    };
    const live = {
      interaction: await make.interaction(future),
      session: await make.session(future),
      token: await make.token({ expiresAt: future }),
      refreshLive: await make.token({ expiresAt: past, refreshExpiresAt: future }),
      code: await make.code(future),
      audit: await make.audit(new Date(now - DAY + HOUR)),
    };

    const remaining = async () => ({
      interaction: await server.prisma.interaction.count({ where: { id: expired.interaction } }),
      session: await server.prisma.session.count({ where: { sidHash: expired.session } }),
      token: await server.prisma.accessToken.count({ where: { id: expired.token } }),
      code: await server.prisma.authorizationCode.count({ where: { id: expired.code } }),
      audit: await server.prisma.auditEvent.count({ where: { id: expired.audit } }),
    });
    const gone = { interaction: 0, session: 0, token: 0, code: 0, audit: 0 };

    const deadline = Date.now() + 10_000;
    let seen = await remaining();
    while (JSON.stringify(seen) !== JSON.stringify(gone) && Date.now() < deadline) {
      await sleep(200);
      seen = await remaining();
    }
    expect(seen).toEqual(gone);

    expect(await server.prisma.interaction.count({ where: { id: live.interaction } })).toBe(1);
    expect(await server.prisma.session.count({ where: { sidHash: live.session } })).toBe(1);
    expect(await server.prisma.accessToken.count({ where: { id: { in: [live.token, live.refreshLive] } } })).toBe(2);
    expect(await server.prisma.authorizationCode.count({ where: { id: live.code } })).toBe(1);
    expect(await server.prisma.auditEvent.count({ where: { id: live.audit } })).toBe(1);

    // The server keeps answering while it purges.
    const health = await request(new URL("/healthz", server.url));
    expect(health.status).toBe(200);
  });

  it("purges once right at start, before the first interval elapses", async () => {
    // Rows written into the database before a start are gone shortly after it, even with
    // an interval far longer than the test.
    const dir = mkdtempSync(path.join(tmpdir(), "tollgate-purge-"));
    const DATABASE_URL = `file:${path.join(dir, "tollgate.db")}`;
    try {
      const first = await startTestServer({ DATABASE_URL, PURGE_INTERVAL_SECONDS: "0" });
      const make = rows(first, await owners(first));
      const past = new Date(Date.now() - HOUR);
      const tokenId = await make.token({ expiresAt: past });
      const interactionId = await make.interaction(past);
      await first.close();

      const second = await startTestServer({ DATABASE_URL, PURGE_INTERVAL_SECONDS: "3600" });
      try {
        const deadline = Date.now() + 10_000;
        let left = 2;
        while (left > 0 && Date.now() < deadline) {
          left = (await second.prisma.accessToken.count({ where: { id: tokenId } })) + (await second.prisma.interaction.count({ where: { id: interactionId } }));
          if (left > 0) await sleep(100);
        }
        expect(left).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
