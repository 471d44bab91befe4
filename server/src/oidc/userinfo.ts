/**
 * The UserInfo endpoint (OpenID Connect Core 1.0 §5.3) at `GET` and `POST /oauth2/v1/userinfo`:
 * the claims about the signed-in user that the granted scopes allow (§5.4), for an access
 * token of a grant with `openid`, presented as the gateway takes tokens: as a bearer token
 * (RFC 6750 §2.1), or with its DPoP proof (RFC 9449 §7) or client certificate (RFC 8705 §3)
 * when bound (gateway/sender.ts).
 */
import type { NextFunction, Request, Response } from "express";
import { BearerError } from "../kernel/errors.js";
import { presentedAccessToken } from "../oauth/bearer.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { OPENID_SCOPE } from "../oauth/scopes.js";
import { findPresentedToken } from "../oauth/tokens.js";
import { checkSender, DPOP_CHALLENGE } from "../gateway/sender.js";
import type { Stores } from "../stores/index.js";
import type { UserRecord } from "../stores/users.js";
import type { Subjects } from "../oauth/subject.js";

/**
 * The UserInfo response (§5.3.2) for `user` and the token's `scopes`: `sub` always, and the
 * claims of oauth/scopes.ts SCOPE_CLAIMS: with `profile` `name`, `given_name`, `family_name`
 * and `preferred_username` (the username); with `email` `email` and `email_verified`. A
 * claim the bank does not hold is left out.
 * @param subject - the user's identifier for the client, as in its ID tokens.
 */
export function userInfoClaims(user: UserRecord, subject: string, scopes: readonly string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: subject };
  const put = (name: string, value: string | boolean | null) => {
    if (value !== null) claims[name] = value;
  };
  if (scopes.includes("profile")) {
    put("name", user.name);
    put("given_name", user.givenName);
    put("family_name", user.familyName);
    put("preferred_username", user.username);
  }
  if (scopes.includes("email") && user.email !== null) {
    put("email", user.email);
    put("email_verified", user.emailVerified);
  }
  return claims;
}

/** What the endpoint checks tokens with: the realm of its challenges, the public base URL and DPoP's settings (gateway/sender.ts). */
export interface UserInfoSettings {
  realm: string;
  baseUrl: string;
  dpop: DpopSettings;
  /** The subject identifiers apps are told (oauth/subject.ts): `sub` is the same as in the app's ID tokens. */
  subjects: Subjects;
}

/**
 * The Express handler (GET and POST alike; a token in a form body is not taken, RFC 6750 §2.2
 * being optional).
 * @returns 200 JSON claims with `Cache-Control: no-store`; 401 `invalid_token` with a Bearer
 *   and DPoP challenge for a missing, unknown, expired, revoked or wrongly presented token or a
 *   user no longer active; 403 `insufficient_scope` (scope `openid`) for a token without
 *   `openid` or without a user (client credentials), §5.3.3 and RFC 6750 §3.1.
 */
export function userInfoEndpoint(stores: Pick<Stores, "tokens" | "clients" | "users">, settings: UserInfoSettings) {
  const { realm, baseUrl, dpop, subjects } = settings;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const presented = presentedAccessToken(req.headers.authorization, realm);
      const now = new Date();
      const found = await findPresentedToken(stores, presented.token, now);
      const challenge = found?.active ? await checkSender(presented, found, req, baseUrl, dpop, realm, now) : presented.scheme === "DPoP" ? DPOP_CHALLENGE : undefined;
      if (!found?.active) throw new BearerError(realm, 401, "invalid_token", "the access token is unknown, expired or revoked", undefined, challenge);
      if (found.userId === null || !found.scopes.includes(OPENID_SCOPE)) {
        throw new BearerError(realm, 403, "insufficient_scope", "UserInfo answers for an access token granted with the openid scope by a user", OPENID_SCOPE, challenge);
      }
      const [user, client] = await Promise.all([stores.users.byId(found.userId), stores.clients.byConsumerKey(found.clientId)]);
      if (!user || user.status !== "active" || !client) throw new BearerError(realm, 401, "invalid_token", "the user of this access token is no longer active", undefined, challenge);
      res.set("Cache-Control", "no-store").set("Pragma", "no-cache").json(userInfoClaims(user, subjects(client, user.id), found.scopes));
    } catch (error) {
      next(error instanceof BearerError ? error.withDpopOffered(DPOP_CHALLENGE) : error);
    }
  };
}
