/**
 * RFC 6749 §6 refresh token grant with rotation (RFC 9700 §4.14.2): every use issues a new
 * refresh token and revokes the presented one; `refresh_count` goes up by one; `scope` may
 * narrow, never widen. Presenting a refresh token that was already rotated is treated as
 * theft and revokes the whole family. The family keeps the refresh expiry of its first
 * token, so rotation never extends the PSD2 re-authentication deadline.
 */
import { findUserById } from "../../accounts/users.js";
import { findByRefreshTokenHash, revokeFamily, revokeRefreshToken } from "../../tokens/repository.js";
import { InvalidGrant, InvalidRequest } from "../errors.js";
import { issueToken } from "../issue.js";
import { productsForScopes } from "../products.js";
import { grantScopes, parseScope } from "../scopes.js";
import { hashSecret } from "../secrets.js";
import type { Grant } from "./grant.js";

export const refreshTokenGrant: Grant = {
  type: "refresh_token",
  async handle({ db, client, params, now }) {
    if (params.refresh_token === undefined) throw new InvalidRequest("refresh_token is required");
    const previous = await findByRefreshTokenHash(db, hashSecret(params.refresh_token));
    if (!previous || previous.appId !== client.appId || previous.userId === null || previous.refreshTokenExpiresAt === null) {
      throw new InvalidGrant("the refresh token is invalid");
    }
    const reused = async (): Promise<never> => {
      if (previous.familyId !== null) await revokeFamily(db, previous.familyId, now);
      throw new InvalidGrant("the refresh token was already used; the token family is revoked");
    };
    if (previous.refreshTokenStatus !== "approved") return reused();
    if (previous.refreshTokenExpiresAt <= now) throw new InvalidGrant("the refresh token has expired");
    const scopes = grantScopes(parseScope(params.scope), previous.scopes);
    const user = await findUserById(db, previous.userId);
    if (!user || user.status !== "active") throw new InvalidGrant("the resource owner is disabled");
    if (!(await revokeRefreshToken(db, previous.id))) return reused();

    return issueToken(db, {
      client,
      grantType: "refresh_token",
      scopes,
      apiProducts: productsForScopes(client.products, scopes),
      userId: previous.userId,
      withRefreshToken: true,
      refreshExpiresAt: previous.refreshTokenExpiresAt,
      refreshCount: previous.refreshCount + 1,
      familyId: previous.familyId ?? undefined,
      now,
    });
  },
};
