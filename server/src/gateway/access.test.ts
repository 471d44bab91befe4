import { describe, expect, it } from "vitest";
import { BearerError } from "../kernel/errors.js";
import { bearerToken } from "../oauth/bearer.js";

const TOKEN = "cl3x9abcdEFGH-._~+/0123456789";

describe("bearerToken (RFC 6750 §2.1)", () => {
  it.each(["Bearer", "bearer", "BEARER", "BearerToken", "bearertoken", "BEARERTOKEN", "bEaReRtOkEn"])("takes the token after the %s scheme", (scheme) => {
    expect(bearerToken(`${scheme} ${TOKEN}`, "tollgate")).toBe(TOKEN);
  });

  /** The BearerError `bearerToken` throws for `header`. @throws when it throws nothing else. */
  function refusal(header: string): BearerError {
    try {
      bearerToken(header, "tollgate");
    } catch (err) {
      expect(err).toBeInstanceOf(BearerError);
      return err as BearerError;
    }
    return expect.unreachable();
  }

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
