/**
 * Anonymous requests write no session (issue 13, L5): before a sign-in, a browser's CSRF
 * token and interactions live in a signed cookie; a session row is created by the sign-in;
 * valid authorization requests, which each write an interaction or a code, are limited per
 * client IP. Real server, real database, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { FLOW_COOKIE } from "../src/interaction/session.js";
import { Browser, answerFactor, authorizeParams, authorizePath, expectOAuthError, interactionIdFrom, json, request } from "./support/flow.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ AUTHORIZE_RATE_LIMIT_PER_IP: "5", TRUST_PROXY_HOPS: "1" });
});
afterAll(() => server?.close());

const sessionRows = () => server.prisma.session.count();

describe("before a sign-in nothing is stored for the browser (L5)", () => {
  it("100 cookie-less GET /session write no session row and set no session cookie", async () => {
    const before = await sessionRows();
    for (let i = 0; i < 100; i++) {
      const res = await request(new URL("/session", server.url));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { csrfToken: string }).csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.headers.getSetCookie().map((c) => c.split("=")[0])).toEqual([FLOW_COOKIE]);
    }
    expect(await sessionRows()).toBe(before);
  });

  it("cookie-less GET /authorize writes its interaction but no session row", async () => {
    const before = { sessions: await sessionRows(), interactions: await server.prisma.interaction.count() };
    for (let i = 0; i < 3; i++) {
      const res = await request(new URL(authorizePath(authorizeParams()), server.url), { headers: { "X-Forwarded-For": `10.0.0.${i}` } });
      expect(res.status).toBe(302);
    }
    expect(await sessionRows()).toBe(before.sessions);
    expect(await server.prisma.interaction.count()).toBe(before.interactions + 3);
  });

  it("the sign-in creates the one session row, and the browser's flow carries over", async () => {
    const before = await sessionRows();
    const browser = new Browser(server.url);
    const id = interactionIdFrom((await browser.fetch(authorizePath(authorizeParams()))).headers.get("location"));
    const { csrfToken } = await json(await browser.fetch(`/interaction/${id}`));
    expect(await sessionRows()).toBe(before);
    // The password step: the session row is created for the pending sign-in (alice's second factor is to come).
    const login = await browser.fetch(`/interaction/${id}/login`, { json: DEMO.user, headers: { "X-CSRF-Token": csrfToken } });
    const pending = await json(login);
    expect(login.status).toBe(200);
    expect(pending).toEqual({ stage: "factor", csrfToken: expect.any(String) });
    expect(await sessionRows()).toBe(before + 1);
    // The factor step renews the session: it replaces that row, it adds none.
    const factor = await answerFactor(browser, `/interaction/${id}/factor`, pending.csrfToken, DEMO.user.username);
    expect(factor.status).toBe(200);
    expect(await sessionRows()).toBe(before + 1);
    expect((await json(await browser.fetch(`/interaction/${id}`))).stage).toBe("consent");
  });

  it("a forged or altered flow cookie counts as none: its CSRF token and interactions are refused", async () => {
    const browser = new Browser(server.url);
    const id = interactionIdFrom((await browser.fetch(authorizePath(authorizeParams()))).headers.get("location"));
    const { csrfToken } = await json(await browser.fetch(`/interaction/${id}`));
    const [payload, mac] = browser.cookies.get(FLOW_COOKIE)!.split(".");
    const forged = Buffer.from(JSON.stringify({ c: "attacker-chosen-token", i: [id] })).toString("base64url");
    for (const cookie of [`${forged}.${mac}`, `${payload}.${mac!.slice(1)}x`, payload!, `${forged}.`]) {
      const other = new Browser(server.url);
      other.cookies.set(FLOW_COOKIE, cookie);
      expect((await other.fetch(`/interaction/${id}`)).status, cookie).toBe(403);
      const login = await other.fetch(`/interaction/${id}/login`, { json: DEMO.user, headers: { "X-CSRF-Token": csrfToken } });
      expect(login.status, cookie).toBe(403);
    }
  });
});

describe("authorization requests per client IP (L5)", () => {
  it("past AUTHORIZE_RATE_LIMIT_PER_IP valid requests a minute: 429 with Retry-After; refused requests do not count", async () => {
    const from = (ip: string, params = authorizeParams()) =>
      request(new URL(authorizePath(params), server.url), { headers: { "X-Forwarded-For": ip } });
    // An error page costs no write and no budget.
    for (let i = 0; i < 10; i++) expect((await from("10.0.1.1", authorizeParams(DEMO.app, { redirect_uri: "https://evil.example/cb" }))).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await from("10.0.1.1")).status).toBe(302);
    const interactions = await server.prisma.interaction.count();
    const limited = await from("10.0.1.1");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectOAuthError(limited, 429, "too_many_requests");
    expect(await server.prisma.interaction.count()).toBe(interactions);
    // Another address is not affected.
    expect((await from("10.0.1.2")).status).toBe(302);
  });
});
