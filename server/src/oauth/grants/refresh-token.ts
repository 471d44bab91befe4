/**
 * RFC 6749 §6 refresh token grant with rotation (RFC 9700 §4.14.2): every use issues a new
 * refresh token and revokes the presented one; `refresh_count` goes up by one; `scope` may
 * narrow, never widen. Presenting a refresh token that was already rotated is treated as
 * theft and revokes the whole family. The family keeps the refresh expiry of its first
 * token, so rotation never extends the PSD2 re-authentication deadline.
 *
 * A refresh token bound to a DPoP key (RFC 9449 §5) is used only with a proof made with
 * that key, and its access tokens are bound to the same key. A grant that needed SCA
 * refreshes only within the re-authentication interval after its SCA (oauth/reauthentication.ts). A `fapi2` app's refresh token
 * is not rotated (FAPI 2.0 §5.3.2.1: rotation only in extraordinary circumstances): each
 * use issues an access token alone, in the same family, and the refresh token stays valid.
 * The tokens keep the grant's RFC 9396 authorization details, or the subset the request asks
 * for (§6.2); the refresh expiry, capped at a PSD2 account consent's end, carries over.
 */
import { InvalidGrant, InvalidRequest } from "../../kernel/errors.js";
import { newToken } from "../issue.js";
import { productsForScopes, userTokenScopes } from "../products.js";
import { reauthenticationDue } from "../reauthentication.js";
import { findTokenRow } from "../tokens.js";
import { grantScopes, parseScope } from "../scopes.js";
import { consentDetails, refreshedConsent, withDetailsProducts } from "../../consents/grants.js";
import { narrowedAudience, requestedResources } from "../resource.js";
import type { Grant } from "./grant.js";

/** `invalid_grant` for a rotated refresh token presented again: its family was revoked (theft, RFC 9700 §4.14.2). */
export class RefreshTokenReused extends InvalidGrant {
  constructor() {
    super("the refresh token was already used; the token family is revoked");
  }
}

export const refreshTokenGrant: Grant = {
  type: "refresh_token",
  async handle({ stores, client, params, now, dpopJkt, certificateThumbprint, scaReauthenticationDays, signer, auditEvent }) {
    if (params.refresh_token === undefined) throw new InvalidRequest("refresh_token is required");
    // Read past the token cache: rotation must see the row as committed.
    const found = await findTokenRow(stores.tokens, params.refresh_token, true);
    const previous = found?.type === "refresh_token" ? found.row : undefined;
    if (!previous || previous.appId !== client.appId || previous.userId === null || previous.refreshTokenExpiresAt === null) {
      throw new InvalidGrant("the refresh token is invalid");
    }
    const { userId, refreshTokenExpiresAt } = previous;
    const reused = async (): Promise<never> => {
      if (previous.familyId !== null) await stores.tokens.revokeFamily(previous.familyId, { at: now, by: "system:refresh_token_reuse" });
      throw new RefreshTokenReused();
    };
    if (previous.refreshTokenStatus !== "approved") return reused();
    if (refreshTokenExpiresAt <= now) throw new InvalidGrant("the refresh token has expired");
    if (previous.jkt !== null && previous.jkt !== dpopJkt) {
      throw new InvalidGrant("the refresh token is bound to a DPoP key: send a DPoP proof made with that key");
    }
    // RFC 6749 §6: the scope may not exceed what the resource owner originally granted
    // (the family's authorization code); without `scope`, that original grant. Either way,
    // only scopes the credential's approved products still offer.
    const original = previous.familyId === null ? undefined : await stores.codes.byId(previous.familyId);
    const granted = original?.scopes ?? previous.scopes;
    if (reauthenticationDue(granted, previous.authentication, client.products, scaReauthenticationDays, now)) {
      throw new InvalidGrant(
        `more than ${scaReauthenticationDays} days have passed since the user's last strong customer authentication: a new authorization is needed (PSD2 RTS Art. 10a)`,
      );
    }
    const consent = refreshedConsent(client, previous.consent, params.authorization_details, now);
    const scopes = consent && granted.length === 0 ? grantScopes(parseScope(params.scope), []) : userTokenScopes(params.scope, granted, client.products);
    if (!(await stores.users.isActive(userId))) throw new InvalidGrant("the resource owner is disabled");
    // RFC 8707 §2.2: a refresh may narrow the audience of the grant (its authorization request's resources), never widen it.
    const asked = await requestedResources(params.resource, client, { baseUrl: signer.baseUrl, catalog: stores.catalog });
    const audience = narrowedAudience(asked, original ? original.resource : previous.audience);

    const rotate = client.securityProfile !== "fapi2";
    const { row, issued } = await newToken({
      client,
      grantType: "refresh_token",
      scopes,
      apiProducts: withDetailsProducts(productsForScopes(client.products, scopes), client.products, consent && consentDetails(consent)),
      userId,
      withRefreshToken: rotate,
      refreshExpiresAt: refreshTokenExpiresAt,
      refreshCount: previous.refreshCount + 1,
      familyId: previous.familyId ?? undefined,
      jkt: previous.jkt ?? dpopJkt,
      // RFC 8705 §3: the new access token is bound to the certificate the client authenticates with now (its certificate may have been renewed).
      x5t: certificateThumbprint,
      authentication: previous.authentication ?? undefined,
      consent: consent ?? undefined,
      audience,
      now,
    }, signer);
    if (!rotate) {
      await stores.tokens.insert(row, auditEvent(issued));
      return issued;
    }
    // Rotation is one transaction: revoking the presented refresh token and storing its successor.
    return (await stores.tokens.insertRotating(row, previous.id, auditEvent(issued))) ? issued : reused();
  },
};
