/**
 * In-memory stores for unit tests of the grants: the token, authorization code and user
 * stores of stores/; and a replay store for the unit tests of client assertions and DPoP proofs. They keep the contract the storage suite (server/test/stores.test.ts) checks on
 * the real databases, and run that suite too.
 */
import type { Psd2ConsentStore } from "../../src/stores/psd2-consents.js";
import type { AuthorizationCodeRecord, AuthorizationCodeStore, NewAuthorizationCode } from "../../src/stores/codes.js";
import type { Revocation, TokenRecord, TokenRow, TokenStore } from "../../src/stores/tokens.js";
import type { ReplayStore } from "../../src/stores/replays.js";
import type { UserRecord, UserStore } from "../../src/stores/users.js";
import type { CatalogStore } from "../../src/stores/catalog.js";

/** The stores the grants use (oauth/grants/grant.ts), in memory. */
export interface MemoryStores {
  tokens: TokenStore;
  codes: AuthorizationCodeStore;
  users: UserStore;
  /** No PSD2 consents: the grants under test here carry none. */
  psd2Consents: Psd2ConsentStore;
  /** No APIs: a `resource` names none here (server/test/jwt-access-tokens.test.ts runs resource indicators on the real server). */
  catalog: Pick<CatalogStore, "apiRoute">;
  /** The rows, for assertions. */
  readonly state: { tokens: Map<string, TokenRecord & { grantType: string; revokedAt: Date | null; revokedBy: string | null }>; codes: Map<string, AuthorizationCodeRecord & { codeHash: string }>; users: Map<string, UserRecord> };
}

const unsupported = (what: string) => () => {
  throw new Error(`${what} is not kept in memory`);
};

function row(t: MemoryStores["state"]["tokens"] extends Map<string, infer R> ? R : never): TokenRow {
  return {
    id: t.id,
    appId: t.appId,
    credentialId: t.credentialId,
    userId: t.userId,
    grantType: t.grantType,
    scope: t.scopes.join(" "),
    apiProducts: t.apiProducts.join(" "),
    status: t.status,
    issuedAt: t.issuedAt,
    expiresAt: t.expiresAt,
    refreshTokenStatus: t.refreshTokenStatus,
    refreshTokenExpiresAt: t.refreshTokenExpiresAt,
    refreshCount: t.refreshCount,
    jkt: t.jkt,
    x5t: t.x5t,
    authenticatedBy: t.authentication?.authenticatedBy ?? null,
    revokedAt: t.revokedAt,
    revokedBy: t.revokedBy,
  };
}

/** The change revoking an access token still approved: status, when and by whom (none for one already revoked). */
function revoked(t: { status: string }, { at, by }: Revocation) {
  return t.status === "approved" ? { status: "revoked", revokedAt: at, revokedBy: by } : {};
}

/** New, empty in-memory stores. @param users - users to start with. */
export function memoryStores(users: UserRecord[] = []): MemoryStores {
  const state: MemoryStores["state"] = { tokens: new Map(), codes: new Map(), users: new Map(users.map((u) => [u.id, u])) };
  const update = <K extends keyof MemoryStores["state"]>(map: K, id: string, change: object) => {
    const m = state[map] as Map<string, object>;
    m.set(id, { ...m.get(id)!, ...change });
  };

  const tokens: TokenStore = {
    async insert(t) {
      state.tokens.set(t.id, {
        id: t.id,
        tokenHash: t.tokenHash,
        refreshTokenHash: t.refresh?.tokenHash ?? null,
        appId: t.appId,
        credentialId: t.credentialId,
        userId: t.userId ?? null,
        username: t.userId ? (state.users.get(t.userId)?.username ?? null) : null,
        scopes: [...t.scopes],
        apiProducts: [...t.apiProducts],
        status: "approved",
        issuedAt: t.issuedAt,
        expiresAt: t.expiresAt,
        refreshTokenStatus: t.refresh ? "approved" : null,
        refreshTokenIssuedAt: t.refresh?.issuedAt ?? null,
        refreshTokenExpiresAt: t.refresh?.expiresAt ?? null,
        refreshCount: t.refreshCount ?? 0,
        familyId: t.familyId ?? null,
        jkt: t.jkt ?? null,
        x5t: t.x5t ?? null,
        authentication: t.authentication ?? null,
        consent: t.consent ?? null,
        authorizationDetails: t.consent ? JSON.parse(t.consent.authorizationDetails) : null,
        audience: t.audience ?? null,
        format: t.format,
        grantType: t.grantType,
        revokedAt: null,
        revokedBy: null,
      });
    },
    async byId(id) {
      return state.tokens.get(id);
    },
    async insertRedeemingCode(t, codeId, now) {
      if (state.codes.get(codeId)?.usedAt !== null) return false;
      update("codes", codeId, { usedAt: now });
      await tokens.insert(t);
      return true;
    },
    async insertRotating(t, previousId) {
      if (state.tokens.get(previousId)?.refreshTokenStatus !== "approved") return false;
      update("tokens", previousId, { refreshTokenStatus: "revoked" });
      await tokens.insert(t);
      return true;
    },
    async revokeFamily(familyId, revocation) {
      let n = 0;
      for (const t of state.tokens.values()) {
        if (t.familyId !== familyId || (t.status !== "approved" && t.refreshTokenStatus !== "approved")) continue;
        update("tokens", t.id, { ...revoked(t, revocation), refreshTokenStatus: "revoked" });
        n++;
      }
      return n;
    },
    async revokeAccessToken(id, revocation) {
      const t = state.tokens.get(id);
      if (t) update("tokens", id, revoked(t, revocation));
    },
    async revokeRow(id, revocation) {
      const t = state.tokens.get(id);
      if (!t) return undefined;
      update("tokens", id, { ...revoked(t, revocation), ...(t.refreshTokenStatus ? { refreshTokenStatus: "revoked" } : {}) });
      return row(state.tokens.get(id)!);
    },
    async countLive(owner, now) {
      return [...state.tokens.values()].filter((t) => (!owner.appId || t.appId === owner.appId) && (!owner.userId || t.userId === owner.userId) && t.status === "approved" && t.expiresAt > now).length;
    },
    async revokeTokensOf(owner, revocation) {
      let n = 0;
      for (const t of state.tokens.values()) {
        if ((owner.appId && t.appId !== owner.appId) || (owner.userId && t.userId !== owner.userId) || (owner.credentialId && t.credentialId !== owner.credentialId)) continue;
        if (t.status === "approved") n++;
        update("tokens", t.id, {
          ...revoked(t, revocation),
          ...(t.refreshTokenStatus === "approved" ? { refreshTokenStatus: "revoked" } : {}),
        });
      }
      return n;
    },
    deleteExpired: unsupported("deleteExpired"),
    list: unsupported("list"),
    async find(id) {
      const t = state.tokens.get(id);
      return t && row(t);
    },
    countIssued: unsupported("countIssued"),
    revokeConsent: unsupported("revokeConsent"),
    findByIdPrefix: unsupported("findByIdPrefix"),
  };

  const codes: AuthorizationCodeStore = {
    async insert(c: NewAuthorizationCode) {
      const id = `code${state.codes.size + 1}`;
      state.codes.set(id, { ...c, scopes: [...c.scopes], consent: c.consent ?? null, id, usedAt: null });
    },
    async byHash(codeHash) {
      return [...state.codes.values()].find((c) => c.codeHash === codeHash);
    },
    async byId(id) {
      return state.codes.get(id);
    },
    async deleteUnredeemed(owner) {
      for (const c of [...state.codes.values()]) {
        if (c.userId === owner.userId && (!owner.appId || c.appId === owner.appId) && c.usedAt === null) state.codes.delete(c.id);
      }
    },
    deleteSpent: unsupported("deleteSpent"),
  };

  const userStore: UserStore = {
    async byUsername(username) {
      return [...state.users.values()].find((u) => u.username === username);
    },
    async byId(id) {
      return state.users.get(id);
    },
    async isActive(id) {
      return state.users.get(id)?.status === "active";
    },
    list: unsupported("list"),
    create: unsupported("create"),
    setStatus: unsupported("setStatus"),
    setRole: unsupported("setRole"),
    setPassword: unsupported("setPassword"),
  };

  const psd2Consents: Psd2ConsentStore = {
    find: async () => undefined,
    create: unsupported("create"),
    answer: unsupported("answer"),
    transition: unsupported("transition"),
    reservePayment: unsupported("reservePayment"),
    settlePayment: unsupported("settlePayment"),
    list: unsupported("list"),
    summary: unsupported("summary"),
    deleteUnanswered: unsupported("deleteUnanswered"),
  };
  return { tokens, codes, users: userStore, psd2Consents, catalog: { apiRoute: async () => undefined }, state };
}

/** A replay store (stores/replays.ts) in a Map, that records each call for assertions. */
export function memoryReplays(): ReplayStore & { calls: { key: string; expiresAt: Date }[] } {
  const used = new Map<string, Date>();
  const calls: { key: string; expiresAt: Date }[] = [];
  return {
    calls,
    async firstUse(key, expiresAt, now) {
      calls.push({ key, expiresAt });
      const until = used.get(key);
      if (until && until > now) return false;
      used.set(key, expiresAt);
      return true;
    },
    async deleteExpired() {
      return 0;
    },
  };
}
