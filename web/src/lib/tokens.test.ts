import { describe, expect, it } from "vitest";
import { routes } from "./routes";
import { EMPTY_TOKEN_FILTER, hasTokenCriteria, readTokenFilter, revokedByText, tokenFilterQuery, tokenIdPrefix, tokenVariables } from "./tokens";

describe("who revoked a token, in words", () => {
  const CLIENT = "demo-budgeting-key";

  it("names an admin, the token's own client, an admin client, the end user", () => {
    expect(revokedByText("admin:alice", CLIENT)).toBe("by admin alice");
    expect(revokedByText(`client:${CLIENT}`, CLIENT)).toBe("by the client (RFC 7009)");
    expect(revokedByText("client:demo-admin-key", CLIENT)).toBe("by admin client demo-admin-key");
    expect(revokedByText("user:cm3x5k2ab0001abcdefabcdef", CLIENT)).toBe("by the end user (consent withdrawn)");
  });

  it("says why Tollgate revoked it", () => {
    expect(revokedByText("system:refresh_token_reuse", CLIENT)).toBe("automatically: refresh token reused");
    expect(revokedByText("system:code_replay", CLIENT)).toBe("automatically: authorization code used twice");
    expect(revokedByText("system:some_new_reason", CLIENT)).toBe("automatically: some new reason");
  });

  it("is empty when not recorded, and shows an actor of another kind as it is", () => {
    expect(revokedByText(null, CLIENT)).toBe("");
    expect(revokedByText("", CLIENT)).toBe("");
    expect(revokedByText(undefined, CLIENT)).toBe("");
    expect(revokedByText("admin:", CLIENT)).toBe("by an admin");
    expect(revokedByText("robot:r2", CLIENT)).toBe("by robot:r2");
  });
});

describe("a token's short id", () => {
  it("is the start of its id a refusal's token_id_prefix holds", () => {
    expect(tokenIdPrefix("cm3x5k2ab0001f00dfeedbeef1")).toBe("cm3x5k2ab0001");
    expect(tokenIdPrefix("short")).toBe("short");
  });
});

describe("the tokens page's filter in the URL", () => {
  it("reads every criterion, trimmed, the state in any case", () => {
    const params = new URLSearchParams({ state: "revoked", clientId: " demo-budgeting-key ", app: "app1", user: "user1" });
    expect(readTokenFilter(params)).toEqual({ filter: { state: "REVOKED", clientId: "demo-budgeting-key", appId: "app1", userId: "user1" }, badState: false });
  });

  it("leaves out, and says so, a state that is not one", () => {
    expect(readTokenFilter(new URLSearchParams({ state: "gone", clientId: "k" }))).toEqual({ filter: { ...EMPTY_TOKEN_FILTER, clientId: "k" }, badState: true });
    expect(readTokenFilter(new URLSearchParams("state=&app=%20"))).toEqual({ filter: EMPTY_TOKEN_FILTER, badState: false });
  });

  it("writes only the criteria given, in a fixed order, and reads back the same", () => {
    const filter = { ...EMPTY_TOKEN_FILTER, userId: "user1", state: "LIVE" as const, clientId: "k" };
    const query = tokenFilterQuery(filter);
    expect(query).toEqual({ state: "LIVE", clientId: "k", user: "user1" });
    expect(Object.keys(query)).toEqual(["state", "clientId", "user"]);
    expect(readTokenFilter(new URLSearchParams(query)).filter).toEqual(filter);
    expect(hasTokenCriteria(filter)).toBe(true);
    expect(hasTokenCriteria(EMPTY_TOKEN_FILTER)).toBe(false);
  });

  it("asks for tokens in every state unless one is chosen", () => {
    expect(tokenVariables(EMPTY_TOKEN_FILTER)).toEqual({ liveOnly: false });
    expect(tokenVariables({ state: "EXPIRED", clientId: "k", appId: "a", userId: "u" })).toEqual({ state: "EXPIRED", clientId: "k", appId: "a", userId: "u" });
  });

  it("links to the tokens page already filtered", () => {
    expect(routes.tokens()).toBe("/admin/tokens");
    expect(routes.tokens({ clientId: "demo-budgeting-key", state: "REVOKED" })).toBe("/admin/tokens?state=REVOKED&clientId=demo-budgeting-key");
    expect(routes.tokens({ appId: "a 1" })).toBe("/admin/tokens?app=a+1");
  });
});
