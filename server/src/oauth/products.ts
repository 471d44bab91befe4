/**
 * Which API products and scopes a client may get (decisions.md "Scopes and API products").
 */
import { InvalidGrant } from "../kernel/errors.js";
import { grantScopes, openIdScopes, parseScope } from "./scopes.js";

/** An API product approved on a credential. */
export interface ApprovedProduct {
  name: string;
  scopes: readonly string[];
}

/** Distinct scopes of the given products, in product order. */
export function productScopes(products: readonly ApprovedProduct[]): string[] {
  return [...new Set(products.flatMap((p) => p.scopes))];
}

/**
 * Product names for a user token: the products that cover at least one granted scope, or
 * every product when none of them has scopes.
 */
export function productsForScopes(products: readonly ApprovedProduct[], scopes: readonly string[]): string[] {
  if (products.every((p) => p.scopes.length === 0)) return products.map((p) => p.name);
  return products.filter((p) => p.scopes.some((s) => scopes.includes(s))).map((p) => p.name);
}

/**
 * The scopes of a new user token (authorization code exchange or refresh): the requested
 * ones, or without `scope` every scope of the user's grant, counting only the scopes of the
 * grant that the credential's approved products still offer, and the OpenID Connect scopes
 * of a grant with `openid` (scopes.ts openIdScopes). A product revoked on the
 * credential after consent thus adds nothing to a new token, as it stops counting for the
 * tokens already issued (oauth/tokens.ts liveGrant).
 * @param requested - the request's `scope` parameter.
 * @param granted - the scopes the user granted (the authorization code's).
 * @throws InvalidGrant when no scope of the grant is offered any more.
 * @throws InvalidScope when a requested scope is malformed, outside the grant, or no longer offered.
 */
export function userTokenScopes(requested: string | undefined, granted: readonly string[], products: readonly ApprovedProduct[]): string[] {
  const openId = openIdScopes(granted);
  const offered = granted.filter((s) => openId.includes(s) || products.some((p) => p.scopes.includes(s)));
  if (offered.length === 0) throw new InvalidGrant("no scope of this grant is offered by the client's approved API products any more");
  return grantScopes(parseScope(requested), offered);
}
