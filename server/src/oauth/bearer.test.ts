/**
 * bearerToken: RFC 6750 §2.1
 * (`credentials = "Bearer" 1*SP b64token`) and the §3.1 challenge for a missing token.
 */
import { describe, expect, it } from "vitest";
import { BearerError } from "../kernel/errors.js";
import { bearerToken } from "./bearer.js";

/** The BearerError `bearerToken` throws for `header`. @throws when it throws nothing or something else. */
function refusal(header: string | undefined): BearerError {
  try {
    bearerToken(header, "tollgate");
  } catch (err) {
    expect(err).toBeInstanceOf(BearerError);
    return err as BearerError;
  }
  return expect.unreachable();
}

const TOKEN = "cl3x9abcdEFGH-._~+/0123456789";

describe("bearerToken (RFC 6750 §2.1)", () => {
  it.each(["Bearer", "bearer", "BEARER", "BearerToken", "bearertoken", "BEARERTOKEN", "bEaReRtOkEn"])("takes the token after the %s scheme", (scheme) => {
    expect(bearerToken(`${scheme} ${TOKEN}`, "tollgate")).toBe(TOKEN);
  });

  it.each(["Basic Zm9vOmJhcg==", "Token abc", "BearerTokens abc", "Bearer-Token abc", "Bearer_Token abc", "Bearertoken2 abc", "XBearer abc"])(
    "refuses %s with 401 and a challenge without error code (another scheme)",
    (header) => {
      const err = refusal(header);
      expect(err.status).toBe(401);
      expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate"');
    },
  );

  it.each(["BearerToken", "BearerToken ", "BearerToken a b", "bearertoken !!"])("refuses the malformed %j with 401 invalid_token", (header) => {
    const err = refusal(header);
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_token");
  });
});

describe("bearerToken: no credentials (RFC 6750 §3.1)", () => {
  it.each([undefined, ""])("answers %j with 401 and a challenge naming only the realm", (header) => {
    const err = refusal(header);
    expect(err.status).toBe(401);
    expect(err.headers).toEqual({ "WWW-Authenticate": 'Bearer realm="tollgate"' });
  });
});

describe("bearerToken: b64token syntax (RFC 6750 §2.1)", () => {
  it.each([
    ["a token after several spaces (1*SP)", "Bearer   abc", "abc"],
    ["a token with trailing = padding", "Bearer abc==", "abc=="],
    ["every b64token character", "Bearer AZaz09-._~+/", "AZaz09-._~+/"],
    ["a token followed by spaces", "Bearer abc  ", "abc"],
  ])("takes %s", (_what, header, token) => {
    expect(bearerToken(header, "tollgate")).toBe(token);
  });

  it.each([
    ["no token after the scheme", "Bearer"],
    ["= inside the token", "Bearer a=b"],
    ["= only", "Bearer ="],
    ["a comma (an auth-param list, not a token)", "Bearer a,b"],
    ["a quote", 'Bearer "abc"'],
    ["a semicolon", "Bearer abc;x"],
    ["a percent sign", "Bearer abc%20"],
    ["a non-ASCII letter", "Bearer ab\u00e9"],
    ["two tokens", "Bearer abc def"],
  ])("refuses %s with 401 invalid_token", (_what, header) => {
    const err = refusal(header);
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_token");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token", error_description="malformed bearer token"');
  });

  it("never echoes more than 20 characters of another scheme, and only sanitized (RFC 6749 §5.2 character set)", () => {
    const long = refusal(`${"X".repeat(60)} abc`);
    expect(long.message).toContain("X".repeat(20));
    expect(long.message).not.toContain("X".repeat(21));
    const quoted = refusal('Ba"s\\ic abc');
    expect(quoted.message).toContain("Ba's/ic");
    // The scheme is not echoed in the challenge (no error code: §3.1).
    expect(quoted.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate"');
  });
});
