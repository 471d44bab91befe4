/**
 * The storage contract: what every implementation of the stores (stores/*.ts) must do,
 * written once and run on the database of this pass (SQLite, or PostgreSQL with
 * TEST_DATABASE=postgresql) and, for the stores the grants use, on the in-memory stores of
 * the grants' unit tests (support/memory-stores.ts). Then the database's transactions:
 * commit, rollback, and the guard against using the outer stores inside one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OuterStoreInTransaction } from "../src/db/database.js";
import { DEMO } from "../src/demo/seed.js";
import { Conflict, NotFound, UnknownReference } from "../src/kernel/domain-errors.js";
import { newId } from "../src/kernel/ids.js";
import { hashSecret } from "../src/kernel/secrets.js";
import type { AuthorizationCodeStore } from "../src/stores/codes.js";
import type { NewAccessToken, TokenStore } from "../src/stores/tokens.js";
import type { UserStore } from "../src/stores/users.js";
import { memoryStores } from "./support/memory-stores.js";
import { startTestServer, type TestServer } from "./support/server.js";

const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const LATER = new Date(NOW.getTime() + 60_000);
const HOUR = 3_600_000;

let server: TestServer;
/** Ids of demo rows the stored rows refer to. */
const ids = { appId: "", credentialId: "", userId: "", otherUserId: "" };

beforeAll(async () => {
  server = await startTestServer();
  const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: DEMO.app.consumerKey } });
  Object.assign(ids, {
    appId: credential.appId,
    credentialId: credential.id,
    userId: (await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } })).id,
    otherUserId: (await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.admin.username } })).id,
  });
});
afterAll(() => server?.close());

/** A token row of alice's at the demo app, with a refresh token, in family `familyId`. */
function newToken(o: Partial<NewAccessToken> = {}): NewAccessToken {
  return {
    id: newId(),
    tokenHash: hashSecret(newId()),
    appId: ids.appId,
    credentialId: ids.credentialId,
    userId: ids.userId,
    grantType: "authorization_code",
    scopes: ["aisp", "pisp"],
    apiProducts: ["PSD2-AISP-v1"],
    issuedAt: NOW,
    expiresAt: new Date(NOW.getTime() + HOUR),
    refresh: { tokenHash: hashSecret(newId()), issuedAt: NOW, expiresAt: new Date(NOW.getTime() + 24 * HOUR) },
    familyId: `family-${newId()}`,
    format: "opaque",
    ...o,
  };
}

type GrantStores = { tokens: TokenStore; codes: AuthorizationCodeStore; users: Pick<UserStore, "isActive"> };

describe.each<[string, () => GrantStores]>([
  ["the database", () => server.db],
  ["the in-memory stores", () => memoryStores([{ id: ids.userId, username: "alice", passwordHash: "", role: "user", status: "active", createdAt: NOW, name: null, givenName: null, familyName: null, email: null, emailVerified: false, temporaryPasswordUntil: null }])],
])("the grants' stores on %s", (_name, make) => {
  let s: GrantStores;
  beforeAll(() => {
    s = make();
  });

  it("tokens: a stored row reads back with its lists, dates and status", async () => {
    const t = newToken();
    await s.tokens.insert(t);
    expect(await s.tokens.byId(t.id)).toMatchObject({
      id: t.id,
      tokenHash: t.tokenHash,
      refreshTokenHash: t.refresh!.tokenHash,
      appId: ids.appId,
      userId: ids.userId,
      scopes: ["aisp", "pisp"],
      apiProducts: ["PSD2-AISP-v1"],
      status: "approved",
      issuedAt: NOW,
      expiresAt: t.expiresAt,
      refreshTokenStatus: "approved",
      refreshTokenExpiresAt: t.refresh!.expiresAt,
      refreshCount: 0,
      familyId: t.familyId,
      audience: null,
      format: "opaque",
    });
    expect(await s.tokens.byId(newId())).toBeUndefined();
    const jwt = newToken({ audience: ["http://localhost:3000/accounts", "http://localhost:3000/payments"], format: "jwt" });
    await s.tokens.insert(jwt);
    expect(await s.tokens.byId(jwt.id)).toMatchObject({ audience: ["http://localhost:3000/accounts", "http://localhost:3000/payments"], format: "jwt" });
  });

  it("tokens: a rotation stores the successor and revokes the refresh token once; a second stores nothing", async () => {
    const t = newToken();
    await s.tokens.insert(t);
    // A read before the rotation must not hide it afterwards (the token cache).
    await s.tokens.byId(t.id);
    const next = newToken({ familyId: t.familyId });
    expect(await s.tokens.insertRotating(next, t.id)).toBe(true);
    expect(await s.tokens.byId(t.id)).toMatchObject({ status: "approved", refreshTokenStatus: "revoked" });
    expect(await s.tokens.byId(next.id)).toMatchObject({ status: "approved", refreshTokenStatus: "approved", familyId: t.familyId });
    const again = newToken({ familyId: t.familyId });
    expect(await s.tokens.insertRotating(again, t.id)).toBe(false);
    expect(await s.tokens.byId(again.id)).toBeUndefined();
  });

  it("tokens: revoking a family revokes its every access and refresh token and no other", async () => {
    const familyId = `family-${newId()}`;
    const [a, b, other] = [newToken({ familyId }), newToken({ familyId }), newToken()];
    for (const t of [a, b, other]) await s.tokens.insert(t);
    // A read before the revocation must not hide it afterwards (the token cache).
    await s.tokens.byId(a.id);
    expect(await s.tokens.revokeFamily(familyId, { at: NOW, by: "system:refresh_token_reuse" })).toBe(2);
    for (const t of [a, b]) expect(await s.tokens.byId(t.id)).toMatchObject({ status: "revoked", refreshTokenStatus: "revoked" });
    for (const t of [a, b]) expect(await s.tokens.find(t.id)).toMatchObject({ revokedAt: NOW, revokedBy: "system:refresh_token_reuse" });
    expect((await s.tokens.byId(other.id))!.status).toBe("approved");
    expect(await s.tokens.find(other.id)).toMatchObject({ revokedAt: null, revokedBy: null });
    expect(await s.tokens.revokeFamily(familyId, { at: LATER, by: "admin:later" })).toBe(0);
  });

  it("tokens: revoking an access token leaves its refresh token; revoking the row revokes both", async () => {
    const t = newToken();
    await s.tokens.insert(t);
    await s.tokens.byId(t.id);
    await s.tokens.revokeAccessToken(t.id, { at: NOW, by: "client:budgeting" });
    expect(await s.tokens.byId(t.id)).toMatchObject({ status: "revoked", refreshTokenStatus: "approved" });
    // The first revocation of the access token is the one recorded.
    expect(await s.tokens.revokeRow(t.id, { at: LATER, by: "admin:alice" })).toMatchObject({
      id: t.id,
      status: "revoked",
      refreshTokenStatus: "revoked",
      revokedAt: NOW,
      revokedBy: "client:budgeting",
    });
    expect(await s.tokens.revokeRow(newId(), { at: NOW, by: "admin:alice" })).toBeUndefined();
  });

  it("codes: found by hash and id, redeemed once with its tokens, unredeemed ones deleted", async () => {
    const codeHash = hashSecret(newId());
    const expiresAt = new Date(NOW.getTime() + 60_000);
    await s.codes.insert({ codeHash, appId: ids.appId, userId: ids.userId, redirectUri: DEMO.callbackUrl, scopes: ["aisp"], codeChallenge: "c".repeat(43), codeChallengeMethod: "S256", dpopJkt: "jkt-1", nonce: "n-0S6_WzA2Mj", resource: ["http://localhost:3000/accounts"], authentication: { acr: "urn:tollgate:sca", amr: ["pwd", "otp", "mfa"], authTime: NOW }, expiresAt });
    const code = (await s.codes.byHash(codeHash))!;
    expect(code).toMatchObject({ appId: ids.appId, userId: ids.userId, scopes: ["aisp"], codeChallengeMethod: "S256", dpopJkt: "jkt-1", nonce: "n-0S6_WzA2Mj", resource: ["http://localhost:3000/accounts"], authentication: { acr: "urn:tollgate:sca", amr: ["pwd", "otp", "mfa"], authTime: NOW }, expiresAt, usedAt: null });
    expect(await s.codes.byId(code.id)).toEqual(code);
    const first = newToken({ familyId: code.id });
    expect(await s.tokens.insertRedeemingCode(first, code.id, NOW)).toBe(true);
    expect((await s.tokens.byId(first.id))!.familyId).toBe(code.id);
    const replay = newToken({ familyId: code.id });
    expect(await s.tokens.insertRedeemingCode(replay, code.id, NOW)).toBe(false);
    expect(await s.tokens.byId(replay.id)).toBeUndefined();
    const unused = hashSecret(newId());
    await s.codes.insert({ codeHash: unused, appId: ids.appId, userId: ids.userId, redirectUri: DEMO.callbackUrl, scopes: [], codeChallenge: null, codeChallengeMethod: null, dpopJkt: null, nonce: null, resource: null, authentication: null, expiresAt });
    await s.codes.deleteUnredeemed({ userId: ids.userId, appId: ids.appId });
    expect(await s.codes.byHash(unused)).toBeUndefined();
    expect((await s.codes.byId(code.id))!.usedAt).toEqual(NOW);
  });

  it("users: only an existing active user is active", async () => {
    expect(await s.users.isActive(ids.userId)).toBe(true);
    expect(await s.users.isActive(newId())).toBe(false);
  });
});

describe("the database's other stores", () => {
  it("tokens: revoking an owner's tokens counts access tokens and leaves other owners' alone", async () => {
    const mine = [newToken({ userId: ids.otherUserId }), newToken({ userId: ids.otherUserId })];
    const theirs = newToken();
    for (const t of [...mine, theirs]) await server.db.tokens.insert(t);
    expect(await server.db.tokens.revokeTokensOf({ userId: ids.otherUserId, appId: ids.appId }, { at: NOW, by: "user:other" })).toBe(2);
    expect(await server.db.tokens.find(mine[1]!.id)).toMatchObject({ revokedAt: NOW, revokedBy: "user:other" });
    expect(await server.db.tokens.byId(mine[0]!.id)).toMatchObject({ status: "revoked", refreshTokenStatus: "revoked" });
    expect((await server.db.tokens.byId(theirs.id))!.status).toBe("approved");
  });

  it("tokens: the purge deletes rows whose access and refresh tokens both expired, only", async () => {
    const past = new Date(NOW.getTime() - 48 * HOUR);
    const gone = newToken({ issuedAt: past, expiresAt: past, refresh: undefined });
    const refreshable = newToken({ issuedAt: past, expiresAt: past });
    for (const t of [gone, refreshable]) await server.db.tokens.insert(t);
    expect(await server.db.tokens.deleteExpired(new Date(NOW.getTime() - 24 * HOUR), 1000)).toBe(1);
    expect(await server.db.tokens.byId(gone.id)).toBeUndefined();
    expect(await server.db.tokens.byId(refreshable.id)).toBeDefined();
  });

  it("clients: by consumer key and credential id, the secret hash uncached, unknown keys undefined", async () => {
    const client = (await server.db.clients.byConsumerKey(DEMO.app.consumerKey))!;
    expect(client).toMatchObject({ clientId: DEMO.app.consumerKey, appId: ids.appId, appName: DEMO.app.name, appStatus: "approved", organizationName: DEMO.organization });
    expect(client.products.map((p) => p.name)).toEqual(["PSD2-AISP-v1", "PSD2-PIISP-v1", "PSD2-PISP-v1"]);
    expect(await server.db.clients.byCredentialId(ids.credentialId)).toEqual(client);
    expect(await server.db.clients.consumerSecretHash(DEMO.app.consumerKey)).toBe(hashSecret(DEMO.app.consumerSecret));
    expect(await server.db.clients.byConsumerKey("no-such-key")).toBeUndefined();
    expect(await server.db.clients.consumerSecretHash("no-such-key")).toBeUndefined();
    expect(await server.db.clients.appSummary(ids.appId)).toEqual({ name: DEMO.app.name, organizationName: DEMO.organization, status: "approved", refreshTokenLifetimeSeconds: 7_776_000 });
  });

  it("catalog: API routes by name and the described scopes", async () => {
    const route = (await server.db.catalog.apiRoute("accounts"))!;
    expect(route).toMatchObject({ name: "accounts", requiredScopes: ["aisp"], productNames: ["PSD2-AISP-v1"], passCookies: false });
    expect(route.upstream.basePath).toBe("");
    expect(await server.db.catalog.apiRoute("nope")).toBeUndefined();
    expect(await server.db.catalog.scopeNames()).toEqual(["admin", "aisp", "extended_transaction_history", "piisp", "pisp"]);
  });

  it("interactions: created, found, advanced once per stage, authenticated once, sent back to login", async () => {
    const i = await server.db.interactions.create({
      appId: ids.appId,
      redirectUri: DEMO.callbackUrl,
      scopes: ["aisp"],
      state: "s",
      codeChallenge: null,
      codeChallengeMethod: null,
      nonce: null,
      loginHint: "alice",
      uiLocales: "de-DE en",
      resource: ["http://localhost:3000/accounts"],
      dpopJkt: null,
      prompt: null,
      clientId: DEMO.app.consumerKey,
      responseMode: "query.jwt",
      requestObject: "h.p.s",
      identityProviderId: null,
      scaRequired: true,
      stage: "login",
      userId: null,
      authentication: null,
      expiresAt: new Date(NOW.getTime() + HOUR),
    });
    expect(i).toMatchObject({ loginHint: "alice", uiLocales: "de-DE en", resource: ["http://localhost:3000/accounts"], clientId: DEMO.app.consumerKey, responseMode: "query.jwt", requestObject: "h.p.s" });
    expect(await server.db.interactions.find(i.id)).toEqual(i);
    expect(await server.db.interactions.advance(i.id, "login", "factor")).toBe(true);
    const authentication = { amr: ["pwd", "otp", "mfa"], authTime: NOW };
    expect(await server.db.interactions.authenticate(i.id, "factor", "consent", ids.userId, authentication)).toBe(true);
    expect(await server.db.interactions.authenticate(i.id, "factor", "consent", ids.userId, authentication)).toBe(false);
    expect(await server.db.interactions.find(i.id)).toMatchObject({ stage: "consent", userId: ids.userId, scopes: ["aisp"], scaRequired: true, authentication });
    expect(await server.db.interactions.restartLogin(i.id, "consent")).toBe(true);
    expect(await server.db.interactions.find(i.id)).toMatchObject({ stage: "login", userId: null, authentication: null });
    expect(await server.db.interactions.advance(i.id, "login", "consent", ids.userId)).toBe(true);
    expect(await server.db.interactions.advance(i.id, "login", "consent", ids.userId)).toBe(false);
    expect(await server.db.interactions.find(i.id)).toMatchObject({ stage: "consent", userId: ids.userId });
  });

  it("consents: remembered scopes add up, a revoked consent grants none and is revoked once", async () => {
    const { consents } = server.db;
    await consents.remember(ids.otherUserId, ids.appId, ["aisp"]);
    await consents.remember(ids.otherUserId, ids.appId, ["pisp", "aisp"]);
    expect(await consents.scopesOf(ids.otherUserId, ids.appId)).toEqual(["aisp", "pisp"]);
    const [consent] = await consents.list({ userId: ids.otherUserId });
    expect(consent).toMatchObject({ userId: ids.otherUserId, appId: ids.appId, scope: "aisp pisp", revokedAt: null });
    expect((await consents.revoke(consent!.id, NOW))!.revokedAt).toEqual(NOW);
    expect(await consents.revoke(consent!.id, NOW)).toBeUndefined();
    expect(await consents.scopesOf(ids.otherUserId, ids.appId)).toEqual([]);
    expect(await consents.list({ userId: ids.otherUserId })).toEqual([]);
    expect(await consents.describeScopes(["aisp", "unknown"])).toEqual([
      { name: "aisp", description: "Read your account details, balances and transactions" },
      { name: "unknown", description: "unknown" },
    ]);
  });

  it("evidence: kept with its PSD2 consent or the PSU's scope consent, and deleted once made and ended before the retention cutoff", async () => {
    const { evidence, psd2Consents, consents, users } = server.db;
    const DAY = 24 * HOUR;
    const cutoff = new Date(NOW.getTime() - 5 * DAY);
    const old = new Date(NOW.getTime() - 10 * DAY);
    const psu = await users.create({ username: `psu-${newId()}`, passwordHash: "$argon2id$x", role: "user" });
    const details = JSON.stringify([{ type: "account_information" }]);
    const newConsent = () => psd2Consents.create({ appId: ids.appId, kind: "account_information", origin: "rar", requestedDetails: details, validUntil: new Date(NOW.getTime() + 30 * DAY) });
    const rejected = await newConsent();
    await psd2Consents.answer(rejected.id, { userId: psu.id, rejected: true }, new Date(NOW.getTime() - 8 * DAY));
    const open = await newConsent();
    const keep = (psd2ConsentId: string | null, createdAt: Date, outcome = "code") =>
      evidence.insert({ appId: ids.appId, clientId: DEMO.app.consumerKey, userId: psu.id, psd2ConsentId, requestObject: `req-${newId()}`, authorizationResponse: null, outcome, createdAt });

    await keep(null, old, "access_denied"); // no consent at all: kept the retention from its making
    await keep(rejected.id, old, "access_denied");
    await keep(open.id, old);
    await keep(null, NOW, "access_denied");
    await consents.remember(psu.id, ids.appId, ["aisp"]);
    await keep(null, old); // with the PSU's live scope consent
    const [scopeConsent] = await consents.list({ userId: psu.id });
    expect(await evidence.ofConsent(scopeConsent!.id)).toMatchObject([{ outcome: "code", consentId: scopeConsent!.id, psd2ConsentId: null }]);
    expect(await evidence.ofPsd2Consent(rejected.id)).toMatchObject([{ outcome: "access_denied", userId: psu.id, clientId: DEMO.app.consumerKey }]);

    // Ended before the cutoff: the consent-less one and the rejected consent's; the open and scope consents' stay, as does the recent one.
    expect(await evidence.deleteEnded(cutoff, 100)).toBe(2);
    expect(await evidence.ofPsd2Consent(rejected.id)).toEqual([]);
    expect(await evidence.ofPsd2Consent(open.id)).toHaveLength(1);
    expect(await evidence.ofConsent(scopeConsent!.id)).toHaveLength(1);
    await consents.revoke(scopeConsent!.id, new Date(NOW.getTime() - 6 * DAY));
    expect(await evidence.deleteEnded(cutoff, 100)).toBe(1);
    expect(await evidence.ofConsent(scopeConsent!.id)).toEqual([]);
    expect(await evidence.deleteEnded(new Date(NOW.getTime() + DAY), 100)).toBe(1); // the recent, consent-less one
    expect(await evidence.ofPsd2Consent(open.id)).toHaveLength(1);
  });

  it("users: found by name and id, a taken username is a Conflict, an unknown id a NotFound", async () => {
    const { users } = server.db;
    const bob = await users.create({ username: `bob-${newId()}`, passwordHash: "$argon2id$x", role: "user" });
    expect(await users.byUsername(bob.username)).toEqual(bob);
    expect(await users.byId(bob.id)).toEqual(bob);
    await expect(users.create({ username: bob.username, passwordHash: "x", role: "user" })).rejects.toBeInstanceOf(Conflict);
    expect((await users.setStatus(bob.id, "disabled")).status).toBe("disabled");
    expect(await users.isActive(bob.id)).toBe(false);
    await expect(users.setStatus(newId(), "disabled")).rejects.toBeInstanceOf(NotFound);
    const page = await users.list(bob.username.toUpperCase(), { first: 10 });
    expect(page.nodes.map((u) => u.id)).toEqual([bob.id]);
  });

  it("audit: events are appended with actor and subject cut to 200 code points, listed newest first", async () => {
    const actor = `client-${newId()}`;
    await server.db.audit.record({ type: "token.issued", actor, subject: "😀".repeat(300), details: { n: 1 } });
    await server.db.audit.record({ type: "token.revoked", actor });
    const page = await server.db.audit.list({ actor }, { first: 10 });
    expect(page.nodes.map((e) => e.type)).toEqual(["token.revoked", "token.issued"]);
    expect([...page.nodes[1]!.subject]).toHaveLength(200);
    expect(JSON.parse(page.nodes[1]!.details)).toEqual({ n: 1 });
  });

  it("sessions: written, read until expiry, touched, destroyed", async () => {
    const { sessions } = server.db;
    const sid = hashSecret(newId());
    await sessions.write(sid, '{"userId":"u"}', new Date(NOW.getTime() + HOUR));
    expect(await sessions.read(sid, NOW)).toBe('{"userId":"u"}');
    expect(await sessions.read(sid, new Date(NOW.getTime() + 2 * HOUR))).toBeUndefined();
    await sessions.touch(sid, new Date(NOW.getTime() + 3 * HOUR));
    expect(await sessions.read(sid, new Date(NOW.getTime() + 2 * HOUR))).toBe('{"userId":"u"}');
    await sessions.destroy(sid);
    expect(await sessions.read(sid, NOW)).toBeUndefined();
  });
  it("tokens: a token and its audit event are stored in one transaction, both or neither", async () => {
    const actor = `audited-${newId()}`;
    const events = () => server.prisma.auditEvent.findMany({ where: { actor } });
    const t = newToken();
    await server.db.tokens.insert(t, { type: "token.issued", actor });
    expect(await server.db.tokens.byId(t.id)).toBeDefined();
    expect((await events()).map((e) => e.type)).toEqual(["token.issued"]);
    // A token that cannot be stored (no such app) leaves no event either.
    await expect(server.db.tokens.insert(newToken({ appId: "no-such-app" }), { type: "token.issued", actor })).rejects.toThrow();
    // Nor does a rotation that finds its refresh token spent.
    expect(await server.db.tokens.insertRotating(newToken({ familyId: t.familyId }), newId(), { type: "token.refreshed", actor })).toBe(false);
    expect((await events()).map((e) => e.type)).toEqual(["token.issued"]);
    const next = newToken({ familyId: t.familyId });
    expect(await server.db.tokens.insertRotating(next, t.id, { type: "token.refreshed", actor })).toBe(true);
    expect((await events()).map((e) => e.type).sort()).toEqual(["token.issued", "token.refreshed"]);
  });

  it("tokens: a DPoP binding (cnf.jkt) is stored, read back and listed", async () => {
    const s = server.db;
    const token = newToken({ jkt: "j".repeat(43) });
    await s.tokens.insert(token);
    expect((await s.tokens.byId(token.id, true))?.jkt).toBe("j".repeat(43));
    expect((await s.tokens.find(token.id))?.jkt).toBe("j".repeat(43));
    const unbound = newToken();
    await s.tokens.insert(unbound);
    expect((await s.tokens.byId(unbound.id, true))?.jkt).toBeNull();
  });

  it("replays: a key is used once until it expires, then may be used again; the purge deletes expired ones", async () => {
    const s = server.db;
    const key = hashSecret(`replay-${newId()}`);
    const later = new Date(NOW.getTime() + 60_000);
    expect(await s.replays.firstUse(key, later, NOW)).toBe(true);
    expect(await s.replays.firstUse(key, later, NOW)).toBe(false);
    expect(await s.replays.firstUse(key, new Date(later.getTime() + 60_000), new Date(later.getTime() - 1))).toBe(false);
    expect(await s.replays.firstUse(key, new Date(later.getTime() + 60_000), later)).toBe(true);
    const old = hashSecret(`replay-${newId()}`);
    await s.replays.firstUse(old, new Date(NOW.getTime() - HOUR), new Date(NOW.getTime() - 2 * HOUR));
    expect(await s.replays.deleteExpired(NOW, 1000)).toBeGreaterThanOrEqual(1);
    expect(await s.replays.firstUse(old, later, NOW)).toBe(true);
    expect(await s.replays.firstUse(key, new Date(later.getTime() + 60_000), later)).toBe(false);
  });

  it("pushed requests: used once, by hash, before they expire; the purge deletes expired ones", async () => {
    const s = server.db;
    const fresh = hashSecret(`par-${newId()}`);
    const expired = hashSecret(`par-${newId()}`);
    const parameters = { client_id: DEMO.app.consumerKey, scope: "aisp", state: "s" };
    await s.pushedRequests.insert({ requestUriHash: fresh, appId: ids.appId, parameters, expiresAt: new Date(NOW.getTime() + 60_000) });
    await s.pushedRequests.insert({ requestUriHash: expired, appId: ids.appId, parameters, expiresAt: new Date(NOW.getTime() - 1) });
    expect(await s.pushedRequests.use(expired, NOW)).toBeUndefined();
    expect(await s.pushedRequests.use(fresh, NOW)).toEqual({ appId: ids.appId, parameters, expiresAt: new Date(NOW.getTime() + 60_000) });
    expect(await s.pushedRequests.use(fresh, NOW)).toBeUndefined();
    expect(await s.pushedRequests.use(hashSecret("unknown"), NOW)).toBeUndefined();
    expect(await s.pushedRequests.deleteExpired(NOW, 1000)).toBeGreaterThanOrEqual(1);
    expect(await server.prisma.pushedAuthorizationRequest.count({ where: { requestUriHash: expired } })).toBe(0);
  });
});

describe("the database's catalog management stores", () => {
  it("organizations and developers: created, found, listed, updated; one still in use is not deleted", async () => {
    const { organizations } = server.db;
    const org = await organizations.create({ name: `org-${newId()}`, displayName: "Org" });
    expect(await organizations.find(org.id)).toEqual(org);
    await expect(organizations.create({ name: org.name, displayName: "" })).rejects.toBeInstanceOf(Conflict);
    expect((await organizations.update(org.id, { displayName: "Org Ltd" })).displayName).toBe("Org Ltd");
    await expect(organizations.update(newId(), { displayName: "x" })).rejects.toBeInstanceOf(NotFound);
    const dev = await organizations.createDeveloper({ organizationId: org.id, email: `${newId()}@org.example`, firstName: "Ann", lastName: "Lee" });
    expect(await organizations.findDeveloper(dev.id)).toEqual(dev);
    expect(await organizations.developersOf(org.id)).toEqual([dev]);
    expect((await organizations.listDevelopers({ organizationId: org.id }, { first: 10 })).nodes).toEqual([dev]);
    // The search matches a substring of the email or the names, whatever the case; "%" is no wildcard.
    for (const search of ["ann", "LEE", dev.email.slice(2, 12).toUpperCase()]) {
      expect((await organizations.listDevelopers({ organizationId: org.id, search }, { first: 10 })).nodes, search).toEqual([dev]);
    }
    for (const search of ["Ann%Lee", "nobody-at-all"]) expect((await organizations.listDevelopers({ organizationId: org.id, search }, { first: 10 })).nodes).toEqual([]);
    await expect(organizations.createDeveloper({ organizationId: newId(), email: `${newId()}@x.example`, firstName: "", lastName: "" })).rejects.toBeInstanceOf(
      UnknownReference,
    );
    expect(await organizations.delete(org.id)).toBe(false);
    expect(await organizations.deleteDeveloper(dev.id)).toBe(true);
    expect(await organizations.delete(org.id)).toBe(true);
    expect(await organizations.find(org.id)).toBeUndefined();
  });

  it("products and APIs: created with their links, updated, listed both ways, deleted", async () => {
    const { products } = server.db;
    const api = await products.createApi({ name: `api-${newId()}`, upstreamUrl: "https://upstream.example/v1", requiredScopes: ["aisp"] });
    expect(api).toMatchObject({ upstreamUrl: "https://upstream.example/v1", requiredScopes: ["aisp"], passCookies: false });
    const product = await products.createProduct({ name: `P-${newId()}`, displayName: "P", scopes: ["aisp", "pisp"], apiIds: [api.id] });
    expect(product.scopes).toEqual(["aisp", "pisp"]);
    expect(await products.apisOfProduct(product.id)).toEqual([api]);
    expect(await products.productsOfApi(api.id)).toEqual([product]);
    const updated = await products.updateProduct(product.id, { scopes: ["pisp"], apiIds: [] });
    expect(updated.scopes).toEqual(["pisp"]);
    expect(await products.apisOfProduct(product.id)).toEqual([]);
    expect((await products.updateApi(api.id, { passCookies: true })).passCookies).toBe(true);
    expect((await products.listApis()).map((a) => a.id)).toContain(api.id);
    await products.deleteProduct(product.id);
    await products.deleteApi(api.id);
    expect((await products.listProducts()).map((p) => p.id)).not.toContain(product.id);
    await expect(products.deleteApi(api.id)).rejects.toBeInstanceOf(NotFound);
  });

  it("apps: created with callback URLs and a first credential, settings updated, credentials added and their products set", async () => {
    const { apps, organizations, products } = server.db;
    const [developer] = await organizations.developersOf((await organizations.list({ first: 1 })).nodes[0]!.id);
    const product = (await products.listProducts()).find((p) => p.name === "PSD2-AISP-v1")!;
    const { app, credential } = await apps.create({
      developerId: developer!.id,
      name: `app-${newId()}`,
      callbackUrls: ["https://tpp.example/cb"],
      tokenEndpointAuthMethods: ["client_secret_basic", "client_secret_post"],
      credential: { consumerKey: `key-${newId()}`, consumerSecretHash: hashSecret("s"), products: [{ apiProductId: product.id }] },
    });
    expect(app).toMatchObject({ status: "approved", requirePkce: true, tokenEndpointAuthMethods: ["client_secret_basic", "client_secret_post"] });
    expect(await apps.find(app.id)).toEqual(app);
    expect(await apps.callbackUrls(app.id)).toEqual(["https://tpp.example/cb"]);
    await apps.addCallbackUrl(app.id, "https://tpp.example/cb");
    await apps.addCallbackUrl(app.id, "https://tpp.example/cb2");
    await apps.removeCallbackUrl(app.id, "https://tpp.example/cb");
    expect(await apps.callbackUrls(app.id)).toEqual(["https://tpp.example/cb2"]);
    expect(await apps.update(app.id, { accessTokenLifetimeSeconds: 60, status: "revoked" })).toMatchObject({ accessTokenLifetimeSeconds: 60, status: "revoked" });
    await expect(apps.update(newId(), { status: "revoked" })).rejects.toBeInstanceOf(NotFound);
    expect(await apps.credentials(app.id)).toEqual([credential]);
    await expect(apps.addCredential(app.id, { consumerKey: credential.consumerKey, consumerSecretHash: hashSecret("t"), products: [] })).rejects.toBeInstanceOf(Conflict);
    await apps.setProductStatus(credential.id, product.id, "revoked");
    expect((await apps.productsOfCredential(credential.id)).map((p) => [p.product.name, p.status])).toEqual([["PSD2-AISP-v1", "revoked"]]);
    const expiresAt = new Date(NOW.getTime() + HOUR);
    expect(await apps.updateCredential(credential.id, { expiresAt })).toMatchObject({ expiresAt, status: "approved" });
    expect((await apps.list({ developerId: developer!.id, search: app.name.toUpperCase() }, { first: 10 })).nodes.map((a) => a.id)).toEqual([app.id]);
  });

  it("a catalog change reaches the cached client at once", async () => {
    const before = (await server.db.clients.byConsumerKey(DEMO.paymentsApp.consumerKey))!;
    await server.db.apps.update(before.appId, { accessTokenLifetimeSeconds: before.accessTokenLifetimeSeconds + 1 });
    expect((await server.db.clients.byConsumerKey(DEMO.paymentsApp.consumerKey))!.accessTokenLifetimeSeconds).toBe(before.accessTokenLifetimeSeconds + 1);
  });
});

describe("the database's transactions", () => {
  it("commit what the function did through the stores it is given, Prisma and direct SQL alike", async () => {
    const t = newToken();
    const actor = `tx-${newId()}`;
    await server.db.transaction(async (tx) => {
      await tx.tokens.insert(t);
      await tx.tokens.revokeTokensOf({ userId: ids.userId, appId: ids.appId, credentialId: "none" }, { at: NOW, by: actor });
      await tx.audit.record({ type: "token.issued", actor });
    });
    expect((await server.db.tokens.byId(t.id))!.status).toBe("approved");
    expect((await server.db.audit.list({ actor }, { first: 5 })).nodes).toHaveLength(1);
  });

  it("hold a store's own transaction as a savepoint of theirs", async () => {
    const t = newToken();
    const next = newToken({ familyId: t.familyId });
    await server.db.tokens.insert(t);
    await server.db.transaction(async (tx) => {
      expect(await tx.tokens.insertRotating(next, t.id)).toBe(true);
      expect(await tx.tokens.insertRotating(newToken(), t.id)).toBe(false);
    });
    expect((await server.db.tokens.byId(t.id))!.refreshTokenStatus).toBe("revoked");
    expect(await server.db.tokens.byId(next.id)).toBeDefined();
  });

  it("roll back everything when the function throws", async () => {
    const t = newToken();
    const actor = `tx-${newId()}`;
    const user = await server.db.users.create({ username: `carol-${newId()}`, passwordHash: "x", role: "user" });
    await expect(
      server.db.transaction(async (tx) => {
        await tx.tokens.insert(t);
        await tx.users.setStatus(user.id, "disabled");
        await tx.audit.record({ type: "token.issued", actor });
        throw new Error("abandon");
      }),
    ).rejects.toThrow("abandon");
    expect(await server.db.tokens.byId(t.id)).toBeUndefined();
    expect(await server.db.users.isActive(user.id)).toBe(true);
    expect((await server.db.audit.list({ actor }, { first: 5 })).nodes).toEqual([]);
  });

  it("refuse the outer stores inside the function (OuterStoreInTransaction) instead of deadlocking, and roll back", async () => {
    const t = newToken();
    await expect(
      server.db.transaction(async (tx) => {
        await tx.tokens.insert(t);
        await server.db.users.isActive(ids.userId);
      }),
    ).rejects.toBeInstanceOf(OuterStoreInTransaction);
    expect(await server.db.tokens.byId(t.id)).toBeUndefined();
    // The outer stores work again once the transaction is over.
    expect(await server.db.users.isActive(ids.userId)).toBe(true);
  });
});
