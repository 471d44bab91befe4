/**
 * HTTP suite for the idle limit of staff sessions (ADMIN_IDLE_SECONDS): a staff member's
 * session ends after that many seconds without a request, an end user's keeps the longer
 * SESSION_TTL_SECONDS, and `GET /session` tells the console the limit and that a session
 * ended for it. A real server with the demo seed; the time since the last request is made
 * to pass by moving the session's `activeAt` back in its stored row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import { json, type Browser, type Json } from "./support/flow.js";
import { adminBearer, signIn, withSession } from "./support/graphql.js";
import { createUser, startTestServer, type TestServer } from "./support/server.js";

const IDLE_SECONDS = 60;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_IDLE_SECONDS: String(IDLE_SECONDS) });
});

afterAll(async () => {
  await server?.close();
});

/** The stored row of `browser`'s session (its cookie is `s:<id>.<signature>`, stored by the id's SHA-256). */
function sessionRow(browser: Browser) {
  const cookie = decodeURIComponent(browser.sessionCookie ?? "");
  const sid = cookie.slice(2, cookie.lastIndexOf("."));
  return { sidHash: hashSecret(sid) };
}

/** The session's stored data. */
async function sessionData(browser: Browser): Promise<Record<string, unknown> | undefined> {
  const row = await server.prisma.session.findUnique({ where: sessionRow(browser) });
  return row ? (JSON.parse(row.data) as Record<string, unknown>) : undefined;
}

/** Makes `seconds` pass since the session's last request. */
async function idleFor(browser: Browser, seconds: number): Promise<void> {
  const data = await sessionData(browser);
  if (!data) throw new Error("no stored session");
  await server.prisma.session.update({ where: sessionRow(browser), data: { data: JSON.stringify({ ...data, activeAt: Math.floor(Date.now() / 1000) - seconds }) } });
}

/** `GET /session`: its status and body. */
async function session(browser: Browser): Promise<{ status: number; body: Json }> {
  const res = await browser.fetch("/session");
  return { status: res.status, body: await json(res) };
}

describe("staff sessions end after ADMIN_IDLE_SECONDS without a request", () => {
  it("tells the console the limit of a staff session, and none for an end user's", async () => {
    const admin = await signIn(server.url, DEMO.admin);
    expect((await session(admin)).body).toMatchObject({ user: { username: "admin", role: "admin" }, idleSeconds: IDLE_SECONDS });
    const user = await createUser(server, { prefix: "idle-psu" });
    const psu = await signIn(server.url, user);
    const answer = await session(psu);
    expect(answer.body).toMatchObject({ user: { username: user.username, role: "user" }, idleSeconds: null });
    expect(answer.body).not.toHaveProperty("endedIdle");
    expect(await sessionData(psu)).not.toHaveProperty("activeAt");
  });

  it("counts every request as activity, so a session used within the limit stays", async () => {
    const admin = await signIn(server.url, DEMO.admin);
    const console = withSession(admin);
    await idleFor(admin, IDLE_SECONDS - 5);
    expect((await console.data("{ me { username } }")).me.username).toBe("admin");
    const activeAt = (await sessionData(admin))?.activeAt as number;
    expect(Math.floor(Date.now() / 1000) - activeAt).toBeLessThanOrEqual(1);
    await idleFor(admin, IDLE_SECONDS - 5);
    expect((await console.data("{ apps { nodes { id } } }")).apps.nodes.length).toBeGreaterThan(0);
  });

  it("ends a session idle for longer: the next request is signed out, told once, and the stored session is gone", async () => {
    const admin = await signIn(server.url, DEMO.admin);
    await idleFor(admin, IDLE_SECONDS + 1);
    const idle = sessionRow(admin);
    const ended = await session(admin);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ user: null, idleSeconds: null, endedIdle: true });
    expect(await server.prisma.session.findUnique({ where: idle })).toBeNull();
    expect(await sessionData(admin)).not.toHaveProperty("userId");
    expect((await session(admin)).body).not.toHaveProperty("endedIdle");
  });

  it("refuses the admin API to a session idle for longer", async () => {
    const admin = await signIn(server.url, DEMO.admin);
    await idleFor(admin, IDLE_SECONDS + 1);
    const { code } = await withSession(admin).failure("{ apps { nodes { id } } }");
    expect(code).toBe("UNAUTHENTICATED");
    expect((await session(admin)).body).toMatchObject({ user: null });
  });

  it("a role change ends the user's sessions: a PSU made staff signs in again, into a session with the limit", async () => {
    const user = await createUser(server, { prefix: "idle-promoted" });
    const before = await signIn(server.url, user);
    expect((await session(before)).body).toMatchObject({ user: { role: "user" }, idleSeconds: null });
    await (await adminBearer(server.url)).data("mutation($id: ID!) { setUserRole(userId: $id, role: auditor) { role } }", { id: user.id });
    expect((await session(before)).body).toMatchObject({ user: null });
    const after = await signIn(server.url, user);
    expect((await session(after)).body).toMatchObject({ user: { role: "auditor" }, idleSeconds: IDLE_SECONDS });
  });
});
