/**
 * RFC 6749 §4.4 client credentials grant.
 *
 * Without `scope` the token gets every scope of the credential's approved API products;
 * with `scope` each name must be one of those (else `invalid_scope`) and the token gets
 * exactly those. `api_product_list` is every approved product of the credential.
 * `authorization_details` (RFC 9396 §6.1) of the client's types are carried as asked, and
 * `resource` (RFC 8707) sets the token's audience.
 */
import { newToken } from "../issue.js";
import { productScopes } from "../products.js";
import { grantScopes, parseScope } from "../scopes.js";
import type { Grant } from "./grant.js";
import { clientCredentialsConsent } from "../../consents/grants.js";
import { requestedResources } from "../resource.js";

export const clientCredentialsGrant: Grant = {
  type: "client_credentials",
  async handle({ stores, client, params, now, dpopJkt, certificateThumbprint, signer, auditEvent }) {
    const scopes = grantScopes(parseScope(params.scope), productScopes(client.products));
    const consent = clientCredentialsConsent(client, params.authorization_details, now);
    const audience = await requestedResources(params.resource, client, { baseUrl: signer.baseUrl, catalog: stores.catalog });
    const { row, issued } = await newToken({
      client,
      grantType: "client_credentials",
      scopes,
      apiProducts: client.products.map((p) => p.name),
      jkt: dpopJkt,
      x5t: certificateThumbprint,
      consent: consent ?? undefined,
      audience,
      now,
    }, signer);
    await stores.tokens.insert(row, auditEvent(issued));
    return issued;
  },
};
