/**
 * RFC 6749 §4.1.3 authorization code grant, with PKCE (RFC 7636 §4.6) and the replay rule
 * of RFC 6749 §4.1.2 / RFC 9700 §4.14: a code works once; a second use fails with
 * `invalid_grant` and revokes every token issued from it. A code bound to a DPoP key
 * (`dpop_jkt`, RFC 9449 §10) is redeemed only with a proof made with that key.
 */
import { InvalidGrant, InvalidRequest } from "../../kernel/errors.js";
import { newToken } from "../issue.js";
import { verifyS256 } from "../pkce.js";
import { productsForScopes, userTokenScopes } from "../products.js";
import { grantScopes, parseScope } from "../scopes.js";
import { accessEndOf } from "../../consents/requests.js";
import { consentDetails, withDetailsProducts } from "../../consents/grants.js";
import { hashSecret } from "../../kernel/secrets.js";
import { narrowedAudience, requestedResources } from "../resource.js";
import type { Grant } from "./grant.js";

export const authorizationCodeGrant: Grant = {
  type: "authorization_code",
  async handle({ stores, client, params, now, dpopJkt, certificateThumbprint, signer, auditEvent }) {
    const { code: value, redirect_uri: redirectUri, code_verifier: verifier } = params;
    if (value === undefined) throw new InvalidRequest("code is required");
    if (redirectUri === undefined) throw new InvalidRequest("redirect_uri is required");

    const code = await stores.codes.byHash(hashSecret(value));
    if (!code || code.appId !== client.appId) throw new InvalidGrant("the authorization code is invalid");
    const replayed = async (): Promise<never> => {
      await stores.tokens.revokeFamily(code.id, { at: now, by: "system:code_replay" });
      throw new InvalidGrant("the authorization code was already used; tokens issued from it are revoked");
    };
    if (code.usedAt !== null) return replayed();
    if (code.expiresAt <= now) throw new InvalidGrant("the authorization code has expired");
    if (code.redirectUri !== redirectUri) throw new InvalidGrant("redirect_uri does not match the authorization request");
    if (code.codeChallenge !== null) {
      if (verifier === undefined) throw new InvalidGrant("code_verifier is required (PKCE)");
      if (!verifyS256(verifier, code.codeChallenge)) throw new InvalidGrant("code_verifier does not match the code_challenge");
    } else if (verifier !== undefined) {
      throw new InvalidGrant("code_verifier sent but the authorization request had no code_challenge");
    }
    if (code.dpopJkt !== null && code.dpopJkt !== dpopJkt) {
      throw new InvalidGrant("the authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof made with that key");
    }
    if (!(await stores.users.isActive(code.userId))) throw new InvalidGrant("the resource owner is disabled");
    const { consent } = code;
    if (consent?.consentId && (await stores.psd2Consents.find(consent.consentId))?.status !== "valid") {
      throw new InvalidGrant("the PSD2 consent of this authorization code is no longer valid");
    }
    // Authorization details alone (no scope) grant no scope: `scope` may then only be left out.
    const scopes = consent && code.scopes.length === 0 ? grantScopes(parseScope(params.scope), []) : userTokenScopes(params.scope, code.scopes, client.products);
    const details = consent && consentDetails(consent);
    const asked = await requestedResources(params.resource, client, { baseUrl: signer.baseUrl, catalog: stores.catalog });

    const { row, issued } = await newToken({
      client,
      grantType: "authorization_code",
      scopes,
      apiProducts: withDetailsProducts(productsForScopes(client.products, scopes), client.products, details),
      userId: code.userId,
      withRefreshToken: true,
      familyId: code.id,
      jkt: dpopJkt,
      x5t: certificateThumbprint,
      authentication: code.authentication ?? undefined,
      nonce: code.nonce,
      consent: consent ?? undefined,
      notAfter: details ? (accessEndOf(details) ?? undefined) : undefined,
      audience: narrowedAudience(asked, code.resource),
      now,
    }, signer);
    // Using the code and storing its tokens is one transaction, so a concurrent replay either
    // finds the code unused or finds the tokens to revoke.
    return (await stores.tokens.insertRedeemingCode(row, code.id, now, auditEvent(issued))) ? issued : replayed();
  },
};
