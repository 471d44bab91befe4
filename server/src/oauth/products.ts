/**
 * Which API products and scopes a client may get (decisions.md "Scopes and API products").
 */

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
