/**
 * PSD2 strong customer authentication at sign-in (issue 16), against the running server:
 * two factors for the PSD2 products (RTS Art. 4), one verdict and one message, 5 failed
 * attempts then a block, no TOTP code accepted twice, WebAuthn assertions checked for
 * origin, RP id, user verification, counter and challenge, enrolment only after a fresh
 * sign-in, the inactivity limit before consent, prompt=login / max_age / acr_values, the
 * grant's acr / amr / auth_time in introspection, and the 180-day rule (RTS Art. 10a).
 */
import { hash } from "@node-rs/argon2";
import { generate, generateSecret } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACR_PASSWORD, ACR_SCA } from "../src/kernel/acr.js";
import { DEMO } from "../src/demo/seed.js";
import {
  authorizeParams,
  authorizePath,
  Browser,
  callbackParams,
  expectOAuthError,
  INTROSPECTION_ENDPOINT,
  interactionIdFrom,
  json,
  pkcePair,
  tokenRequest,
  TOKEN_ENDPOINT,
  userTokens,
  type DemoClient,
  type Json,
} from "./support/flow.js";
import { SoftwarePasskey } from "./support/passkey.js";
import { enrolPasskey, startTestServer, type TestServer } from "./support/server.js";

const PASSWORD = "correct horse battery staple";
const STEP_SECONDS = 30;

/** The TOTP code of `secret` at `offsetSteps` 30-s steps from now. */
function totp(secret: string, offsetSteps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * STEP_SECONDS });
}

let counter = 0;

/** A new active user with the test password and, if asked, a TOTP key and/or a passkey. */
async function newUser(server: TestServer, o: { totp?: boolean; passkey?: boolean; role?: string } = {}): Promise<{ username: string; secret: string; passkey?: SoftwarePasskey }> {
  const username = `psu-${++counter}-${Date.now().toString(36)}`;
  const user = await server.db.users.create({ username, passwordHash: await hash(PASSWORD), role: o.role ?? "user" });
  const secret = generateSecret();
  if (o.totp) await server.db.factors.insert({ type: "totp", userId: user.id, name: "Phone", secret, lastTimeStep: 0 }, new Date());
  const passkey = o.passkey ? await enrolPasskey(server, username) : undefined;
  return { username, secret, passkey };
}

/** GET /authorize in `browser`; @returns the interaction id and the browser's CSRF token. */
async function begin(browser: Browser, extra: Record<string, string> = {}, client: DemoClient = DEMO.app): Promise<{ id: string; csrf: string; view: Json }> {
  const start = await browser.fetch(authorizePath(authorizeParams(client, extra)));
  expect(start.status, await start.clone().text()).toBe(302);
  const id = interactionIdFrom(start.headers.get("location"));
  const view = await json(await browser.fetch(`/interaction/${id}`));
  return { id, csrf: view.csrfToken, view };
}

function post(browser: Browser, path: string, csrf: string, body: unknown): Promise<Response> {
  return browser.fetch(path, { json: body, headers: { "X-CSRF-Token": csrf } });
}

/** Password step of an interaction; @returns the answer's body (expects 200). */
async function password(browser: Browser, id: string, csrf: string, username: string, pw = PASSWORD): Promise<Json> {
  const res = await post(browser, `/interaction/${id}/login`, csrf, { username, password: pw });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** A WebAuthn challenge for this browser's pending sign-in or session. */
async function challenge(browser: Browser, csrf: string): Promise<Json> {
  const res = await post(browser, "/session/webauthn/authentication-options", csrf, {});
  expect(res.status).toBe(200);
  return (await json(res)).options;
}

describe("strong customer authentication", () => {
  let server: TestServer;
  let strictBrowser: Browser;

  beforeAll(async () => {
    // Every attempt here comes from 127.0.0.1: the per-IP limit is raised so that only the per-user one is under test.
    server = await startTestServer({ SIGNIN_MAX_FAILURES_PER_IP: "1000" });
    strictBrowser = new Browser(server.url);
  });
  afterAll(() => server.close());

  it("a PSD2 scope: the password leads to the factor step, never to consent; a TOTP code completes it; the grant carries acr, amr and auth_time (introspection, RFC 9470 §6.2)", async () => {
    const psu = await newUser(server, { totp: true });
    const browser = new Browser(server.url);
    const { id, csrf, view } = await begin(browser);
    expect(view).toMatchObject({ stage: "login", scaRequired: true });
    const signedIn = await password(browser, id, csrf, psu.username);
    expect(signedIn).toEqual({ stage: "factor", csrfToken: expect.any(String) });
    expect(await json(await browser.fetch(`/interaction/${id}`))).toMatchObject({ stage: "factor" });
    const consent = await post(browser, `/interaction/${id}/consent`, signedIn.csrfToken, { approve: true, scopes: ["aisp"] });
    expect(consent.status).toBe(409);

    const before = Math.floor(Date.now() / 1000);
    const factor = await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "totp", code: await totp(psu.secret) });
    const factored = await json(factor);
    expect(factor.status, JSON.stringify(factored)).toBe(200);
    expect(factored).toEqual({ stage: "consent", csrfToken: expect.any(String) });
    const approved = await json(await post(browser, `/interaction/${id}/consent`, factored.csrfToken, { approve: true, scopes: ["aisp"] }));
    const { code } = callbackParams(approved.redirectTo);
    const tokens = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl });
    expect(tokens.status).toBe(200);
    const introspected = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: tokens.body.access_token });
    expect(introspected.body).toMatchObject({ active: true, username: psu.username, acr: ACR_SCA, amr: ["pwd", "otp", "mfa"] });
    expect(introspected.body.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(introspected.body.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    const refresh = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: tokens.body.refresh_token });
    expect(refresh.body).toMatchObject({ acr: ACR_SCA, amr: ["pwd", "otp", "mfa"], auth_time: introspected.body.auth_time });
  });

  it("a passkey completes it too: amr hwk and user for a device-bound credential, swk for a synced one", async () => {
    const device = await newUser(server, { passkey: true });
    const { tokens } = await userTokens(server.url, { user: { username: device.username, password: PASSWORD } });
    const a = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: tokens.access_token });
    expect(a.body).toMatchObject({ acr: ACR_SCA, amr: ["pwd", "hwk", "user", "mfa"] });

    const synced = await newUser(server);
    const userId = (await server.db.users.byUsername(synced.username))!.id;
    const passkey = new SoftwarePasskey({ origin: server.authUrl, synced: true });
    await server.db.factors.insert(passkey.factor(userId), new Date());
    const browser = new Browser(server.url);
    const { id, csrf } = await begin(browser);
    const signedIn = await password(browser, id, csrf, synced.username);
    const response = passkey.assert(await challenge(browser, signedIn.csrfToken));
    const done = await json(await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "webauthn", response }));
    expect(done.stage).toBe("consent");
    const redirect = await json(await post(browser, `/interaction/${id}/consent`, done.csrfToken, { approve: true, scopes: ["aisp"] }));
    const { code } = callbackParams(redirect.redirectTo);
    const tokensB = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl });
    const b = await tokenRequest(server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token: tokensB.body.access_token });
    expect(b.body).toMatchObject({ acr: ACR_SCA, amr: ["pwd", "swk", "user", "mfa"] });
  });

  it("one message whichever element failed: a wrong password with the right code, the right password with a wrong code, an unknown user; each ends the attempt", async () => {
    const psu = await newUser(server, { totp: true });
    const answers: Json[] = [];
    for (const attempt of [
      { username: psu.username, pw: "wrong password", code: () => totp(psu.secret) },
      { username: psu.username, pw: PASSWORD, code: async () => "000000" },
      { username: `nobody-${Date.now()}`, pw: PASSWORD, code: () => totp(psu.secret) },
    ]) {
      const browser = new Browser(server.url);
      const { id, csrf } = await begin(browser);
      const signedIn = await password(browser, id, csrf, attempt.username, attempt.pw);
      expect(signedIn.stage, "the password step tells nothing").toBe("factor");
      const res = await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "totp", code: await attempt.code() });
      answers.push({ status: res.status, body: await json(res) });
      expect(await json(await browser.fetch(`/interaction/${id}`)), "the attempt is over: password again").toMatchObject({ stage: "login", user: null });
    }
    expect(answers[0]).toEqual({ status: 401, body: { error: "invalid_credentials", error_description: "The sign-in details are incorrect." } });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("5 consecutive failed attempts across factors (usernames case-folded), then a block naming its duration, audited; even the right password is refused meanwhile", async () => {
    const psu = await newUser(server, { totp: true, passkey: true });
    const since = new Date();
    for (let i = 0; i < 5; i++) {
      const browser = new Browser(server.url);
      const { id, csrf } = await begin(browser);
      // Attempts 3 and 4 name the account in capitals: no such account, but the same counter.
      const name = i === 2 || i === 3 ? psu.username.toUpperCase() : psu.username;
      const signedIn = await password(browser, id, csrf, name, i === 4 ? "wrong" : PASSWORD);
      const proof =
        i === 1
          ? { method: "webauthn", response: psu.passkey!.assert(await challenge(browser, signedIn.csrfToken), { tamperSignature: true }) }
          : { method: "totp", code: "999999" };
      const res = await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, proof);
      await expectOAuthError(res, 401, "invalid_credentials");
    }
    const browser = new Browser(server.url);
    const { id, csrf } = await begin(browser);
    const blocked = await post(browser, `/interaction/${id}/login`, csrf, { username: psu.username, password: PASSWORD });
    const body = await expectOAuthError(blocked, 429, "too_many_attempts");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(800);
    expect(body.error_description).toBe(`Too many failed sign-in attempts: sign-in is blocked for ${Math.ceil(retryAfter / 60)} minutes.`);
    const audit = await server.prisma.auditEvent.findMany({ where: { at: { gte: since }, type: { in: ["sca.failed", "sca.blocked"] } }, orderBy: { at: "asc" } });
    const mine = audit.filter((e) => JSON.parse(e.details).username?.toLowerCase() === psu.username);
    // The block is recorded right after the fifth failure, often within the same millisecond.
    const failures = mine.filter((e) => e.type === "sca.failed");
    const blocks = mine.filter((e) => e.type === "sca.blocked");
    expect(failures.map((e) => JSON.parse(e.details).failed)).toEqual(["totp", "webauthn", "account", "account", "password"]);
    expect(blocks).toHaveLength(1);
    expect(blocks[0].at.getTime()).toBeGreaterThanOrEqual(failures[4].at.getTime());
  });

  it("a TOTP code is accepted once: replayed within its window it fails", async () => {
    const psu = await newUser(server, { totp: true });
    const code = await totp(psu.secret);
    const results: number[] = [];
    for (let i = 0; i < 2; i++) {
      const browser = new Browser(server.url);
      const { id, csrf } = await begin(browser);
      const signedIn = await password(browser, id, csrf, psu.username);
      results.push((await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "totp", code })).status);
    }
    expect(results).toEqual([200, 401]);
  });

  it("codes of the wrong length or charset fail like a wrong code (401, counted); an oversized one is a 400 before any work", async () => {
    const malformed = (right: string) => ["", right.slice(1), `${right}0`, `${right.slice(0, 5)}a`, ` ${right}`, [...right].map((d) => String.fromCharCode(0xff10 + Number(d))).join(""), "١٢٣٤٥٦"];
    for (let i = 0; i < malformed("000000").length; i++) {
      // A user per code, each holding the right code's digits in the wrong form: no block builds up.
      const psu = await newUser(server, { totp: true });
      const code = malformed(await totp(psu.secret))[i]!;
      const browser = new Browser(server.url);
      const { id, csrf } = await begin(browser);
      const signedIn = await password(browser, id, csrf, psu.username);
      await expectOAuthError(await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "totp", code }), 401, "invalid_credentials");
    }
    const psu = await newUser(server, { totp: true });
    const right = await totp(psu.secret);
    const browser = new Browser(server.url);
    const { id, csrf } = await begin(browser);
    const signedIn = await password(browser, id, csrf, psu.username);
    await expectOAuthError(await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "totp", code: "1".repeat(33) }), 400, "invalid_request");
    await expectOAuthError(await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "sms", code: right }), 400, "invalid_request");
  });

  it("WebAuthn assertions with a wrong origin, RP id or challenge, without user verification, with a counter that did not go up, or replayed, fail", async () => {
    const psu = await newUser(server);
    const userId = (await server.db.users.byUsername(psu.username))!.id;
    const passkey = new SoftwarePasskey({ origin: server.authUrl, counter: 10 });
    await server.db.factors.insert(passkey.factor(userId), new Date());

    /** One attempt answering with `forge(options)`; @returns the factor answer's status. */
    async function attempt(forge: (options: Json) => unknown): Promise<number> {
      const browser = new Browser(server.url);
      const { id, csrf } = await begin(browser);
      const signedIn = await password(browser, id, csrf, psu.username);
      const response = forge(await challenge(browser, signedIn.csrfToken));
      return (await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "webauthn", response })).status;
    }
    expect(await attempt((o) => passkey.assert(o, { origin: "https://evil.example" }))).toBe(401);
    expect(await attempt((o) => passkey.assert(o, { rpId: "evil.example" }))).toBe(401);
    expect(await attempt((o) => passkey.assert(o, { userVerified: false }))).toBe(401);
    expect(await attempt((o) => passkey.assert(o, { challenge: Buffer.from("not the challenge").toString("base64url") }))).toBe(401);
    // A good sign-in (it clears the failure count and stores the counter), then counters that did not go up.
    expect(await attempt((o) => passkey.assert(o))).toBe(200);
    expect(await attempt((o) => passkey.assert(o, { counter: passkey.counter }))).toBe(401);
    expect(await attempt((o) => passkey.assert(o, { counter: 5 }))).toBe(401);
    expect(await attempt((o) => passkey.assert(o))).toBe(200);

    // The same assertion twice: the challenge was used up.
    const browser = new Browser(server.url);
    const { id, csrf } = await begin(browser);
    const signedIn = await password(browser, id, csrf, psu.username);
    const response = passkey.assert(await challenge(browser, signedIn.csrfToken));
    expect((await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "webauthn", response })).status).toBe(200);
    const again = new Browser(server.url);
    const second = await begin(again);
    const pending = await password(again, second.id, second.csrf, psu.username);
    expect((await post(again, `/interaction/${second.id}/factor`, pending.csrfToken, { method: "webauthn", response })).status).toBe(401);
  });

  it("a WebAuthn challenge needs a pending sign-in or a session", async () => {
    const browser = new Browser(server.url);
    const { csrf } = await begin(browser);
    await expectOAuthError(await post(browser, "/session/webauthn/authentication-options", csrf, {}), 403, "access_denied");
  });

  it("a user without a second factor never gets a code for a PSD2 scope: access_denied after the password", async () => {
    const psu = await newUser(server);
    const browser = new Browser(server.url);
    const { id, csrf, view } = await begin(browser);
    const answer = await password(browser, id, csrf, psu.username);
    const params = callbackParams(answer.redirectTo);
    expect(params.error).toBe("access_denied");
    expect(params.error_description).toBe(
      "strong customer authentication is required: the user has no second factor (an authenticator app or a passkey) set up",
    );
    expect(view.scaRequired).toBe(true);
  });

  it("the console's own sign-in asks for the second factor of an account that has one", async () => {
    const psu = await newUser(server, { totp: true });
    const browser = new Browser(server.url);
    const session = await json(await browser.fetch("/session"));
    const first = await json(await post(browser, "/session/login", session.csrfToken, { username: psu.username, password: PASSWORD }));
    expect(first).toEqual({ user: null, stage: "factor", csrfToken: expect.any(String) });
    expect(await json(await browser.fetch("/session"))).toMatchObject({ user: null, factorPending: true });
    const done = await post(browser, "/session/factor", first.csrfToken, { method: "totp", code: await totp(psu.secret) });
    expect(await json(done)).toEqual({ user: { username: psu.username, role: "user" }, csrfToken: expect.any(String) });
  });

  it("enrolment from the account: a TOTP key confirmed by its first code, a passkey registered, each listed and audited; removal needs a second factor now", async () => {
    const psu = await newUser(server, { totp: true });
    const browser = new Browser(server.url);
    const session = await json(await browser.fetch("/session"));
    const pending = await json(await post(browser, "/session/login", session.csrfToken, { username: psu.username, password: PASSWORD }));
    const { csrfToken: csrf } = await json(await post(browser, "/session/factor", pending.csrfToken, { method: "totp", code: await totp(psu.secret) }));

    const listed = await json(await browser.fetch("/session/factors"));
    expect(listed.factors).toEqual([{ id: expect.any(String), type: "totp", name: "Phone", createdAt: expect.any(String), lastUsedAt: expect.any(String) }]);
    expect(Date.parse(listed.freshUntil)).toBeGreaterThan(Date.now());

    const enrolment = await json(await post(browser, "/session/factors/totp", csrf, {}));
    expect(enrolment.otpauthUri).toBe(`otpauth://totp/Tollgate:${psu.username}?secret=${enrolment.secret}&issuer=Tollgate`);
    expect(enrolment.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(enrolment.qrCode.split(",")[1], "base64").toString()).toContain("<svg");
    await expectOAuthError(await post(browser, "/session/factors/totp/confirm", csrf, { code: "000000", name: "Tablet" }), 400, "invalid_code");
    const confirmed = await json(await post(browser, "/session/factors/totp/confirm", csrf, { code: await totp(enrolment.secret), name: "Tablet" }));
    expect(confirmed.factor).toMatchObject({ type: "totp", name: "Tablet" });

    const passkey = new SoftwarePasskey({ origin: server.authUrl });
    const options = (await json(await post(browser, "/session/factors/webauthn/registration-options", csrf, {}))).options;
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    const registered = await json(await post(browser, "/session/factors/webauthn", csrf, { response: passkey.register(options), name: "Laptop" }));
    expect(registered.factor).toMatchObject({ type: "webauthn", name: "Laptop" });
    const forged = (await json(await post(browser, "/session/factors/webauthn/registration-options", csrf, {}))).options;
    await expectOAuthError(
      await post(browser, "/session/factors/webauthn", csrf, { response: new SoftwarePasskey({ origin: server.authUrl }).register(forged, { origin: "https://evil.example" }) }),
      400,
      "invalid_registration",
    );

    // The new passkey signs in.
    const other = new Browser(server.url);
    const { id, csrf: c2 } = await begin(other);
    const signedIn = await password(other, id, c2, psu.username);
    const assertion = passkey.assert(await challenge(other, signedIn.csrfToken));
    expect((await json(await post(other, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "webauthn", response: assertion }))).stage).toBe("consent");

    // Removal: a wrong code is refused, a passkey assertion now removes the TOTP key "Tablet".
    await expectOAuthError(await post(browser, `/session/factors/${confirmed.factor.id}/remove`, csrf, { method: "totp", code: "000000" }), 401, "invalid_credentials");
    const response = passkey.assert(await challenge(browser, csrf));
    const after = await json(await post(browser, `/session/factors/${confirmed.factor.id}/remove`, csrf, { method: "webauthn", response }));
    expect(after.factors.map((f: Json) => f.name)).toEqual(["Phone", "Laptop"]);
    await expectOAuthError(await post(browser, "/session/factors/nosuchfactor/remove", csrf, { method: "totp", code: "000000" }), 404, "not_found");

    const userId = (await server.db.users.byUsername(psu.username))!.id;
    const events = await server.prisma.auditEvent.findMany({ where: { actor: `user:${userId}`, type: { startsWith: "factor." } }, orderBy: { at: "asc" } });
    expect(events.map((e) => [e.type, JSON.parse(e.details).type])).toEqual([
      ["factor.enrolled", "totp"],
      ["factor.enrolled", "webauthn"],
      ["factor.removed", "totp"],
    ]);
  });

  it("the 180-day rule (RTS Art. 10a): a refresh token of an SCA grant stops working 180 days after its SCA; a new authorization restarts the clock", async () => {
    const first = await userTokens(server.url);
    const refresh = (token: string) => tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: token });
    const rotated = await refresh(first.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const familyId = (await server.prisma.accessToken.findFirstOrThrow({ where: { refreshTokenStatus: "approved", familyId: { not: null } }, orderBy: { issuedAt: "desc" } })).familyId;
    await server.prisma.accessToken.updateMany({ where: { familyId }, data: { authTime: new Date(Date.now() - 181 * 86_400_000) } });
    const refused = await refresh(rotated.body.refresh_token);
    const body = await expectOAuthError(refused, 400, "invalid_grant");
    expect(body.error_description).toBe(
      "more than 180 days have passed since the user's last strong customer authentication: a new authorization is needed (PSD2 RTS Art. 10a)",
    );
    const fresh = await userTokens(server.url);
    expect((await refresh(fresh.tokens.refresh_token)).status).toBe(200);
  });

  it("metadata advertises the acr values, weakest first", async () => {
    const metadata = await json(await strictBrowser.fetch("/.well-known/oauth-authorization-server"));
    expect(metadata.acr_values_supported).toEqual([ACR_PASSWORD, ACR_SCA]);
  });
});

describe("sessions, prompt=login, max_age and acr_values (the admin scope needs no SCA)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    // Here the demo administrator is an account without a second factor, signing in with the password alone.
    await server.prisma.userFactor.deleteMany({ where: { user: { username: DEMO.admin.username } } });
  });
  afterAll(() => server.close());

  const { challenge: pkce } = pkcePair();
  const admin = { scope: "admin", code_challenge: pkce, code_challenge_method: "S256" };

  /** A browser signed in as the demo administrator (password only: no factor). */
  async function signedInAdmin(): Promise<Browser> {
    const browser = new Browser(server.url);
    const session = await json(await browser.fetch("/session"));
    const res = await post(browser, "/session/login", session.csrfToken, DEMO.admin);
    expect(res.status).toBe(200);
    return browser;
  }

  it("a recent session is reused for the consent page; prompt=login and an exceeded max_age force the login stage", async () => {
    const browser = await signedInAdmin();
    expect((await begin(browser, admin, DEMO.adminApp)).view).toMatchObject({ stage: "consent", user: { username: "admin" }, scaRequired: false });
    expect((await begin(browser, { ...admin, prompt: "login" }, DEMO.adminApp)).view).toMatchObject({ stage: "login", user: null });
    expect((await begin(browser, { ...admin, max_age: "3600" }, DEMO.adminApp)).view).toMatchObject({ stage: "consent" });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await begin(browser, { ...admin, max_age: "0" }, DEMO.adminApp)).view).toMatchObject({ stage: "login", user: null });
    const bad = await browser.fetch(authorizePath(authorizeParams(DEMO.adminApp, { ...admin, max_age: "-1" })));
    expect(callbackParams(bad.headers.get("location"))).toMatchObject({ error: "invalid_request", error_description: "max_age must be a non-negative number of seconds" });
  });

  it("acr_values=urn:tollgate:sca asks for two factors even where the scopes do not: an account without a factor is refused", async () => {
    const browser = new Browser(server.url);
    const { id, csrf, view } = await begin(browser, { ...admin, acr_values: `urn:example:other ${ACR_SCA}` }, DEMO.adminApp);
    expect(view).toMatchObject({ stage: "login", scaRequired: true });
    const answer = await password(browser, id, csrf, DEMO.admin.username, DEMO.admin.password);
    expect(callbackParams(answer.redirectTo)).toMatchObject({ error: "access_denied" });
    const plain = await begin(new Browser(server.url), { ...admin, acr_values: "urn:example:unknown" }, DEMO.adminApp);
    expect(plain.view.scaRequired).toBe(false);
  });

  it("prompt=none cannot do SCA: login_required", async () => {
    const browser = await signedInAdmin();
    const res = await browser.fetch(authorizePath(authorizeParams(DEMO.app, { prompt: "none" })));
    expect(callbackParams(res.headers.get("location"))).toMatchObject({ error: "login_required", error_description: "strong customer authentication is required" });
  });
});

describe("the inactivity limit (RTS Art. 4(3)(d)), shortened to 1 s", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SCA_IDLE_SECONDS: "1" });
  });
  afterAll(() => server.close());

  it("consent more than the limit after the SCA sends the user back to sign in; a denial still goes through", async () => {
    const psu = await newUser(server, { passkey: true });
    const browser = new Browser(server.url);
    const { id, csrf } = await begin(browser);
    const signedIn = await password(browser, id, csrf, psu.username);
    const response = psu.passkey!.assert(await challenge(browser, signedIn.csrfToken));
    const factored = await json(await post(browser, `/interaction/${id}/factor`, signedIn.csrfToken, { method: "webauthn", response }));
    expect(factored.stage).toBe("consent");
    await new Promise((r) => setTimeout(r, 1200));
    const late = await post(browser, `/interaction/${id}/consent`, factored.csrfToken, { approve: true, scopes: ["aisp"] });
    const body = await expectOAuthError(late, 401, "login_required");
    expect(body.error_description).toBe("You were inactive for more than 1 second after signing in. Sign in again.");
    expect(await json(await browser.fetch(`/interaction/${id}`))).toMatchObject({ stage: "login", user: null });
  });

  it("enrolling a factor needs a fresh sign-in", async () => {
    const psu = await newUser(server, { passkey: true });
    const browser = new Browser(server.url);
    const session = await json(await browser.fetch("/session"));
    const pending = await json(await post(browser, "/session/login", session.csrfToken, { username: psu.username, password: PASSWORD }));
    const response = psu.passkey!.assert(await challenge(browser, pending.csrfToken));
    const { csrfToken } = await json(await post(browser, "/session/factor", pending.csrfToken, { method: "webauthn", response }));
    await new Promise((r) => setTimeout(r, 1200));
    const stale = await post(browser, "/session/factors/totp", csrfToken, {});
    const body = await expectOAuthError(stale, 401, "login_required");
    expect(body.error_description).toBe("Sign in again to change your sign-in methods.");
    await expectOAuthError(await post(browser, "/session/factors/webauthn/registration-options", csrfToken, {}), 401, "login_required");
  });
});

describe("the 180-day rule turned off (SCA_REAUTHENTICATION_DAYS=0, e.g. the UK variant)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SCA_REAUTHENTICATION_DAYS: "0" });
  });
  afterAll(() => server.close());

  it("a refresh token keeps working past 180 days after the SCA", async () => {
    const { tokens } = await userTokens(server.url);
    await server.prisma.accessToken.updateMany({ data: { authTime: new Date(Date.now() - 400 * 86_400_000) } });
    const res = await tokenRequest(server.url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(res.status).toBe(200);
  });
});
