/**
 * HTTP suite for the console's support tools (docs/getting-started.md → Supporting a user): a
 * blocked user's block (User.blockedUntil) and unblockUser; setTemporaryPassword and the new
 * password its user chooses at the next sign-in, on the console's sign-in and in an
 * authorization request, its expiry, and who may set one; a user's PSD2 consents and the PSD2
 * consents search; the audit log by request id and x-fapi-interaction-id, refusal rows with up to
 * 20 of each, and the global search finding a refusal from its interaction id. Hostile input
 * (unknown ids, oversized or malformed search text) gets a clear error, never a 500.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { adminBearer, expectNoInternals, firstError, sessionLogin, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { answerFactor, authorizeParams, authorizePath, basic, Browser, interactionIdFrom, json, read, request, TOKEN_ENDPOINT, type Json } from "./support/flow.js";
import { createPasswordOnlyApp, createUser, startTestServer, type TestServer, type TestUser } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;
let support: GraphQLClient;

beforeAll(async () => {
  // Three failures block a user; the refusal audit is flushed by the tests.
  server = await startTestServer({ SIGNIN_MAX_FAILURES_PER_USER: "3", SIGNIN_MAX_FAILURES_PER_IP: "1000", AUDIT_REFUSAL_FLUSH_SECONDS: "60", TEMPORARY_PASSWORD_HOURS: "72" });
  admin = await adminBearer(server.url);
  support = withSession(await signIn(server.url, await createUser(server, { prefix: "support", role: "support", passkey: true })));
}, 60_000);
afterAll(() => server?.close());

const USER = "query($id: ID!) { user(id: $id) { status blockedUntil temporaryPasswordUntil } }";
const UNBLOCK = "mutation($id: ID!) { unblockUser(id: $id) { id blockedUntil } }";
const TEMPORARY = "mutation($id: ID!) { setTemporaryPassword(id: $id) { password validUntil user { id temporaryPasswordUntil } } }";

/** `n` failed console sign-ins of `username`. */
async function failSignIns(username: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await sessionLogin(new Browser(server.url), { username, password: "not-the-password" });
}

describe("blocked users", () => {
  it("a user blocked by failed sign-ins shows blockedUntil; support unblocks them, audited, and they sign in again", async () => {
    const carol = await createUser(server, { prefix: "carol" });
    expect((await support.data(USER, { id: carol.id })).user.blockedUntil).toBeNull();
    await failSignIns(carol.username, 3);
    expect((await sessionLogin(new Browser(server.url), carol)).status).toBe(429);
    const { blockedUntil } = (await support.data(USER, { id: carol.id })).user;
    expect(Date.parse(blockedUntil) - Date.now()).toBeGreaterThan(800_000);

    expect((await support.data(UNBLOCK, { id: carol.id })).unblockUser).toEqual({ id: carol.id, blockedUntil: null });
    const event = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.unblockUser", subject: carol.id } });
    expect(event.actor).toMatch(/^admin:support-/);
    const details = JSON.parse(event.details);
    expect(details.args).toEqual({ id: carol.id });
    expect(Math.abs(Date.parse(details.blockedUntil) - Date.parse(blockedUntil))).toBeLessThan(2000);
    expect((await sessionLogin(new Browser(server.url), carol)).status).toBe(200);
  });

  it("an unknown user is NOT_FOUND", async () => {
    const answer = await support.post(UNBLOCK, { id: "no-such-user" });
    expect(firstError(answer)).toMatchObject({ code: "NOT_FOUND" });
    expectNoInternals(answer);
  });
});

/** Signs `user` in on the console's sign-in up to the new password step. @returns the browser and its CSRF token. */
async function toNewPasswordStep(user: TestUser, factor = false): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser(server.url);
  const login = await sessionLogin(browser, user);
  expect(login.status, login.text).toBe(200);
  if (!factor) {
    expect(login.body).toEqual({ user: null, stage: "password", csrfToken: expect.any(String) });
    return { browser, csrf: login.body.csrfToken as string };
  }
  expect(login.body.stage).toBe("factor");
  const answer = await read(await answerFactor(browser, "/session/factor", login.body.csrfToken as string, user.username));
  expect(answer.body).toEqual({ user: null, stage: "password", csrfToken: expect.any(String) });
  return { browser, csrf: answer.body.csrfToken as string };
}

describe("temporary passwords", () => {
  it("an admin sets one, shown once and stored hashed; at the sign-in the user chooses a new one, then is signed in", async () => {
    const bob = await createUser(server, { prefix: "bob" });
    const { setTemporaryPassword: set } = await admin.data(TEMPORARY, { id: bob.id });
    expect(set.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(Math.round((Date.parse(set.validUntil) - Date.now()) / 3_600_000)).toBe(72);
    expect(set.user).toEqual({ id: bob.id, temporaryPasswordUntil: set.validUntil });
    const row = await server.prisma.user.findUniqueOrThrow({ where: { id: bob.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    const event = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.setTemporaryPassword", subject: bob.id } });
    expect(event.details).not.toContain(set.password);
    // The old password no longer signs in.
    expect((await sessionLogin(new Browser(server.url), bob)).status).toBe(401);

    const { browser, csrf } = await toNewPasswordStep({ ...bob, password: set.password });
    // Not signed in before the new password.
    expect((await json(await browser.fetch("/session"))).user).toBeNull();
    expect((await json(await browser.fetch("/session"))).passwordChangePending).toBe(true);
    const post = (password: string) => browser.fetch("/session/password", { json: { password }, headers: { "X-CSRF-Token": csrf } }).then(read);
    expect(await post("short")).toMatchObject({ status: 400, body: { error: "invalid_request", error_description: expect.stringMatching(/at least 12 characters/) } });
    expect(await post(set.password)).toMatchObject({ status: 400, body: { error_description: expect.stringMatching(/not the temporary one/) } });
    const done = await post("bobs-own-new-password");
    expect(done.body).toEqual({ user: { username: bob.username, role: "user" }, csrfToken: expect.any(String) });
    expect((await server.prisma.user.findUniqueOrThrow({ where: { id: bob.id } })).temporaryPasswordUntil).toBeNull();
    expect(await server.prisma.auditEvent.count({ where: { type: "password.changed", actor: `user:${bob.id}` } })).toBe(1);
    // The new password signs in straight away; the temporary one no more.
    expect((await sessionLogin(new Browser(server.url), { ...bob, password: "bobs-own-new-password" })).body.user).toMatchObject({ username: bob.username });
    expect((await sessionLogin(new Browser(server.url), { ...bob, password: set.password })).status).toBe(401);
  });

  it("with a second factor the new password comes after it; in an authorization request, then the consent", async () => {
    const dana = await createUser(server, { prefix: "dana", passkey: true });
    const { password } = (await support.data(TEMPORARY, { id: dana.id })).setTemporaryPassword;
    await toNewPasswordStep({ ...dana, password }, true);

    // The same user in an authorization request (an app without SCA, so the factor is the account's own).
    const { password: again } = (await admin.data(TEMPORARY, { id: dana.id })).setTemporaryPassword;
    const app = await createPasswordOnlyApp(server);
    const browser = new Browser(server.url);
    const id = interactionIdFrom((await browser.fetch(authorizePath(authorizeParams(app)))).headers.get("location"));
    const { csrfToken } = await json(await browser.fetch(`/interaction/${id}`));
    const login = await json(await browser.fetch(`/interaction/${id}/login`, { json: { username: dana.username, password: again }, headers: { "X-CSRF-Token": csrfToken } }));
    expect(login.stage).toBe("factor");
    const factor = await read(await answerFactor(browser, `/interaction/${id}/factor`, login.csrfToken as string, dana.username));
    expect(factor.body).toEqual({ stage: "password", csrfToken: expect.any(String) });
    const chosen = await read(await browser.fetch(`/interaction/${id}/password`, { json: { password: "danas-new-password-1" }, headers: { "X-CSRF-Token": factor.body.csrfToken as string } }));
    expect(chosen.body).toMatchObject({ stage: "consent" });
    expect((await json(await browser.fetch(`/interaction/${id}`))).stage).toBe("consent");
  });

  it("an expired temporary password is refused like a wrong one", async () => {
    const erin = await createUser(server, { prefix: "erin" });
    const { password } = (await admin.data(TEMPORARY, { id: erin.id })).setTemporaryPassword;
    await server.prisma.user.update({ where: { id: erin.id }, data: { temporaryPasswordUntil: new Date(Date.now() - 1000) } });
    const answer = await sessionLogin(new Browser(server.url), { ...erin, password });
    expect(answer).toMatchObject({ status: 401, body: { error: "invalid_credentials", error_description: "The sign-in details are incorrect." } });
  });

  it("support may not set one for a staff account (FORBIDDEN), an admin may; an unknown user is NOT_FOUND", async () => {
    const auditor = await createUser(server, { prefix: "auditor", role: "auditor" });
    const refused = await support.post(TEMPORARY, { id: auditor.id });
    expect(firstError(refused)).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/staff account/) });
    expect((await server.prisma.user.findUniqueOrThrow({ where: { id: auditor.id } })).temporaryPasswordUntil).toBeNull();
    expect((await admin.data(TEMPORARY, { id: auditor.id })).setTemporaryPassword.user.id).toBe(auditor.id);
    const unknown = await admin.post(TEMPORARY, { id: "no-such-user" });
    expect(firstError(unknown)).toMatchObject({ code: "NOT_FOUND" });
    expectNoInternals(unknown);
  });

  it("the new password step without a pending sign-in is 409, with a short password 400", async () => {
    const browser = new Browser(server.url);
    const { csrfToken } = await json(await browser.fetch("/session"));
    const post = (password: string) => browser.fetch("/session/password", { json: { password }, headers: { "X-CSRF-Token": csrfToken } }).then(read);
    expect((await post("a-long-enough-password")).status).toBe(409);
    expect((await post("x".repeat(2000))).status).toBe(400);
  });
});

describe("PSD2 consents of a user, and their search", () => {
  let consentId: string;

  beforeAll(async () => {
    const alice = await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } });
    const app = await server.prisma.app.findFirstOrThrow({ where: { name: "Acme Budgeting" } });
    const consent = await server.prisma.psd2Consent.create({
      data: { appId: app.id, userId: alice.id, kind: "account_information", origin: "berlin_group", status: "valid", requestedDetails: "[]", approvedDetails: "[]" },
    });
    consentId = consent.id;
  });

  it("User.psd2Consents lists the consents the PSU gave", async () => {
    const alice = await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } });
    const { user } = await support.data("query($id: ID!) { user(id: $id) { psd2Consents { id appName kind status } } }", { id: alice.id });
    expect(user.psd2Consents).toContainEqual({ id: consentId, appName: "Acme Budgeting", kind: "account_information", status: "valid" });
  });

  it("psd2Consents(search) finds by consent id, PSU, consumer key and app name; the global search too", async () => {
    const ids = async (search: string) => ((await support.data("query($s: String) { psd2Consents(search: $s) { id } }", { s: search })).psd2Consents as Json[]).map((c) => c.id);
    for (const text of [consentId, "ALIC", DEMO.app.consumerKey.slice(0, 10), "acme budg"]) expect(await ids(text), text).toContain(consentId);
    expect(await ids("nobody-matches-this")).toEqual([]);
    // LIKE's wildcards are taken literally.
    expect(await ids("%")).toEqual([]);
    const { search } = await support.data("query($t: String!) { search(text: $t) { psd2Consents { id } } }", { t: consentId });
    expect(search.psd2Consents).toEqual([{ id: consentId }]);
  });

  it("an oversized search text is BAD_USER_INPUT", async () => {
    const answer = await support.post("query($s: String) { psd2Consents(search: $s) { id } }", { s: "x".repeat(5000) });
    expect(firstError(answer)).toMatchObject({ code: "BAD_USER_INPUT" });
    expectNoInternals(answer);
  });
});

describe("the audit log by request id and interaction id", () => {
  const EVENTS = "query($r: String, $i: String) { auditEvents(requestId: $r, interactionId: $i) { nodes { type count details app { name } } } }";

  it("a refusal is found from its x-fapi-interaction-id and request id; a grouped row keeps up to 20 of each", async () => {
    const wrong = basic(DEMO.app.consumerKey, `wrong-${randomBytes(4).toString("hex")}`);
    const sent: Array<{ requestId: string; interactionId: string }> = [];
    // Fewer than a minute apart in most runs; either way each request's row names it.
    for (let i = 0; i < 25; i++) {
      const interactionId = crypto.randomUUID();
      const res = await request(`${server.url}${TOKEN_ENDPOINT}`, {
        method: "POST",
        headers: { Authorization: wrong, "Content-Type": "application/x-www-form-urlencoded", "x-fapi-interaction-id": interactionId },
        body: "grant_type=client_credentials",
      });
      await res.arrayBuffer();
      expect(res.status).toBe(401);
      sent.push({ requestId: res.headers.get("x-request-id")!, interactionId });
      // Two flushes: the second's ids are added to the first's row.
      if (i === 9) await server.flushCounts();
    }
    await server.flushCounts();
    const first = sent[0]!;
    const byInteraction = (await support.data(EVENTS, { i: first.interactionId })).auditEvents.nodes as Json[];
    expect(byInteraction).toHaveLength(1);
    expect(byInteraction[0]).toMatchObject({ type: "client.authentication_failed", app: { name: "Acme Budgeting" } });
    expect((await support.data(EVENTS, { r: first.requestId })).auditEvents.nodes).toHaveLength(1);

    const rows = await server.prisma.auditEvent.findMany({ where: { type: "client.authentication_failed", actor: DEMO.app.consumerKey } });
    const kept = rows.flatMap((r) => JSON.parse(r.details).interaction_ids as string[]);
    // Each row keeps at most 20; every refusal of a row that had room is there.
    for (const r of rows) expect((JSON.parse(r.details).request_ids as string[]).length).toBeLessThanOrEqual(20);
    expect(kept).toContain(sent[12]!.interactionId);
    if (rows.length === 1) expect(kept).toEqual(sent.slice(0, 20).map((s) => s.interactionId));

    // The console's global search: the interaction id finds the refusal.
    const { search } = await support.data("query($t: String!) { search(text: $t) { auditEvents { type } } }", { t: sent[12]!.interactionId });
    expect(search.auditEvents).toEqual([{ type: "client.authentication_failed" }]);
  });

  it("an interaction id or request id that cannot be one is BAD_USER_INPUT", async () => {
    for (const variables of [{ i: "x".repeat(65) }, { r: "a b" }, { r: "" }]) {
      const answer = await support.post(EVENTS, variables);
      expect(firstError(answer, JSON.stringify(variables))).toMatchObject({ code: "BAD_USER_INPUT" });
      expectNoInternals(answer);
    }
    // A LIKE wildcard finds nothing it does not name.
    expect((await support.data(EVENTS, { r: "_" })).auditEvents.nodes).toEqual([]);
  });
});
