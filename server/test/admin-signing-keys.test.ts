/**
 * HTTP suite for the signing keys in the admin API (server/src/admin/resolvers/signing-keys.ts):
 * the list (never a private half), the rotation on demand (refused while the next key may not
 * sign yet, done once it may) with its audit event, and the access rules. A real server with
 * JWKS_MAX_AGE_SECONDS 0, so a next key may sign a minute (the reload interval) after it is
 * made; the test moves a next key's creation back rather than waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { RELOAD_SECONDS } from "../src/keys/keyring.js";
import type { SigningKeyRecord } from "../src/stores/signing-keys.js";
import { AUDIT_REQUEST_FIELDS, type Json } from "./support/flow.js";
import { adminSession, anonymous, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** A next key's lead on this server: JWKS_MAX_AGE_SECONDS (0) plus the reload interval. */
const LEAD_MS = RELOAD_SECONDS * 1000;

const SIGNING_KEYS = "{ signingKeys { kid alg backend state createdAt activatedAt retiredAt signedUntil signsFrom publicJwk } }";
const ROTATE = `mutation($alg: SigningAlgorithm!) {
  rotateSigningKey(alg: $alg) { alg promoted signsFrom keys { kid alg state activatedAt retiredAt signsFrom } }
}`;

let server: TestServer;
let admin: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer({ JWKS_MAX_AGE_SECONDS: "0" });
  await server.keyring.ready();
  admin = await adminSession(server.url);
});
afterAll(() => server?.close());

/** The stored key of `alg` in `state`. */
const stored = async (alg: string, state: string): Promise<SigningKeyRecord> => (await server.db.signingKeys.list()).find((k) => k.alg === alg && k.state === state)!;

/** The admin.rotateSigningKey events, oldest first. */
const rotationEvents = () => server.prisma.auditEvent.findMany({ where: { type: "admin.rotateSigningKey" }, orderBy: { at: "asc" } });

describe("signingKeys", () => {
  it("lists the current and next key of PS256 and ES256 with their dates and public JWK, never a private half", async () => {
    const answer = await admin.post(SIGNING_KEYS);
    expect(answer.body.errors, answer.text).toBeUndefined();
    const keys: Json[] = answer.body.data.signingKeys;
    const rows = await server.db.signingKeys.list();
    expect(keys.map((k) => k.kid)).toEqual(rows.map((k) => k.kid));
    expect(keys.map((k) => `${k.alg} ${k.state}`).sort()).toEqual(["ES256 current", "ES256 next", "PS256 current", "PS256 next"]);
    for (const key of keys) {
      const row = rows.find((r) => r.kid === key.kid)!;
      expect(key).toMatchObject({ backend: "envelope", createdAt: row.createdAt.toISOString(), retiredAt: null, signedUntil: row.signedUntil?.toISOString() ?? null });
      expect(JSON.parse(key.publicJwk)).toEqual(row.publicJwk);
      expect(JSON.parse(key.publicJwk)).not.toHaveProperty("d");
      expect(answer.text).not.toContain(row.privateRef.slice(0, 40));
      if (key.state === "next") expect(key).toMatchObject({ activatedAt: null, signsFrom: new Date(row.createdAt.getTime() + LEAD_MS).toISOString() });
      else expect(key).toMatchObject({ activatedAt: row.activatedAt!.toISOString(), signsFrom: null });
    }
  });

  it("has no privateRef field: asking for one fails validation", async () => {
    const failure = await admin.failure("{ signingKeys { kid privateRef } }");
    expect(failure.status).toBe(400);
    expect(failure.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });
});

describe("rotateSigningKey", () => {
  it("before the next key may sign: promotes nothing, says from when it may, and records the request", async () => {
    const before = await server.db.signingKeys.list();
    const next = await stored("PS256", "next");
    const { rotateSigningKey: rotation } = await admin.data(ROTATE, { alg: "PS256" });
    expect(rotation).toMatchObject({ alg: "PS256", promoted: false, signsFrom: new Date(next.createdAt.getTime() + LEAD_MS).toISOString() });
    expect(rotation.keys.map((k: Json) => k.kid)).toEqual(before.map((k) => k.kid));
    expect(await server.db.signingKeys.list()).toEqual(before);

    const events = await rotationEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: `admin:${DEMO.admin.username}`, subject: next.kid });
    expect(JSON.parse(events[0]!.details)).toEqual({ args: { alg: "PS256" }, created: [], promoted: [], removed: [], ...AUDIT_REQUEST_FIELDS });
  });

  it("once the next key may sign: makes it current, retires the current one, makes a new next key, and records it all", async () => {
    const current = await stored("ES256", "current");
    const next = await stored("ES256", "next");
    const ps256 = (await server.db.signingKeys.list()).filter((k) => k.alg === "PS256");
    await server.prisma.signingKey.update({ where: { kid: next.kid }, data: { createdAt: new Date(Date.now() - LEAD_MS - 1000) } });

    const { rotateSigningKey: rotation } = await admin.data(ROTATE, { alg: "ES256" });
    expect(rotation).toMatchObject({ alg: "ES256", promoted: true, signsFrom: null });
    const keys = await server.db.signingKeys.list();
    expect(rotation.keys.map((k: Json) => k.kid)).toEqual(keys.map((k) => k.kid));
    expect(keys.find((k) => k.kid === next.kid)).toMatchObject({ state: "current", activatedAt: expect.any(Date) });
    expect(keys.find((k) => k.kid === current.kid)).toMatchObject({ state: "retired", retiredAt: expect.any(Date) });
    const newNext = await stored("ES256", "next");
    expect([current.kid, next.kid]).not.toContain(newNext.kid);
    expect(keys.filter((k) => k.alg === "PS256")).toEqual(ps256);
    // The retired key is still listed (and published): what it signed may still be checked.
    const { signingKeys } = await admin.data(SIGNING_KEYS);
    expect(signingKeys.find((k: Json) => k.kid === current.kid)).toMatchObject({ state: "retired", retiredAt: expect.any(String), signsFrom: null });
    const jwks = (await (await fetch(`${server.url}/oauth2/v1/jwks`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual(keys.map((k) => k.kid).sort());

    const event = (await rotationEvents()).at(-1)!;
    expect(event).toMatchObject({ actor: `admin:${DEMO.admin.username}`, subject: next.kid });
    expect(JSON.parse(event.details)).toEqual({ args: { alg: "ES256" }, created: [newNext.kid], promoted: [next.kid], removed: [], ...AUDIT_REQUEST_FIELDS });
  });

  it("refuses a caller who is not signed in, or not an admin, as every admin field does, changing and recording nothing", async () => {
    const before = await server.db.signingKeys.list();
    const events = (await rotationEvents()).length;
    const alice = withSession(await signIn(server.url, DEMO.user));
    for (const [client, code] of [
      [anonymous(server.url), "UNAUTHENTICATED"],
      [alice, "FORBIDDEN"],
    ] as const) {
      for (const [query, field] of [
        [SIGNING_KEYS, "signingKeys"],
        [ROTATE, "rotateSigningKey"],
      ]) {
        const answer = await client.post(query, { alg: "PS256" });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.errors.map((e: Json) => [e.path, e.extensions.code])).toEqual([[[field], code]]);
        expect(answer.body.data).toBeNull();
      }
    }
    expect(await server.db.signingKeys.list()).toEqual(before);
    expect(await rotationEvents()).toHaveLength(events);
  });
});
