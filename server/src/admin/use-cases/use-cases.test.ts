/**
 * The admin use cases against a scripted database that records every store call and the
 * transaction's outcome: each change, the revocations it takes and its audit event run in
 * one transaction, in the order that voids a racing code exchange, and a refused change
 * records nothing.
 */
import { describe, expect, it } from "vitest";
import { Conflict, NotFound } from "../../kernel/domain-errors.js";
import type { AuditEventInput } from "../../stores/audit.js";
import type { ConsentRow } from "../../stores/consents.js";
import type { Database, Stores } from "../../stores/index.js";
import { rotateCredential, setAppStatus } from "./apps.js";
import { revokeConsent, revokeMyConsent } from "./consents.js";
import { deleteOrganization } from "./organizations.js";
import { setUserStatus } from "./users.js";

const audit: AuditEventInput = { type: "admin.test", actor: "admin:admin", subject: "x", details: { args: { id: "x" } } };

/** Answers of the scripted store methods, by `store.method`; any other method resolves to undefined. */
type Script = Record<string, (...args: unknown[]) => unknown>;

/**
 * A database whose transaction runs `fn` on stores that log `store.method` and answer from
 * `script`; the log ends with "commit" or "rollback". It has no stores of its own: a use case
 * must use only the transaction's.
 */
function scriptedDatabase(script: Script = {}) {
  const log: string[] = [];
  const calls: Record<string, unknown[][]> = {};
  const store = (name: string) =>
    new Proxy(
      {},
      {
        get: (_t, method: string) =>
          async (...args: unknown[]) => {
            const key = `${name}.${method}`;
            log.push(key);
            (calls[key] ??= []).push(args);
            return script[key]?.(...args);
          },
      },
    );
  const stores = new Proxy({}, { get: (_t, name: string) => store(name) }) as Stores;
  const db = {
    async transaction<T>(fn: (stores: Stores) => Promise<T>): Promise<T> {
      try {
        const result = await fn(stores);
        log.push("commit");
        return result;
      } catch (err) {
        log.push("rollback");
        throw err;
      }
    },
  } as unknown as Database;
  return { db, log, calls };
}

const consent = (o: Partial<ConsentRow> = {}): ConsentRow => ({
  id: "consent1",
  userId: "alice",
  appId: "app1",
  scope: "aisp",
  revokedAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...o,
});

describe("admin use cases", () => {
  it("setUserStatus disabled: status, then codes deleted before tokens revoked, then the audit event, in one transaction", async () => {
    const { db, log, calls } = scriptedDatabase({ "users.setStatus": () => ({ id: "alice" }) });
    await setUserStatus(db, { userId: "alice", status: "disabled", audit });
    expect(log).toEqual(["users.setStatus", "codes.deleteUnredeemed", "tokens.revokeTokensOf", "audit.record", "commit"]);
    expect(calls["codes.deleteUnredeemed"]).toEqual([[{ userId: "alice" }]]);
    expect(calls["audit.record"]).toEqual([[audit]]);
  });

  it("setUserStatus active revokes nothing; an administrator disabling themselves is a Conflict that records nothing", async () => {
    const active = scriptedDatabase();
    await setUserStatus(active.db, { userId: "alice", status: "active", audit });
    expect(active.log).toEqual(["users.setStatus", "audit.record", "commit"]);

    const self = scriptedDatabase();
    await expect(setUserStatus(self.db, { userId: "admin1", status: "disabled", signedInUserId: "admin1", audit })).rejects.toThrow(Conflict);
    expect(self.log).toEqual(["rollback"]);
  });

  it("revokeConsent voids the user's codes, then tokens, at that app only, and records the event; an unknown consent is NotFound", async () => {
    const { db, log, calls } = scriptedDatabase({ "consents.revoke": () => consent() });
    await revokeConsent(db, { id: "consent1", audit });
    expect(log).toEqual(["consents.revoke", "codes.deleteUnredeemed", "tokens.revokeTokensOf", "audit.record", "commit"]);
    expect(calls["tokens.revokeTokensOf"]![0]![0]).toEqual({ userId: "alice", appId: "app1" });

    const unknown = scriptedDatabase();
    await expect(revokeConsent(unknown.db, { id: "nope", audit })).rejects.toThrow(NotFound);
    expect(unknown.log).toEqual(["consents.revoke", "rollback"]);
  });

  it("revokeMyConsent revokes only the user's own consent and records consent.revoked by the user about the app", async () => {
    const own = scriptedDatabase({ "consents.find": () => consent(), "consents.revoke": () => consent() });
    await revokeMyConsent(own.db, { id: "consent1", userId: "alice" });
    expect(own.log).toEqual(["consents.find", "consents.revoke", "codes.deleteUnredeemed", "tokens.revokeTokensOf", "audit.record", "commit"]);
    expect(own.calls["audit.record"]).toEqual([[{ type: "consent.revoked", actor: "user:alice", subject: "app1" }]]);

    const other = scriptedDatabase({ "consents.find": () => consent({ userId: "erin" }) });
    await expect(revokeMyConsent(other.db, { id: "consent1", userId: "alice" })).rejects.toThrow("no live consent of yours with this id");
    expect(other.log).toEqual(["consents.find", "rollback"]);
  });

  it("setAppStatus revoked revokes the app's tokens; approved does not", async () => {
    const adminMade = { id: "app1", registration: null, developerId: "dev1" };
    const revoked = scriptedDatabase({ "apps.find": () => adminMade, "apps.update": () => ({ id: "app1" }) });
    await setAppStatus(revoked.db, { appId: "app1", status: "revoked", audit });
    expect(revoked.log).toEqual(["apps.find", "apps.update", "tokens.revokeTokensOf", "audit.record", "commit"]);
    expect(revoked.calls["tokens.revokeTokensOf"]![0]![0]).toEqual({ appId: "app1" });
    expect(revoked.calls["apps.update"]![0]![1]).toEqual({ status: "revoked" });

    const approved = scriptedDatabase({ "apps.find": () => adminMade, "apps.update": () => ({ id: "app1" }) });
    await setAppStatus(approved.db, { appId: "app1", status: "approved", audit });
    expect(approved.log).toEqual(["apps.find", "apps.update", "audit.record", "commit"]);
  });

  it("setAppStatus of a registration frees its software id when revoked and takes it again when approved", async () => {
    const registered = { id: "app1", registration: JSON.stringify({ metadata: { softwareId: "sw-1" } }), developerId: "dev1" };
    const script = { "apps.find": () => registered, "organizations.findDeveloper": () => ({ id: "dev1", organizationId: "org1" }), "apps.update": () => ({ id: "app1" }) };
    const revoked = scriptedDatabase(script);
    await setAppStatus(revoked.db, { appId: "app1", status: "revoked", audit });
    expect(revoked.calls["apps.update"]![0]![1]).toEqual({ status: "revoked", software: null });
    const approved = scriptedDatabase(script);
    await setAppStatus(approved.db, { appId: "app1", status: "approved", audit });
    expect(approved.calls["apps.update"]![0]![1]).toEqual({ status: "approved", software: { organizationId: "org1", softwareId: "sw-1" } });
  });

  describe("rotateCredential", () => {
    const script = (status: string): Script => ({
      "apps.findCredential": () => ({ id: "cred1", appId: "app1", status }),
      "apps.productsOfCredential": () => [{ product: { id: "p1" }, status: "pending" }],
      "apps.addCredential": (_appId, c) => ({ id: "cred2", consumerKey: (c as { consumerKey: string }).consumerKey }),
      "apps.find": () => ({ id: "app1" }),
    });

    it("without grace revokes the old credential and its tokens; the new one keeps the products and their status", async () => {
      const { db, log, calls } = scriptedDatabase(script("approved"));
      const issued = await rotateCredential(db, { credentialId: "cred1", graceSeconds: 0, audit });
      expect(log).toEqual([
        "apps.findCredential",
        "apps.productsOfCredential",
        "apps.addCredential",
        "apps.updateCredential",
        "tokens.revokeTokensOf",
        "apps.find",
        "audit.record",
        "commit",
      ]);
      expect(calls["apps.addCredential"]![0]![1]).toMatchObject({ consumerKey: issued.consumerKey, products: [{ apiProductId: "p1", status: "pending" }] });
      expect(calls["apps.updateCredential"]![0]).toEqual(["cred1", { status: "revoked" }]);
      expect(calls["tokens.revokeTokensOf"]![0]![0]).toEqual({ credentialId: "cred1" });
      expect(issued.credential.consumerKey).toBe(issued.consumerKey);
      expect(issued.consumerSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(calls)).not.toContain(issued.consumerSecret);
    });

    it("with grace the old credential expires then and no token is revoked; a revoked credential is a Conflict", async () => {
      const { db, log, calls } = scriptedDatabase(script("approved"));
      const before = Date.now();
      await rotateCredential(db, { credentialId: "cred1", graceSeconds: 60, audit });
      expect(log).not.toContain("tokens.revokeTokensOf");
      const { expiresAt } = calls["apps.updateCredential"]![0]![1] as { expiresAt: Date };
      expect(expiresAt.getTime() - before).toBeGreaterThanOrEqual(60_000);
      expect(expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(60_000);

      const revoked = scriptedDatabase(script("revoked"));
      await expect(rotateCredential(revoked.db, { credentialId: "cred1", graceSeconds: 0, audit })).rejects.toThrow(Conflict);
      expect(revoked.log).toEqual(["apps.findCredential", "rollback"]);
    });
  });

  it("deleteOrganization with developers is a Conflict that records nothing", async () => {
    const { db, log } = scriptedDatabase({ "organizations.delete": () => false });
    await expect(deleteOrganization(db, { id: "org1", audit })).rejects.toThrow("the organization still has developers");
    expect(log).toEqual(["organizations.delete", "rollback"]);
  });
});
